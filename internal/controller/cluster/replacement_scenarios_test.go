package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// ids are the IDs of the groups of class, sorted.
func ids(groups []v1alpha1.ProcessGroup, class v1alpha1.ProcessClass) []string {
	var out []string
	for _, pg := range groups {
		if pg.Spec.ForProvider.ProcessClass == class {
			out = append(out, pg.ID())
		}
	}
	slices.Sort(out)
	return out
}

// settled waits until the cluster is Ready, up to date and at its desired
// fault tolerance, with no exclusion left, and the simulator saw no
// invariant violation.
func settled(t testing.TB, cr *v1alpha1.Cluster, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, "the cluster back at full fault tolerance with nothing excluded", func() (bool, string) {
		get(t, cr)
		st, err := h.Sim(t, cr).Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		at := cr.Status.AtProvider
		excluded := len(st.Cluster.Configuration.ExcludedServers)
		return at.Health.FaultTolerance == 2 && at.Health.Available && excluded == 0 && len(groupsOf(t, cr)) == 11,
			fmt.Sprintf("fault tolerance %d, available %t, %d exclusions, %d groups; Synced %q; events %v", at.Health.FaultTolerance, at.Health.Available, excluded,
				len(groupsOf(t, cr)), cr.GetCondition("Synced").Message, events(t, cr))
	})
	ready(t, cr, 30*time.Second)
	if v := h.Sim(t, cr).Check(); len(v) != 0 {
		t.Errorf("invariant violations: %v", v)
	}
}

// included waits for the Cluster's IncludedProcessGroups event: events
// reach the API server after the steps they record, and an inclusion that
// settled shows done (nothing excluded) may not show as an event yet
// (TestDensityMigration counted none once, on a loaded machine).
func included(t testing.TB, cr *v1alpha1.Cluster) {
	t.Helper()
	eventually(t, 30*time.Second, "the inclusion's event", func() (bool, string) {
		n := eventCount(t, cr, "IncludedProcessGroups")
		return n >= 1, fmt.Sprintf("%d IncludedProcessGroups events", n)
	})
}

// counts are the figures of a scenario: recoveries of the database and the
// Cluster's coordinator changes, exclusions and inclusions.
type counts struct{ recoveries, coordinators, excludes, includes int }

func countsOf(t testing.TB, cr *v1alpha1.Cluster) counts {
	t.Helper()
	return counts{
		recoveries:   h.Sim(t, cr).Recoveries(),
		coordinators: int(eventCount(t, cr, "ChangedCoordinators")),
		excludes:     int(eventCount(t, cr, "ExcludedProcessGroups")),
		includes:     int(eventCount(t, cr, "IncludedProcessGroups")),
	}
}

func (c counts) minus(o counts) counts {
	return counts{c.recoveries - o.recoveries, c.coordinators - o.coordinators, c.excludes - o.excludes, c.includes - o.includes}
}

// TestReplacementAskedFor replaces a group listed in processGroupsToReplace:
// a new group first, then the old one excluded, removed and included, in
// one batch each; the listed ID is never reused.
func TestReplacementAskedFor(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := tripleCluster(namespace(t, "replace-asked"))
	createReady(t, cr)
	before := countsOf(t, cr)

	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.ProcessGroupsToReplace = []string{"storage-2"} })
	eventually(t, 60*time.Second, "storage-2 replaced by storage-6", func() (bool, string) {
		got := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage)
		return slices.Equal(got, []string{"storage-1", "storage-3", "storage-4", "storage-5", "storage-6"}), fmt.Sprintf("storage groups %v; events %v", got, events(t, cr))
	})
	settled(t, cr, 60*time.Second)
	included(t, cr)
	got := countsOf(t, cr).minus(before)
	t.Logf("asked-for replacement: %+v", got)
	if got.excludes != 1 || got.includes != 1 || got.coordinators > 1 {
		t.Errorf("figures %+v: want one exclusion, one inclusion, at most one coordinator change", got)
	}
	for _, reason := range []string{"ReplacingProcessGroups", "CreatedProcessGroups", "RemovingReplacedProcessGroups"} {
		if eventCount(t, cr, reason) == 0 {
			t.Errorf("no %s event on the Cluster: %v", reason, events(t, cr))
		}
	}
	old := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-2", Namespace: cr.Namespace}}
	if !containsAny(events(t, old), "ReplacingProcessGroups: the Cluster is replacing this group: requested") {
		t.Errorf("no replacement event on the group: %v", events(t, old))
	}
}

// TestReplacementHeldByPolicy holds a replacement with a SafetyPolicy: the
// denial is visible on the Cluster and nothing is marked; deleting the
// policy releases it.
func TestReplacementHeldByPolicy(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "replace-held")
	cr := tripleCluster(ns)
	createReady(t, cr)
	release := denyInNamespace(t, ns, "hold-"+ns, apiv1alpha1.ActionReplaceProcessGroup, "change-window", "replacements wait for the change window")
	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.ProcessGroupsToReplace = []string{"log-1"} })
	eventually(t, 30*time.Second, "the replacement denied and said so", func() (bool, string) {
		get(t, cr)
		d, c := cr.Status.AtProvider.LastPolicyDecision, cr.GetCondition(gate.TypePolicyAllowed)
		denied := d != nil && d.Action == "ReplaceProcessGroup" && d.Result == "Denied" && d.Rule == "hold-replace-held/change-window"
		return denied && c.Reason == gate.ReasonPolicyDenied && strings.Contains(c.Message, "replacements wait for the change window"),
			fmt.Sprintf("decision %+v; PolicyAllowed %s %q", d, c.Status, c.Message)
	})
	for _, pg := range groupsOf(t, cr) {
		if pg.Replacing() {
			t.Errorf("group %s marked for replacement under the hold", pg.ID())
		}
	}
	if got := ids(groupsOf(t, cr), v1alpha1.ProcessClassLog); !slices.Contains(got, "log-1") || len(got) != 4 {
		t.Errorf("log groups %v under the hold, want log-1 among 4", got)
	}

	release()
	eventually(t, 60*time.Second, "log-1 replaced once released", func() (bool, string) {
		got := ids(groupsOf(t, cr), v1alpha1.ProcessClassLog)
		return !slices.Contains(got, "log-1") && len(got) == 4, fmt.Sprintf("log groups %v", got)
	})
	settled(t, cr, 60*time.Second)
}

// clusterPods are the cluster's pods as the API server holds them.
func clusterPods(t testing.TB, cr *v1alpha1.Cluster) []corev1.Pod {
	t.Helper()
	pods := &corev1.PodList{}
	if err := env.Client.List(context.Background(), pods, client.InNamespace(workload.Namespace(cr)), client.MatchingLabels{workload.LabelCluster: cr.Name}); err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// podsOnNode are the names of the cluster's pods bound to node.
func podsOnNode(t testing.TB, cr *v1alpha1.Cluster, node string) []string {
	t.Helper()
	var out []string
	for _, p := range clusterPods(t, cr) {
		if p.Spec.NodeName == node {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// nodeOf is the node the group's pod runs on; "" while it has no pod or
// the pod is not bound.
func nodeOf(t testing.TB, cr *v1alpha1.Cluster, id string) string {
	t.Helper()
	pod := &corev1.Pod{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: cr.Namespace, Name: workload.PodName(cr, id)}, pod); err != nil {
		return ""
	}
	return pod.Spec.NodeName
}

// groupEvents are the events of group id of cr.
func groupEvents(t testing.TB, cr *v1alpha1.Cluster, id string) []string {
	t.Helper()
	for _, pg := range groupsOf(t, cr) {
		if pg.ID() == id {
			return events(t, &pg)
		}
	}
	return nil
}

// failNode makes a node NotReady with its machine gone: the processes of
// the pods on it stop reporting for downFor. It returns the groups it hit.
func failNode(t testing.TB, cr *v1alpha1.Cluster, node string, downFor time.Duration) []string {
	t.Helper()
	var groups []string
	for _, name := range podsOnNode(t, cr, node) {
		id := strings.TrimPrefix(name, cr.Name+"-")
		groups = append(groups, id)
		if err := h.Sim(t, cr).LosePod(id, downFor); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Nodes.SetReady(context.Background(), node, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Nodes.SetReady(context.Background(), node, true) })
	return groups
}

// TestNodeFailureNetworkVolumes fails a node: its pods are force-deleted at
// once (not after Kubernetes' 300 s eviction) and rescheduled on the
// zone's other node with their volumes, and the cluster returns to full
// fault tolerance without replacing anything.
func TestNodeFailureNetworkVolumes(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := tripleCluster(namespace(t, "node-network"))
	cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = 7200
	createReady(t, cr)
	node := nodeOf(t, cr, "storage-1")
	// Virtual time stands still from the failure to the force-deletions:
	// the provider reacts to the node's transition, not to a timeout.
	h.Flow(false)
	vStart, wStart := h.Clock.Now(), time.Now()
	hit := failNode(t, cr, node, 10*time.Minute)
	eventually(t, 30*time.Second, "the failed node's pods force-deleted", func() (bool, string) {
		left := podsOnNode(t, cr, node)
		return len(left) == 0, fmt.Sprintf("pods still on %s: %v; events %v", node, left, events(t, cr))
	})
	t.Logf("node NotReady → force-deletion of its %d pods (%v): %s wall, %s virtual", len(hit), hit, time.Since(wStart).Round(time.Millisecond), h.Clock.Now().Sub(vStart))
	h.Flow(true)
	// The bound is generous: on a loaded machine (CI runs this package
	// beside the quickstart) a group's reconcile may wait in the queue, or
	// retry with backoff after a conflict, for tens of seconds.
	eventually(t, 90*time.Second, "the pods rescheduled on another node", func() (bool, string) {
		var where []string
		for _, id := range hit {
			n := nodeOf(t, cr, id)
			if n == "" || n == node {
				return false, fmt.Sprintf("%s on %q; its group's events %v", id, n, groupEvents(t, cr, id))
			}
			where = append(where, id+"@"+n)
		}
		return true, strings.Join(where, ", ")
	})
	settled(t, cr, 90*time.Second)
	if n := eventCountOnce(t, cr, "ForceDeletedPods", 1); n == 0 {
		t.Errorf("no ForceDeletedPods event: %v", events(t, cr))
	}
	if n := eventCount(t, cr, "ReplacingProcessGroups"); n != 0 {
		t.Errorf("%d replacements after a node failure that network volumes survive, want none", n)
	}
}

// nodeLocalCluster is a triple cluster whose storage volumes live on one
// node each, replacing failed groups after detection seconds.
func nodeLocalCluster(ns string, detection int) *v1alpha1.Cluster {
	cr := tripleCluster(ns)
	cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {StorageClassName: ptr.To(testenv.NodeLocalStorageClass)}}
	cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = detection
	return cr
}

// strandStorage1 fails the node of storage-1, whose volume lives on it: the
// pods whose volumes follow them come back on the zone's other node;
// storage-1's volume, and with it its processes, stay on the failed node.
func strandStorage1(t testing.TB, cr *v1alpha1.Cluster) {
	t.Helper()
	failNode(t, cr, nodeOf(t, cr, "storage-1"), 10*time.Minute)
	if err := h.Sim(t, cr).LosePod("storage-1", 1000*time.Hour); err != nil {
		t.Fatal(err)
	}
}

// storage1Gone waits until storage-1 was removed, five storage groups
// remain and the cluster settled.
func storage1Gone(t testing.TB, cr *v1alpha1.Cluster) {
	t.Helper()
	eventually(t, 120*time.Second, "storage-1 gone", func() (bool, string) {
		got := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage)
		return !slices.Contains(got, "storage-1") && len(got) == 5, fmt.Sprintf("storage groups %v; events %v", got, events(t, cr))
	})
	settled(t, cr, 120*time.Second)
}

// TestNodeFailureNodeLocalVolumes fails the node of a storage group whose
// volume lives on that node: its pod is force-deleted, cannot follow and
// stays Pending, which the Cluster's Ready condition says, with the
// scheduler's reason; the early
// replacement the Cluster asks for is denied by the default policy,
// visibly, and the group is replaced once it has failed for the failure
// detection time, not before; the cluster returns to full fault tolerance
// without it.
func TestNodeFailureNodeLocalVolumes(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := nodeLocalCluster(namespace(t, "node-local"), 3600)
	createReady(t, cr)
	strandStorage1(t, cr)

	eventually(t, 60*time.Second, "the Cluster's Ready condition naming storage-1, its failure and the scheduler's reason", func() (bool, string) {
		get(t, cr)
		msg := cr.GetCondition("Ready").Message
		_, why, named := strings.Cut(msg, "storage-1 (")
		return named && strings.Contains(why, "PodPending") && strings.Contains(why, " since ") &&
			strings.Contains(why, "Pending, Unschedulable: 0/"), msg
	})
	t.Logf("Cluster Ready=%s: %s", cr.GetCondition("Ready").Status, cr.GetCondition("Ready").Message)
	// Virtual time stands still, once the database is available again,
	// until the early replacement was denied: flowing, the detection time
	// passes in under four seconds, which a slow machine can spend before
	// the Cluster proposes it at all.
	defer h.Flow(true)
	eventually(t, 60*time.Second, "an early replacement of storage-1 denied by fdb-replacement/failure-detection before the detection time", func() (bool, string) {
		get(t, cr)
		if cr.Status.AtProvider.Health.Available {
			h.Flow(false)
		}
		evs := events(t, cr)
		return slices.ContainsFunc(evs, func(e string) bool {
			return strings.Contains(e, "fdb-replacement/failure-detection") && strings.Contains(e, "replaceStrandedVolumesAtOnce")
		}), fmt.Sprint(evs)
	})
	h.Flow(true)

	pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-1", Namespace: cr.Namespace}}
	eventually(t, 60*time.Second, "storage-1 marked for replacement", func() (bool, string) {
		get(t, pg)
		return pg.Replacing(), fmt.Sprintf("conditions %+v; node %q", pg.Status.AtProvider.ProcessGroupConditions, nodeOf(t, cr, "storage-1"))
	})
	var oldest time.Time
	for _, c := range pg.Status.AtProvider.ProcessGroupConditions {
		if oldest.IsZero() || c.Since.Time.Before(oldest) {
			oldest = c.Since.Time
		}
	}
	why := pg.GetAnnotations()[v1alpha1.AnnotationReplacement]
	t.Logf("storage-1 replaced: %s; events %v", why, events(t, pg))
	if age := h.Clock.Now().Sub(oldest); age < 3600*time.Second || !strings.HasPrefix(why, "failed: ") {
		t.Errorf("storage-1 replaced after failing %s (%q), want at least the detection time 3600 s", age, why)
	}
	storage1Gone(t, cr)
}

// TestStrandedVolumeReplacedAtOnce is TestNodeFailureNodeLocalVolumes with
// the policy parameter replaceStrandedVolumesAtOnce: the group whose
// volume cannot follow its pod is replaced at once, long before the
// failure detection time of two hours, and the cluster returns to full
// fault tolerance.
func TestStrandedVolumeReplacedAtOnce(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := nodeLocalCluster(namespace(t, "stranded"), 7200)
	cr.Spec.ForProvider.Safety.Params = &runtime.RawExtension{Raw: []byte(`{"replaceStrandedVolumesAtOnce":true}`)}
	createReady(t, cr)
	failed := h.Clock.Now()
	strandStorage1(t, cr)

	pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-1", Namespace: cr.Namespace}}
	eventually(t, 60*time.Second, "storage-1 marked for replacement", func() (bool, string) {
		get(t, pg)
		get(t, cr)
		return pg.Replacing(), fmt.Sprintf("conditions %+v; Cluster: %s", pg.Status.AtProvider.ProcessGroupConditions, cr.GetCondition("Synced").Message)
	})
	why := pg.GetAnnotations()[v1alpha1.AnnotationReplacement]
	after := h.Clock.Now().Sub(failed)
	t.Logf("storage-1 replaced %s after its node failed: %s", after, why)
	if after >= 7200*time.Second || !strings.Contains(why, "cannot follow it to a Ready node") {
		t.Errorf("storage-1 replaced %s after its node failed (%q), want at once, as a stranded volume", after, why)
	}
	storage1Gone(t, cr)
}

// TestVolumeExpansion grows the storage volumes of a cluster whose storage
// class can expand them: the API server accepts the bound claims' larger
// requests (it refuses them for a class that cannot expand, and for claims
// that are not bound), in one step, and no group is replaced.
func TestVolumeExpansion(t *testing.T) {
	start(t)
	h.Flow(true)
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "expandable"}, Provisioner: "testenv.example.com", AllowVolumeExpansion: ptr.To(true)}
	if err := env.Client.Create(context.Background(), class); err != nil && !kerrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cr := tripleCluster(namespace(t, "expand"))
	cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {StorageClassName: ptr.To(class.Name), VolumeSize: ptr.To(resource.MustParse("16Gi"))}}
	createReady(t, cr)
	before := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage)

	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.Processes["storage"] = v1alpha1.ProcessSettings{StorageClassName: ptr.To(class.Name), VolumeSize: ptr.To(resource.MustParse("32Gi"))}
	})
	eventually(t, 60*time.Second, "every storage claim asking for 32Gi", func() (bool, string) {
		claims := &corev1.PersistentVolumeClaimList{}
		if err := env.Client.List(context.Background(), claims, client.InNamespace(cr.Namespace),
			client.MatchingLabels{workload.LabelProcessClass: string(v1alpha1.ProcessClassStorage)}); err != nil {
			return false, err.Error()
		}
		var sizes []string
		done := len(claims.Items) == 5
		for _, c := range claims.Items {
			size := c.Spec.Resources.Requests[corev1.ResourceStorage]
			sizes = append(sizes, c.Name+"="+size.String()+"/"+string(c.Status.Phase))
			done = done && size.String() == "32Gi"
		}
		return done, fmt.Sprintf("claims %v; events %v", sizes, events(t, cr))
	})
	settled(t, cr, 60*time.Second)
	if got := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage); !slices.Equal(got, before) {
		t.Errorf("storage groups %v after the expansion, want the same %v", got, before)
	}
	if n := eventCountOnce(t, cr, "ExpandedVolumes", 1); n != 1 {
		t.Errorf("%d ExpandedVolumes events, want one step: %v", n, events(t, cr))
	}
}

// TestFailedGroupThatHealsIsKept fails both nodes of a zone for less than
// the failure detection time: the pods there wait, Pending, and the groups
// are kept when the zone comes back.
func TestFailedGroupThatHealsIsKept(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := tripleCluster(namespace(t, "node-heals"))
	cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = 1800
	createReady(t, cr)
	before := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage)
	zone := ""
	for _, pg := range groupsOf(t, cr) {
		if pg.ID() == "storage-1" {
			zone = pg.Zone()
		}
	}
	vStart := h.Clock.Now()
	for i := range 2 {
		failNode(t, cr, fmt.Sprintf("node-%s-%d", zone, i), 5*time.Minute)
	}
	eventually(t, 30*time.Second, "five virtual minutes pass", func() (bool, string) {
		return h.Clock.Now().Sub(vStart) >= 5*time.Minute, h.Clock.Now().Sub(vStart).String()
	})
	for i := range 2 {
		if err := h.Nodes.SetReady(context.Background(), fmt.Sprintf("node-%s-%d", zone, i), true); err != nil {
			t.Fatal(err)
		}
	}
	settled(t, cr, 90*time.Second)
	if got := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage); !slices.Equal(got, before) {
		t.Errorf("storage groups %v after the zone healed, want %v kept", got, before)
	}
	if n := eventCount(t, cr, "ReplacingProcessGroups"); n != 0 {
		t.Errorf("%d replacements of groups that healed in time, want none; events %v", n, events(t, cr))
	}
}

// TestEvictedPodCreatedAnew evicts a storage pod as a kubelet under node
// pressure does (phase Failed, reason Evicted). No kubelet runs it again,
// so its group deletes it (gated as DeletePod) and creates it anew: the
// group keeps its ID and volume, and the cluster is back at full fault
// tolerance long before the failure detection time, with nothing replaced.
func TestEvictedPodCreatedAnew(t *testing.T) {
	start(t)
	h.Flow(true)
	ctx := context.Background()
	cr := tripleCluster(namespace(t, "terminal-pod"))
	createReady(t, cr)
	before := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage)
	key := client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.PodName(cr, "storage-1")}
	pod := &corev1.Pod{}
	if err := env.Client.Get(ctx, key, pod); err != nil {
		t.Fatal(err)
	}
	evicted, at := pod.UID, h.Clock.Now()
	if err := h.Nodes.Evict(ctx, key); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "storage-1's pod running anew", func() (bool, string) {
		pg := &v1alpha1.ProcessGroup{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: cr.Name + "-storage-1"}, pg); err != nil {
			return false, fmt.Sprintf("group storage-1: %v, %s after the eviction; Cluster events %v", err, h.Clock.Now().Sub(at), events(t, cr))
		}
		p := &corev1.Pod{}
		if err := env.Client.Get(ctx, key, p); err != nil {
			return false, fmt.Sprintf("%v; group %s; events %v", err, pg.GetCondition("Synced").Message, events(t, pg))
		}
		return p.UID != evicted && p.Status.Phase == corev1.PodRunning,
			fmt.Sprintf("pod %s %s %s; group %s; events %v", p.UID, p.Status.Phase, p.Status.Reason, pg.GetCondition("Synced").Message, events(t, pg))
	})
	anew := h.Clock.Now().Sub(at)
	t.Logf("storage-1's pod running anew %s after its eviction", anew)
	// The clock passes 20 s every 20 ms of wall time: minutes of it are
	// a few reconciles.
	if anew >= 2*time.Hour {
		t.Errorf("storage-1's pod running anew %s after its eviction, want before the failure detection time (2h)", anew)
	}
	settled(t, cr, 90*time.Second)
	if got := ids(groupsOf(t, cr), v1alpha1.ProcessClassStorage); !slices.Equal(got, before) {
		t.Errorf("storage groups %v after the eviction, want %v kept", got, before)
	}
	if n := eventCount(t, cr, "ReplacingProcessGroups"); n != 0 {
		t.Errorf("%d replacements after an eviction, want none; events %v", n, events(t, cr))
	}
	pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: cr.Name + "-storage-1", Namespace: cr.Namespace}}
	if n := eventCountOnce(t, pg, "DeletedTerminalPod", 1); n != 1 {
		t.Errorf("%d DeletedTerminalPod events of storage-1, want 1; events %v", n, events(t, pg))
	}
}

// TestDensityMigration migrates a five-storage triple cluster from one
// storage server per pod to two: every storage group is replaced by one of
// the new density, with one coordinator change at most, one exclusion and
// no other recovery.
func TestDensityMigration(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := tripleCluster(namespace(t, "density"))
	createReady(t, cr)
	before := countsOf(t, cr)

	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.StorageServersPerPod = 2 })
	eventually(t, 120*time.Second, "every storage group of density 2", func() (bool, string) {
		var desc []string
		done := true
		n := 0
		for _, pg := range groupsOf(t, cr) {
			if pg.Spec.ForProvider.ProcessClass != v1alpha1.ProcessClassStorage {
				continue
			}
			n++
			desc = append(desc, fmt.Sprintf("%s:%d:%v", pg.ID(), pg.Spec.ForProvider.ProcessesPerPod, pg.Status.AtProvider.ProcessIDs))
			done = done && pg.Spec.ForProvider.ProcessesPerPod == 2 && len(pg.Status.AtProvider.ProcessIDs) == 2
		}
		return done && n == 5, strings.Join(desc, " ")
	})
	settled(t, cr, 120*time.Second)
	included(t, cr)
	got := countsOf(t, cr).minus(before)
	t.Logf("density 1 → 2: %+v", got)
	if got.coordinators > 1 || got.excludes != 1 || got.includes != 1 || got.recoveries > got.coordinators {
		t.Errorf("density migration %+v: want at most one coordinator change, one exclusion, one inclusion, and no recovery but the coordinators'; events %v", got, events(t, cr))
	}
	// A density change restarts no process in place: new groups start on
	// the configuration of their density, and no kill meets a monitor on
	// another configuration than the ConfigMap's.
	if calls := h.AdminCalls(cr); calls.Calls[sim.OpKill] != 0 || len(calls.KilledBeforeLoad) != 0 {
		t.Errorf("%d kills for the density change (of pods whose monitor had not loaded the new configuration: %v), want none", calls.Calls[sim.OpKill], calls.KilledBeforeLoad)
	}
	for _, pg := range groupsOf(t, cr) {
		if pg.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage {
			if want := []string{pg.ID() + "-1", pg.ID() + "-2"}; !slices.Equal(pg.Status.AtProvider.ProcessIDs, want) {
				t.Errorf("%s process IDs %v, want %v", pg.ID(), pg.Status.AtProvider.ProcessIDs, want)
			}
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: cr.Namespace}}
	get(t, cm)
	if _, old := cm.Data["fdbmonitor-conf-storage-density-1"]; old {
		t.Errorf("the ConfigMap keeps the density-1 storage configuration no pod uses")
	}
	if _, cur := cm.Data["fdbmonitor-conf-storage-density-2"]; !cur {
		t.Errorf("the ConfigMap lacks the density-2 storage configuration")
	}
}
