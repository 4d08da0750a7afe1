package localrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestQuickstart walks `make run`'s path headless: start everything, wait
// for the quickstart Cluster to be Ready, check its pods for what a real
// cluster asks of them (podsCanStart), fail a node that runs a storage
// pod and heal it (nodeFailure), drain two nodes against the Cluster's
// PodDisruptionBudget (drainOneDomainAtATime), migrate its storage to two storage
// servers per pod (densityMigration), replace the groups of a node tainted
// for planned maintenance (taintReplacement), migrate its storage engine to
// Redwood (engineMigration), scale its storage down from 5 to 3
// (with the policies' recovery-time thresholds lowered, so it takes seconds
// instead of minutes), see the two storage process groups and their pods
// go, run a crash-loop drill that waits while a storage group is down
// (crashLoopDrill), stop, and find no process of the run left. Before it stops, it checks
// on this cluster, which runs kube-controller-manager's garbage collector
// (envtest runs none), what a person's deletions must not cost: a storage
// group deleted by hand goes only by the normal removal (handDeletion), and
// an orphaned Cluster leaves every pod and volume claim to the collector
// untouched (orphanFlip).
func TestQuickstart(t *testing.T) {
	o := runOptions(t, testenv.Getenv(t, testenv.LocalRunPathEnv, "hack/controlplane.sh --all"), "fdb-quickstart-test")
	o.MetricsAddress = freeAddress(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()

	start := time.Now()
	r, err := localrun.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = r.Stop(context.Background())
		}
	})
	t.Logf("started in %s", time.Since(start).Round(time.Second))
	p := localrun.NewProgress(r.Client, localrun.Namespace, testenv.LogWriter{T: t})
	readyCtx, readyCancel := context.WithTimeout(ctx, 5*time.Minute)
	defer readyCancel()
	if err := r.WaitReady(readyCtx, p); err != nil {
		t.Fatalf("the quickstart Cluster is not Ready: %v; provider log %s", err, r.ProviderLog())
	}
	t.Logf("Ready %s after the start", time.Since(start).Round(time.Second))
	key := client.ObjectKey{Namespace: localrun.Namespace, Name: localrun.ClusterName}
	t.Run("MetricsDescribeTheDatabase", func(t *testing.T) { databaseMetrics(ctx, t, "http://"+o.MetricsAddress+"/metrics", key) })
	t.Run("RunsWithTLSAlone", func(t *testing.T) { tlsAlone(ctx, t, r, key) })
	t.Run("PodsCanStartOnARealCluster", func(t *testing.T) { podsCanStart(ctx, t, r, key) })
	t.Run("FailedNodeIsNotReadyUntilHealed", func(t *testing.T) {
		nodeFailure(ctx, t, r, p, key)
	})
	t.Run("DrainTakesOneFaultDomainAtATime", func(t *testing.T) { drainOneDomainAtATime(ctx, t, r, key) })

	t.Run("StorageDensityMigratesByReplacement", func(t *testing.T) { densityMigration(ctx, t, r, p, key) })
	t.Run("TaintedNodesGroupsAreReplacedBeforeItsDrain", func(t *testing.T) { taintReplacement(ctx, t, r, p, key) })
	t.Run("StorageEngineMigratesByReplacement", func(t *testing.T) { engineMigration(ctx, t, r, p, key) })
	t.Run("PatchUpgradeRollsThePods", func(t *testing.T) { upgradePatch(ctx, t, r, p, key) })

	// The scale-down keeps the default inclusion delay until analyze has
	// said why it waits: a recovery just before it (a log pod deleted, as
	// a failure would) makes sure that delay is still to run.
	recoverNow(ctx, t, r, p, key)
	cr := &v1alpha1.Cluster{}
	// The density migration lowered the inclusion delay; null takes the
	// default back.
	patch := []byte(`{"spec":{"forProvider":{"processCounts":{"storage":3},"safety":{"params":{"minSecondsSinceRecoveryForExclude":0,"minSecondsSinceRecoveryForInclude":null}}}}}`)
	cr.Name, cr.Namespace = key.Name, key.Namespace
	if err := r.Client.Patch(ctx, cr, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatal(err)
	}
	scaled := time.Now()
	t.Run("AnalyzeNamesTheInclusionDelay", func(t *testing.T) { analyzeInclusionDelay(ctx, t, r, p, key) })
	patch = []byte(`{"spec":{"forProvider":{"safety":{"params":{"minSecondsSinceRecoveryForInclude":0}}}}}`)
	if err := r.Client.Patch(ctx, cr, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatal(err)
	}
	var last string
	err = wait.PollUntilContextTimeout(ctx, time.Second, 8*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		done, why, err := scaledDown(ctx, r.Client, key, 3)
		last = why
		return done, err
	})
	if err != nil {
		t.Fatalf("storage did not scale down to 3: %s; provider log %s", last, r.ProviderLog())
	}
	t.Logf("scaled down in %s", time.Since(scaled).Round(time.Second))
	t.Run("CrashLoopDrillWaitsForFaultTolerance", func(t *testing.T) { crashLoopDrill(ctx, t, r, p, key) })

	// Both phases run on the scaled-down Cluster; the second only on a
	// Cluster the first left Ready.
	if t.Run("HandDeletedGroupIsDrainedBeforeItsDataGoes", func(t *testing.T) { handDeletion(ctx, t, r, p, key) }) {
		t.Run("OrphanedClusterLeavesEveryPodAndVolume", func(t *testing.T) { orphanFlip(ctx, t, r, p, key) })
	}

	stopped = true
	if err := r.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	pids, err := localrun.Processes(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 0 {
		t.Errorf("processes of the run still run after Stop: %v", pids)
	}
}

// runOptions are the options of a run of the tests: the repository's
// files, a state directory of the test's own, the control plane's binaries
// in binPath, a local cluster named name, the output in the test's log.
func runOptions(tb testing.TB, binPath, name string) localrun.Options {
	o := localrun.DefaultOptions()
	o.Root = testenv.Root()
	o.StateDir = tb.TempDir()
	o.BinPath = binPath
	o.ClusterName = name
	o.Out = testenv.LogWriter{T: tb}
	return o
}

// scaledDown holds when the Cluster has want storage process groups, every
// pod of a removed group is gone, and the Cluster is Ready and up to date.
func scaledDown(ctx context.Context, c client.Client, key client.ObjectKey, want int) (bool, string, error) {
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		return false, "", err
	}
	groups := &v1alpha1.ProcessGroupList{}
	if err := c.List(ctx, groups, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}); err != nil {
		return false, "", err
	}
	storage := 0
	for _, g := range groups.Items {
		if g.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage {
			storage++
		}
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{
		workload.LabelCluster: key.Name, workload.LabelProcessClass: string(v1alpha1.ProcessClassStorage),
	}); err != nil {
		return false, "", err
	}
	ready, upToDate := cr.GetCondition(xpv2.TypeReady).Status, cr.GetCondition(xpv2.TypeUpToDate).Status
	why := fmt.Sprintf("%d storage groups, %d storage pods, Ready %s, UpToDate %s", storage, len(pods.Items), ready, upToDate)
	return storage == want && len(pods.Items) == want && ready == corev1.ConditionTrue && upToDate == corev1.ConditionTrue, why, nil
}

// withoutDelete are management policies that orphan what a resource
// manages when it is deleted.
var withoutDelete = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}

// Event reasons of the ProcessGroup controller the phases look for.
const (
	reasonRemoved  = "RemovedProcessGroup"
	reasonTeardown = "DeletedWithCluster"
	reasonReleased = "ReleasedProcessGroup"
)

// handDeletion deletes one storage ProcessGroup of the live Cluster by hand,
// as `kubectl delete processgroup` does (default propagation). The group must
// go by the normal removal: its pod and volume claim stay until its removal
// was allowed as RemoveProcessGroup (which the group plans only once the
// status proves it excluded and drained, and whose policy checks that again),
// and it records that it removed a fully excluded group. The Cluster, whose
// active storage groups fell below three, creates a replacement under a new
// ID and is Ready and up to date again with three storage groups and their
// pods; no other group's volume claim goes.
func handDeletion(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	storage, err := groupsOf(ctx, c, key, v1alpha1.ProcessClassStorage)
	if err != nil {
		t.Fatal(err)
	}
	if len(storage) != 3 {
		t.Fatalf("want 3 storage groups before the deletion, have %d", len(storage))
	}
	before := map[string]bool{}
	for _, g := range storage {
		before[g.ID()] = true
	}
	victim := notCoordinator(storage, cr.Status.AtProvider.Coordinators)
	id := victim.ID()
	claims, err := claimsOf(ctx, c, key)
	if err != nil {
		t.Fatal(err)
	}
	pod := client.ObjectKey{Namespace: key.Namespace, Name: workload.PodName(cr, id)}
	claim := client.ObjectKey{Namespace: key.Namespace, Name: workload.PVCName(cr, id)}
	if _, ok := claims[claim.Name]; !ok {
		t.Fatalf("storage group %s has no volume claim %s; claims %v", id, claim.Name, claims)
	}

	t.Logf("deleting storage group %s by hand (coordinators %v)", id, cr.Status.AtProvider.Coordinators)
	start := time.Now()
	if err := c.Delete(ctx, &victim); err != nil {
		t.Fatal(err)
	}
	var last string
	var excludedAfter time.Duration
	goingSeen := 0 // polls that saw the pod or claim go while the group was there
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 8*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		// The pod and claim are read before the group: the group records
		// its allowed removal on the API server before it deletes
		// anything, so a pod or claim found gone here finds that decision
		// in the group read after.
		podGone, err := goneOrGoing(ctx, c, pod, &corev1.Pod{})
		if err != nil {
			return false, err
		}
		claimGone, err := goneOrGoing(ctx, c, claim, &corev1.PersistentVolumeClaim{})
		if err != nil {
			return false, err
		}
		pg := &v1alpha1.ProcessGroup{}
		switch err := c.Get(ctx, client.ObjectKeyFromObject(&victim), pg); {
		case kerrors.IsNotFound(err):
		case err != nil:
			return false, err
		default:
			at := pg.Status.AtProvider
			if at.Excluded && excludedAfter == 0 {
				excludedAfter = time.Since(start)
			}
			if podGone || claimGone {
				goingSeen++
			}
			if (podGone || claimGone) && !removalAllowed(at.LastPolicyDecision, id) {
				return false, fmt.Errorf("the pod (gone: %t) or volume claim (gone: %t) of group %s went before its removal was allowed: excluded %t, last decision %+v",
					podGone, claimGone, id, at.Excluded, at.LastPolicyDecision)
			}
			last = fmt.Sprintf("group %s is being removed: excluded %t, %s", id, at.Excluded, pg.GetCondition(xpv2.TypeReady).Message)
			return false, nil
		}
		if !podGone || !claimGone {
			last = fmt.Sprintf("group %s is gone, its pod (gone: %t) or volume claim (gone: %t) not yet", id, podGone, claimGone)
			return false, nil
		}
		done, why, err := scaledDown(ctx, c, key, 3)
		last = fmt.Sprintf("group %s, its pod and volume claim are gone; %s", id, why)
		return done, err
	})
	if err != nil {
		t.Fatalf("group %s was not removed and replaced: %v; last seen: %s; provider log %s", id, err, last, r.ProviderLog())
	}
	t.Logf("group %s seen excluded %s after its deletion, its pod or claim going in %d polls while it was there; removed, replaced and the Cluster Ready again after %s",
		id, excludedAfter.Round(time.Second), goingSeen, time.Since(start).Round(time.Second))

	// The group says how it went: removed as a fully excluded group, never
	// torn down as if its Cluster were deleted.
	var reasons []string
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		events, err := eventsOf(ctx, c, &victim)
		if err != nil {
			return false, err
		}
		reasons = reasons[:0]
		removed := false
		for _, e := range events {
			reasons = append(reasons, e.Reason+": "+e.Message)
			switch e.Reason {
			case reasonTeardown, reasonReleased:
				return false, fmt.Errorf("group %s: %s: %s", id, e.Reason, e.Message)
			case reasonRemoved:
				removed = removed || strings.Contains(e.Message, "fully excluded group "+id)
			}
		}
		return removed, nil
	})
	if err != nil {
		t.Errorf("group %s has no %s event for a fully excluded group: %v; its events: %q", id, reasonRemoved, err, reasons)
	}

	storage, err = groupsOf(ctx, c, key, v1alpha1.ProcessClassStorage)
	if err != nil {
		t.Fatal(err)
	}
	var replacements []string
	for _, g := range storage {
		if g.ID() == id {
			t.Errorf("the removed group %s exists again", id)
		}
		if !before[g.ID()] {
			replacements = append(replacements, g.ID())
		}
	}
	if len(replacements) != 1 {
		t.Errorf("want one replacement storage group under a new ID, have %v", replacements)
	} else {
		t.Logf("the Cluster replaced %s with %s", id, replacements[0])
		has, err := exists(ctx, c, client.ObjectKey{Namespace: key.Namespace, Name: workload.PVCName(cr, replacements[0])}, &corev1.PersistentVolumeClaim{})
		if err != nil {
			t.Fatal(err)
		}
		if !has {
			t.Errorf("the replacement group %s has no volume claim", replacements[0])
		}
	}
	delete(claims, claim.Name)
	lost, err := missing(ctx, c, kept(claims, func() client.Object { return &corev1.PersistentVolumeClaim{} }))
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) > 0 {
		t.Errorf("volume claims of other groups went with %s: %v", id, lost)
	}
}

// orphanFlip orphans the live Cluster (its management policies lose
// Delete), waits until every group took those policies, and deletes the
// Cluster. The local cluster's garbage collector then deletes the groups
// through their owner reference to the Cluster, and the groups, orphaned,
// let go without touching their pods and volumes. A probe ConfigMap owned
// by the Cluster and by every group shows that the collector did cascade
// from all of them (it deletes the probe once they are all gone); every pod
// and volume claim of the groups, and the cluster's ConfigMap, must outlive
// that, untouched, and stay while the collector settles.
func orphanFlip(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	groups, err := groupsOf(ctx, c, key, "")
	if err != nil {
		t.Fatal(err)
	}
	pods, err := podsOf(ctx, c, key)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := claimsOf(ctx, c, key)
	if err != nil {
		t.Fatal(err)
	}
	stateful := 0
	for _, g := range groups {
		if g.Spec.ForProvider.ProcessClass.IsStateful() {
			stateful++
		}
	}
	if len(pods) != len(groups) || len(claims) != stateful {
		t.Fatalf("want a pod for each of the %d groups and a volume claim for each of the %d stateful ones, have pods %v, claims %v",
			len(groups), stateful, pods, claims)
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: workload.ConfigMapName(cr)}, cm); err != nil {
		t.Fatal(err)
	}
	data := append(append(kept(pods, func() client.Object { return &corev1.Pod{} }),
		kept(claims, func() client.Object { return &corev1.PersistentVolumeClaim{} })...),
		keptObject{name: cm.Name, uid: cm.UID, newObj: func() client.Object { return &corev1.ConfigMap{} }})
	t.Logf("recorded %d pods, %d volume claims and ConfigMap %s of %d groups", len(pods), len(claims), cm.Name, len(groups))

	probe := gcProbe(cr, groups)
	if err := c.Create(ctx, probe); err != nil {
		t.Fatal(err)
	}

	policies, err := json.Marshal(map[string]any{"spec": map[string]any{"managementPolicies": withoutDelete}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, cr, client.RawPatch(types.MergePatchType, policies)); err != nil {
		t.Fatal(err)
	}
	var last string
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		groups, err := groupsOf(ctx, c, key, "")
		if err != nil {
			return false, err
		}
		var stale []string
		for _, g := range groups {
			if !slices.Equal(g.GetManagementPolicies(), withoutDelete) {
				stale = append(stale, g.ID())
			}
		}
		last = fmt.Sprintf("groups with other management policies: %v", stale)
		return len(stale) == 0, nil
	})
	if err != nil {
		t.Fatalf("the groups did not take the Cluster's management policies %v: %v; %s; provider log %s", withoutDelete, err, last, r.ProviderLog())
	}

	last = ""
	start := time.Now()
	if err := c.Delete(ctx, cr); err != nil {
		t.Fatal(err)
	}
	var clusterGone, groupsGone, probeGone time.Duration
	since := func(d *time.Duration, now bool) {
		if now && *d == 0 {
			*d = time.Since(start)
		}
	}
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		cluster, err := exists(ctx, c, key, &v1alpha1.Cluster{})
		if err != nil {
			return false, err
		}
		since(&clusterGone, !cluster)
		left, err := groupsOf(ctx, c, key, "")
		if err != nil {
			return false, err
		}
		since(&groupsGone, len(left) == 0)
		probed, err := exists(ctx, c, client.ObjectKeyFromObject(probe), &corev1.ConfigMap{})
		if err != nil {
			return false, err
		}
		since(&probeGone, !probed)
		if err := intact(ctx, c, data); err != nil {
			return false, err
		}
		_, _ = p.Report(ctx)
		last = fmt.Sprintf("Cluster gone: %t, groups left: %d, probe gone: %t", clusterGone != 0, len(left), probeGone != 0)
		return clusterGone != 0 && groupsGone != 0 && probeGone != 0, nil
	})
	if err != nil {
		t.Fatalf("the orphaned Cluster and its groups were not collected with every pod and volume kept: %v; %s; provider log %s", err, last, r.ProviderLog())
	}
	t.Logf("after the Cluster's deletion: Cluster gone after %s, groups gone after %s, probe collected after %s",
		clusterGone.Round(100*time.Millisecond), groupsGone.Round(100*time.Millisecond), probeGone.Round(100*time.Millisecond))

	// The collector has cascaded from every group; what it would still do
	// to their pods or volumes happens about now. Keep watching them for a
	// while.
	settled := time.Now().Add(15 * time.Second)
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := intact(ctx, c, data); err != nil {
			return false, err
		}
		return time.Now().After(settled), nil
	})
	if err != nil {
		t.Fatalf("after the garbage collector cascaded: %v", err)
	}
	secret := &corev1.Secret{}
	if ref := cr.GetWriteConnectionSecretToReference(); ref != nil {
		has, err := exists(ctx, c, client.ObjectKey{Namespace: key.Namespace, Name: ref.Name}, secret)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("connection secret %s exists after the orphaning: %t", ref.Name, has)
	}

	for i := range groups {
		events, err := eventsOf(ctx, c, &groups[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if e.Reason == reasonTeardown || e.Reason == reasonReleased {
				t.Errorf("orphaned group %s: %s: %s", groups[i].ID(), e.Reason, e.Message)
			}
		}
	}
}

// gcProbe is a ConfigMap owned by the Cluster and every group, as their pods
// and volume claims would be if anything tied them to their owners: the
// garbage collector deletes it once all of them are gone.
func gcProbe(cr *v1alpha1.Cluster, groups []v1alpha1.ProcessGroup) *corev1.ConfigMap {
	owner := func(gvk schema.GroupVersionKind, o client.Object) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: o.GetName(), UID: o.GetUID()}
	}
	refs := []metav1.OwnerReference{owner(v1alpha1.ClusterGroupVersionKind, cr)}
	for i := range groups {
		refs = append(refs, owner(v1alpha1.ProcessGroupGroupVersionKind, &groups[i]))
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cr.Namespace, Name: cr.Name + "-gc-probe", OwnerReferences: refs}}
}

// notCoordinator returns the first group none of whose names (IP and DNS
// addresses) is a coordinator, or the first group when all are: removing a coordinator's
// group moves the coordinators first, which is slower but as safe.
func notCoordinator(groups []v1alpha1.ProcessGroup, coordinators []string) v1alpha1.ProcessGroup {
	for _, g := range groups {
		names := fdb.AddressNames(g.Status.AtProvider.DNSName, g.Status.AtProvider.Addresses...)
		if !slices.ContainsFunc(names, func(a string) bool { return slices.Contains(coordinators, a) }) {
			return g
		}
	}
	return groups[0]
}

// removalAllowed reports whether d allowed removing group id as a drained
// group.
func removalAllowed(d *v1alpha1.PolicyDecision, id string) bool {
	return d != nil && d.Action == string(apiv1alpha1.ActionRemoveProcessGroup) && d.Result == "Allowed" && slices.Contains(d.Targets, id)
}

// groupsOf lists the Cluster's ProcessGroups of class, or all of them when
// class is empty.
func groupsOf(ctx context.Context, c client.Client, key client.ObjectKey, class v1alpha1.ProcessClass) ([]v1alpha1.ProcessGroup, error) {
	l := &v1alpha1.ProcessGroupList{}
	if err := c.List(ctx, l, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}); err != nil {
		return nil, fmt.Errorf("cannot list process groups: %w", err)
	}
	var out []v1alpha1.ProcessGroup
	for _, g := range l.Items {
		if class == "" || g.Spec.ForProvider.ProcessClass == class {
			out = append(out, g)
		}
	}
	return out, nil
}

// podsOf returns the name and UID of each pod of the Cluster's groups.
func podsOf(ctx context.Context, c client.Client, key client.ObjectKey) (map[string]types.UID, error) {
	l := &corev1.PodList{}
	if err := c.List(ctx, l, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
		return nil, fmt.Errorf("cannot list pods: %w", err)
	}
	out := map[string]types.UID{}
	for _, o := range l.Items {
		out[o.Name] = o.UID
	}
	return out, nil
}

// claimsOf returns the name and UID of each volume claim of the Cluster.
func claimsOf(ctx context.Context, c client.Client, key client.ObjectKey) (map[string]types.UID, error) {
	l := &corev1.PersistentVolumeClaimList{}
	if err := c.List(ctx, l, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}); err != nil {
		return nil, fmt.Errorf("cannot list volume claims: %w", err)
	}
	out := map[string]types.UID{}
	for _, o := range l.Items {
		out[o.Name] = o.UID
	}
	return out, nil
}

// keptObject is an object that must stay: the same one (UID), not being
// deleted.
type keptObject struct {
	name   string
	uid    types.UID
	newObj func() client.Object
}

// kept turns a name-to-UID map into objects that must stay, of the type
// newObj makes.
func kept(m map[string]types.UID, newObj func() client.Object) []keptObject {
	out := make([]keptObject, 0, len(m))
	for name, uid := range m {
		out = append(out, keptObject{name: name, uid: uid, newObj: newObj})
	}
	return out
}

// missing returns, of objs in the namespace the phases work in, those that
// are gone, replaced (another UID) or being deleted.
func missing(ctx context.Context, c client.Client, objs []keptObject) ([]string, error) {
	var out []string
	for _, k := range objs {
		o := k.newObj()
		err := c.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: k.name}, o)
		kind := fmt.Sprintf("%T", o)
		switch {
		case kerrors.IsNotFound(err):
			out = append(out, kind+" "+k.name+" is gone")
		case err != nil:
			return nil, fmt.Errorf("cannot get %s %s: %w", kind, k.name, err)
		case o.GetUID() != k.uid:
			out = append(out, kind+" "+k.name+" was replaced")
		case o.GetDeletionTimestamp() != nil:
			out = append(out, kind+" "+k.name+" is being deleted")
		}
	}
	slices.Sort(out)
	return out, nil
}

// intact returns an error naming what of data is missing.
func intact(ctx context.Context, c client.Client, data []keptObject) error {
	lost, err := missing(ctx, c, data)
	if err != nil {
		return err
	}
	if len(lost) > 0 {
		return fmt.Errorf("the orphaned cluster lost its data: %s", strings.Join(lost, ", "))
	}
	return nil
}

// goneOrGoing reports whether the object at key is gone or being deleted.
func goneOrGoing(ctx context.Context, c client.Client, key client.ObjectKey, o client.Object) (bool, error) {
	switch err := c.Get(ctx, key, o); {
	case kerrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("cannot get %T %s: %w", o, key.Name, err)
	}
	return o.GetDeletionTimestamp() != nil, nil
}

// exists reports whether the object at key exists, being deleted or not.
func exists(ctx context.Context, c client.Client, key client.ObjectKey, o client.Object) (bool, error) {
	switch err := c.Get(ctx, key, o); {
	case kerrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("cannot get %T %s: %w", o, key.Name, err)
	}
	return true, nil
}

// eventsOf returns the events about o (this object, by UID), oldest first.
func eventsOf(ctx context.Context, c client.Client, o client.Object) ([]corev1.Event, error) {
	l := &corev1.EventList{}
	if err := c.List(ctx, l, client.InNamespace(o.GetNamespace())); err != nil {
		return nil, fmt.Errorf("cannot list events: %w", err)
	}
	var out []corev1.Event
	for _, e := range l.Items {
		if e.InvolvedObject.UID == o.GetUID() {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b corev1.Event) int { return a.LastTimestamp.Compare(b.LastTimestamp.Time) })
	return out, nil
}

// tlsAlone checks that the quickstart Cluster runs with TLS alone: its
// cluster file names TLS addresses only, and its processes listen with
// TLS only. (That a plain-text client is refused by such a database is
// TestTLSFromTheStart's, in internal/controller/cluster: the simulated
// database lives in the provider's process here.)
func tlsAlone(ctx context.Context, t *testing.T, r *localrun.Run, key client.ObjectKey) {
	cr := &v1alpha1.Cluster{}
	if err := r.Client.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	cs, err := fdb.ParseConnectionString(cr.Status.AtProvider.ConnectionString)
	if err != nil {
		t.Fatal(err)
	}
	if kinds := workload.CoordinatorKinds(cs); kinds != workload.CoordinatorsTLS {
		t.Errorf("the cluster file %s names %s addresses, want tls", cs, kinds)
	}
	if at := cr.Status.AtProvider.TLS; at == nil || at.Listeners != string(fdb.ListenTLS) {
		t.Errorf("status.atProvider.tls = %+v, want the processes listening with TLS only", at)
	}
}
