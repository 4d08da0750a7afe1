package cluster_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
)

// TestLostCoordinatorMajorityRecovers: three of the five coordinators lose
// their disks at once and a recovery follows, which cannot read the
// coordinated state: the database is unavailable for good, and the groups
// make their claims anew, marked. The way back is denied until the Cluster
// names the connection string it gives up in its acknowledgement; then the
// Cluster copies a surviving coordinator's files to new coordinators,
// restarts every pod on their connection string, and the database is
// available again on them, the Cluster Ready and up to date.
func TestLostCoordinatorMajorityRecovers(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "lost-coordinator-majority"))
	createReady(t, cr)
	get(t, cr)
	lost := cr.Status.AtProvider.ConnectionString
	var victims []v1alpha1.ProcessGroup
	for _, pg := range groupsOf(t, cr) {
		if slices.Contains(cr.Status.AtProvider.Coordinators, coordinatorName(&pg)) {
			victims = append(victims, pg)
		}
	}
	// Storage groups first: three logs' disks lost would lose mutations
	// too, which this test is not about.
	notStorage := func(pg v1alpha1.ProcessGroup) int {
		if pg.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(victims, func(a, b v1alpha1.ProcessGroup) int { return cmp.Compare(notStorage(a), notStorage(b)) })
	if len(victims) != 5 {
		t.Fatalf("%d coordinators' groups, want 5: %v", len(victims), cr.Status.AtProvider.Coordinators)
	}
	victims = victims[:3]
	db := h.Sim(t, cr)
	for _, pg := range victims {
		for _, id := range pg.Status.AtProvider.ProcessIDs {
			if err := db.LoseDisk(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Recover(); err != nil {
		t.Fatal(err)
	}
	for _, pg := range victims {
		lostVolume(t, cr, pg.ID())
	}
	const rule = "fdb-coordinator-recovery/recovery-acknowledged"
	eventually(t, 120*time.Second, "the recovery denied without the acknowledgement", func() (bool, string) {
		get(t, cr)
		d, c := cr.Status.AtProvider.LastPolicyDecision, cr.GetCondition(gate.TypePolicyAllowed)
		return d != nil && d.Action == "RecoverCoordinators" && d.Result == "Denied" && d.Rule == rule,
			fmt.Sprintf("decision %+v; PolicyAllowed %q; UpToDate %q", d, c.Message, cr.GetCondition(xpv2.TypeUpToDate).Message)
	})
	if st, err := db.Status(ctx); err != nil || st.Client.DatabaseStatus.Available {
		t.Fatalf("the database recovered without the acknowledgement (%v)", err)
	}
	want := `annotate the Cluster with foundationdb.crossplane.io/allow-coordinator-recovery: "` + lost + `"`
	if c := cr.GetCondition(gate.TypePolicyAllowed); !strings.Contains(c.Message, want) || !strings.Contains(c.Message, "what it had not seen is lost") {
		t.Errorf("the denial says %q, want what may be lost and %s", c.Message, want)
	}
	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.SetAnnotations(map[string]string{policy.AnnotationAllowCoordinatorRecovery: lost})
	})
	eventually(t, 180*time.Second, "the database available on new coordinators, the Cluster Ready and up to date", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		get(t, cr)
		return st.Client.DatabaseStatus.Available && st.Cluster.ConnectionString != lost && cr.Status.AtProvider.CoordinatorRecovery == nil &&
				cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
			fmt.Sprintf("available %t on %s; recovery %+v; UpToDate %q; events %v", st.Client.DatabaseStatus.Available, st.Cluster.ConnectionString,
				cr.Status.AtProvider.CoordinatorRecovery, cr.GetCondition(xpv2.TypeUpToDate).Message, events(t, cr))
	})
	h.WaitEvents(t, cr, "RecoveredCoordinators: recovered the database on coordinators")
	// The test's own doing: the state lost, the volumes deleted, and three
	// coordinators' pods at once.
	var others []sim.Violation
	for _, v := range db.Check() {
		if v.Kind != sim.CoordinatorStateLost && v.Kind != sim.CoordinatorQuorumLoss && !strings.Contains(v.Detail, "'s volume") {
			others = append(others, v)
		}
	}
	if len(others) != 0 {
		t.Errorf("the simulator reports %v", others)
	}
}

// TestAllPodsRecreatedAtOnce: every pod of a Cluster whose cluster file
// names its coordinators by DNS name is deleted at once (a node pool
// replaced, `kubectl delete pods --all`): each comes back with a new IP
// under the same name, and the database recovers on the coordinators it
// had, with no coordinator change and no step of the provider needed
// beyond making the pods anew — the case of operator issue #2311, whose
// client could not resolve the coordinators while none of their pods
// existed. The provider reaches the database only through its tools,
// which fail while it is down (no status read), and the groups make their
// pods without one.
func TestAllPodsRecreatedAtOnce(t *testing.T) {
	start(t)
	h.Flow(true)
	cr := tripleCluster(namespace(t, "all-pods-recreated"))
	createReady(t, cr)
	get(t, cr)
	recreateAllPods(t, cr, cr.Status.AtProvider.ConnectionString)
	if ev := events(t, cr); containsAny(ev, "ChangedCoordinators: changed coordinators") {
		t.Errorf("coordinators changed, want them kept by name: %v", ev)
	}
	// Every coordinator's pod went at once: the test's doing.
	var others []sim.Violation
	for _, v := range h.Sim(t, cr).Check() {
		if v.Kind != sim.CoordinatorQuorumLoss {
			others = append(others, v)
		}
	}
	if len(others) != 0 {
		t.Errorf("the simulator reports %v", others)
	}
}

// recreateAllPods deletes every pod of cr at once and waits until each is
// back on a new pod IP, the database available on connection string cs,
// and the Cluster Ready and up to date.
func recreateAllPods(t *testing.T, cr *v1alpha1.Cluster, cs string) {
	t.Helper()
	ctx := context.Background()
	ips := map[string]string{}
	pods := clusterPods(t, cr)
	for i := range pods {
		p := &pods[i]
		ips[p.Name] = p.Status.PodIP
		if err := env.Client.Delete(ctx, p, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	db := h.Sim(t, cr)
	eventually(t, 180*time.Second, "every pod back on a new IP, the database available on its coordinators, the Cluster Ready", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		now := clusterPods(t, cr)
		var same []string
		for _, p := range now {
			if ip := ips[p.Name]; ip != "" && ip == p.Status.PodIP {
				same = append(same, p.Name)
			}
		}
		get(t, cr)
		return len(now) == len(ips) && len(same) == 0 && st.Client.DatabaseStatus.Available && st.Cluster.ConnectionString == cs &&
				cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue,
			fmt.Sprintf("%d of %d pods, %v on their old IP; available %t on %s; Ready %q; UpToDate %q", len(now), len(ips), same,
				st.Client.DatabaseStatus.Available, st.Cluster.ConnectionString, cr.GetCondition(xpv2.TypeReady).Message, cr.GetCondition(xpv2.TypeUpToDate).Message)
	})
}
