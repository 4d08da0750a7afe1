package backup

import (
	"fmt"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// stepKind names the one mutation a reconcile of a Backup makes.
type stepKind string

// Step kinds. The FoundationDB ones are the names of the actions the gate
// decides on.
const (
	stepCreateAgents stepKind = "CreateAgents"
	stepUpdateAgents stepKind = "UpdateAgents"
	stepWait         stepKind = "Wait"
	stepStart        stepKind = "StartBackup"
	stepStop         stepKind = "StopBackup"
	stepPause        stepKind = "PauseBackup"
	stepResume       stepKind = "ResumeBackup"
	stepModify       stepKind = "ModifyBackup"
)

// facts are what the planner knows of a backup: its spec (defaulted) and
// what one reconcile observed.
type facts struct {
	// ClusterGone: the Backup's Cluster does not exist; nothing is done
	// but removing the agents when the Backup is deleted.
	ClusterGone bool

	// Desired.
	State          v1alpha1.BackupState
	Tag            string
	AgentCount     int
	SnapshotPeriod int

	// AgentsExist: the agents Deployment exists (and is not being deleted);
	// AgentsCurrent: its spec is the one the provider builds now;
	// AgentReplicas: its spec.replicas.
	AgentsExist   bool
	AgentsCurrent bool
	AgentReplicas int

	// Unreadable says why the backup layer could not be read; "" when it
	// was. The fields below are meaningful only when it was read.
	Unreadable string
	// Running: a backup runs on the tag; Paused: the cluster's backup
	// agents are paused; Period: the running backup's snapshot period
	// (0 when unknown).
	Running bool
	Paused  bool
	Period  int
}

// backupStep is the planned mutation and what it is for.
type backupStep struct {
	kind    stepKind
	message string
}

// next plans the one next step, or nil when the backup is as its spec says.
// The agents come first (a backup makes no progress without them), then the
// backup's state: start, stop, pause or resume, then its snapshot period.
// Pausing is cluster-wide in FoundationDB; a Backup that is to be stopped
// while the agents are paused resumes them as part of stopping (see
// stepStop), as a discontinued backup finishes only once its snapshot
// does.
func next(f facts) *backupStep {
	switch {
	case f.ClusterGone:
		return &backupStep{stepWait, msgClusterGone}
	case !f.AgentsExist:
		return &backupStep{stepCreateAgents, fmt.Sprintf("creating %d backup agents", f.AgentCount)}
	case !f.AgentsCurrent:
		return &backupStep{stepUpdateAgents, "updating the backup agents' spec"}
	case f.AgentReplicas != f.AgentCount:
		return &backupStep{stepUpdateAgents, fmt.Sprintf("scaling the backup agents from %d to %d", f.AgentReplicas, f.AgentCount)}
	case f.Unreadable != "":
		return &backupStep{stepWait, f.Unreadable}
	case f.State != v1alpha1.BackupStopped && !f.Running:
		return &backupStep{stepStart, fmt.Sprintf("starting the backup on tag %q", f.Tag)}
	case f.State == v1alpha1.BackupStopped && f.Running && f.Paused:
		return &backupStep{stepStop, fmt.Sprintf("stopping the backup on tag %q and resuming the paused agents: it completes after its current snapshot", f.Tag)}
	case f.State == v1alpha1.BackupStopped && f.Running:
		return &backupStep{stepStop, fmt.Sprintf("stopping the backup on tag %q: it completes after its current snapshot", f.Tag)}
	case f.State == v1alpha1.BackupPaused && !f.Paused:
		return &backupStep{stepPause, "pausing the cluster's backup agents"}
	case f.State == v1alpha1.BackupRunning && f.Paused:
		return &backupStep{stepResume, "resuming the cluster's backup agents"}
	case f.State != v1alpha1.BackupStopped && f.Period > 0 && f.Period != f.SnapshotPeriod:
		return &backupStep{stepModify, fmt.Sprintf("changing the snapshot period of tag %q from %ds to %ds", f.Tag, f.Period, f.SnapshotPeriod)}
	}
	return nil
}

// ready says whether the backup is in its desired state with all its
// agents ready, and if not, why.
func ready(f facts, agentsReady int) (bool, string) {
	switch {
	case f.Unreadable != "":
		return false, f.Unreadable
	case agentsReady < f.AgentCount:
		return false, fmt.Sprintf("%d of %d backup agents ready", agentsReady, f.AgentCount)
	case f.State == v1alpha1.BackupStopped && f.Running:
		return false, "the backup is still running"
	case f.State != v1alpha1.BackupStopped && !f.Running:
		return false, "the backup is not running"
	case f.State == v1alpha1.BackupPaused && !f.Paused:
		return false, "the backup agents are not paused"
	case f.State == v1alpha1.BackupRunning && f.Paused:
		return false, "the backup agents are paused"
	}
	return true, ""
}

// restorableVersionAge is the age, in seconds, of the newest version the
// backup on a tag can restore to. FoundationDB reports it in status json as
// cluster.layers.backup.tags.<tag>.last_restorable_seconds_behind: how far
// the restorable version trails the database's current version, at about
// 1,000,000 versions per second ((current − restorable) / 1e6). A backup
// with no restorable version (its first snapshot has not completed, or the
// layer does not report the tag) has no restore point to offer: it counts
// as old as its Backup resource, created at created.
func restorableVersionAge(tag fdb.BackupTag, reported bool, created, now time.Time) int64 {
	if reported && tag.LastRestorableVersion > 0 {
		return int64(tag.LastRestorableSecondsBehind)
	}
	return max(int64(now.Sub(created)/time.Second), 0)
}

// lastRunning reports whether no backup other than the one on tag runs on
// the cluster.
func lastRunning(layer fdb.BackupLayer, tag string) bool {
	for t, b := range layer.Tags {
		if t != tag && b.RunningBackup {
			return false
		}
	}
	return true
}
