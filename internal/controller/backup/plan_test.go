package backup

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// settled is a running backup whose agents and period match its spec.
func settled(mod ...func(*facts)) facts {
	f := facts{
		State: v1alpha1.BackupRunning, Tag: "default", AgentCount: 2, SnapshotPeriod: 600,
		AgentsExist: true, AgentsCurrent: true, AgentReplicas: 2,
		Running: true, Period: 600,
	}
	for _, m := range mod {
		m(&f)
	}
	return f
}

func TestNext(t *testing.T) {
	cases := map[string]struct {
		reason string
		facts  facts
		want   *backupStep
	}{
		"Settled": {
			reason: "a running backup as its spec says needs nothing",
			facts:  settled(),
		},
		"ClusterGone": {
			reason: "without its Cluster a Backup builds no agents (it knows no version or cluster file) and starts nothing",
			facts: settled(func(f *facts) {
				f.ClusterGone, f.AgentsExist, f.Running, f.Unreadable = true, false, false, msgClusterGone
			}),
			want: &backupStep{stepWait, msgClusterGone},
		},
		"NoAgents": {
			reason: "the agents come first",
			facts:  settled(func(f *facts) { f.AgentsExist, f.Running = false, false }),
			want:   &backupStep{stepCreateAgents, "creating 2 backup agents"},
		},
		"AgentsDrifted": {
			reason: "an agents Deployment whose spec drifted is updated before anything else",
			facts:  settled(func(f *facts) { f.AgentsCurrent, f.State = false, v1alpha1.BackupStopped }),
			want:   &backupStep{stepUpdateAgents, "updating the backup agents' spec"},
		},
		"ScaleAgents": {
			reason: "the agent count is the Deployment's replicas",
			facts:  settled(func(f *facts) { f.AgentCount = 5 }),
			want:   &backupStep{stepUpdateAgents, "scaling the backup agents from 2 to 5"},
		},
		"Unreadable": {
			reason: "without the backup layer nothing else is planned",
			facts:  settled(func(f *facts) { f.Unreadable, f.Running = "database unavailable", false }),
			want:   &backupStep{stepWait, "database unavailable"},
		},
		"Start": {
			reason: "a backup to run that does not is started",
			facts:  settled(func(f *facts) { f.Running, f.Period = false, 0 }),
			want:   &backupStep{stepStart, `starting the backup on tag "default"`},
		},
		"StartPaused": {
			reason: "a backup to pause is started first",
			facts:  settled(func(f *facts) { f.State, f.Running, f.Period = v1alpha1.BackupPaused, false, 0 }),
			want:   &backupStep{stepStart, `starting the backup on tag "default"`},
		},
		"Stop": {
			reason: "a backup to stop that runs is stopped",
			facts:  settled(func(f *facts) { f.State = v1alpha1.BackupStopped }),
			want:   &backupStep{stepStop, `stopping the backup on tag "default": it completes after its current snapshot`},
		},
		"StopPaused": {
			reason: "stopping a paused backup resumes the agents so it can finish",
			facts:  settled(func(f *facts) { f.State, f.Paused = v1alpha1.BackupStopped, true }),
			want:   &backupStep{stepStop, `stopping the backup on tag "default" and resuming the paused agents: it completes after its current snapshot`},
		},
		"StoppedAndPaused": {
			reason: "a stopped backup leaves the cluster-wide pause alone",
			facts:  settled(func(f *facts) { f.State, f.Running, f.Paused, f.Period = v1alpha1.BackupStopped, false, true, 0 }),
		},
		"StoppedWithOtherPeriod": {
			reason: "a stopped backup's period is not modified",
			facts:  settled(func(f *facts) { f.State, f.Running, f.Period, f.SnapshotPeriod = v1alpha1.BackupStopped, false, 0, 60 }),
		},
		"Pause": {
			reason: "a running backup to pause pauses the agents",
			facts:  settled(func(f *facts) { f.State = v1alpha1.BackupPaused }),
			want:   &backupStep{stepPause, "pausing the cluster's backup agents"},
		},
		"Paused": {
			reason: "a paused backup to pause needs nothing",
			facts:  settled(func(f *facts) { f.State, f.Paused = v1alpha1.BackupPaused, true }),
		},
		"Resume": {
			reason: "a backup to run with paused agents resumes them",
			facts:  settled(func(f *facts) { f.Paused = true }),
			want:   &backupStep{stepResume, "resuming the cluster's backup agents"},
		},
		"Modify": {
			reason: "a running backup with another snapshot period is modified",
			facts:  settled(func(f *facts) { f.SnapshotPeriod = 60 }),
			want:   &backupStep{stepModify, `changing the snapshot period of tag "default" from 600s to 60s`},
		},
		"ModifyAfterResume": {
			reason: "one step per reconcile: resuming comes before modifying",
			facts:  settled(func(f *facts) { f.SnapshotPeriod, f.Paused = 60, true }),
			want:   &backupStep{stepResume, "resuming the cluster's backup agents"},
		},
		"UnknownPeriod": {
			reason: "a period FoundationDB does not report is not modified",
			facts:  settled(func(f *facts) { f.Period = 0 }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, next(tc.facts), cmp.AllowUnexported(backupStep{})); diff != "" {
				t.Errorf("%s\nnext: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReady(t *testing.T) {
	type result struct {
		Ready bool
		Why   string
	}
	cases := map[string]struct {
		facts       facts
		agentsReady int
		want        result
	}{
		"Running":          {facts: settled(), agentsReady: 2, want: result{Ready: true}},
		"AgentsNotReady":   {facts: settled(), agentsReady: 1, want: result{Why: "1 of 2 backup agents ready"}},
		"Unreadable":       {facts: settled(func(f *facts) { f.Unreadable = "no database" }), agentsReady: 2, want: result{Why: "no database"}},
		"NotRunning":       {facts: settled(func(f *facts) { f.Running = false }), agentsReady: 2, want: result{Why: "the backup is not running"}},
		"RunningButPaused": {facts: settled(func(f *facts) { f.Paused = true }), agentsReady: 2, want: result{Why: "the backup agents are paused"}},
		"Paused": {
			facts: settled(func(f *facts) { f.State, f.Paused = v1alpha1.BackupPaused, true }), agentsReady: 2, want: result{Ready: true},
		},
		"NotYetPaused": {
			facts: settled(func(f *facts) { f.State = v1alpha1.BackupPaused }), agentsReady: 2, want: result{Why: "the backup agents are not paused"},
		},
		"Stopped": {
			facts: settled(func(f *facts) { f.State, f.Running = v1alpha1.BackupStopped, false }), agentsReady: 2, want: result{Ready: true},
		},
		"Stopping": {
			facts: settled(func(f *facts) { f.State = v1alpha1.BackupStopped }), agentsReady: 2, want: result{Why: "the backup is still running"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ok, why := ready(tc.facts, tc.agentsReady)
			if diff := cmp.Diff(tc.want, result{ok, why}); diff != "" {
				t.Errorf("ready: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestRestorableVersionAge(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason   string
		tag      fdb.BackupTag
		reported bool
		now      time.Time
		want     int64
	}{
		"Restorable": {
			reason:   "the restorable version trails the current version by last_restorable_seconds_behind",
			tag:      fdb.BackupTag{LastRestorableVersion: 42_000_000, LastRestorableSecondsBehind: 3601.7},
			reported: true, now: created.Add(48 * time.Hour), want: 3601,
		},
		"JustRestorable": {
			reason:   "a snapshot that just completed is restorable at the current version",
			tag:      fdb.BackupTag{LastRestorableVersion: 42_000_000},
			reported: true, now: created.Add(48 * time.Hour), want: 0,
		},
		"NotYetRestorable": {
			reason:   "without a restorable version the backup counts as old as its Backup",
			tag:      fdb.BackupTag{RunningBackup: true},
			reported: true, now: created.Add(90 * time.Minute), want: 5400,
		},
		"NotReported": {
			reason: "a tag the layer does not report has no restorable version either",
			now:    created.Add(10 * time.Second), want: 10,
		},
		"ClockBehind": {
			reason: "a creation time in the future is no negative age",
			now:    created.Add(-time.Minute), want: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, restorableVersionAge(tc.tag, tc.reported, created, tc.now)); diff != "" {
				t.Errorf("%s\nrestorableVersionAge: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestLastRunning(t *testing.T) {
	cases := map[string]struct {
		tags map[string]fdb.BackupTag
		want bool
	}{
		"Alone":          {tags: map[string]fdb.BackupTag{"default": {RunningBackup: true}}, want: true},
		"NoTags":         {want: true},
		"OtherStopped":   {tags: map[string]fdb.BackupTag{"default": {RunningBackup: true}, "old": {CurrentStatus: "has been completed"}}, want: true},
		"AnotherRunning": {tags: map[string]fdb.BackupTag{"default": {RunningBackup: true}, "hourly": {RunningBackup: true}}, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, lastRunning(fdb.BackupLayer{Tags: tc.tags}, "default")); diff != "" {
				t.Errorf("lastRunning: -want, +got:\n%s", diff)
			}
		})
	}
}
