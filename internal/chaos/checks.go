package chaos

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	clustercontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller/cluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

var (
	podKind     = corev1.SchemeGroupVersion.WithKind("Pod")
	pvcKind     = corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")
	nodeKind    = corev1.SchemeGroupVersion.WithKind("Node")
	cmKind      = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	clusterKind = fdbv1alpha1.ClusterGroupVersionKind
	groupKind   = fdbv1alpha1.ProcessGroupGroupVersionKind
	backupKind  = fdbv1alpha1.BackupGroupVersionKind
	restoreKind = fdbv1alpha1.RestoreGroupVersionKind
	// deploymentKind is the kind of the backup agents.
	deploymentKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
)

// checkState is what the checks remember from step to step.
type checkState struct {
	// simSeen counts the simulator violations reported so far, by key.
	simSeen map[string]int
	// exempt are the simulator keys of databases deleted on purpose.
	exempt map[string]bool
	// quorumGone are the simulator keys of databases whose coordinated
	// state an operation destroyed on purpose (lostCoordinators): their
	// coordinators' quorum is lost with it, and the way back restarts
	// every process, so the simulator's CoordinatorQuorumLoss findings
	// about them are the operation's.
	quorumGone map[string]bool
	// lost are the disks the harness destroyed, by simulator key: the
	// simulator's findings about their volumes are the fault's, not the
	// provider's, until the groups have volumes of their own again.
	lost map[string][]*lostDisk
	// disrupted are the groups whose pod the provider deleted to
	// recreate it, with the fault domain and the pod's UID, until a new
	// pod runs.
	disrupted map[string]disruption
	// disruptedAt is when the provider last disrupted each domain.
	disruptedAt map[string]time.Time
	// twoDomains is true while two domains are disrupted, so that one
	// episode is one violation.
	twoDomains bool
	// observed is the generation of each Cluster whose status the
	// provider last confirmed: it wrote the status, so it read that
	// generation (the crossplane-runtime here records no observed
	// generation of its own), or a reconcile of the generation stored
	// ended cleanly without writing it, so it found the status stored.
	observed map[client.ObjectKey]int64
	// confirmedAt is when each Cluster's status was last confirmed: as of
	// when, the world the reconcile that confirmed it read through its
	// lagging caches was (view.asOf; chaos seeds 853 and 1073: a
	// reconcile whose caches had not yet seen a group deleted confirmed
	// the status from before, which looked converged).
	confirmedAt map[client.ObjectKey]time.Time
	// groupsSeen is the snapshot of ProcessGroups, by index in the
	// history, the provider read when it last confirmed each Cluster's
	// status: the Cluster's status sums up theirs as they were there.
	groupsSeen map[client.ObjectKey]int
	// groupConfirmedAt is when each ProcessGroup's status was last
	// confirmed, as confirmedAt is for Clusters.
	groupConfirmedAt map[client.ObjectKey]time.Time
	// troubleAt is the last snapshot, by index in the history, in which
	// each ProcessGroup was not ready (clustercontroller.Trouble).
	troubleAt map[client.ObjectKey]int
	// restores are the restores, by cluster and tag, seen running.
	restores map[string]bool
	// databaseOf is the simulator key of each Cluster's database, by the
	// Cluster's UID.
	databaseOf map[types.UID]string
	// callsSeen counts the admin calls of each database checked so far.
	callsSeen map[*sim.Sim]int
}

type disruption struct {
	domain string
	uid    string
}

// database is one simulated database as the harness read it at the start
// of a step.
type database struct {
	key    string
	sim    *sim.Sim
	status *fdb.Status
}

// databases syncs every cluster's simulator with the API server and reads
// its status, bypassing the provider's admin-client faults.
func (r *run) databases(ctx context.Context) (map[string]*database, error) {
	out := map[string]*database{}
	now := r.hist.latest()
	b := &backend{sims: r.sims, live: r.kube, keys: r.keys}
	// The simulators learn what changed since the last step; nothing else
	// changes what they run.
	fresh := r.hist.changed(clusterKind, cmKind, podKind, pvcKind, nodeKind, deploymentKind)
	for _, o := range now[cmKind] {
		if name := o.GetLabels()[workload.LabelCluster]; name != "" {
			r.configMaps[name] = o.(*corev1.ConfigMap)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.configMaps)) {
		cm := r.configMaps[name]
		if now.find(cmKind, client.ObjectKeyFromObject(cm)) == nil && now.find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: name}) == nil {
			delete(r.configMaps, name) // its Cluster went with it
			continue
		}
		c, _ := now.find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: name}).(*fdbv1alpha1.Cluster)
		if c == nil {
			c = &fdbv1alpha1.Cluster{}
			c.SetName(name)
			c.SetNamespace(r.ns)
		}
		db := r.sims.Registry.Get(b.key(cm))
		if fresh {
			var err error
			if db, err = b.sync(ctx, c, cm); err != nil {
				return nil, err
			}
		}
		d := &database{key: b.key(cm), sim: db}
		if st, err := db.Status(ctx); err == nil {
			d.status = st
		}
		out[name] = d
	}
	return out, nil
}

// distinct returns each database of dbs once, in name order: several
// Clusters (one per data center) may reach one.
func distinct(dbs map[string]*database) []*database {
	var out []*database
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(dbs)) {
		if db := dbs[name]; !seen[db.key] {
			seen[db.key] = true
			out = append(out, db)
		}
	}
	return out
}

// check runs every per-step check on what the step did.
func (r *run) check(ctx context.Context, before map[string]*database, writes []write) {
	r.observe(writes)
	r.checkAdminCalls(before, writes)
	r.checkDeletions(writes)
	r.checkVolumes(before, writes)
	r.checkDisruptions(before, writes)
	r.checkRestores(ctx, before)
	r.checkIdentity(before)
	r.checkSims(ctx)
}

// checkIdentity: a Cluster keeps its database once it was created. One
// that reached another (say, after its ConfigMap was lost and written
// again) lost its data as surely as if it had been deleted. Before
// "configure new" there is nothing to lose: a ConfigMap lost then may get
// new coordinators.
func (r *run) checkIdentity(before map[string]*database) {
	if r.checks.databaseOf == nil {
		r.checks.databaseOf = map[types.UID]string{}
	}
	for _, name := range slices.Sorted(maps.Keys(before)) {
		c := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: name})
		if c == nil {
			continue
		}
		r.report.Checks++
		key := before[name].key
		if was, ok := r.checks.databaseOf[c.GetUID()]; ok && was != key {
			r.violate("database-identity", fmt.Sprintf("Cluster %s reaches database %s, no longer its own %s", name, key, was))
		}
		if before[name].sim.Created() {
			r.checks.databaseOf[c.GetUID()] = key
		}
	}
}

// checkRestores: a restore that FoundationDB runs was started into a
// database that, in the status read before the step, held no data, unless
// its Restore allows a non-empty destination.
func (r *run) checkRestores(ctx context.Context, before map[string]*database) {
	for _, o := range r.hist.latest()[restoreKind] {
		rs := o.(*fdbv1alpha1.Restore)
		db := before[rs.Spec.ForProvider.ClusterName]
		tag := meta.GetExternalName(rs)
		if tag == "" {
			tag = rs.GetName()
		}
		key := rs.Spec.ForProvider.ClusterName + "/" + tag
		if db == nil || rs.Spec.ForProvider.AllowNonEmptyDestination || r.checks.restores[key] {
			continue
		}
		r.report.Checks++
		if _, err := db.sim.RestoreStatus(ctx, tag); err != nil {
			continue // none runs
		}
		if r.checks.restores == nil {
			r.checks.restores = map[string]bool{}
		}
		r.checks.restores[key] = true
		if held := dataHeld(db.status); held != "" {
			r.violate("restore-over-data", fmt.Sprintf("a restore runs on tag %q into database %s, which %s, and Restore %s does not allow a non-empty destination",
				tag, rs.Spec.ForProvider.ClusterName, held, rs.GetName()))
		}
	}
}

// dataHeld says what data a status shows, or "" when it shows none.
func dataHeld(st *fdb.Status) string {
	switch {
	case st == nil || st.Incomplete():
		return "could not be proven empty"
	case st.Cluster.Data.TotalKVSizeBytes > 0:
		return fmt.Sprintf("held %d bytes", st.Cluster.Data.TotalKVSizeBytes)
	}
	return ""
}

// observe notes the Clusters and ProcessGroups whose status was written,
// and the ProcessGroups that are not ready now.
func (r *run) observe(writes []write) {
	if r.checks.troubleAt == nil {
		r.checks.troubleAt, r.checks.groupConfirmedAt = map[client.ObjectKey]int{}, map[client.ObjectKey]time.Time{}
	}
	for _, w := range writes {
		if w.verb != "status/update" {
			continue
		}
		switch o := w.obj.(type) {
		case *fdbv1alpha1.Cluster:
			r.confirm(o, w.groupsSeen, w.asOf)
		case *fdbv1alpha1.ProcessGroup:
			r.checks.groupConfirmedAt[client.ObjectKeyFromObject(o)] = w.asOf
		}
	}
	for _, o := range r.hist.latest()[groupKind] {
		if clustercontroller.Trouble(o.(*fdbv1alpha1.ProcessGroup)) != "" {
			r.checks.troubleAt[client.ObjectKeyFromObject(o)] = len(r.hist.snaps) - 1
		}
	}
}

// confirmUnwritten notes a reconcile of the Cluster or ProcessGroup named
// key (of kind gvk) that ended without error. When it read the object as
// stored and wrote no status, the status it computed is the one stored:
// the provider skips status writes that would change nothing.
// c is the client of the provider that reconciled it.
func (r *run) confirmUnwritten(c *providerClient, gvk schema.GroupVersionKind, key client.ObjectKey) {
	v := c.view
	read, stored := v.at(gvk).find(gvk, key), r.hist.latest().find(gvk, key)
	if read == nil || stored == nil || v.current(gvk, read).GetResourceVersion() != stored.GetResourceVersion() {
		return
	}
	if gvk == groupKind {
		r.checks.groupConfirmedAt[key] = c.asOf(stored)
		return
	}
	r.confirm(stored, v.served[groupKind], c.asOf(stored))
}

// confirm notes that c's status is what the provider made of c, and of
// the ProcessGroups of snapshot groupsSeen, reading the world as of asOf.
func (r *run) confirm(c client.Object, groupsSeen int, asOf time.Time) {
	if r.checks.observed == nil {
		r.checks.observed, r.checks.confirmedAt, r.checks.groupsSeen = map[client.ObjectKey]int64{}, map[client.ObjectKey]time.Time{}, map[client.ObjectKey]int{}
	}
	key := client.ObjectKeyFromObject(c)
	r.checks.observed[key] = c.GetGeneration()
	r.checks.confirmedAt[key] = asOf
	r.checks.groupsSeen[key] = groupsSeen
}

// checkVolumes: no volume claim the provider deleted belonged to a group
// that, in the status read before the step, held data, served a role or
// was a coordinator, or did not report while data was not fully
// replicated. A consented deletion of the whole Cluster is exempt.
func (r *run) checkVolumes(before map[string]*database, writes []write) {
	prev := r.hist.previous()
	for _, w := range writes {
		pvc, ok := w.obj.(*corev1.PersistentVolumeClaim)
		if !ok || w.verb != "delete" {
			continue
		}
		r.report.Checks++
		old, _ := prev.find(pvcKind, client.ObjectKeyFromObject(pvc)).(*corev1.PersistentVolumeClaim)
		if old == nil || old.DeletionTimestamp != nil {
			continue
		}
		cluster, id := old.Labels[workload.LabelCluster], old.Labels[workload.LabelProcessGroup]
		db := before[cluster]
		if db == nil || r.checks.exempt[db.key] {
			continue
		}
		if why := stillHeld(db.status, id, r.addressesOf(prev, cluster, id)); why != "" {
			r.violate("volume-deleted", fmt.Sprintf("the provider deleted volume claim %s of group %s, which %s", pvc.Name, id, why))
		}
	}
}

// stillHeld says what group id still held in st, or "" when it held
// nothing.
func stillHeld(st *fdb.Status, id string, addrs []string) string {
	if st == nil || st.Incomplete() {
		return "could not be proven empty: the database status was unreadable or incomplete"
	}
	cs, _ := fdb.ParseConnectionString(st.Cluster.ConnectionString)
	for _, a := range addrs {
		if slices.Contains(cs.Coordinators, fdb.ProcessAddress(a)) {
			return "was a coordinator (" + a + ")"
		}
	}
	reporting := false
	for _, p := range fdb.ProcessesByInstance(st)[id] {
		reporting = true
		if i := slices.IndexFunc(p.Roles, heldRole); i >= 0 {
			return fmt.Sprintf("held the %s role of process %s", p.Roles[i].Role, p.Locality.ProcessID)
		}
	}
	if !reporting && st.Cluster.Data.State.Name != fdb.DataHealthy {
		return fmt.Sprintf("did not report while data distribution was %q (fewest replicas %d)",
			st.Cluster.Data.State.Name, st.Cluster.Data.State.MinReplicasRemaining)
	}
	return ""
}

// addressesOf returns the addresses group id of cluster had in snapshot s:
// its pod's public IP and the addresses its status recorded.
func (r *run) addressesOf(s snapshot, cluster, id string) []string {
	var out []string
	for _, o := range s[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if pg.Spec.ForProvider.ClusterName == cluster && pg.ID() == id {
			out = append(out, fdb.AddressNames(pg.Status.AtProvider.DNSName, pg.Status.AtProvider.Addresses...)...)
		}
	}
	for _, o := range s[podKind] {
		p := o.(*corev1.Pod)
		if p.Labels[workload.LabelCluster] == cluster && p.Labels[workload.LabelProcessGroup] == id && workload.PublicIP(p) != "" {
			// Kubernetes DNS names a pod with a hostname and subdomain
			// <hostname>.<subdomain>.<namespace>.svc.cluster.local.
			dns := ""
			if p.Spec.Hostname != "" && p.Spec.Subdomain != "" {
				dns = p.Spec.Hostname + "." + p.Spec.Subdomain + "." + p.Namespace + ".svc.cluster.local"
			}
			for _, c := range p.Spec.Containers[:1] {
				for _, port := range c.Ports {
					out = append(out, fdb.AddressNames(dns, fmt.Sprintf("%s:%d", workload.PublicIP(p), port.ContainerPort))...)
				}
			}
		}
	}
	return out
}

// checkDisruptions: the provider deletes a pod to recreate it only in the
// fault domain the Cluster's grant names, or, under a grant for disrupted
// groups only, a pod none of whose processes the database lists before the
// step (it serves nothing: recreating it disrupts nothing more, and counts
// as no disruption), and never disrupts two domains at once.
func (r *run) checkDisruptions(before map[string]*database, writes []write) {
	prev, now := r.hist.previous(), r.hist.latest()
	if r.checks.disrupted == nil {
		r.checks.disrupted = map[string]disruption{}
	}
	for _, p := range podDeletes(writes) {
		r.report.Checks++
		old, _ := prev.find(podKind, client.ObjectKeyFromObject(p)).(*corev1.Pod)
		if old == nil || old.DeletionTimestamp != nil {
			continue
		}
		cluster, id := old.Labels[workload.LabelCluster], old.Labels[workload.LabelProcessGroup]
		c, _ := prev.find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: cluster}).(*fdbv1alpha1.Cluster)
		pg := groupOf(prev, cluster, id)
		if c == nil || c.GetDeletionTimestamp() != nil || pg == nil || pg.GetDeletionTimestamp() != nil {
			continue // a removal or a teardown, not a disruption
		}
		if r.nodeFailedLately(old.Spec.NodeName) {
			continue // a pod on a failed node, force-deleted (ForceDeletePod): already disrupted
		}
		if workload.PodTerminal(old) {
			continue // an evicted pod, deleted to be created anew: already down
		}
		// A pod on no node (Pending, a NoSchedule drill's) is in its
		// group's zone where the group has one, as the provider counts it
		// (disruption.Member.Zone).
		domain := cmp.Or(zoneOf(prev, old), pg.Zone())
		if domain == "" {
			domain = "group/" + id
		}
		g := c.Status.AtProvider.Disruption
		if servedNothing(g, before[cluster], id, workload.PublicIP(old)) {
			continue
		}
		if g == nil || g.Domain != domain {
			r.violate("disruption-grant", fmt.Sprintf("the provider deleted pod %s in %s while the grant was %s", old.Name, domain, grantString(g)))
		}
		r.checks.disrupted[cluster+"/"+id] = disruption{domain: domain, uid: string(old.UID)}
		if r.checks.disruptedAt == nil {
			r.checks.disruptedAt = map[string]time.Time{}
		}
		r.checks.disruptedAt[domain] = r.clock.Now()
	}
	r.healDisruptions(now)
	r.report.Checks++
	domains := map[string]bool{}
	for _, d := range r.checks.disrupted {
		domains[d.domain] = true
	}
	two := len(domains) > 1
	if two && !r.checks.twoDomains {
		r.violate("one-domain", fmt.Sprintf("the provider disrupted pods in %d fault domains at once: %v", len(domains), slices.Sorted(maps.Keys(domains))))
	}
	r.checks.twoDomains = two
}

// nodeFailedLately reports whether node was not Ready in a snapshot the
// provider's node cache may have served before this step: one that has
// just come back may still look failed to it.
func (r *run) nodeFailedLately(node string) bool {
	for _, s := range r.hist.recent(r.maxLag + 1)[1:] {
		if n, _ := s.find(nodeKind, client.ObjectKey{Name: node}).(*corev1.Node); n != nil && !workload.NodeReady(n) {
			return true
		}
	}
	return false
}

// healDisruptions forgets the disruptions whose group runs a new pod, or
// is gone.
func (r *run) healDisruptions(now snapshot) {
	for key, d := range r.checks.disrupted {
		cluster, id, _ := strings.Cut(key, "/")
		pod := podOf(now, cluster, id)
		if groupOf(now, cluster, id) == nil || (pod != nil && string(pod.UID) != d.uid && pod.Status.Phase == corev1.PodRunning) {
			delete(r.checks.disrupted, key)
		}
	}
}

// checkSims: the simulators report no new violation, except those of
// databases deleted on purpose.
func (r *run) checkSims(context.Context) {
	if r.checks.simSeen == nil {
		r.checks.simSeen = map[string]int{}
	}
	r.noteReplacedDisks()
	for _, key := range slices.Sorted(maps.Keys(r.keysByName())) {
		db := r.sims.Registry.Get(key)
		vs := db.Check()
		r.report.Checks++
		if r.checks.exempt[key] {
			r.checks.simSeen[key] = len(vs)
			continue
		}
		for _, v := range vs[r.checks.simSeen[key]:] {
			if r.faultsOwn(key, v) {
				r.log("simulator: %s %s (the fault's)", v.Kind, v.Detail)
				continue
			}
			if v.Kind == sim.CoordinatorQuorumLoss && r.checks.quorumGone[key] {
				r.log("simulator: %s %s (the operation's)", v.Kind, v.Detail)
				continue
			}
			r.violate("sim/"+string(v.Kind), fmt.Sprintf("database %s: %s", key, v.Detail))
		}
		r.checks.simSeen[key] = len(vs)
	}
}

// A lostDisk is the disk of group id the harness destroyed: that of the
// volume claim (or, for a group without one, the pod) with UID uid.
type lostDisk struct {
	id  string
	uid types.UID
	// replacedAt is the step in which the group was first seen with
	// another claim (pod); 0 before.
	replacedAt int
}

// destroyed notes that the harness destroyed the disk of group id of the
// database key, held by pod p or its volume claim.
func (r *run) destroyed(key, id string, p *corev1.Pod) {
	if r.checks.lost == nil {
		r.checks.lost = map[string][]*lostDisk{}
	}
	r.checks.lost[key] = append(r.checks.lost[key], &lostDisk{id: id, uid: r.diskOf(p)})
}

// diskOf returns the UID of what holds the disk of pod p's group now: its
// volume claim, or the pod when it has none; "" when neither is there.
func (r *run) diskOf(p *corev1.Pod) types.UID {
	now := r.hist.latest()
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			if c := now.find(pvcKind, client.ObjectKey{Namespace: p.Namespace, Name: v.PersistentVolumeClaim.ClaimName}); c != nil {
				return c.GetUID()
			}
			return ""
		}
	}
	if o := now.find(podKind, client.ObjectKeyFromObject(p)); o != nil {
		return o.GetUID()
	}
	return ""
}

// faultsOwn reports whether v is the simulator's finding about a volume
// the harness destroyed (its removal checks name the group's volume): one
// reported before, or in the step after, the group was first seen with
// another volume (a finding about the new one is the provider's). The
// simulator learns of the destroyed volume's removal at the start of a
// step from the snapshot of the step before.
func (r *run) faultsOwn(key string, v sim.Violation) bool {
	for _, d := range r.checks.lost[key] {
		if strings.HasPrefix(v.Detail, "group "+d.id+"'s volume") && (d.replacedAt == 0 || r.step <= d.replacedAt+1) {
			return true
		}
	}
	return false
}

// noteReplacedDisks notes, for each lost disk not yet replaced, whether
// its group now has another volume claim (pod): the provider creates it
// once the destroyed one is gone.
func (r *run) noteReplacedDisks() {
	for _, disks := range r.checks.lost {
		for _, d := range disks {
			if now := r.currentDisk(d.id); d.replacedAt == 0 && now != "" && now != d.uid {
				d.replacedAt = r.step
			}
		}
	}
}

// currentDisk returns the UID of what holds group id's disk now: the
// claim of its pod (the pod, without one); "" without a pod.
func (r *run) currentDisk(id string) types.UID {
	for _, o := range r.hist.latest()[podKind] {
		if p := o.(*corev1.Pod); p.Labels[workload.LabelProcessGroup] == id && p.DeletionTimestamp == nil {
			return r.diskOf(p)
		}
	}
	return ""
}

// keysByName returns the simulator keys in use.
func (r *run) keysByName() map[string]bool {
	out := map[string]bool{}
	for _, k := range r.keys {
		out[k] = true
	}
	return out
}

// clusterConverged: every Cluster of the run converged.
func clusterConverged(r *run) (bool, string) {
	for _, name := range r.clusters {
		if ok, why := r.converged(name); !ok {
			if len(r.clusters) > 1 {
				why = "Cluster " + name + ": " + why
			}
			return false, why
		}
	}
	return true, ""
}

// converged: the Cluster called name is Ready and up to date, in a status
// confirmed after the last fault ended, for its current generation; its
// groups are ready (groupsReady), every coordinator of its database holds
// the coordinated state, and its pods run.
func (r *run) converged(name string) (bool, string) {
	c, _ := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: name}).(*fdbv1alpha1.Cluster)
	if c == nil {
		return false, "the Cluster is gone"
	}
	ready, upToDate := c.GetCondition(xpv2.TypeReady), c.GetCondition(xpv2.TypeUpToDate)
	key := client.ObjectKeyFromObject(c)
	if !r.checks.confirmedAt[key].After(r.calmAt) {
		return false, "no status confirmed since the last fault ended"
	}
	for _, other := range slices.Sorted(maps.Keys(r.steppedAt)) {
		if other != name && managedkind.SharesDatabase(c) && r.used[name] != nil && r.used[other] == r.used[name] &&
			r.checks.confirmedAt[key].Before(r.steppedAt[other]) {
			return false, "no status confirmed since Cluster " + other + " took its last step in the database they share"
		}
	}
	observed := r.checks.observed[key]
	if observed != c.GetGeneration() || ready.Status != corev1.ConditionTrue || upToDate.Status != corev1.ConditionTrue {
		return false, fmt.Sprintf("generation %d, status confirmed for %d: Ready=%s (%s) UpToDate=%s (%s) Synced: %s", c.GetGeneration(), observed,
			ready.Status, ready.Message, upToDate.Status, upToDate.Message, c.GetCondition(xpv2.TypeSynced).Message)
	}
	if ok, why := r.groupsReady(name, r.checks.groupsSeen[key]); !ok {
		return false, why
	}
	if k, ok := r.checks.databaseOf[c.GetUID()]; ok {
		if lost := r.sims.Registry.Get(k).StatelessCoordinators(); len(lost) > 0 {
			return false, fmt.Sprintf("the Cluster is Ready, but coordinators %v hold no coordinated state (their disks were lost since it was last written)", lost)
		}
	}
	return podsRunning(r.hist.latest(), name)
}

// groupsReady: every ProcessGroup of the Cluster named cluster that is not
// being deleted is ready, in a status confirmed after the last fault
// ended, and has been since snapshot seen, the one the Cluster's status
// sums up. A group reconciled last before a fault, or the Cluster's status
// summing up a group that was not ready, could each turn the Cluster not
// Ready at their next reconcile without a new fault.
func (r *run) groupsReady(cluster string, seen int) (bool, string) {
	for _, o := range r.hist.latest()[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if pg.Spec.ForProvider.ClusterName != cluster || pg.GetDeletionTimestamp() != nil {
			continue
		}
		key, trouble := client.ObjectKeyFromObject(pg), clustercontroller.Trouble(pg)
		switch at, ok := r.checks.troubleAt[key]; {
		case !r.checks.groupConfirmedAt[key].After(r.calmAt):
			return false, fmt.Sprintf("the Cluster is Ready, but ProcessGroup %s confirmed no status since the last fault ended", pg.ID())
		case trouble != "":
			return false, fmt.Sprintf("the Cluster is Ready, but ProcessGroup %s is not: %s", pg.ID(), trouble)
		case ok && at >= seen:
			return false, fmt.Sprintf("the Cluster is Ready, but its status sums up ProcessGroup %s as it was %d steps ago, not ready", pg.ID(), len(r.hist.snaps)-1-seen)
		}
	}
	return true, ""
}

// podsRunning: every process group of the Cluster named cluster that is
// not being deleted has a Running pod that is not being deleted. The
// Cluster's Ready condition sums up its groups' statuses as they last
// wrote them, so it can be Ready a moment before a group notices that its
// pod went; the pods themselves cannot lag.
func podsRunning(s snapshot, cluster string) (bool, string) {
	var not []string
	for _, o := range s[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if pg.Spec.ForProvider.ClusterName != cluster || pg.GetDeletionTimestamp() != nil {
			continue
		}
		if p := podOf(s, cluster, pg.ID()); p == nil || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			not = append(not, pg.ID())
		}
	}
	slices.Sort(not)
	return len(not) == 0, fmt.Sprintf("the Cluster is Ready, but the pods of %v do not run", not)
}

func groupOf(s snapshot, cluster, id string) *fdbv1alpha1.ProcessGroup {
	for _, o := range s[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if pg.Spec.ForProvider.ClusterName == cluster && pg.ID() == id {
			return pg
		}
	}
	return nil
}

func podOf(s snapshot, cluster, id string) *corev1.Pod {
	for _, o := range s[podKind] {
		p := o.(*corev1.Pod)
		if p.Labels[workload.LabelCluster] == cluster && p.Labels[workload.LabelProcessGroup] == id {
			return p
		}
	}
	return nil
}

// zoneOf returns the zone of the node pod p runs on in s.
func zoneOf(s snapshot, p *corev1.Pod) string {
	if n := s.find(nodeKind, client.ObjectKey{Name: p.Spec.NodeName}); n != nil {
		return n.GetLabels()[testenv.ZoneLabel]
	}
	return ""
}

// servedNothing reports whether deleting the pod of group id, at ip, is
// allowed under grant g as the recreation of a pod that serves nothing: g
// is for disrupted groups only, and db's status before the step lists no
// process of the pod.
func servedNothing(g *fdbv1alpha1.DisruptionGrant, db *database, id, ip string) bool {
	if g == nil || !g.DisruptedOnly || db == nil {
		return false
	}
	n, ok := fdb.ReportingOf(db.status, id, ip)
	return ok && n == 0
}

func grantString(g *fdbv1alpha1.DisruptionGrant) string {
	if g == nil {
		return "none"
	}
	if g.DisruptedOnly {
		return fmt.Sprintf("%s (generation %d, for disrupted groups only)", g.Domain, g.Generation)
	}
	return fmt.Sprintf("%s (generation %d)", g.Domain, g.Generation)
}
