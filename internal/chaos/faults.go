package chaos

import (
	"context"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// faultWindow is how long a fault keeps its fault domain busy: the harness
// faults one domain at a time, within what double redundancy survives, so
// that every violation is the provider's.
const faultWindow = 90 * time.Second

// A fault disturbs the world once. It returns what it did, or "" when it
// does not apply now (then nothing happened).
type fault struct {
	name  string
	apply func(ctx context.Context, r *run, before map[string]*database) (string, error)
}

// faults are every fault a faulty step can pick from.
var faults = append([]fault{
	{"DeletePod", deletePod},
	{"EvictPod", evictPod},
	{"DeleteVolumeClaim", deleteVolumeClaim},
	{"DeleteConfigMap", deleteConfigMap},
}, transient...)

// transient are the faults that heal without the provider: all but those
// that delete what the provider has to recreate, for the operations after
// which nothing recreates them (an orphaned or deleted Cluster).
var transient = []fault{
	{"NodeNotReady", nodeNotReady},
	{"CrashProcess", crashProcess},
	{"DiskError", diskError},
	{"LosePod", losePod},
	{"PartitionCoordinator", partitionCoordinator},
	{"AdminFault", armAdminFault},
	{"StallExclusions", stallExclusions},
	{"Recovery", recovery},
}

// inject applies one fault the seeded source picks.
func (r *run) inject(ctx context.Context, before map[string]*database) error {
	f := r.faults[r.chaos.IntN(len(r.faults))]
	what, err := f.apply(ctx, r, before)
	if err != nil {
		return err
	}
	if what == "" {
		r.log("fault %s: not applicable", f.name)
		return nil
	}
	r.faulted(f.name)
	r.calmAt = r.clock.Now().Add(faultWindow) // no fault lasts longer, and none ends earlier than one before
	r.log("fault %s: %s", f.name, what)
	return nil
}

// mayFault reports whether the harness may fault zone now, and if so
// claims it for the fault window. It may fault the zone it already faults,
// or the one the provider disrupts; another only while no zone is faulted,
// lost or disrupted and every database tolerates losing a zone. "" is no
// zone in particular.
func (r *run) mayFault(before map[string]*database, zone string) bool {
	now := r.clock.Now()
	switch {
	case zone == "":
		return true
	case r.lostZone != "":
		return zone == r.lostZone
	case r.faultZone != "" && now.Before(r.faultUntil):
		// The zone it faults, unless the provider disrupted another one
		// since this fault began: that one may still be short (a
		// recreated coordinator's old address stays in the connection
		// string until the coordinators change), and the two together
		// are more than the database survives.
		if zone != r.faultZone || r.disruptedElsewhere(zone, r.faultSince) {
			return false
		}
	case len(r.checks.disrupted) > 0:
		for _, d := range r.checks.disrupted {
			if d.domain != zone {
				return false
			}
		}
	case !tolerateZoneLoss(before):
		return false
	}
	if zone != r.faultZone || !now.Before(r.faultUntil) {
		r.faultSince = now
	}
	r.faultZone, r.faultUntil = zone, now.Add(faultWindow)
	return true
}

// disruptedElsewhere reports whether the provider disrupted a fault domain
// other than zone since the time given.
func (r *run) disruptedElsewhere(zone string, since time.Time) bool {
	for domain, at := range r.checks.disruptedAt {
		if domain != zone && !at.Before(since) {
			return true
		}
	}
	return false
}

// tolerateZoneLoss reports whether every database's status says it keeps
// its data and availability when a zone fails, its coordinators a quorum:
// FoundationDB's own figure does not count the coordinators already
// unreachable (a zone whose pods are still coming back after its fault).
func tolerateZoneLoss(before map[string]*database) bool {
	for _, db := range before {
		if db.status == nil || db.status.Incomplete() || db.status.ZoneFailuresTolerated() < 1 {
			return false
		}
	}
	return true
}

// pods returns the running pods of the run's cluster that are not being
// deleted, with their zones.
func (r *run) pods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range r.hist.latest()[podKind] {
		p := o.(*corev1.Pod)
		if p.DeletionTimestamp == nil && p.Labels[workload.LabelProcessGroup] != "" && p.Spec.NodeName != "" {
			out = append(out, p)
		}
	}
	return out
}

func (r *run) pick(n int) int { return r.chaos.IntN(n) }

// deletePod deletes a pod, as a user or a node drain would.
func deletePod(ctx context.Context, r *run, before map[string]*database) (string, error) {
	return r.podFault(before, "deleted pod ", func(p *corev1.Pod) error { return client.IgnoreNotFound(r.kube.Delete(ctx, p)) })
}

// evictPod fails a pod as a kubelet's node-pressure eviction does
// (testenv.Nodes.Evict): its processes stop, and it stays, Failed, until
// the provider deletes it to create it anew.
func evictPod(ctx context.Context, r *run, before map[string]*database) (string, error) {
	return r.podFault(before, "evicted pod ", func(p *corev1.Pod) error {
		return client.IgnoreNotFound(r.nodes.Evict(ctx, client.ObjectKeyFromObject(p)))
	})
}

// podFault does to a pod the seeded source picks what do does, when its
// zone may be faulted. The pod of a group without a volume keeps its data
// nowhere else: deleting or evicting it loses the disk of its processes
// (loseDisk), so it is faulted only when that may be.
func (r *run) podFault(before map[string]*database, what string, do func(*corev1.Pod) error) (string, error) {
	pods := r.pods()
	if len(pods) == 0 {
		return "", nil
	}
	p := pods[r.pick(len(pods))]
	if !r.mayFault(before, zoneOf(r.hist.latest(), p)) {
		return "", nil
	}
	if !workload.HasVolume(p) {
		if ok, err := r.loseDisk(before, p); !ok || err != nil {
			return "", err
		}
	}
	return what + p.Name, do(p)
}

// deleteService deletes the Service of a group known by its Service's IP,
// as a user might: its processes are known by an address that reaches
// nothing until the group makes the Service anew, with a new IP, and its
// pod anew to take it. Only where a pod may be faulted (podFault).
func deleteService(ctx context.Context, r *run, before map[string]*database) (string, error) {
	var pods []*corev1.Pod
	for _, p := range r.pods() {
		if workload.PodDensity(p).ServiceIP {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return "", nil
	}
	p := pods[r.pick(len(pods))]
	if !r.mayFault(before, zoneOf(r.hist.latest(), p)) {
		return "", nil
	}
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
	return "deleted Service " + p.Name, client.IgnoreNotFound(r.kube.Delete(ctx, s))
}

// deleteConfigMap loses a cluster's ConfigMap and with it the cluster file
// the provider connects with: the provider must write it again from what
// it recorded, and never take the database for a new one.
func deleteConfigMap(ctx context.Context, r *run, _ map[string]*database) (string, error) {
	var cms []client.Object
	for _, o := range r.hist.latest()[cmKind] {
		if o.GetLabels()[workload.LabelCluster] != "" && o.GetDeletionTimestamp() == nil {
			cms = append(cms, o)
		}
	}
	if len(cms) == 0 {
		return "", nil
	}
	cm := cms[r.pick(len(cms))]
	return "deleted ConfigMap " + cm.GetName(), client.IgnoreNotFound(r.kube.Delete(ctx, cm))
}

// deleteVolumeClaim loses a group's disk: the simulator loses its
// processes' data (a fault, not a removal), then its claim and pod are
// deleted. Only while the database is healthy and the group reports, so
// that the database survives and the simulator sees the loss as a fault.
func deleteVolumeClaim(ctx context.Context, r *run, before map[string]*database) (string, error) {
	pods := r.pods()
	if len(pods) == 0 {
		return "", nil
	}
	p := pods[r.pick(len(pods))]
	if !r.mayFault(before, zoneOf(r.hist.latest(), p)) {
		return "", nil
	}
	if ok, err := r.loseDisk(before, p); !ok || err != nil {
		return "", err
	}
	id := p.Labels[workload.LabelProcessGroup]
	pvc := &corev1.PersistentVolumeClaim{}
	pvc.SetNamespace(p.Namespace)
	pvc.SetName(p.Name + "-data")
	if err := client.IgnoreNotFound(r.kube.Delete(ctx, pvc)); err != nil {
		return "", err
	}
	return "lost the disk of " + id + ": deleted its volume claim and pod", client.IgnoreNotFound(r.kube.Delete(ctx, p))
}

// loseDisk makes the simulator lose the data of pod p's processes, as a
// fault and not a removal, and notes that the harness destroyed it. Only
// while the database is healthy, every coordinator holds the coordinated
// state (the status cannot tell one whose disk an earlier loss wiped, and
// the provider has to heal it; converged waits for that) and the group
// reports: the database then survives, and the simulator can tell the
// loss from a removal; ok is false, and nothing lost, otherwise.
func (r *run) loseDisk(before map[string]*database, p *corev1.Pod) (ok bool, err error) {
	db := before[p.Labels[workload.LabelCluster]]
	if db == nil || db.status == nil || db.status.Cluster.Data.State.Name != fdb.DataHealthy || len(db.sim.StatelessCoordinators()) > 0 {
		return false, nil
	}
	id := p.Labels[workload.LabelProcessGroup]
	procs := fdb.ProcessesByInstance(db.status)[id]
	if len(procs) == 0 {
		return false, nil
	}
	for _, proc := range procs {
		if err := db.sim.LoseDisk(proc.Locality.ProcessID); err != nil {
			return false, err
		}
	}
	r.destroyed(db.key, id, p)
	return true, nil
}

// nodeNotReady marks one node NotReady for the fault window; its pods'
// processes are down meanwhile. Not the lost zone's node: it never comes
// back.
func nodeNotReady(ctx context.Context, r *run, before map[string]*database) (string, error) {
	return r.failNode(ctx, before, r.zones[r.pick(len(r.zones))])
}

// failNode marks the node of zone NotReady for the fault window, when the
// zone may be faulted; its pods' processes are down meanwhile.
func (r *run) failNode(ctx context.Context, before map[string]*database, zone string) (string, error) {
	node := nodeOf(zone)
	if _, down := r.nodeBack[node]; down || zone == r.lostZone || !r.mayFault(before, zone) {
		return "", nil
	}
	if err := r.nodes.SetReady(ctx, node, false); err != nil {
		return "", err
	}
	for _, db := range distinct(before) {
		_ = db.sim.LoseZone(zone, faultWindow) // a zone without processes loses nothing
	}
	r.nodeBack[node] = r.clock.Now().Add(faultWindow)
	if r.calmAt.Before(r.nodeBack[node]) { // an operation's failure (strandStorage) too
		r.calmAt = r.nodeBack[node]
	}
	return "node " + node + " NotReady", nil
}

// nodesBack makes the nodes whose transient fault ended Ready again.
func (r *run) nodesBack(ctx context.Context) error {
	for _, node := range slices.Sorted(maps.Keys(r.nodeBack)) {
		if r.clock.Now().Before(r.nodeBack[node]) {
			continue
		}
		if err := r.nodes.SetReady(ctx, node, true); err != nil {
			return err
		}
		delete(r.nodeBack, node)
	}
	return nil
}

// processes returns the processes of a database's status in ID order.
func processes(db *database) []fdb.Process {
	if db == nil || db.status == nil {
		return nil
	}
	var out []fdb.Process
	for _, id := range slices.Sorted(maps.Keys(db.status.Cluster.Processes)) {
		out = append(out, db.status.Cluster.Processes[id])
	}
	return out
}

// anyDatabase picks one of the databases.
func (r *run) anyDatabase(before map[string]*database) *database {
	names := slices.Sorted(maps.Keys(before))
	if len(names) == 0 {
		return nil
	}
	return before[names[r.pick(len(names))]]
}

// faultableProcess picks a reporting process of one of the databases, if
// its zone may be faulted now.
func (r *run) faultableProcess(before map[string]*database) (*database, fdb.Process, bool) {
	db := r.anyDatabase(before)
	procs := processes(db)
	if len(procs) == 0 {
		return nil, fdb.Process{}, false
	}
	p := procs[r.pick(len(procs))]
	return db, p, r.mayFault(before, p.Locality.ZoneID)
}

func crashProcess(_ context.Context, r *run, before map[string]*database) (string, error) {
	db, p, ok := r.faultableProcess(before)
	if !ok {
		return "", nil
	}
	return "crashed process " + p.Locality.ProcessID, db.sim.CrashProcess(p.Locality.ProcessID, 30*time.Second)
}

// diskError fails a disk operation of a process with an I/O error for the
// fault window: its status lists it, and the provider may propose its
// group's replacement (at once where the run shortens
// ioErrorDetectionSeconds).
func diskError(_ context.Context, r *run, before map[string]*database) (string, error) {
	db, p, ok := r.faultableProcess(before)
	if !ok {
		return "", nil
	}
	name := []string{fdb.MessageIOError, fdb.MessageIOTimeout}[r.pick(2)]
	return name + " on process " + p.Locality.ProcessID, db.sim.DiskError(p.Locality.ProcessID, name, faultWindow)
}

func losePod(_ context.Context, r *run, before map[string]*database) (string, error) {
	db, p, ok := r.faultableProcess(before)
	if !ok {
		return "", nil
	}
	return "lost the pod of " + p.Locality.InstanceID, db.sim.LosePod(p.Locality.InstanceID, time.Minute)
}

func partitionCoordinator(_ context.Context, r *run, before map[string]*database) (string, error) {
	db := r.anyDatabase(before)
	if db == nil || db.status == nil {
		return "", nil
	}
	cs, err := fdb.ParseConnectionString(db.status.Cluster.ConnectionString)
	if err != nil || len(cs.Coordinators) == 0 {
		return "", nil
	}
	addr := cs.Coordinators[r.pick(len(cs.Coordinators))]
	zone := ""
	for _, p := range processes(db) {
		if slices.Contains(p.Names(), string(addr)) {
			zone = p.Locality.ZoneID
		}
	}
	if zone == "" || !r.mayFault(before, zone) {
		return "", nil
	}
	return "partitioned coordinator " + string(addr), db.sim.PartitionCoordinator(addr, time.Minute)
}
