package cluster

import (
	"context"
	"iter"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/nodetaint"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errListNodes    = "cannot list the target cluster's nodes"
	errListPods     = "cannot list the cluster's pods"
	errGetService   = "cannot get the cluster's headless Service"
	errListServices = "cannot list the process groups' Services"
	errGetAccess    = "cannot get the monitor's ServiceAccount, Role or RoleBinding"
	errListPVCs     = "cannot list the cluster's volume claims"
	errListRestores = "cannot list the Restores into the Cluster"
	errListSCs      = "cannot list the target cluster's storage classes"
	errGetPV        = "cannot get the volume of a process group's claim"
)

// observation is everything one reconcile knows of a Cluster's world, read
// once. The planner decides from it alone.
type observation struct {
	// groups are the cluster's ProcessGroups, sorted by ID.
	groups []v1alpha1.ProcessGroup
	// restores are the Restores into the cluster still under way.
	restores []v1alpha1.Restore
	// pods are the cluster's pods by name.
	pods map[string]*corev1.Pod
	// claims are the cluster's volume claims by process group ID;
	// expandable names the storage classes that allow volume expansion.
	claims     map[string]*corev1.PersistentVolumeClaim
	expandable map[string]bool
	// stranded are the groups whose pod cannot run because the volume
	// bound to their claim can only be used on nodes none of which is
	// Ready (a node-local volume on a failed node); read only for groups
	// whose pod is not running on a Ready node.
	stranded map[string]bool
	// heldBy names, by group ID, a node under planned maintenance that
	// holds the group's pod back: the pod waits unscheduled, and every
	// Ready node it could run on (its zone, its volume's nodes) carries a
	// taint the Cluster's taintReplacements name or is cordoned
	// (observeHeld).
	heldBy map[string]string
	// status is the database's status; nil when there is no database yet
	// or it could not be read (statusErr says why).
	status    *fdb.Status
	statusErr error
	// nodes are the target cluster's nodes by name; zones the fault
	// domains of the Ready ones.
	nodes map[string]*corev1.Node
	zones []string
	// configMap is the data of the cluster's ConfigMap; nil when there is
	// none.
	configMap map[string]string
	// service is the cluster's headless Service; nil when there is none.
	service *corev1.Service
	// groupServices are the Services of the groups known by their
	// Service's IP, by name (the group's pod's); nil when no group is.
	groupServices map[string]*corev1.Service
	// networkPolicy is the cluster's NetworkPolicy; nil when there is
	// none.
	networkPolicy *networkingv1.NetworkPolicy
	// disruptionBudget is the cluster's PodDisruptionBudget; nil when
	// there is none.
	disruptionBudget *policyv1.PodDisruptionBudget
	// account, role and binding are the monitor's ServiceAccount, Role and
	// RoleBinding in the target namespace (workload.MonitorAccount...);
	// each nil when there is none.
	account *corev1.ServiceAccount
	role    *rbacv1.Role
	binding *rbacv1.RoleBinding
	// clusterFile is the connection string the ConfigMap's cluster file
	// holds; "" before the first coordinators are chosen.
	clusterFile string
	// recorded is the connection string the Cluster's status recorded: a
	// database that had one exists, whatever else is missing.
	recorded string
	// configuredBefore is true when the Cluster's status recorded that the
	// database was configured.
	configuredBefore bool
	// now is when the observation was made.
	now time.Time
	// recovery is the recovery from lost coordinators the Cluster recorded,
	// nil when none is under way.
	recovery *v1alpha1.CoordinatorRecoveryObservation
	// database is true when the provider can reach the database: there is
	// a cluster file and an admin client.
	database bool
	// grant is the disruption grant the Cluster holds after this
	// reconcile; holdWhy says why no domain may disrupt while some group
	// needs to.
	grant   *disruption.Grant
	holdWhy string
	// members are the groups as the grant sees them (disruptionMembers),
	// computed once per reconcile with the grant.
	members []disruption.Member
	// tls is what the Cluster's certificate Secrets hold, checked; nil
	// for a Cluster without tls settings.
	tls *tlsSecrets
}

// groupID is the process group ID of a ProcessGroup.
func groupID(pg *v1alpha1.ProcessGroup) string { return pg.ID() }

// deleting reports whether removal of the group began.
func deleting(pg *v1alpha1.ProcessGroup) bool { return pg.GetDeletionTimestamp() != nil }

// Observing a Cluster lists the target's nodes (which Setup also watches),
// the cluster's pods, volume claims and the storage classes, and reads its
// headless Service, the monitor's ServiceAccount, Role and RoleBinding, and
// the volumes of claims whose pod cannot run; from the provider's own
// cache, its ProcessGroups and the Restores into it.
// +kubebuilder:rbac:groups="",resources=nodes;pods;services;persistentvolumeclaims;persistentvolumes;serviceaccounts,verbs=get;list;watch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch

func (e *external) observe(ctx context.Context, cr *v1alpha1.Cluster) (*observation, error) {
	o := &observation{clusterFile: e.session.ConnectionString, database: e.session.FDB != nil,
		recorded: cr.Status.AtProvider.ConnectionString, configuredBefore: cr.Status.AtProvider.Configured, recovery: cr.Status.AtProvider.CoordinatorRecovery, now: e.Clock.Now()}
	if cm := e.session.ConfigMap; cm != nil {
		o.configMap = cm.Data
	}
	var err error
	if o.groups, err = managedkind.Groups(ctx, e.Kube, cr.GetNamespace(), cr.GetName()); err != nil {
		return nil, err
	}
	if o.restores, err = restoresInto(ctx, e.Kube, cr); err != nil {
		return nil, err
	}
	// The nodes are read, never written: from the cache they come without
	// a deep copy, which at a fleet's size (every node, on every
	// reconcile of every Cluster) was the provider's largest cost.
	nodes := &corev1.NodeList{}
	if err := e.session.Target.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, errors.Wrap(err, errListNodes)
	}
	o.nodes = make(map[string]*corev1.Node, len(nodes.Items))
	for i := range nodes.Items {
		o.nodes[nodes.Items[i].Name] = &nodes.Items[i]
	}
	o.zones = zonesOf(cr, nodes.Items)
	pods := &corev1.PodList{}
	if err := e.session.Target.List(ctx, pods, e.session.Target.OfCluster(cr)...); err != nil {
		return nil, errors.Wrap(err, errListPods)
	}
	o.pods = make(map[string]*corev1.Pod, len(pods.Items))
	for i := range pods.Items {
		o.pods[pods.Items[i].Name] = &pods.Items[i]
	}
	svc := &corev1.Service{}
	switch err := e.session.Target.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.ServiceName(cr)}, svc); {
	case err == nil:
		o.service = svc
	case !kerrors.IsNotFound(err):
		return nil, errors.Wrap(err, errGetService)
	}
	if err := o.observeGroupServices(ctx, e.session.Target, cr); err != nil {
		return nil, err
	}
	if err := o.observeAccess(ctx, e.session.Target, workload.Namespace(cr)); err != nil {
		return nil, err
	}
	if err := o.observeNetworkPolicy(ctx, e.session.Target, cr); err != nil {
		return nil, err
	}
	if err := o.observeDisruptionBudget(ctx, e.session.Target, cr); err != nil {
		return nil, err
	}
	if err := o.observeVolumes(ctx, e.session.Target, cr); err != nil {
		return nil, err
	}
	if err := o.observeStranded(ctx, e.session.Target, cr); err != nil {
		return nil, err
	}
	if err := o.observeTLS(ctx, e.session.Target, cr, e.session.ClientSecret); err != nil {
		return nil, err
	}
	if o.database {
		o.status, o.statusErr = e.session.FDB.Status(ctx)
		e.Nudges.Saw(client.ObjectKeyFromObject(cr), o.groups, o.status)
	}
	o.members = o.disruptionMembers(cr)
	o.grant, o.holdWhy = o.nextGrant(cr)
	return o, nil
}

// observeGroupServices reads the Services of the cluster's groups when any
// group is known by its Service's IP: a pod made before its Service was
// made anew wants recreating (workload.StalePublicIP).
func (o *observation) observeGroupServices(ctx context.Context, target connector.Target, cr *v1alpha1.Cluster) error {
	if !slices.ContainsFunc(o.groups, func(pg v1alpha1.ProcessGroup) bool { return pg.Spec.ForProvider.PublicIPSource.Service() }) {
		return nil
	}
	list := &corev1.ServiceList{}
	if err := target.List(ctx, list, target.OfCluster(cr)...); err != nil {
		return errors.Wrap(err, errListServices)
	}
	o.groupServices = make(map[string]*corev1.Service, len(list.Items))
	for i := range list.Items {
		o.groupServices[list.Items[i].Name] = &list.Items[i]
	}
	return nil
}

// observeAccess reads the monitor's ServiceAccount, Role and RoleBinding in
// namespace ns.
func (o *observation) observeAccess(ctx context.Context, target client.Reader, ns string) error {
	key := client.ObjectKey{Namespace: ns, Name: workload.MonitorServiceAccount}
	account, role, binding := &corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}
	for _, obj := range []client.Object{account, role, binding} {
		if err := target.Get(ctx, key, obj); err != nil {
			if kerrors.IsNotFound(err) {
				continue
			}
			return errors.Wrap(err, errGetAccess)
		}
		switch obj := obj.(type) {
		case *corev1.ServiceAccount:
			o.account = obj
		case *rbacv1.Role:
			o.role = obj
		case *rbacv1.RoleBinding:
			o.binding = obj
		}
	}
	return nil
}

// observeVolumes reads the cluster's volume claims and which storage
// classes can expand a volume.
func (o *observation) observeVolumes(ctx context.Context, target connector.Target, cr *v1alpha1.Cluster) error {
	claims := &corev1.PersistentVolumeClaimList{}
	if err := target.List(ctx, claims, target.OfCluster(cr)...); err != nil {
		return errors.Wrap(err, errListPVCs)
	}
	o.claims = make(map[string]*corev1.PersistentVolumeClaim, len(claims.Items))
	for i := range claims.Items {
		if id := claims.Items[i].Labels[workload.LabelProcessGroup]; id != "" {
			o.claims[id] = &claims.Items[i]
		}
	}
	classes := &storagev1.StorageClassList{}
	if err := target.List(ctx, classes); err != nil {
		return errors.Wrap(err, errListSCs)
	}
	o.expandable = map[string]bool{}
	for _, sc := range classes.Items {
		o.expandable[sc.Name] = ptr.Deref(sc.AllowVolumeExpansion, false)
	}
	return nil
}

// observeStranded reads the volumes bound to the claims of the groups whose
// pod is missing or not running on a Ready node, and records the groups
// whose volume only nodes that are not Ready (or gone) could use: such a
// pod cannot come back until its node does. It then records the groups
// held by planned maintenance (observeHeld).
func (o *observation) observeStranded(ctx context.Context, target client.Reader, cr *v1alpha1.Cluster) error {
	o.stranded = map[string]bool{}
	volumes := map[string]*corev1.PersistentVolume{}
	ready := o.readyNodes()
	for id, claim := range o.claims {
		if claim.Spec.VolumeName == "" || claim.DeletionTimestamp != nil {
			continue
		}
		if pod := o.pods[workload.PodName(cr, id)]; pod != nil {
			if n := o.nodes[pod.Spec.NodeName]; n != nil && workload.NodeReady(n) {
				continue
			}
		}
		pv := &corev1.PersistentVolume{}
		if err := target.Get(ctx, client.ObjectKey{Name: claim.Spec.VolumeName}, pv); err != nil {
			if kerrors.IsNotFound(err) {
				continue
			}
			return errors.Wrap(err, errGetPV)
		}
		volumes[id] = pv
		o.stranded[id] = !slices.ContainsFunc(ready, func(n *corev1.Node) bool { return volumeFits(pv, n) })
	}
	o.observeHeld(cr, ready, volumes)
	return nil
}

// observeHeld records the groups whose pod waits unscheduled while every
// Ready node it could run on (its own node selector and required
// affinity, e.g. its zone, and those of its volume among volumes) carries
// a taint the Cluster's taintReplacements name, or is cordoned: the pod
// cannot come back until the maintenance ends (heldBy). ready are the
// Ready nodes.
func (o *observation) observeHeld(cr *v1alpha1.Cluster, ready []*corev1.Node, volumes map[string]*corev1.PersistentVolume) {
	o.heldBy = map[string]string{}
	if len(cr.Spec.ForProvider.Automation.TaintReplacements) == 0 {
		return // no taint announces maintenance
	}
	for i := range o.groups {
		id := groupID(&o.groups[i])
		pod := o.pods[workload.PodName(cr, id)]
		if pod == nil || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
			continue
		}
		affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
		var fits []string
		for _, n := range ready {
			if ok, err := affinity.Match(n); err == nil && ok && (volumes[id] == nil || volumeFits(volumes[id], n)) {
				fits = append(fits, n.Name)
			}
		}
		if len(fits) > 0 && !slices.ContainsFunc(fits, func(n string) bool {
			_, tainted := nodetaint.Of(o.nodes[n], cr.Spec.ForProvider.Automation.TaintReplacements)
			return !tainted
		}) {
			o.heldBy[id] = fits[0]
		}
	}
}

// readyNodes are the target cluster's Ready nodes, by name.
func (o *observation) readyNodes() []*corev1.Node { return sortedWhere(o.nodes, workload.NodeReady) }

// sortedWhere returns the values of m that keep accepts, by key.
func sortedWhere[T any](m map[string]*T, keep func(*T) bool) []*T {
	var out []*T
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if keep(m[k]) {
			out = append(out, m[k])
		}
	}
	return out
}

// volumeFits reports whether node n may use volume pv: any node may, when
// the volume names no required node affinity.
func volumeFits(pv *corev1.PersistentVolume, n *corev1.Node) bool {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return true
	}
	ok, err := corev1helpers.MatchNodeSelectorTerms(n, pv.Spec.NodeAffinity.Required)
	return err == nil && ok
}

// readyZones are the fault domains of the target cluster's nodes that take
// new process groups (zonesOf), sorted.
func readyZones(ctx context.Context, target client.Reader, cr *v1alpha1.Cluster) ([]string, error) {
	nodes := &corev1.NodeList{}
	if err := target.List(ctx, nodes); err != nil {
		return nil, errors.Wrap(err, errListNodes)
	}
	return zonesOf(cr, nodes.Items), nil
}

// zonesOf are the fault domains of the nodes that take new process groups,
// sorted: nodes that are Ready, not cordoned, and carry no taint the
// Cluster's automation.taintReplacements names (their groups are being
// moved off: a replacement placed beside them would wait Pending, or move
// again).
func zonesOf(cr *v1alpha1.Cluster, nodes []corev1.Node) []string {
	seen := map[string]bool{}
	var zones []string
	for _, n := range nodes {
		_, tainted := nodetaint.Of(&n, cr.Spec.ForProvider.Automation.TaintReplacements)
		if z := n.Labels[workload.FaultDomainKey(cr)]; z != "" && workload.NodeReady(&n) && !n.Spec.Unschedulable && !tainted && !seen[z] {
			seen[z] = true
			zones = append(zones, z)
		}
	}
	sort.Strings(zones)
	return zones
}

// nextGrant is the disruption grant the Cluster holds after this reconcile
// (see disruption.Next). Without a status read in this reconcile it cannot
// tell whether a domain is healthy again: the grant stays as it was.
func (o *observation) nextGrant(cr *v1alpha1.Cluster) (*disruption.Grant, string) {
	current := disruption.FromAPI(cr.Status.AtProvider.Disruption)
	if o.status == nil {
		return current, ""
	}
	return disruption.Next(current, o.members, cr.GetGeneration())
}

// disruptionMembers are the groups as the disruption grant sees them: a group wants
// a disruption when its pod's spec drifted, its pod was made with another
// IP than its Service has now (workload.StalePublicIP), its processes were left
// behind by an upgrade (fdb.LeftBehind) or run another patch release than
// the spec's, which only a pod on an image of that release runs
// (fdb.OnOtherPatch; never one being removed); it is
// disrupted when its pod is missing, not running or terminating, or its
// processes do not report in the status. A group being removed counts
// until it is gone: one that is down holds its domain's grant, and keeps
// any other domain from being disrupted, until its removal is done, so a
// roll never takes down a second domain while a failed group of the first
// is still excluded, drained and removed.
func (o *observation) disruptionMembers(cr *v1alpha1.Cluster) []disruption.Member {
	reporting := o.reporting()
	var out []disruption.Member
	for i := range o.groups {
		pg := &o.groups[i]
		id := groupID(pg)
		pod := o.pods[workload.PodName(cr, id)]
		out = append(out, disruption.Member{
			Group: id,
			Zone:  pg.Zone(),
			Wants: !deleting(pg) && pod != nil && (pod.Annotations[workload.AnnotationSpec] != workload.Pod(cr, pg, id).Annotations[workload.AnnotationSpec] ||
				workload.StalePublicIP(pg, pod, o.groupServices[workload.PodName(cr, id)]) ||
				fdb.LeftBehind(o.status, cr.Spec.ForProvider.Version, pg.Status.AtProvider.Addresses) ||
				fdb.OnOtherPatch(o.processesOf(id), cr.Spec.ForProvider.Version)),
			Disrupted: pod == nil || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning ||
				reporting[id] == 0,
			Volatile: !pg.Spec.ForProvider.ProcessClass.IsStateful(),
			Removing: deleting(pg),
		})
	}
	return out
}

// processesOf are the processes of group id in this reconcile's status;
// none without a status.
func (o *observation) processesOf(id string) []fdb.Process {
	var out []fdb.Process
	if o.status != nil {
		for _, p := range o.status.Cluster.Processes {
			if p.Locality.InstanceID == id {
				out = append(out, p)
			}
		}
	}
	return out
}

// reporting counts the processes of each group, by ID, that report in this
// reconcile's status; none without a status.
func (o *observation) reporting() map[string]int {
	out := map[string]int{}
	if o.status != nil {
		for _, p := range o.status.Cluster.Processes {
			out[p.Locality.InstanceID]++
		}
	}
	return out
}

// dataCenterDown reports whether none of the Cluster's groups has a
// process in the status read in this reconcile: its whole data center is
// out of the database, not some of its groups.
func (o *observation) dataCenterDown() bool {
	reporting := o.reporting()
	return !slices.ContainsFunc(o.groups, func(pg v1alpha1.ProcessGroup) bool { return reporting[groupID(&pg)] > 0 })
}

// configured reports whether this reconcile's status shows the database's
// configuration: it was created (configure new) and the status could read
// it, which an unavailable database's cannot (fdb.Status.ConfigurationRead).
// Steps that read the configuration, its exclusions or the excluded flags
// need it.
func (o *observation) configured() bool {
	return o.status != nil && o.status.ConfigurationRead()
}

// created reports whether the database was created: the status shows its
// configuration, or cannot read it and the Cluster recorded it configured
// before (and FoundationDB does not say it never was).
func (o *observation) created() bool {
	return o.configured() || o.status != nil && o.configuredBefore &&
		o.status.Cluster.RecoveryState.Name != fdb.RecoveryConfigurationNeverCreated
}

// available reports whether the database serves transactions.
func (o *observation) available() bool {
	return o.status != nil && o.status.Client.DatabaseStatus.Available
}

// removing returns the IDs of the groups whose removal began.
func (o *observation) removing() map[string]bool {
	out := map[string]bool{}
	for i := range o.groups {
		if deleting(&o.groups[i]) {
			out[groupID(&o.groups[i])] = true
		}
	}
	return out
}

// blankCoordinators are the groups, by ID, that serve one of the
// coordinators of connection string cs (procs say which process has which
// names) on a claim made under cs, or under a connection string unknown
// (workload.BlankUnder): the disk was lost and the claim made anew under
// the same DNS name after the coordinator change that named it, so the
// coordinator may hold no coordinated state — and one more coordinator's
// disk lost could leave fewer than a quorum holding it.
//
// A recovery since gives it the state back (reseeded).
func (o *observation) blankCoordinators(procs []plan.Process, cs fdb.ConnectionString) map[string]bool {
	out := map[string]bool{}
	for _, c := range o.claimsServing(procs, cs.Coordinators) {
		if id := c.Labels[workload.LabelProcessGroup]; workload.BlankUnder(c, cs) && !o.reseeded(procs, id, cs) {
			out[id] = true
		}
	}
	return out
}

// reseeded reports whether the last recovery wrote the coordinated state
// to the coordinators group id serves of connection string cs (procs say
// which process has which names): a recovery writes it to every
// coordinator, retrying, and waits for a quorum (replicatedWrite,
// fdbserver/CoordinatedState.actor.cpp, 7.3.63), before the database
// accepts commits, the moment seconds_since_last_recovered counts from
// (fdb.RecoveryState.SinceRecovered). So a
// coordinator whose process has run for reseedMargin longer than that,
// the database fully recovered and the coordinator reachable now, holds
// it again. Anything the status does not say reads as not reseeded.
func (o *observation) reseeded(procs []plan.Process, id string, cs fdb.ConnectionString) bool {
	if o.status == nil || o.status.Cluster.RecoveryState.Name != fdb.RecoveryFullyRecovered {
		return false
	}
	available, ok := o.status.Cluster.RecoveryState.SinceRecovered()
	if !ok {
		return false
	}
	since := (available + reseedMargin).Seconds()
	reachable := map[string]bool{}
	for _, c := range o.status.Client.Coordinators.Coordinators {
		reachable[string(c.Address)] = c.Reachable
	}
	serving := false
	for _, p := range procs {
		if p.InstanceID != id {
			continue
		}
		for _, a := range cs.Coordinators {
			if !slices.Contains(p.Names(), string(a)) {
				continue
			}
			serving = true
			if !reachable[string(a)] || o.uptime(p.ProcessID) <= since {
				return false
			}
		}
	}
	return serving
}

// reseedMargin is how much longer than the database has been available
// since its last recovery a coordinator's process must have run to have
// started before the recovery's write of the coordinated state: the write
// comes before the database accepts commits, by the recovery's last
// phases, which take well under a minute.
const reseedMargin = time.Minute

// uptime is how long the process of process ID id has run, as the status
// says; 0 when it does not report.
func (o *observation) uptime(id string) float64 {
	for _, p := range o.status.Cluster.Processes {
		if p.Locality.ProcessID == id {
			return p.UptimeSeconds
		}
	}
	return 0
}

// markedNew are those of claims marked new (workload.NewVolume), in their
// order.
func markedNew(claims []*corev1.PersistentVolumeClaim) []*corev1.PersistentVolumeClaim {
	return slices.DeleteFunc(claims, func(c *corev1.PersistentVolumeClaim) bool { return !workload.NewVolume(c) })
}

// claimsServing are the claims of the groups whose processes (procs) are
// named by one of addrs, by either of their names, in group ID order.
func (o *observation) claimsServing(procs []plan.Process, addrs []fdb.ProcessAddress) []*corev1.PersistentVolumeClaim {
	ids := map[string]bool{}
	for _, p := range procs {
		names := p.Names()
		if slices.ContainsFunc(addrs, func(a fdb.ProcessAddress) bool { return slices.Contains(names, string(a)) }) {
			ids[p.InstanceID] = true
		}
	}
	return o.claimsOf(maps.Keys(ids))
}

// claimsOf are the claims of the groups ids that have one, in group ID
// order.
func (o *observation) claimsOf(ids iter.Seq[string]) []*corev1.PersistentVolumeClaim {
	var out []*corev1.PersistentVolumeClaim
	for _, id := range slices.Sorted(ids) {
		if c := o.claims[id]; c != nil {
			out = append(out, c)
		}
	}
	return out
}

// connectionString is the cluster file the ConfigMap should hold: that of a
// recovery from lost coordinators under way, else what the
// database reports once it runs, else what the provider wrote, else what
// the Cluster's status recorded (a ConfigMap that lost its cluster file gets
// it back; no new coordinators are chosen for a database that exists).
func (o *observation) connectionString() string {
	switch {
	case o.recovery != nil:
		// A recovery from lost coordinators wrote it, and the status
		// may name the coordinators given up until the database took it.
		return o.recovery.To
	case o.status != nil && o.status.Cluster.ConnectionString != "":
		return o.status.Cluster.ConnectionString
	case o.clusterFile != "":
		return o.clusterFile
	}
	return o.recorded
}

// recoveryRecord is the recovery from lost coordinators still under way:
// the one recorded until the database runs on its coordinators, available,
// with every running pod's processes.
func (o *observation) recoveryRecord() *v1alpha1.CoordinatorRecoveryObservation {
	r := o.recovery
	if r == nil || o.status != nil && o.status.Cluster.ConnectionString == r.To && o.available() && len(o.strandedPods()) == 0 {
		return nil
	}
	return r
}

// neverCreated reports whether the status read in this reconcile proves the
// database was never configured: FoundationDB says so, and the Cluster
// never recorded it configured. An unreadable status proves nothing.
func (o *observation) neverCreated() bool {
	return o.status != nil && o.status.Cluster.RecoveryState.Name == fdb.RecoveryConfigurationNeverCreated && !o.configuredBefore
}

// atProvider is the observed state of the cluster, with the disruption
// grant the planner decided on; previous is the state recorded before.
func (o *observation) atProvider(previous v1alpha1.ClusterObservation, now metav1.Time) v1alpha1.ClusterObservation {
	cs := o.connectionString()
	at := v1alpha1.ClusterObservation{
		ConnectionString: cs,
		// The record is never taken back: a reconcile that reads no
		// status, or an unavailable database's, cannot tell (created).
		Configured:         o.configuredBefore || o.created(),
		LastPolicyDecision: previous.LastPolicyDecision,
		ProcessGroups:      v1alpha1.ProcessGroupCounts{Total: len(o.groups), ByClass: map[string]int{}},
	}
	at.MaintenanceZone = o.maintenanceRecord(previous.MaintenanceZone)
	at.DisruptionBudget = o.disruptionBudgetObservation()
	at.StorageMigration = storageMigration(o.status)
	at.CoordinatorRecovery = o.recoveryRecord()
	at.Drill = previous.Drill
	// Locks stay disabled as allowed (the Cluster clears it when its spec
	// asks for locks again).
	at.LocksDisabled, at.LockDenyList = previous.LocksDisabled, previous.LockDenyList
	// The global lock as a step last saw it, until it expires.
	if l := previous.GlobalLock; l != nil && now.Before(&l.Until) {
		at.GlobalLock = l
	}
	if g := o.grant; g != nil {
		at.Disruption = &v1alpha1.DisruptionGrant{Domain: g.Domain, Generation: g.Generation, VolatileFirst: g.VolatileFirst, DisruptedOnly: g.DisruptedOnly, Since: now}
		if p := previous.Disruption; p != nil && p.Domain == g.Domain {
			at.Disruption.Since = p.Since
		}
	}
	if parsed, err := fdb.ParseConnectionString(cs); err == nil {
		for _, c := range parsed.Coordinators {
			at.Coordinators = append(at.Coordinators, string(c))
		}
	}
	for i := range o.groups {
		pg := &o.groups[i]
		at.ProcessGroups.ByClass[string(pg.Spec.ForProvider.ProcessClass)]++
		if pg.Status.AtProvider.Excluded {
			at.ProcessGroups.Excluded++
		}
		if deleting(pg) {
			at.ProcessGroups.Removing++
		}
		if pg.Replacing() {
			at.ProcessGroups.Replacing++
		}
	}
	if s := o.status; s != nil {
		at.Health = v1alpha1.ClusterHealth{
			Available:          s.Client.DatabaseStatus.Available,
			Healthy:            s.Client.DatabaseStatus.Healthy,
			FullReplication:    s.Cluster.Data.State.Healthy,
			FaultTolerance:     s.ZoneFailuresTolerated(),
			RecoveryState:      s.Cluster.RecoveryState.Name,
			ActiveGenerations:  s.Cluster.RecoveryState.ActiveGenerations,
			RecoveryGeneration: s.Cluster.Generation,
			LastRecoveryTime:   lastRecovery(previous.Health, s, now.Time),
		}
		at.RunningVersion = fdb.RunningVersion(s)
	}
	at.ActivePrimaryDC, at.DataCenterLag = o.regionFacts(previous, now)
	return at
}

// regionFacts are the primary data center and the data center lag of a
// multi-region database as the status of this reconcile says, else as
// recorded before (a database that lost its primary may say neither). The
// lag is kept to the second, with when it took that value, so that a
// steady lag writes no new status.
func (o *observation) regionFacts(previous v1alpha1.ClusterObservation, now metav1.Time) (string, *v1alpha1.DataCenterLagObservation) {
	primary, lag := previous.ActivePrimaryDC, previous.DataCenterLag
	s := o.status
	if s == nil || !s.Client.DatabaseStatus.Available {
		return primary, lag
	}
	primary = s.Cluster.ActivePrimaryDC
	if l := s.Cluster.DatacenterLag; l != nil && s.Cluster.Configuration.UsableRegions > 1 {
		seconds := strconv.FormatFloat(math.Ceil(l.Seconds), 'f', 0, 64)
		if lag == nil || lag.Seconds != seconds {
			lag = &v1alpha1.DataCenterLagObservation{Seconds: seconds, ObservedAt: now}
		}
	} else {
		lag = nil
	}
	return primary, lag
}

// lastRecovery is when the database last recovered: the time recorded
// before while status s reports the same recovery generation, else now
// less the time s says the database has been available since (to the
// second); nil when s does not say, as while a recovery is under way.
// Derived afresh from every status, the time would move by however long
// each read took, and a database that did not change would get a new
// status every reconcile.
func lastRecovery(previous v1alpha1.ClusterHealth, s *fdb.Status, now time.Time) *metav1.Time {
	if previous.LastRecoveryTime != nil && previous.RecoveryGeneration == s.Cluster.Generation {
		return previous.LastRecoveryTime
	}
	since, ok := s.Cluster.RecoveryState.SinceRecovered()
	if !ok {
		return nil
	}
	t := metav1.NewTime(now.Add(-since).Truncate(time.Second))
	return &t
}

// restoresInto lists, from the provider's cache, the Restores into Cluster
// cr that are under way: neither completed nor aborted.
func restoresInto(ctx context.Context, c client.Reader, cr *v1alpha1.Cluster) ([]v1alpha1.Restore, error) {
	list := &v1alpha1.RestoreList{}
	if err := c.List(ctx, list, client.InNamespace(cr.GetNamespace())); err != nil {
		return nil, errors.Wrap(err, errListRestores)
	}
	var out []v1alpha1.Restore
	for _, rs := range list.Items {
		switch rs.Status.AtProvider.State {
		case v1alpha1.RestoreCompleted, v1alpha1.RestoreAborted:
			continue
		}
		if rs.Spec.ForProvider.ClusterName == cr.GetName() {
			out = append(out, rs)
		}
	}
	return out, nil
}
