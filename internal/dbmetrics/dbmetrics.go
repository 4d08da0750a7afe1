// Package dbmetrics exports, per database, what people who run FoundationDB
// graph: fault tolerance, availability, data distribution, recovery,
// exclusions, processes, backups, restores and the global lock. Every figure
// comes from what a reconcile already observed (the Cluster's status read of
// its pass, a Restore's restore status): recording costs the database no read.
//
// Where a widely used FoundationDB exporter names a figure of `status json`,
// the metric has that name (docs/OPERATING.md cites them); figures of the
// provider's own making are prefixed fdb_provider_. Every metric carries the
// labels namespace and cluster.
//
// A database whose status could not be read in a pass keeps only
// fdb_provider_status_up 0 and the figures of the provider's own record:
// the status figures of an earlier read are dropped, never shown as
// current.
package dbmetrics

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Labels every metric carries.
const (
	LabelNamespace = "namespace"
	LabelCluster   = "cluster"
)

// Metric is one exported metric: its name and the labels it has besides
// namespace and cluster.
type Metric struct {
	Name   string
	Help   string
	Labels []string
	desc   *prometheus.Desc
}

func metric(name, help string, labels ...string) *Metric {
	m := &Metric{Name: name, Help: help, Labels: labels}
	m.desc = prometheus.NewDesc(name, help, append([]string{LabelNamespace, LabelCluster}, labels...), nil)
	return m
}

// The metrics taken from the status FoundationDB reports.
var (
	FaultToleranceData = metric("fdb_cluster_fault_tolerance_max_zone_failures_without_losing_data",
		"Zones that may fail without losing data, as the status reports it.")
	FaultToleranceAvailability = metric("fdb_cluster_fault_tolerance_max_zone_failures_without_losing_availability",
		"Zones that may fail without losing availability, as the status reports it.")
	Available = metric("fdb_database_available", "1 when the database is available.")
	Healthy   = metric("fdb_database_healthy", "1 when the database reports itself healthy.")
	DataState = metric("fdb_cluster_data_state",
		"1 for the data distribution state the database is in (cluster.data.state.name).", "name")
	MinReplicasRemaining = metric("fdb_cluster_data_state_min_replicas_remaining",
		"The fewest replicas any shard has left.")
	MovingInFlight = metric("fdb_cluster_data_moving_data_in_flight_bytes", "Bytes data distribution is moving now.")
	MovingInQueue  = metric("fdb_cluster_data_moving_data_in_queue_bytes", "Bytes queued for data distribution to move.")
	KVSize         = metric("fdb_cluster_data_total_kv_size_bytes", "Logical size of the key-value pairs stored.")
	RecoveryState  = metric("fdb_cluster_recovery_state",
		"1 for the recovery state the database is in (cluster.recovery_state.name).", "name")
	ActiveGenerations = metric("fdb_cluster_recovery_state_active_generations",
		"Log system generations still active: more than one while a recovery has data to copy.")
	Generation     = metric("fdb_cluster_generation", "The recovery generation: it grows with every recovery.")
	QuorumOK       = metric("fdb_client_coordinators_quorum_reachable", "1 when a quorum of the coordinators is reachable.")
	Degraded       = metric("fdb_cluster_degraded_processes", "Processes the database reports degraded.")
	BackupPaused   = metric("fdb_cluster_backup_paused", "1 while the backup agents are paused.")
	BackupRunning  = metric("fdb_cluster_backup_tag_running_backup", "1 while the backup of the tag runs.", "tag")
	BackupRestorab = metric("fdb_cluster_backup_tag_running_backup_restorable",
		"1 when the running backup of the tag can be restored.", "tag")
	BackupLag = metric("fdb_cluster_backup_tag_last_restorable_behind_seconds",
		"How far the last restorable version of the tag's backup is behind the database.", "tag")
)

// The metrics of the provider's own making.
var (
	StatusUp = metric("fdb_provider_status_up",
		"1 when the Cluster's last reconcile read the database status; 0 when it could not, and the status figures are absent.")
	FaultTolerance = metric("fdb_provider_fault_tolerance",
		"Zones that may fail, as the safety policies see it: the status's figure, no more than leaves a quorum of reachable coordinators.")
	DesiredFaultTolerance = metric("fdb_provider_desired_fault_tolerance",
		"Zones the redundancy mode is meant to survive.")
	LastRecovery = metric("fdb_provider_last_recovery_timestamp_seconds",
		"When the database last recovered, in seconds since the epoch.")
	Excluded = metric("fdb_provider_excluded_processes",
		"Excluded processes: draining while they still serve a role, drained once they serve none.", "state")
	ExcludedStored = metric("fdb_provider_excluded_stored_bytes",
		"Bytes the storage servers of excluded processes still hold: the data their exclusion has left to move.")
	Processes = metric("fdb_provider_processes",
		"Processes the database reports, by class and state (excluded, degraded or ok).", "class", "state")
	ProcessGroups = metric("fdb_provider_process_groups",
		"The Cluster's process groups by class.", "class")
	ProcessGroupsRemoving = metric("fdb_provider_process_groups_removing",
		"Process groups being removed (excluded, drained, then deleted).")
	GlobalLockHolder = metric("fdb_provider_global_lock_holder",
		"1 for the provider instance holding the database's global lock, while it holds it.", "holder")
	RestoreRunning = metric("fdb_provider_restore_running", "1 while the Restore runs.", "restore")
	RestoreDone    = metric("fdb_provider_restore_progress_ratio", "How much of the Restore is done, from 0 to 1.", "restore")
)

// All is every metric the package exports.
var All = []*Metric{
	FaultToleranceData, FaultToleranceAvailability, Available, Healthy, DataState, MinReplicasRemaining,
	MovingInFlight, MovingInQueue, KVSize, RecoveryState, ActiveGenerations, Generation, QuorumOK, Degraded,
	BackupPaused, BackupRunning, BackupRestorab, BackupLag,
	StatusUp, FaultTolerance, DesiredFaultTolerance, LastRecovery, Excluded, ExcludedStored, Processes,
	ProcessGroups, ProcessGroupsRemoving, GlobalLockHolder, RestoreRunning, RestoreDone,
}

// Recorder holds the figures last recorded for each resource and hands them
// to Prometheus on every scrape. A resource's figures are replaced whole,
// so a scrape never sees half of one pass and half of another. A nil
// Recorder records nothing.
type Recorder struct {
	mu      sync.Mutex
	samples map[key][]prometheus.Metric
}

type key struct{ kind, namespace, name string }

// The kinds whose figures a Recorder holds.
const (
	KindCluster = "Cluster"
	KindRestore = "Restore"
)

// New returns a Recorder registered with reg.
func New(reg prometheus.Registerer) *Recorder {
	r := &Recorder{samples: map[key][]prometheus.Metric{}}
	reg.MustRegister(r)
	return r
}

// Default is the Recorder the provider's /metrics serves.
var Default = New(metrics.Registry)

// Describe sends every metric's description.
func (r *Recorder) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range All {
		ch <- m.desc
	}
}

// Collect sends the figures last recorded.
func (r *Recorder) Collect(ch chan<- prometheus.Metric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ms := range r.samples {
		for _, m := range ms {
			ch <- m
		}
	}
}

// Cluster records what a Cluster's reconcile observed: cr with its status
// as this pass filled it in, and s, the database status read in this pass
// (nil when none could be read).
func (r *Recorder) Cluster(cr *v1alpha1.Cluster, s *fdb.Status) {
	if r == nil {
		return
	}
	b := batch{labels: []string{cr.GetNamespace(), cr.GetName()}}
	at := cr.Status.AtProvider
	b.add(StatusUp, boolean(s != nil))
	b.add(DesiredFaultTolerance, float64(policy.DesiredFaultTolerance(string(cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode))))
	if t := at.Health.LastRecoveryTime; t != nil {
		b.add(LastRecovery, float64(t.Unix()))
	}
	for _, class := range slices.Sorted(maps.Keys(at.ProcessGroups.ByClass)) {
		b.add(ProcessGroups, float64(at.ProcessGroups.ByClass[class]), class)
	}
	b.add(ProcessGroupsRemoving, float64(at.ProcessGroups.Removing))
	if l := at.GlobalLock; l != nil {
		b.add(GlobalLockHolder, 1, l.Holder)
	}
	if s != nil {
		b.status(s)
	}
	r.set(key{KindCluster, cr.GetNamespace(), cr.GetName()}, b.ms)
}

// status adds the figures of a database status.
func (b *batch) status(s *fdb.Status) {
	c := s.Cluster
	b.add(FaultToleranceData, float64(c.FaultTolerance.MaxZoneFailuresWithoutLosingData))
	b.add(FaultToleranceAvailability, float64(c.FaultTolerance.MaxZoneFailuresWithoutLosingAvailability))
	b.add(FaultTolerance, float64(s.ZoneFailuresTolerated()))
	b.add(Available, boolean(s.Client.DatabaseStatus.Available))
	b.add(Healthy, boolean(s.Client.DatabaseStatus.Healthy))
	b.add(QuorumOK, boolean(s.Client.Coordinators.QuorumReachable))
	if c.Data.State.Name != "" {
		b.add(DataState, 1, c.Data.State.Name)
		b.add(MinReplicasRemaining, float64(c.Data.State.MinReplicasRemaining))
	}
	b.add(MovingInFlight, float64(c.Data.MovingData.InFlightBytes))
	b.add(MovingInQueue, float64(c.Data.MovingData.InQueueBytes))
	b.add(KVSize, float64(c.Data.TotalKVSizeBytes))
	if c.RecoveryState.Name != "" {
		b.add(RecoveryState, 1, c.RecoveryState.Name)
		b.add(ActiveGenerations, float64(c.RecoveryState.ActiveGenerations))
	}
	b.add(Generation, float64(c.Generation))
	b.processes(c.Processes)
	backup := c.Layers.Backup
	b.add(BackupPaused, boolean(backup.Paused))
	for _, tag := range slices.Sorted(maps.Keys(backup.Tags)) {
		t := backup.Tags[tag]
		b.add(BackupRunning, boolean(t.RunningBackup), tag)
		b.add(BackupRestorab, boolean(t.RunningBackupIsRestorable), tag)
		if t.RunningBackup {
			b.add(BackupLag, t.LastRestorableSecondsBehind, tag)
		}
	}
}

// Process states of fdb_provider_processes and fdb_provider_excluded_processes.
const (
	StateExcluded = "excluded"
	StateDegraded = "degraded"
	StateOK       = "ok"
	StateDraining = "draining"
	StateDrained  = "drained"
)

// processes adds the counts of processes by class and state, and what
// their exclusions have left to move.
func (b *batch) processes(procs map[string]fdb.Process) {
	type classState struct{ class, state string }
	counts := map[classState]int{}
	degraded, draining, drained := 0, 0, 0
	var stored int64
	for _, p := range procs {
		state := StateOK
		switch {
		case p.Excluded:
			state = StateExcluded
			// Roles nil: the status does not say, and the process counts
			// as draining (missing evidence is never "drained").
			if p.Roles != nil && len(p.Roles) == 0 {
				drained++
			} else {
				draining++
			}
			for _, role := range p.Roles {
				if role.Role == fdb.RoleStorage {
					stored += role.StoredBytes
				}
			}
		case p.Degraded:
			state = StateDegraded
		}
		if p.Degraded {
			degraded++
		}
		counts[classState{p.ClassType, state}]++
	}
	b.add(Degraded, float64(degraded))
	b.add(Excluded, float64(draining), StateDraining)
	b.add(Excluded, float64(drained), StateDrained)
	b.add(ExcludedStored, float64(stored))
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b classState) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.state, b.state))
	})
	for _, k := range keys {
		b.add(Processes, float64(counts[k]), k.class, k.state)
	}
}

// Restore records what a Restore's reconcile observed: whether the restore
// runs and how much of it is done.
func (r *Recorder) Restore(rs *v1alpha1.Restore) {
	if r == nil {
		return
	}
	b := batch{labels: []string{rs.GetNamespace(), rs.Spec.ForProvider.ClusterName}}
	at := rs.Status.AtProvider
	running := at.State != "" && at.State != v1alpha1.RestoreCompleted && at.State != v1alpha1.RestoreAborted
	b.add(RestoreRunning, boolean(running), rs.GetName())
	b.add(RestoreDone, float64(at.Progress)/100, rs.GetName())
	r.set(key{KindRestore, rs.GetNamespace(), rs.GetName()}, b.ms)
}

// Forget drops the figures of a resource that is gone; kind is KindCluster
// or KindRestore.
func (r *Recorder) Forget(kind, namespace, name string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.samples, key{kind, namespace, name})
}

func (r *Recorder) set(k key, ms []prometheus.Metric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples[k] = ms
}

// batch collects one resource's figures.
type batch struct {
	labels []string
	ms     []prometheus.Metric
}

func (b *batch) add(m *Metric, v float64, labels ...string) {
	b.ms = append(b.ms, prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, v, append(slices.Clone(b.labels), labels...)...))
}

func boolean(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
