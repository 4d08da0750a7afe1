package chaos

import (
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
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
