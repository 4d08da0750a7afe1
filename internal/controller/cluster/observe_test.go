package cluster

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// recovered is a status of recovery generation gen, read secs seconds
// after the recovery.
func recovered(gen int64, secs float64) *fdb.Status {
	s := &fdb.Status{}
	s.Cluster.Generation = gen
	s.Cluster.RecoveryState = fdb.RecoveryState{Name: fdb.RecoveryFullyRecovered, SecondsSinceLastRecovered: &secs}
	return s
}

func TestLastRecovery(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	recordedAt := metav1.NewTime(now.Add(-time.Hour))
	recorded := v1alpha1.ClusterHealth{RecoveryGeneration: 4, LastRecoveryTime: &recordedAt}
	cases := map[string]struct {
		reason   string
		previous v1alpha1.ClusterHealth
		status   *fdb.Status
		want     *metav1.Time
	}{
		"FirstStatus": {
			reason: "Without a recorded time, the recovery happened the reported time ago, to the second.",
			status: recovered(4, 90.7),
			want:   &metav1.Time{Time: now.Add(-91 * time.Second)},
		},
		"SameRecovery": {
			reason:   "While the generation stays, the recorded time stays, however the reported age drifts from the clock.",
			previous: recorded,
			status:   recovered(4, 3602.4),
			want:     &recordedAt,
		},
		"NewRecovery": {
			reason:   "A new generation is a new recovery: its time is derived anew.",
			previous: recorded,
			status:   recovered(5, 12),
			want:     &metav1.Time{Time: now.Add(-12 * time.Second)},
		},
		"RecoveryUnderWay": {
			reason:   "While a recovery is under way the status gives no time (FoundationDB gets no read version): the time is not known.",
			previous: recorded,
			status:   &fdb.Status{Cluster: fdb.ClusterStatus{Generation: 6, RecoveryState: fdb.RecoveryState{Name: fdb.RecoveryLockingCoordinatedState}}},
		},
		"NoTimeYet": {
			reason:   "-1 says the cluster controller has no time for the recovery yet: not a time a second from now.",
			previous: recorded,
			status:   recovered(6, -1),
		},
		"NoRecoveryState": {
			reason: "A status that reports no recovery state says nothing of when the last one was.",
			status: &fdb.Status{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, lastRecovery(tc.previous, tc.status, now)); diff != "" {
				t.Errorf("\n%s\nlastRecovery(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAtProviderUnchanged: a database that did not change between two
// reconciles gets the same observed state, however much time passed, so
// its status is not written again.
func TestAtProviderUnchanged(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	_, o := converged(3)
	o.status.Cluster.Generation = 4
	o.status.Cluster.RecoveryState = fdb.RecoveryState{Name: fdb.RecoveryFullyRecovered, ActiveGenerations: 1, SecondsSinceLastRecovered: new(600.2)}
	first := o.atProvider(v1alpha1.ClusterObservation{}, metav1.NewTime(t0))

	later := t0.Add(15*time.Minute + 300*time.Millisecond)
	o.status.Cluster.RecoveryState.SecondsSinceLastRecovered = new(1500.9)
	if diff := cmp.Diff(first, o.atProvider(first, metav1.NewTime(later))); diff != "" {
		t.Errorf("atProvider(...) of an unchanged database: -first, +later:\n%s", diff)
	}
}

// TestConfiguredIsKept: the record that the database was configured is
// never taken back by a reconcile that cannot see the configuration: new
// group IDs wait for the exclusion list only while it stands (chaos seed
// 144: a reconcile without the ConfigMap, hence without status, cleared
// it, and the next, on an unavailable database, reused an excluded ID).
func TestConfiguredIsKept(t *testing.T) {
	cases := map[string]struct {
		reason string
		ms     []mutation
		want   bool
	}{
		"Configured": {
			reason: "A status showing the configuration records it.",
			want:   true,
		},
		"NoStatus": {
			reason: "A reconcile that read no status keeps the record.",
			ms:     []mutation{recordedConfigured(), statusUnreadable()},
			want:   true,
		},
		"NoClusterFile": {
			reason: "A reconcile without the cluster file (no admin client) keeps the record.",
			ms:     []mutation{recordedConfigured(), lostClusterFile()},
			want:   true,
		},
		"Unavailable": {
			reason: "An unavailable database's status has no configuration; the record stays.",
			ms:     []mutation{recordedConfigured(), unavailable()},
			want:   true,
		},
		"NeverSeen": {
			reason: "Nothing recorded and nothing read: not configured as far as this Cluster knows.",
			ms:     []mutation{statusUnreadable()},
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, o := observed(5, tc.ms...)
			got := o.atProvider(v1alpha1.ClusterObservation{Configured: o.configuredBefore}, metav1.NewTime(time.Unix(0, 0))).Configured
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\natProvider(...).Configured: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestZonesOf: new groups go to the zones of nodes that are Ready, not
// cordoned, and not announcing maintenance the Cluster names.
func TestZonesOf(t *testing.T) {
	cr := &v1alpha1.Cluster{}
	cr.Spec.ForProvider.Automation.TaintReplacements = []v1alpha1.TaintReplacement{{Key: "example.org/maintenance", DurationInSeconds: 600}}
	node := func(zone string, ready, cordoned bool, taints ...corev1.Taint) corev1.Node {
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{workload.FaultDomainKey(cr): zone}},
			Spec:   corev1.NodeSpec{Unschedulable: cordoned, Taints: taints},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
	}
	nodes := []corev1.Node{
		node("e", true, false), node("d", true, false),
		node("a", false, false),
		node("b", true, true),
		node("c", true, false, corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule}),
		node("d", true, false, corev1.Taint{Key: "example.org/other", Effect: corev1.TaintEffectNoSchedule}),
	}
	if diff := cmp.Diff([]string{"d", "e"}, zonesOf(cr, nodes)); diff != "" {
		t.Errorf("zonesOf: -want, +got:\n%s", diff)
	}
}
