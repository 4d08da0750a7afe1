package dbmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func cluster() *v1alpha1.Cluster {
	cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "orders"}}
	cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = "double"
	at := &cr.Status.AtProvider
	at.ProcessGroups = v1alpha1.ProcessGroupCounts{Total: 4, ByClass: map[string]int{"storage": 3, "log": 1}, Removing: 1}
	at.Health.LastRecoveryTime = &metav1.Time{Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	at.GlobalLock = &v1alpha1.GlobalLockObservation{Holder: "provider-0"}
	return cr
}

func status() *fdb.Status {
	s := &fdb.Status{}
	s.Client.DatabaseStatus = fdb.DatabaseStatus{Available: true, Healthy: true}
	s.Client.Coordinators.QuorumReachable = true
	c := &s.Cluster
	c.FaultTolerance = fdb.FaultTolerance{MaxZoneFailuresWithoutLosingData: 1, MaxZoneFailuresWithoutLosingAvailability: 1}
	c.Data.State = fdb.DataState{Name: fdb.DataHealthyRemovingServer, Healthy: true, MinReplicasRemaining: 2}
	c.Data.MovingData = fdb.MovingData{InFlightBytes: 100, InQueueBytes: 300}
	c.Data.TotalKVSizeBytes = 5000
	c.RecoveryState = fdb.RecoveryState{Name: "fully_recovered", ActiveGenerations: 1}
	c.Generation = 7
	c.Processes = map[string]fdb.Process{
		"a": {ClassType: "storage", Roles: []fdb.ProcessRole{{Role: fdb.RoleStorage}}},
		"b": {ClassType: "storage", Degraded: true, Roles: []fdb.ProcessRole{{Role: fdb.RoleStorage}}},
		"c": {ClassType: "storage", Excluded: true, Roles: []fdb.ProcessRole{{Role: fdb.RoleStorage, StoredBytes: 1200}}},
		"d": {ClassType: "log", Excluded: true, Roles: []fdb.ProcessRole{}},
		// Roles unknown: not known to be drained.
		"e": {ClassType: "log", Excluded: true},
	}
	c.Layers.Backup.Tags = map[string]fdb.BackupTag{
		"default": {RunningBackup: true, RunningBackupIsRestorable: true, LastRestorableSecondsBehind: 4.5},
		"old":     {},
	}
	return s
}

func TestCluster(t *testing.T) {
	const withStatus = `
# HELP fdb_cluster_backup_tag_last_restorable_behind_seconds How far the last restorable version of the tag's backup is behind the database.
# TYPE fdb_cluster_backup_tag_last_restorable_behind_seconds gauge
fdb_cluster_backup_tag_last_restorable_behind_seconds{cluster="orders",namespace="team-a",tag="default"} 4.5
# HELP fdb_cluster_backup_tag_running_backup 1 while the backup of the tag runs.
# TYPE fdb_cluster_backup_tag_running_backup gauge
fdb_cluster_backup_tag_running_backup{cluster="orders",namespace="team-a",tag="default"} 1
fdb_cluster_backup_tag_running_backup{cluster="orders",namespace="team-a",tag="old"} 0
# HELP fdb_cluster_data_state 1 for the data distribution state the database is in (cluster.data.state.name).
# TYPE fdb_cluster_data_state gauge
fdb_cluster_data_state{cluster="orders",name="healthy_removing_server",namespace="team-a"} 1
# HELP fdb_database_available 1 when the database is available.
# TYPE fdb_database_available gauge
fdb_database_available{cluster="orders",namespace="team-a"} 1
# HELP fdb_provider_excluded_processes Excluded processes: draining while they still serve a role, drained once they serve none.
# TYPE fdb_provider_excluded_processes gauge
fdb_provider_excluded_processes{cluster="orders",namespace="team-a",state="drained"} 1
fdb_provider_excluded_processes{cluster="orders",namespace="team-a",state="draining"} 2
# HELP fdb_provider_excluded_stored_bytes Bytes the storage servers of excluded processes still hold: the data their exclusion has left to move.
# TYPE fdb_provider_excluded_stored_bytes gauge
fdb_provider_excluded_stored_bytes{cluster="orders",namespace="team-a"} 1200
# HELP fdb_provider_global_lock_holder 1 for the provider instance holding the database's global lock, while it holds it.
# TYPE fdb_provider_global_lock_holder gauge
fdb_provider_global_lock_holder{cluster="orders",holder="provider-0",namespace="team-a"} 1
# HELP fdb_provider_last_recovery_timestamp_seconds When the database last recovered, in seconds since the epoch.
# TYPE fdb_provider_last_recovery_timestamp_seconds gauge
fdb_provider_last_recovery_timestamp_seconds{cluster="orders",namespace="team-a"} 1.7960292e+09
# HELP fdb_provider_processes Processes the database reports, by class and state (excluded, degraded or ok).
# TYPE fdb_provider_processes gauge
fdb_provider_processes{class="log",cluster="orders",namespace="team-a",state="excluded"} 2
fdb_provider_processes{class="storage",cluster="orders",namespace="team-a",state="degraded"} 1
fdb_provider_processes{class="storage",cluster="orders",namespace="team-a",state="excluded"} 1
fdb_provider_processes{class="storage",cluster="orders",namespace="team-a",state="ok"} 1
# HELP fdb_provider_status_up 1 when the Cluster's last reconcile read the database status; 0 when it could not, and the status figures are absent.
# TYPE fdb_provider_status_up gauge
fdb_provider_status_up{cluster="orders",namespace="team-a"} 1
`
	const withoutStatus = `
# HELP fdb_provider_global_lock_holder 1 for the provider instance holding the database's global lock, while it holds it.
# TYPE fdb_provider_global_lock_holder gauge
fdb_provider_global_lock_holder{cluster="orders",holder="provider-0",namespace="team-a"} 1
# HELP fdb_provider_last_recovery_timestamp_seconds When the database last recovered, in seconds since the epoch.
# TYPE fdb_provider_last_recovery_timestamp_seconds gauge
fdb_provider_last_recovery_timestamp_seconds{cluster="orders",namespace="team-a"} 1.7960292e+09
# HELP fdb_provider_status_up 1 when the Cluster's last reconcile read the database status; 0 when it could not, and the status figures are absent.
# TYPE fdb_provider_status_up gauge
fdb_provider_status_up{cluster="orders",namespace="team-a"} 0
`
	names := []string{
		BackupLag.Name, BackupRunning.Name, DataState.Name, Available.Name, Excluded.Name, ExcludedStored.Name,
		GlobalLockHolder.Name, LastRecovery.Name, Processes.Name, StatusUp.Name,
	}
	cases := map[string]struct {
		reads []*fdb.Status
		want  string
	}{
		"StatusRead":       {reads: []*fdb.Status{status()}, want: withStatus},
		"NoStatusThisPass": {reads: []*fdb.Status{status(), nil}, want: withoutStatus},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := New(prometheus.NewRegistry())
			for _, s := range tc.reads {
				r.Cluster(cluster(), s)
			}
			if err := testutil.CollectAndCompare(r, strings.NewReader(tc.want), names...); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestForget(t *testing.T) {
	r := New(prometheus.NewRegistry())
	r.Cluster(cluster(), status())
	restore := &v1alpha1.Restore{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "r1"}}
	restore.Spec.ForProvider.ClusterName = "orders"
	restore.Status.AtProvider = v1alpha1.RestoreObservation{State: v1alpha1.RestoreRunning, Progress: 40}
	r.Restore(restore)
	const restoring = `
# HELP fdb_provider_restore_progress_ratio How much of the Restore is done, from 0 to 1.
# TYPE fdb_provider_restore_progress_ratio gauge
fdb_provider_restore_progress_ratio{cluster="orders",namespace="team-a",restore="r1"} 0.4
`
	if err := testutil.CollectAndCompare(r, strings.NewReader(restoring), RestoreDone.Name); err != nil {
		t.Error(err)
	}
	r.Forget(KindCluster, "team-a", "orders")
	r.Forget(KindRestore, "team-a", "r1")
	if n := testutil.CollectAndCount(r); n != 0 {
		t.Errorf("after Forget: %d samples, want none", n)
	}
}

// TestEveryMetricDescribed holds All to the metrics Collect can send: a
// metric left out of All would fail registration's consistency check.
func TestEveryMetricDescribed(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	r := New(reg)
	r.Cluster(cluster(), status())
	restore := &v1alpha1.Restore{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "r1"}}
	r.Restore(restore)
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}
