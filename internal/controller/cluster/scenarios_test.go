package cluster_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func tripleCluster(ns string) *v1alpha1.Cluster {
	return &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: v1alpha1.ClusterSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{WriteConnectionSecretToReference: &xpv2.LocalSecretReference{Name: "db-conn"}},
			ForProvider: v1alpha1.ClusterParameters{
				Version:               "7.3.63",
				DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyTriple, StorageEngine: "ssd-2"},
				ProcessCounts:         v1alpha1.ProcessCounts{Storage: 5, Log: 4, Stateless: 2},
			},
		},
	}
}

// createReady creates the Cluster and waits until it is Ready.
func createReady(t testing.TB, cr *v1alpha1.Cluster) {
	t.Helper()
	if err := env.Client.Create(context.Background(), cr); err != nil {
		t.Fatal(err)
	}
	ready(t, cr, 90*time.Second)
	// Events are recorded asynchronously: counts taken from here on must
	// not pick up the creation's late.
	h.WaitEvents(t, cr, "ChangedCoordinators: chose initial coordinators", "ConfiguredDatabase: created the database")
}

// update changes the Cluster with mutate, retrying on conflicts.
func update(t testing.TB, cr *v1alpha1.Cluster, mutate func(*v1alpha1.Cluster)) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		get(t, cr)
		mutate(cr)
		return env.Client.Update(context.Background(), cr)
	}); err != nil {
		t.Fatal(err)
	}
}

// ready waits until the cluster is Ready and up to date.
func ready(t testing.TB, cr *v1alpha1.Cluster, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, "cluster Ready", func() (bool, string) {
		get(t, cr)
		r, u := cr.GetCondition(xpv2.TypeReady), cr.GetCondition(xpv2.TypeUpToDate)
		return r.Status == corev1.ConditionTrue && u.Status == corev1.ConditionTrue,
			fmt.Sprintf("Ready=%s %s; UpToDate=%s %s; Synced=%s; events=%v", r.Status, r.Message, u.Status, u.Message, cr.GetCondition(xpv2.TypeSynced).Message, events(t, cr))
	})
}

func TestBootstrapTripleCluster(t *testing.T) {
	start(t)
	ctx := context.Background()
	ns := namespace(t, "bootstrap")
	h.Flow(true)
	cr := tripleCluster(ns)
	createReady(t, cr)

	// Process groups across the zones, each with a running pod.
	groups := &v1alpha1.ProcessGroupList{}
	if err := env.Client.List(ctx, groups, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(groups.Items) != 11 {
		t.Errorf("%d process groups, want 11", len(groups.Items))
	}
	// The connection secret holds a cluster file with five coordinators in
	// distinct zones.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-conn", Namespace: ns}}
	get(t, secret)
	cs, err := fdb.ParseConnectionString(string(secret.Data["connectionString"]))
	if err != nil {
		t.Fatalf("connection secret: %v", err)
	}
	zoneOf := map[string]string{}
	for _, pg := range groups.Items {
		for _, a := range fdb.AddressNames(pg.Status.AtProvider.DNSName, pg.Status.AtProvider.Addresses...) {
			zoneOf[a] = pg.Status.AtProvider.FaultDomain
		}
	}
	seen := map[string]bool{}
	for _, c := range cs.Coordinators {
		z := zoneOf[string(c)]
		if z == "" || seen[z] {
			t.Errorf("coordinator %s in zone %q: zones must be distinct and known", c, z)
		}
		seen[z] = true
	}
	if len(cs.Coordinators) != 5 {
		t.Errorf("%d coordinators, want 5", len(cs.Coordinators))
	}
	if string(secret.Data["clusterFile"]) != cs.String()+"\n" {
		t.Errorf("clusterFile %q does not hold the connection string %q", secret.Data["clusterFile"], cs.String())
	}
	// The simulated database is configured triple and sees all processes.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: ns}}
	get(t, cm)
	st, err := h.Sim(t, cr).Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Cluster.Configuration.RedundancyMode != fdb.RedundancyTriple || len(st.Cluster.Processes) != 11 {
		t.Errorf("database: redundancy %q with %d processes, want triple with 11", st.Cluster.Configuration.RedundancyMode, len(st.Cluster.Processes))
	}
	if cm.Data[workload.KeyClusterFile] != cs.String() {
		t.Errorf("ConfigMap cluster file %q, want %q", cm.Data[workload.KeyClusterFile], cs.String())
	}
	if v := h.Sim(t, cr).Check(); len(v) != 0 {
		t.Errorf("invariant violations: %v", v)
	}
}

// groupsOf lists the cluster's ProcessGroups.
func groupsOf(t testing.TB, cr *v1alpha1.Cluster) []v1alpha1.ProcessGroup {
	t.Helper()
	list := &v1alpha1.ProcessGroupList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(cr.Namespace), client.MatchingLabels{workload.LabelCluster: cr.Name}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func countClass(groups []v1alpha1.ProcessGroup, class v1alpha1.ProcessClass) int {
	n := 0
	for _, pg := range groups {
		if pg.Spec.ForProvider.ProcessClass == class {
			n++
		}
	}
	return n
}

// setStorage changes the cluster's storage process count.
func setStorage(t testing.TB, cr *v1alpha1.Cluster, n int) {
	t.Helper()
	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.ProcessCounts.Storage = n })
}

func TestScaleStorageDown(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "scale-down"))
	// Virtual time runs a thousand times as fast, so ten minutes (the
	// default) is 0.6 s of a loaded machine's wall time: the inclusion
	// waits for a whole virtual week before it stops batching.
	cr.Spec.ForProvider.Automation.StuckRemovalSeconds = 7 * 24 * 3600
	createReady(t, cr)
	db := h.Sim(t, cr)
	recoveriesBefore := db.Recoveries()
	// One storage group per zone; storage-5 hosts the fifth coordinator (the
	// four others are on logs), so the highest-numbered others go.
	removed := map[string]bool{"storage-3": true, "storage-4": true}

	setStorage(t, cr, 3)
	eventually(t, 90*time.Second, "storage scaled to 3", func() (bool, string) {
		groups := groupsOf(t, cr)
		get(t, cr)
		var excl []fdb.ProcessAddress
		if st, err := db.Status(ctx); err == nil {
			excl = fdb.Exclusions(st)
		}
		ok := countClass(groups, v1alpha1.ProcessClassStorage) == 3 && len(groups) == 9 && len(excl) == 0 &&
			cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue && eventCount(t, cr, "IncludedProcessGroups") > 0
		return ok, fmt.Sprintf("%d groups, exclusions %v, UpToDate %s; events %v", len(groups), excl, cr.GetCondition(xpv2.TypeUpToDate).Message, events(t, cr))
	})
	for _, pg := range groupsOf(t, cr) {
		if removed[pg.ID()] {
			t.Errorf("group %s was kept; want %v removed", pg.ID(), removed)
		}
	}
	// Every removed group's pod and volume are gone.
	for id := range removed {
		for _, o := range []client.Object{
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: workload.PodName(cr, id), Namespace: cr.Namespace}},
			&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: workload.PVCName(cr, id), Namespace: cr.Namespace}},
		} {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err == nil && o.GetDeletionTimestamp() == nil {
				t.Errorf("%T %s still exists", o, o.GetName())
			}
		}
	}
	// One batched exclude before the removals, one batched include after.
	if n := eventCountOnce(t, cr, "ExcludedProcessGroups", 1); n != 1 {
		t.Errorf("%d exclude batches, want 1: %v", n, events(t, cr))
	}
	if n := eventCountOnce(t, cr, "IncludedProcessGroups", 1); n != 1 {
		t.Errorf("%d include batches, want 1: %v", n, events(t, cr))
	}
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
	// Storage exclusions and inclusions do not touch the transaction
	// system: the scale-down costs no recovery.
	if n := db.Recoveries() - recoveriesBefore; n != 0 {
		t.Errorf("%d recoveries during the scale-down, want 0", n)
	}

	// storage-5 is now the one process in its zone a coordinator may serve
	// on. Deleted by hand, it is replaced in that zone, where the fifth
	// coordinator moves; in any other zone no five zones could hold the
	// coordinators and its removal would wait for ever.
	var victim *v1alpha1.ProcessGroup
	for _, pg := range groupsOf(t, cr) {
		if pg.ID() == "storage-5" {
			victim = pg.DeepCopy()
		}
	}
	if victim == nil {
		t.Fatal("storage-5 is gone after the scale-down")
	}
	if err := env.Client.Delete(ctx, victim); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "storage-5 removed and replaced in its zone", func() (bool, string) {
		get(t, cr)
		zones := map[string]string{}
		for _, pg := range groupsOf(t, cr) {
			if pg.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage {
				zones[pg.ID()] = pg.Spec.ForProvider.FaultDomain
			}
		}
		_, kept := zones["storage-5"]
		replaced := slices.Contains(slices.Collect(maps.Values(zones)), victim.Spec.ForProvider.FaultDomain)
		return !kept && replaced && len(zones) == 3 && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue &&
				cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
			fmt.Sprintf("storage groups by zone %v (storage-5 was in %s); UpToDate %s", zones, victim.Spec.ForProvider.FaultDomain, cr.GetCondition(xpv2.TypeUpToDate).Message)
	})
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}

func TestRecentRecoveryHoldsRemoval(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "recovery-hold"))
	createReady(t, cr)
	defer h.Flow(true)
	h.Flow(false)

	// A kill makes the database recover; let the recovery itself settle.
	db := h.Sim(t, cr)
	var logAddr fdb.ProcessAddress
	for _, pg := range groupsOf(t, cr) {
		if pg.ID() == "log-1" {
			logAddr = fdb.ProcessAddress(pg.Status.AtProvider.Addresses[0])
		}
	}
	if err := db.Kill(ctx, []fdb.ProcessAddress{logAddr}); err != nil {
		t.Fatal(err)
	}
	h.Clock.Step(10 * time.Second)
	// The time since the recovery counts from when it made the database
	// available again, a few seconds after the kill.
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	available, ok := st.Cluster.RecoveryState.SinceRecovered()
	if !ok {
		t.Fatalf("no time since the recovery 10 s after the kill: %+v", st.Cluster.RecoveryState)
	}

	setStorage(t, cr, 4)
	denied := func(want string) func() (bool, string) {
		return func() (bool, string) {
			get(t, cr)
			c := cr.GetCondition("PolicyAllowed")
			return c.Reason == "PolicyDenied" && strings.Contains(c.Message, want), fmt.Sprintf("PolicyAllowed %s %s: %s", c.Status, c.Reason, c.Message)
		}
	}
	eventually(t, 30*time.Second, "exclusion denied", denied("denied by fdb-exclusion/min-recovery-time: the last recovery was less than 120s ago"))
	// Events are recorded asynchronously.
	eventually(t, 10*time.Second, "PolicyDenied event", func() (bool, string) {
		ev := events(t, cr)
		return containsAny(ev, "PolicyDenied: exclude storage-4 denied by fdb-exclusion/min-recovery-time"), fmt.Sprint(ev)
	})
	if n := eventCount(t, cr, "ExcludedProcessGroups"); n != 0 {
		t.Fatalf("excluded during the hold: %v", events(t, cr))
	}

	// 119 s since the recovery: still held, and the same denial again and
	// again is the same decision: its message names the threshold, not an
	// age, so the recorded decision (and the status with it) stays as it
	// was.
	get(t, cr)
	before := cr.Status.AtProvider.LastPolicyDecision.DeepCopy()
	h.Clock.Step(119*time.Second - available)
	polls(t, cr, 3)
	if ok, why := denied("the last recovery was less than 120s ago")(); !ok || eventCount(t, cr, "ExcludedProcessGroups") != 0 {
		t.Fatalf("not held at 119 s: %s; %v", why, events(t, cr))
	}
	if diff := cmp.Diff(before, cr.Status.AtProvider.LastPolicyDecision); diff != "" {
		t.Errorf("the repeated denial was recorded anew: -before, +after:\n%s", diff)
	}

	h.Clock.Step(time.Second) // 120 s: allowed
	eventually(t, 30*time.Second, "exclusion allowed", func() (bool, string) {
		return eventCount(t, cr, "ExcludedProcessGroups") == 1, fmt.Sprint(events(t, cr))
	})
	h.Flow(true)
	eventually(t, 60*time.Second, "removal finished", func() (bool, string) {
		n := countClass(groupsOf(t, cr), v1alpha1.ProcessClassStorage)
		return n == 4, fmt.Sprintf("%d storage groups", n)
	})
}

func TestRemovingACoordinatorMovesItFirst(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "coordinator"))
	createReady(t, cr)
	victim := storageCoordinator(t, cr)
	addr := coordinatorName(victim)
	if err := env.Client.Delete(ctx, victim); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "coordinator group removed and replaced", func() (bool, string) {
		get(t, cr)
		gone := env.Client.Get(ctx, client.ObjectKeyFromObject(victim), &v1alpha1.ProcessGroup{}) != nil
		return gone && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue,
			fmt.Sprintf("gone=%t UpToDate=%s events=%v", gone, cr.GetCondition(xpv2.TypeUpToDate).Message, events(t, cr))
	})
	for _, c := range cr.Status.AtProvider.Coordinators {
		if c == addr {
			t.Errorf("%s is still a coordinator", addr)
		}
	}
	eventually(t, 10*time.Second, "coordinator change and removal events", func() (bool, string) {
		ev, pgEv := events(t, cr), events(t, victim)
		return containsAny(ev, "ChangedCoordinators: changed coordinators to") && containsAny(ev, addr+" is missing, excluded, being removed") &&
			containsAny(pgEv, "RemovedProcessGroup"), fmt.Sprintf("cluster %v; group %v", ev, pgEv)
	})
	if v := h.Sim(t, cr).Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
	if n := countClass(groupsOf(t, cr), v1alpha1.ProcessClassStorage); n != 5 {
		t.Errorf("%d storage groups after the replacement, want 5", n)
	}
}

// storageCoordinator returns the last storage group of cr, as it is now,
// that is a coordinator.
func storageCoordinator(t testing.TB, cr *v1alpha1.Cluster) *v1alpha1.ProcessGroup {
	t.Helper()
	get(t, cr)
	var victim *v1alpha1.ProcessGroup
	for _, pg := range groupsOf(t, cr) {
		if pg.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage && slices.Contains(cr.Status.AtProvider.Coordinators, coordinatorName(&pg)) {
			victim = pg.DeepCopy()
		}
	}
	if victim == nil {
		t.Fatalf("no storage group is a coordinator: %v", cr.Status.AtProvider.Coordinators)
	}
	return victim
}

// coordinatorName is the name a coordinator on pg's first process has in
// the cluster file: its DNS address when the group has a DNS name.
func coordinatorName(pg *v1alpha1.ProcessGroup) string {
	at := pg.Status.AtProvider
	if at.DNSName == "" {
		return at.Addresses[0]
	}
	return string(fdb.HostAddress(at.DNSName, at.Addresses[0]))
}

// smallCluster is a double-redundancy cluster of three groups per class
// that comes up quickly.
func smallCluster(ns string, policies xpv2.ManagementPolicies) *v1alpha1.Cluster {
	cr := tripleCluster(ns)
	cr.Spec.ManagementPolicies = policies
	cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = v1alpha1.RedundancyDouble
	cr.Spec.ForProvider.ProcessCounts = v1alpha1.ProcessCounts{Storage: 3, Log: 3}
	return cr
}

// targetObjects counts the cluster's pods, volume claims and ConfigMaps.
func targetObjects(t testing.TB, cr *v1alpha1.Cluster) (pods, pvcs, cms int) {
	t.Helper()
	ctx, in, sel := context.Background(), client.InNamespace(cr.Namespace), client.MatchingLabels{workload.LabelCluster: cr.Name}
	p, v, c := &corev1.PodList{}, &corev1.PersistentVolumeClaimList{}, &corev1.ConfigMapList{}
	for _, l := range []client.ObjectList{p, v, c} {
		if err := env.Client.List(ctx, l, in, sel); err != nil {
			t.Fatal(err)
		}
	}
	return len(p.Items), len(v.Items), len(c.Items)
}

// TestDeleteAndImport deletes a Cluster with Delete in its management
// policies (everything it created goes) and one without (everything stays),
// then imports the orphaned database with an Observe-only Cluster.
func TestDeleteAndImport(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cases := map[string]struct {
		policies                                xpv2.ManagementPolicies
		wantGroups, wantPods, wantPVCs, wantCMs int
	}{
		"WithDelete":    {policies: xpv2.ManagementPolicies{xpv2.ManagementActionAll}},
		"WithoutDelete": {policies: withoutDelete, wantGroups: 6, wantPods: 6, wantPVCs: 6, wantCMs: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := smallCluster(namespace(t, "delete-"+strings.ToLower(name)), tc.policies)
			if err := env.Client.Create(ctx, cr); err != nil {
				t.Fatal(err)
			}
			ready(t, cr, 90*time.Second)
			if err := env.Client.Delete(ctx, cr); err != nil {
				t.Fatal(err)
			}
			eventually(t, 60*time.Second, "cluster deleted", func() (bool, string) {
				gone := env.Client.Get(ctx, client.ObjectKeyFromObject(cr), &v1alpha1.Cluster{}) != nil
				groups := len(groupsOf(t, cr))
				pods, pvcs, cms := targetObjects(t, cr)
				got := []int{groups, pods, pvcs, cms}
				want := []int{tc.wantGroups, tc.wantPods, tc.wantPVCs, tc.wantCMs}
				return gone && fmt.Sprint(got) == fmt.Sprint(want), fmt.Sprintf("gone=%t groups,pods,pvcs,configmaps=%v want %v", gone, got, want)
			})
		})
	}

	t.Run("ObserveOnlyImport", func(t *testing.T) {
		ns := "delete-withoutdelete"
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "db-config", Namespace: ns}}
		get(t, cm)
		cr := smallCluster(ns, xpv2.ManagementPolicies{xpv2.ManagementActionObserve})
		if err := env.Client.Create(ctx, cr); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "imported cluster observed", func() (bool, string) {
			get(t, cr)
			at := cr.Status.AtProvider
			return at.Health.Available && at.Configured && at.ConnectionString != "" && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue,
				fmt.Sprintf("atProvider %+v; conditions %+v", at, cr.Status.Conditions)
		})
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-conn", Namespace: ns}}
		eventually(t, 30*time.Second, "connection secret published", func() (bool, string) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(secret), secret)
			return err == nil && string(secret.Data["connectionString"]) == cr.Status.AtProvider.ConnectionString, fmt.Sprint(err)
		})
		// Observing wrote nothing: the ConfigMap is untouched.
		before := cm.ResourceVersion
		get(t, cm)
		if cm.ResourceVersion != before {
			t.Errorf("the ConfigMap changed under an Observe-only Cluster")
		}
	})
}

// podUIDs are the UIDs of the cluster's pods that exist now, by pod name.
func podUIDs(t testing.TB, cr *v1alpha1.Cluster) map[string]string {
	t.Helper()
	pods := &corev1.PodList{}
	if err := env.Client.List(context.Background(), pods, client.InNamespace(workload.Namespace(cr)), client.MatchingLabels{workload.LabelCluster: cr.Name}); err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{}
	for _, pod := range pods.Items {
		uids[pod.Name] = string(pod.UID)
	}
	return uids
}

// TestUpgradeInPlace changes the version, to a patch and to another minor
// (protocol-incompatible) release: every pod stages it in place, then every
// process restarts on it in one gated Upgrade kill. No pod is recreated, the
// coordinators stay, the database recovers once and runs the new version
// without losing data.
// TestUpgradeInPlace upgrades under the real monitor's rules (the
// simulator's, docs/SIMULATOR.md, The monitor). To another protocol (7.1 to
// 7.3) no pod is recreated: the sidecars stage the version in place, the
// ConfigMap names it once every pod staged it, and one gated kill restarts
// every process once every monitor reported loading it. Within a protocol
// (a patch) a monitor runs its image's own fdbserver whatever the
// configuration says, so no kill is made: the pods roll onto an image of the
// new patch, one zone at a time under maintenance, and say so. Either way
// the coordinators stay, and every process runs the new version after.
func TestUpgradeInPlace(t *testing.T) {
	start(t)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		from, version string
		kills         int
		rolls         bool
	}{"Patch": {"7.3.63", "7.3.69", 0, true}, "Minor": {"7.1.67", "7.3.63", 1, false}} {
		version := tc.version
		t.Run(name, func(t *testing.T) {
			h.Flow(true)
			cr := smallCluster(namespace(t, "upgrade-"+strings.ToLower(name)), nil)
			cr.Spec.ForProvider.Version = tc.from
			createReady(t, cr)
			db := h.Sim(t, cr)
			uids := podUIDs(t, cr)
			recoveries, cs := db.Recoveries(), cr.Status.AtProvider.ConnectionString
			update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.Version = version })
			eventually(t, 180*time.Second, "the database runs "+version, func() (bool, string) {
				get(t, cr)
				return cr.Status.AtProvider.RunningVersion == version && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
					fmt.Sprintf("running %s; %s; events %v", cr.Status.AtProvider.RunningVersion, cr.GetCondition(xpv2.TypeUpToDate).Message, events(t, cr))
			})
			eventually(t, 60*time.Second, "every process runs "+version, func() (bool, string) {
				st, err := db.Status(ctx)
				if err != nil {
					return false, err.Error()
				}
				for _, p := range st.Cluster.Processes {
					if p.Version != version {
						return false, fmt.Sprintf("process %s runs %s", p.Address, p.Version)
					}
				}
				return true, ""
			})
			for name, uid := range uids {
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: workload.Namespace(cr)}}
				get(t, pod)
				if recreated := string(pod.UID) != uid; recreated != tc.rolls || workload.SidecarImage(pod) != workload.Image(cr) {
					t.Errorf("pod %s: recreated %t, sidecar %s; want recreated %t with sidecar %s", name, recreated, workload.SidecarImage(pod), tc.rolls, workload.Image(cr))
				}
			}
			if got := db.ConnectionString(); got != cs {
				t.Errorf("the coordinators changed from %s to %s", cs, got)
			}
			calls := h.AdminCalls(cr)
			if n := calls.Calls[sim.OpKill]; n != tc.kills {
				t.Errorf("%d kills, want %d: %v", n, tc.kills, events(t, cr))
			}
			if len(calls.KilledBeforeLoad) > 0 {
				t.Errorf("killed the processes of %v before their monitor reported loading the new configuration", calls.KilledBeforeLoad)
			}
			if tc.rolls {
				if n := eventCount(t, cr, "UpgradedProcesses"); n != 0 {
					t.Errorf("%d upgrade kills for a patch: %v", n, events(t, cr))
				}
				// Events are recorded asynchronously: the last zone's
				// may arrive after the database shows the version.
				recreations := 0
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
					recreations = 0
					for _, pg := range groupsOf(t, cr) {
						for _, e := range events(t, &pg) {
							if strings.HasPrefix(e, "RecreatingPod: ") && strings.Contains(e, "a patch release runs from the image of the pod's main container") {
								recreations++
							}
						}
					}
					if recreations >= len(uids) || time.Now().After(deadline) {
						break
					}
				}
				if recreations != len(uids) {
					t.Errorf("%d pods say they rolled for the patch release, want %d", recreations, len(uids))
				}
			} else {
				if n := db.Recoveries() - recoveries; n != 1 {
					t.Errorf("%d recoveries for the upgrade, want 1", n)
				}
				if n := eventCountOnce(t, cr, "UpgradedProcesses", 1); n != 1 {
					t.Errorf("%d upgrade kills, want 1: %v", n, events(t, cr))
				}
				if d := cr.Status.AtProvider.LastPolicyDecision; d == nil || d.Action != "Upgrade" || d.Result != "Allowed" {
					t.Errorf("the Cluster records the last decision %+v, want an allowed Upgrade", d)
				}
			}
			// No bounce loop: further reconciles restart nothing, and no
			// group finds its processes on an incorrect command line; they
			// run what their monitor starts them with (the image's
			// fdbserver after a patch, the staged one after a minor).
			from := h.AdminCalls(cr)
			polls(t, cr, 3*(len(groupsOf(t, cr))+1))
			if n := h.AdminCalls(cr).Calls[sim.OpKill] - from.Calls[sim.OpKill]; n != 0 {
				t.Errorf("%d kills after the upgrade: %v", n, events(t, cr))
			}
			if n := eventCount(t, cr, "BouncedProcesses"); n != 0 {
				t.Errorf("%d bounces: %v", n, events(t, cr))
			}
			for _, pg := range groupsOf(t, cr) {
				if slices.ContainsFunc(pg.Status.AtProvider.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool {
					return c.Type == v1alpha1.IncorrectCommandLine || c.Type == v1alpha1.IncorrectConfigMap
				}) {
					t.Errorf("group %s: %v after the upgrade", pg.ID(), pg.Status.AtProvider.ProcessGroupConditions)
				}
			}
			if v := db.Check(); len(v) != 0 {
				t.Errorf("the simulator reports %v", v)
			}
		})
	}
}

// TestMinorDowngradeRefused asks a 7.3 database for 7.1: FoundationDB cannot
// run on an earlier major.minor's release. The default policy fdb-upgrade
// denies the Upgrade, naming both versions, and nothing changes: the
// ConfigMap goes on naming 7.3.63 and no process restarts.
func TestMinorDowngradeRefused(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "downgrade"), nil)
	createReady(t, cr)
	db := h.Sim(t, cr)
	kills := h.AdminCalls(cr).Calls[sim.OpKill]
	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.Version = "7.1.67" })
	eventually(t, 60*time.Second, "the downgrade denied", func() (bool, string) {
		get(t, cr)
		d := cr.Status.AtProvider.LastPolicyDecision
		return d != nil && d.Action == "Upgrade" && d.Result == "Denied" && d.Rule == "fdb-upgrade/no-minor-downgrade" &&
			strings.Contains(d.Message, "7.3.63") && strings.Contains(d.Message, "7.1.67"), fmt.Sprintf("last decision %+v", d)
	})
	polls(t, cr, 3*(len(groupsOf(t, cr))+1))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: workload.Namespace(cr)}}
	get(t, cm)
	if v := workload.ConfiguredVersion(cm.Data); v != "7.3.63" {
		t.Errorf("the ConfigMap names %s, want the running 7.3.63", v)
	}
	if n := h.AdminCalls(cr).Calls[sim.OpKill] - kills; n != 0 {
		t.Errorf("%d kills for a refused downgrade", n)
	}
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Cluster.Processes {
		if p.Version != "7.3.63" {
			t.Errorf("process %s runs %s, want 7.3.63", p.Address, p.Version)
		}
	}
}

// TestUpgradeKillThatMissedSome: the upgrade's kill misses some processes
// and times out. Whichever protocol the coordinators settle on, the upgrade
// ends with every process reporting the new version. When it missed a
// majority of the coordinators, the database still runs the old version
// and the processes left on it are killed again: no pod is recreated. When
// it missed a process that is no coordinator, the database runs the new
// version and that process, left behind on the old protocol where no kill
// reaches it, has its pod recreated under maintenance, and only it: while
// a policy holds the maintenance its pod waits for it, and goes once the
// hold is lifted.
func TestUpgradeKillThatMissedSome(t *testing.T) {
	start(t)
	const from, version = "7.1.67", "7.3.63"
	for name, tc := range map[string]struct {
		miss       func(coordinators, others []fdb.Process) []fdb.Process
		leftBehind bool
		// hold denies SetMaintenance until the left-behind group says it
		// waits for its zone's grant and maintenance.
		hold bool
	}{
		"CoordinatorMajority":   {miss: func(c, _ []fdb.Process) []fdb.Process { return c[:2] }},
		"OneNonCoordinator":     {miss: func(_, o []fdb.Process) []fdb.Process { return o[:1] }, leftBehind: true},
		"WaitsForItsDomainTurn": {miss: func(_, o []fdb.Process) []fdb.Process { return o[:1] }, leftBehind: true, hold: true},
	} {
		t.Run(name, func(t *testing.T) {
			h.Flow(true)
			cr := smallCluster(namespace(t, "upgrade-missed-"+strings.ToLower(name)), nil)
			cr.Spec.ForProvider.Version = from
			// The virtual clock runs a thousand times faster than the wall's:
			// the default failure detection time (2 h) is 7 s, and a loaded
			// machine may take longer to recreate the left-behind pod. A
			// failure replaced meanwhile is another scenario
			// (TestPlanReplacements' planned restarts).
			cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = 30 * 24 * 3600
			createReady(t, cr)
			db := h.Sim(t, cr)
			var before *fdb.Status
			eventually(t, 60*time.Second, "every process reports", func() (bool, string) {
				var err error
				if before, err = db.Status(context.Background()); err != nil {
					return false, err.Error()
				}
				groups := len(groupsOf(t, cr))
				return len(before.Cluster.Processes) == groups, fmt.Sprintf("%d processes of %d groups report", len(before.Cluster.Processes), groups)
			})
			var coordinators, others []fdb.Process
			for _, p := range before.Cluster.Processes {
				if p.HasRole(fdb.RoleCoordinator) {
					coordinators = append(coordinators, p)
				} else {
					others = append(others, p)
				}
			}
			byAddress := func(a, b fdb.Process) int { return strings.Compare(a.Address, b.Address) }
			slices.SortFunc(coordinators, byAddress)
			slices.SortFunc(others, byAddress)
			missed := tc.miss(coordinators, others)
			var addrs []fdb.ProcessAddress
			var missedIDs []string
			for _, p := range missed {
				addrs = append(addrs, fdb.ProcessAddress(p.Address))
				missedIDs = append(missedIDs, p.Locality.InstanceID)
			}
			if err := db.MissInNextKill(addrs, fdb.ErrTimeout); err != nil {
				t.Fatal(err)
			}
			var release func()
			if tc.hold {
				release = denyInNamespace(t, cr.GetNamespace(), "hold-maintenance-"+cr.GetNamespace(), apiv1alpha1.ActionSetMaintenance, "hold", "maintenance is held")
			}
			update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.Version = version })
			if tc.hold {
				pg := &v1alpha1.ProcessGroup{}
				pg.SetNamespace(cr.GetNamespace())
				pg.SetName(cr.GetName() + "-" + missedIDs[0])
				eventually(t, 120*time.Second, missedIDs[0]+" waits for its domain's grant and maintenance", func() (bool, string) {
					get(t, pg)
					msg := pg.GetCondition(xpv2.TypeUpToDate).Message
					return strings.Contains(msg, "waiting to recreate the pod: ") && strings.Contains(msg, "disruption grant"), msg
				})
				if ev := events(t, pg); containsAny(ev, "RecreatingPod") {
					t.Errorf("%s recreated its pod while SetMaintenance was held: %v", missedIDs[0], ev)
				}
				release()
			}
			eventually(t, 180*time.Second, "every process runs "+version, func() (bool, string) {
				get(t, cr)
				st, err := db.Status(context.Background())
				if err != nil {
					return false, err.Error()
				}
				on := 0
				for _, p := range st.Cluster.Processes {
					if p.Version == version {
						on++
					}
				}
				var missedGroups []string
				for _, pg := range groupsOf(t, cr) {
					if slices.Contains(missedIDs, pg.ID()) {
						missedGroups = append(missedGroups, fmt.Sprintf("%s: last decision %+v, conditions %+v, events %v", pg.ID(),
							pg.Status.AtProvider.LastPolicyDecision, pg.Status.Conditions, events(t, &pg)))
					}
				}
				return on == len(before.Cluster.Processes) && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
					fmt.Sprintf("%d of %d processes on %s, incompatible %v; %s; events %v; missed groups %v", on, len(before.Cluster.Processes), version,
						st.Cluster.IncompatibleConnections, cr.GetCondition(xpv2.TypeUpToDate).Message, events(t, cr), missedGroups)
			})
			var recreated []string
			for _, pg := range groupsOf(t, cr) {
				if containsAny(events(t, &pg), "RecreatingPod: deleted pod "+workload.PodName(cr, pg.ID())+": its processes were left behind") {
					recreated = append(recreated, pg.ID())
				}
			}
			var want []string
			if tc.leftBehind {
				want = missedIDs
			}
			if diff := cmp.Diff(want, recreated, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("groups whose pods were recreated as left behind (-want +got):\n%s", diff)
			}
			ev := events(t, cr)
			if set := containsAny(ev, "SetMaintenance: put zone"); set != tc.leftBehind {
				t.Errorf("zone maintenance set: %t, want %t; cluster events %v", set, tc.leftBehind, ev)
			}
			if tc.leftBehind {
				// The provider ends the maintenance it set once the zone is
				// back (ResetMaintenance); the virtual clock, a thousand
				// times the wall's, may run its 600 s out first on a loaded
				// machine.
				eventually(t, 30*time.Second, "the zone's maintenance ended", func() (bool, string) {
					st, err := db.Status(context.Background())
					if err != nil {
						return false, err.Error()
					}
					return st.Cluster.MaintenanceZone == "", fmt.Sprintf("zone %q under maintenance; cluster events %v", st.Cluster.MaintenanceZone, events(t, cr))
				})
			}
			if v := db.Check(); len(v) != 0 {
				t.Errorf("the simulator reports %v", v)
			}
		})
	}
}

// TestUpgradeWaitsForOldClients: an upgrade to another protocol is denied
// while a client that loaded no library of it is connected, with the
// client named, and goes ahead once the client is gone or the Cluster
// accepts its loss.
func TestUpgradeWaitsForOldClients(t *testing.T) {
	start(t)
	const from, version, app = "7.1.67", "7.3.63", "10.9.0.1:40001"
	for name, unblock := range map[string]func(t *testing.T, cr *v1alpha1.Cluster){
		"ClientGone": func(t *testing.T, cr *v1alpha1.Cluster) { h.Sim(t, cr).DisconnectClient(app) },
		"Acknowledged": func(t *testing.T, cr *v1alpha1.Cluster) {
			update(t, cr, func(cr *v1alpha1.Cluster) {
				cr.SetAnnotations(map[string]string{"foundationdb.crossplane.io/allow-upgrade-with-unsupported-clients": version})
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			h.Flow(true)
			cr := smallCluster(namespace(t, "clients-"+strings.ToLower(name)), nil)
			cr.Spec.ForProvider.Version = from
			createReady(t, cr)
			db := h.Sim(t, cr)
			if err := db.ConnectClient(app, "app", from); err != nil {
				t.Fatal(err)
			}
			update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.Version = version })
			eventually(t, 60*time.Second, "the upgrade denied for the old client", func() (bool, string) {
				get(t, cr)
				d := cr.Status.AtProvider.LastPolicyDecision
				return d != nil && d.Action == "Upgrade" && d.Result == "Denied" && d.Rule == "fdb-upgrade/clients-support-version" &&
					strings.Contains(d.Message, app+" (app)"), fmt.Sprintf("last decision %+v", d)
			})
			if got := cr.Status.AtProvider.RunningVersion; got != from {
				t.Errorf("the database runs %s while the upgrade is denied, want %s", got, from)
			}
			unblock(t, cr)
			eventually(t, 120*time.Second, "the database runs "+version, func() (bool, string) {
				get(t, cr)
				return cr.Status.AtProvider.RunningVersion == version && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
					fmt.Sprintf("running %s; last decision %+v", cr.Status.AtProvider.RunningVersion, cr.Status.AtProvider.LastPolicyDecision)
			})
		})
	}
}

// TestPodTemplateRolloutUnderMaintenance changes the pod template, which
// recreates every pod one fault domain at a time: each zone is under
// FoundationDB's maintenance while its pods are down by the roll, and the
// provider ends the maintenance once the roll is done. With DNS names in
// the cluster file (the default) no coordinator changes.
func TestPodTemplateRolloutUnderMaintenance(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "rollout"), nil)
	createReady(t, cr)
	db := h.Sim(t, cr)
	uids := podUIDs(t, cr)
	cs := db.ConnectionString()
	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Value: "fdb", Effect: corev1.TaintEffectNoSchedule}}},
		}}}
	})
	zones := map[string]bool{}
	eventually(t, 120*time.Second, "every pod recreated", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		recreated := 0
		for _, pg := range groupsOf(t, cr) {
			zones[pg.Spec.ForProvider.FaultDomain] = true
			pod := &corev1.Pod{}
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: workload.PodName(cr, pg.ID())}, pod)
			if err == nil && pod.Status.Phase == corev1.PodRunning && string(pod.UID) != uids[pod.Name] {
				recreated++
			}
		}
		get(t, cr)
		// The last zone's maintenance may run out in the database before
		// the Cluster's next reconcile ends it; the Cluster's record of it
		// goes at that reconcile.
		return recreated == len(uids) && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue && st.Cluster.MaintenanceZone == "" &&
				cr.Status.AtProvider.MaintenanceZone == "",
			fmt.Sprintf("%d of %d pods recreated; maintenance %q, the Cluster records %q; %s", recreated, len(uids), st.Cluster.MaintenanceZone,
				cr.Status.AtProvider.MaintenanceZone, cr.GetCondition(xpv2.TypeUpToDate).Message)
	})
	// Each zone went under maintenance before its pods went (its groups
	// wait for it); with the virtual clock at 1000 times the wall clock,
	// the 600 s it is set for may run out between two reconciles, so
	// whether it still holds while a pod is down is not sampled here, and
	// the last one may run out before the provider ends it (TestPlanMaintenance
	// covers ending it); none is left either way.
	var want []string
	for z := range zones {
		want = append(want, "SetMaintenance: put zone "+z+" under maintenance")
	}
	h.WaitEvents(t, cr, want...)
	// The cluster file names the coordinators by DNS name: a recreated
	// pod, with a new IP, is the same coordinator.
	if got := db.ConnectionString(); got != cs || !strings.Contains(cs, ".svc.cluster.local:") {
		t.Errorf("coordinators %s before the rollout, %s after: want the same DNS names", cs, got)
	}
	if n := eventCountOnce(t, cr, "ChangedCoordinators", 1); n != 1 {
		t.Errorf("%d coordinator events, want only the initial choice: %v", n, events(t, cr))
	}
}

// TestNewKnobBouncesOnce adds a knob to the storage processes: the
// ConfigMap changes first, then every storage process restarts in one kill
// (at most one recovery), once they have been up for the minimum uptime.
func TestNewKnobBouncesOnce(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "knob"), nil)
	createReady(t, cr)
	db := h.Sim(t, cr)
	before := db.Recoveries()
	// With the clock still, the kubelet delivers the changed ConfigMap to
	// no pod: however often the Cluster reconciles, it kills nothing, a
	// kill would restart the processes on the old knob.
	// The processes have been up long enough for the bounce's policy.
	h.Flow(false)
	h.Clock.Step(time.Hour)
	kills := h.AdminCalls(cr).Calls[sim.OpKill]
	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {CustomParameters: []string{"knob_max_outstanding=64"}}}
	})
	polls(t, cr, 3*(len(groupsOf(t, cr))+1))
	if n := h.AdminCalls(cr).Calls[sim.OpKill] - kills; n != 0 {
		t.Errorf("%d kills before any monitor could load the new configuration: %v", n, events(t, cr))
	}
	h.Flow(true)
	eventually(t, 60*time.Second, "storage processes run the knob", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		with := 0
		for _, p := range st.Cluster.Processes {
			if strings.Contains(p.CommandLine, "--knob_max_outstanding=64") {
				with++
			}
		}
		get(t, cr)
		return with == 3 && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue && eventCount(t, cr, "BouncedProcesses") > 0,
			fmt.Sprintf("%d of 3 storage processes run the knob; events %v", with, events(t, cr))
	})
	if n := eventCountOnce(t, cr, "BouncedProcesses", 1); n != 1 {
		t.Errorf("%d bounces, want 1: %v", n, events(t, cr))
	}
	// The kubelet delivers the changed ConfigMap up to a sync period
	// later; a kill before the monitors loaded it would restart the
	// processes on the old knob, and bounce again.
	if pods := h.AdminCalls(cr).KilledBeforeLoad; len(pods) > 0 {
		t.Errorf("killed the processes of %v before their monitor reported loading the new configuration", pods)
	}
	// Restarting storage processes does not recover the transaction
	// system; one batch costs at most one recovery whatever it restarts.
	if n := db.Recoveries() - before; n > 1 {
		t.Errorf("%d recoveries for the knob change, want at most 1", n)
	}
	// The groups observe their restarted processes on their next reconcile.
	eventually(t, 30*time.Second, "no group reports an incorrect command line", func() (bool, string) {
		for _, pg := range groupsOf(t, cr) {
			for _, c := range pg.Status.AtProvider.ProcessGroupConditions {
				if c.Type == v1alpha1.IncorrectCommandLine {
					return false, pg.ID() + " still has an incorrect command line"
				}
			}
		}
		return true, ""
	})
}

// TestReconfigure changes the database configuration: one gated configure,
// and the database runs the new configuration.
func TestReconfigure(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "reconfigure"), nil)
	createReady(t, cr)
	db := h.Sim(t, cr)
	before := db.Recoveries()
	logs := 2
	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.DatabaseConfiguration.Logs = &logs
	})
	eventually(t, 60*time.Second, "configuration applied", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		get(t, cr)
		return st.Cluster.Configuration.Logs == 2 && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
			fmt.Sprintf("logs=%d; events %v", st.Cluster.Configuration.Logs, events(t, cr))
	})
	if n := eventCountOnce(t, cr, "ConfiguredDatabase", 2); n != 2 {
		t.Errorf("%d configure events, want 2 (configure new, then the change): %v", n, events(t, cr))
	}
	if n := db.Recoveries() - before; n != 1 {
		t.Errorf("%d recoveries for the configuration change, want 1", n)
	}
}

// TestPodOfAGroupWithoutVolumeIsRecreatedAtOnce deletes the pod of a young
// stateless group (no volume claim: the group is then missing altogether)
// by hand, as an eviction would. The ProcessGroup makes it again at once:
// its Create is idempotent, so the managed reconciler does not hold it for
// the creation grace period (30 s of wall time after the group's first
// Create, 8 virtual hours here, by which the group would be replaced as
// failed).
func TestPodOfAGroupWithoutVolumeIsRecreatedAtOnce(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "evicted"), nil)
	cr.Spec.ForProvider.ProcessCounts.Stateless = 1
	createReady(t, cr)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: workload.PodName(cr, "stateless-1"), Namespace: workload.Namespace(cr)}}
	get(t, pod)
	uid := pod.UID
	if err := env.Client.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pg := &v1alpha1.ProcessGroup{}
	for _, g := range groupsOf(t, cr) {
		if g.ID() == "stateless-1" {
			pg = &g
		}
	}
	eventually(t, 60*time.Second, "the stateless pod is recreated", func() (bool, string) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)
		return err == nil && pod.UID != uid && pod.Status.Phase == corev1.PodRunning, fmt.Sprintf("%v; events %v", err, events(t, pg))
	})
	if n := eventCount(t, pg, "PendingExternalResource"); n != 0 {
		t.Errorf("the group waited %d times for its last creation to show: %v", n, events(t, pg))
	}
	if n := eventCount(t, cr, "ReplacingProcessGroups"); n != 0 {
		t.Errorf("a group was replaced: %v", events(t, cr))
	}
}
