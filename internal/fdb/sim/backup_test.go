package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

const backupURL = "blobstore://k@host:443/b?bucket=x"

func TestBackupRestorableVersion(t *testing.T) {
	ctx := context.Background()
	// Each case runs a backup to its first snapshot, applies change and
	// checks whether the restorable version still advances afterwards.
	cases := map[string]struct {
		change   func(c *fdbtest.Cluster) error
		advances bool
	}{
		"Running":  {change: func(*fdbtest.Cluster) error { return nil }, advances: true},
		"Paused":   {change: func(c *fdbtest.Cluster) error { return c.Sim.PauseBackups(ctx) }},
		"NoAgents": {change: func(c *fdbtest.Cluster) error { return c.Sim.SetBackupAgents(0) }},
		"Resumed": {change: func(c *fdbtest.Cluster) error {
			if err := c.Sim.PauseBackups(ctx); err != nil {
				return err
			}
			return c.Sim.ResumeBackups(ctx)
		}, advances: true},
		"Stopped": {change: func(c *fdbtest.Cluster) error { return c.Sim.StopBackup(ctx, "") }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1, TotalKVBytes: 1 << 30})
			c.Create(t, fdb.RedundancyTriple)
			if err := c.Sim.SetBackupAgents(1); err != nil {
				t.Fatal(err)
			}
			if err := c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: backupURL, SnapshotPeriodSeconds: 30}); err != nil {
				t.Fatal(err)
			}
			version := func() int64 {
				t.Helper()
				st, err := c.Sim.BackupStatus(ctx, "")
				if err != nil {
					t.Fatal(err)
				}
				return st.LatestRestorableVersion
			}
			if v := version(); v != 0 {
				t.Fatalf("restorable version %d before the first snapshot, want 0", v)
			}
			// 1 GiB at 32 MiB/s takes 32 s: more than the period.
			c.Clock.Step(33 * time.Second)
			if err := tc.change(c); err != nil {
				t.Fatal(err)
			}
			// A stopped backup finishes its current snapshot first.
			c.Clock.Step(time.Minute)
			first := version()
			c.Clock.Step(10 * time.Minute)
			if got := version() > first; got != tc.advances || first == 0 {
				t.Errorf("restorable version %d then %d: advances %v, want %v", first, version(), got, tc.advances)
			}
		})
	}
}

func TestBackupStateMachine(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1, TotalKVBytes: 1 << 30})
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: backupURL, Tag: "t", SnapshotPeriodSeconds: 100}); err != nil {
		t.Fatal(err)
	}
	type observation struct {
		State      fdb.BackupState
		Restorable bool
		Progress   float64
		Layer      fdb.BackupTag
	}
	observe := func() observation {
		t.Helper()
		st, err := c.Sim.BackupStatus(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		tag := c.Status(t).Cluster.Layers.Backup.Tags["t"]
		tag.LastRestorableVersion, tag.LastRestorableSecondsBehind = 0, 0
		return observation{st.State, st.Restorable, st.SnapshotProgress, tag}
	}
	var got []observation
	got = append(got, observe()) // no agent: no progress
	c.Clock.Step(time.Minute)
	got = append(got, observe())
	if err := c.Sim.SetBackupAgents(2); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(50 * time.Second)
	got = append(got, observe()) // half of the snapshot
	c.Clock.Step(50 * time.Second)
	got = append(got, observe()) // restorable, next snapshot
	if err := c.Sim.StopBackup(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(100 * time.Second)
	got = append(got, observe()) // completed after the current snapshot
	running := fdb.BackupTag{CurrentContainer: backupURL, CurrentStatus: "has been started", RunningBackup: true}
	differential := fdb.BackupTag{CurrentContainer: backupURL, CurrentStatus: "is differential", RunningBackup: true, RunningBackupIsRestorable: true, RangeBytesWritten: 1 << 30}
	completed := fdb.BackupTag{CurrentContainer: backupURL, CurrentStatus: "has been completed", RangeBytesWritten: 2 << 30}
	halfway := running
	halfway.RangeBytesWritten = 50 * ((1<<30 + 99) / 100)
	want := []observation{
		{fdb.BackupRunning, false, 0, running},
		{fdb.BackupRunning, false, 0, running},
		{fdb.BackupRunning, false, 100 * float64(halfway.RangeBytesWritten) / (1 << 30), halfway},
		{fdb.BackupRunningDifferentially, true, 0, differential},
		{fdb.BackupCompleted, true, 0, completed},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backup states (-want +got):\n%s", diff)
	}
}

func TestRestoreNeedsAgents(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1, RestoreBytes: 64 << 20})
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.StartRestore(ctx, fdb.RestoreRequest{URL: backupURL}); err != nil {
		t.Fatal(err)
	}
	observe := func() fdb.RestoreStatus {
		t.Helper()
		st, err := c.Sim.RestoreStatus(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return *st
	}
	c.Clock.Step(time.Hour)
	var got []fdb.RestoreStatus
	got = append(got, observe())
	if err := c.Sim.SetBackupAgents(1); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		c.Clock.Step(time.Second)
		got = append(got, observe())
	}
	tag := fdb.DefaultBackupTag
	want := []fdb.RestoreStatus{
		{Tag: tag, State: fdb.RestoreQueued, BlocksTotal: 64},
		{Tag: tag, State: fdb.RestoreStarting, BlocksTotal: 64},
		{Tag: tag, State: fdb.RestoreRunning, BlocksTotal: 64},
		{Tag: tag, State: fdb.RestoreRunning, BlocksDone: 32, BlocksTotal: 64, BytesWritten: 32 << 20},
		{Tag: tag, State: fdb.RestoreCompleted, BlocksDone: 64, BlocksTotal: 64, BytesWritten: 64 << 20},
		{Tag: tag, State: fdb.RestoreCompleted, BlocksDone: 64, BlocksTotal: 64, BytesWritten: 64 << 20},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("restore progress (-want +got):\n%s", diff)
	}
}
