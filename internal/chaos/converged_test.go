package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestConvergedWaitsForItsGroups: a Ready Cluster has converged only once
// each of its groups confirmed a ready status after the last fault ended,
// and the Cluster's status sums up the groups as they are since. Chaos
// seeds 4453, 4220 and 7049 at bfa6966: a group whose pod and claim a fault
// deleted was reconciled only after the harness had declared convergence
// from a Cluster status that summed up the group's old status, and its
// "Creating" then read as a divergence without a fault.
func TestConvergedWaitsForItsGroups(t *testing.T) {
	calm := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	after, before := calm.Add(time.Minute), calm.Add(-time.Minute)
	cases := map[string]struct {
		reason string
		// groupConfirmed is when log-1 last confirmed its status.
		groupConfirmed time.Time
		// groupReady is log-1's Ready condition.
		groupReady xpv2.Condition
		// troubleAt is the last snapshot in which log-1 was not ready;
		// the Cluster's status sums up snapshot 2.
		troubleAt int
		want      string
	}{
		"Converged": {
			reason:         "Every group ready, confirmed since the fault, and the Cluster saw them so.",
			groupConfirmed: after, groupReady: xpv2.Available(), troubleAt: 1,
		},
		"GroupNotReconciledSinceTheFault": {
			reason:         "The group has not looked since the fault: its status may be the fault's victim's.",
			groupConfirmed: before, groupReady: xpv2.Available(), troubleAt: 1,
			want: "ProcessGroup log-1 confirmed no status since the last fault ended",
		},
		"GroupNotReady": {
			reason:         "A group that is not ready is not converged, whatever the Cluster says.",
			groupConfirmed: after, groupReady: xpv2.Creating(), troubleAt: 3,
			want: "ProcessGroup log-1 is not: Creating",
		},
		"ClusterSawTheGroupInTrouble": {
			reason:         "The Cluster's status sums up the group as it was before it became ready.",
			groupConfirmed: after, groupReady: xpv2.Available(), troubleAt: 2,
			want: "its status sums up ProcessGroup log-1 as it was 1 steps ago, not ready",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: clusterName, Namespace: "ns", Generation: 1}}
			cr.SetConditions(xpv2.Available(), xpv2.ObserveMatched())
			pg := &fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "log-1", Namespace: "ns"}}
			pg.Spec.ForProvider.ClusterName = clusterName
			pg.SetConditions(tc.groupReady, xpv2.ReconcileSuccess())
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-log-1", Namespace: "ns",
				Labels: map[string]string{workload.LabelCluster: clusterName, workload.LabelProcessGroup: "log-1"}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
			now := snapshot{clusterKind: {cr}, groupKind: {pg}, podKind: {pod}}
			r := &run{ns: "ns", clusters: []string{clusterName}, calmAt: calm, clock: clocktesting.NewFakeClock(calm.Add(2 * time.Minute)),
				hist: &history{snaps: []snapshot{now, now, now, now}}}
			r.checks.observed = map[client.ObjectKey]int64{client.ObjectKeyFromObject(cr): 1}
			r.checks.confirmedAt = map[client.ObjectKey]time.Time{client.ObjectKeyFromObject(cr): after}
			r.checks.groupsSeen = map[client.ObjectKey]int{client.ObjectKeyFromObject(cr): 2}
			r.checks.groupConfirmedAt = map[client.ObjectKey]time.Time{client.ObjectKeyFromObject(pg): tc.groupConfirmed}
			r.checks.troubleAt = map[client.ObjectKey]int{client.ObjectKeyFromObject(pg): tc.troubleAt}
			ok, why := clusterConverged(r)
			if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
				t.Errorf("\n%s\nclusterConverged(...): %t, %q; want it to say %q", tc.reason, ok, why, tc.want)
			}
		})
	}
}

// TestConvergeBoundGrowsWithTargets: a run with more objects than fit the
// fixed bound (40 steps each) gets more quiet steps, since each step
// reconciles one of them; a small run keeps the fixed bound.
func TestConvergeBoundGrowsWithTargets(t *testing.T) {
	for targets, want := range map[int]int{0: 600, 10: 600, 15: 600, 21: 840} {
		if got := DefaultSteps.converge(targets); got != want {
			t.Errorf("DefaultSteps.converge(%d) = %d, want %d", targets, got, want)
		}
	}
}

// TestConvergedWaitsForTheOthersSteps: a Cluster that shares its database
// has converged only in a status confirmed after the last step of each
// other Cluster of that database. Chaos seed 3387 at 9a281cd: dc2 changed
// coordinators, and dc1s, not reconciled since, still said it was up to
// date; its next reconcile wrote the new cluster file into its ConfigMap,
// which read as a divergence without a fault.
func TestConvergedWaitsForTheOthersSteps(t *testing.T) {
	calm := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	confirmed, stepped := calm.Add(time.Minute), calm.Add(2*time.Minute)
	db := &sim.Sim{}
	cases := map[string]struct {
		reason string
		// confirmed is when dc1s last confirmed its status.
		confirmed time.Time
		// used is the database dc2 last reached.
		used *sim.Sim
		want string
	}{
		"ConfirmedBeforeTheOthersStep": {
			reason:    "dc2 took a step in the database after dc1s last looked.",
			confirmed: confirmed, used: db,
			want: "no status confirmed since Cluster dc2 took its last step in the database they share",
		},
		"ConfirmedSince": {
			reason:    "dc1s looked again after dc2's step.",
			confirmed: stepped.Add(time.Second), used: db,
		},
		"AnotherDatabase": {
			reason:    "dc2's step was in another database.",
			confirmed: confirmed, used: &sim.Sim{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: satelliteDC, Namespace: "ns", Generation: 1}}
			cr.Spec.ForProvider.SeedConnectionString = "db:abc@10.0.0.1:4501"
			cr.SetConditions(xpv2.Available(), xpv2.ObserveMatched())
			r := &run{ns: "ns", clusters: []string{satelliteDC}, calmAt: calm, clock: clocktesting.NewFakeClock(stepped.Add(time.Minute)),
				hist:      &history{snaps: []snapshot{{clusterKind: {cr}}}},
				used:      map[string]*sim.Sim{satelliteDC: db, remoteDC: tc.used},
				steppedAt: map[string]time.Time{satelliteDC: confirmed, remoteDC: stepped}}
			key := client.ObjectKeyFromObject(cr)
			r.checks.observed = map[client.ObjectKey]int64{key: 1}
			r.checks.confirmedAt = map[client.ObjectKey]time.Time{key: tc.confirmed}
			ok, why := r.converged(satelliteDC)
			if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
				t.Errorf("\n%s\nconverged(%q): %t, %q; want it to say %q", tc.reason, satelliteDC, ok, why, tc.want)
			}
		})
	}
}

// TestQuorumOutside: a data center may be cut off only while every
// database keeps a majority of its coordinators reporting from outside
// it. Chaos seed 3303 at 9a281cd: the primary's was cut off before the
// others joined, with all three coordinators in it.
func TestQuorumOutside(t *testing.T) {
	status := func(dcs ...string) *fdb.Status {
		st := &fdb.Status{}
		var addrs []string
		st.Cluster.Processes = map[string]fdb.Process{}
		for i, dc := range dcs {
			addr := fmt.Sprintf("10.0.0.%d:4501", i+1)
			addrs = append(addrs, addr)
			p := fdb.Process{Address: addr, Roles: []fdb.ProcessRole{{Role: fdb.RoleCoordinator}}}
			p.Locality.DCID = dc
			st.Cluster.Processes[addr] = p
		}
		st.Cluster.ConnectionString = "db:abc@" + strings.Join(addrs, ",")
		return st
	}
	cases := map[string]struct {
		status *fdb.Status
		want   bool
	}{
		"AllInThePrimary":  {status(primaryDC, primaryDC, primaryDC), false},
		"SpreadOverThree":  {status(primaryDC, primaryDC, primaryDC, satelliteDC, satelliteDC, satelliteDC, remoteDC, remoteDC, remoteDC), true},
		"HalfInThePrimary": {status(primaryDC, primaryDC, remoteDC, remoteDC), false},
		"NoStatus":         {nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := quorumOutside(map[string]*database{"db": {key: "db", status: tc.status}}, primaryDC); got != tc.want {
				t.Errorf("quorumOutside(..., %q) = %t, want %t", primaryDC, got, tc.want)
			}
		})
	}
}
