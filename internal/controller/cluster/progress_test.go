package cluster

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func TestOperations(t *testing.T) {
	now := metav1.NewTime(planNow)
	earlier := metav1.NewTime(planNow.Add(-time.Hour))
	onVersion := func(v string, ids ...string) mutation {
		return func(_ *v1alpha1.Cluster, o *observation) {
			for _, id := range ids {
				k, p := processOf(o, id)
				p.Version = v
				o.status.Cluster.Processes[k] = p
			}
		}
	}
	upgrade := func(cr *v1alpha1.Cluster, o *observation) {
		cr.Spec.ForProvider.Version = "7.3.69"
		onVersion("7.3.63", "storage-1", "storage-2", "storage-3", "storage-4", "storage-5")(cr, o)
		onVersion("7.3.69", "storage-1", "storage-2")(cr, o)
	}
	replacing := func(ids ...string) mutation {
		return func(_ *v1alpha1.Cluster, o *observation) {
			for _, id := range ids {
				groupNamed(o, id).SetAnnotations(map[string]string{"crossplane.io/external-name": id, v1alpha1.AnnotationReplacement: "requested"})
			}
		}
	}
	restoring := func(name string, percent int) mutation {
		return func(_ *v1alpha1.Cluster, o *observation) {
			rs := v1alpha1.Restore{}
			rs.SetName(name)
			rs.Status.AtProvider = v1alpha1.RestoreObservation{State: v1alpha1.RestoreRunning, Progress: percent}
			o.restores = append(o.restores, rs)
		}
	}
	cases := map[string]struct {
		reason   string
		mutate   []mutation
		previous []v1alpha1.OperationProgress
		want     []v1alpha1.OperationProgress
	}{
		"Converged": {
			reason: "Nothing under way, nothing to show.",
		},
		"UpgradeBegins": {
			reason: "An upgrade counts the processes on the spec's version, from now.",
			mutate: []mutation{upgrade},
			want:   []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 2, Total: 5, Since: now}},
		},
		"UpgradeGoesOn": {
			reason:   "An upgrade under way keeps when it began.",
			mutate:   []mutation{upgrade},
			previous: []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 1, Total: 5, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 2, Total: 5, Since: earlier}},
		},
		"UpgradeUnreadStatus": {
			reason:   "Without a status the upgrade stays as recorded: missing evidence is not done.",
			mutate:   []mutation{upgrade, func(_ *v1alpha1.Cluster, o *observation) { o.status = nil }},
			previous: []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 1, Total: 5, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 1, Total: 5, Since: earlier}},
		},
		"ReplacementsAsked": {
			reason: "Groups the spec asks to replace are the replacement's total.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, _ *observation) {
				cr.Spec.ForProvider.ProcessGroupsToReplace = []string{"storage-1", "storage-2"}
			}},
			want: []v1alpha1.OperationProgress{{Operation: "Replacement", Done: 0, Total: 2, Since: now}},
		},
		"ReplacementsGoOn": {
			reason:   "Groups gone count as done against the most the replacement had to do.",
			mutate:   []mutation{replacing("storage-3")},
			previous: []v1alpha1.OperationProgress{{Operation: "Replacement", Done: 1, Total: 3, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Replacement", Done: 2, Total: 3, Since: earlier}},
		},
		"ReplacementsGrow": {
			reason:   "Groups added to a replacement under way add to its total.",
			mutate:   []mutation{replacing("storage-1", "storage-2", "storage-3")},
			previous: []v1alpha1.OperationProgress{{Operation: "Replacement", Done: 1, Total: 2, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Replacement", Done: 1, Total: 4, Since: earlier}},
		},
		"FailoverAsked": {
			reason: "The spec gives dc2 the highest priority while dc1 is primary and configured so: none of two steps done.",
			mutate: []mutation{wantsRegions(0, 1), runsRegions(fdbRegionPair(1, 0), 2, "dc1", 0, true)},
			want:   []v1alpha1.OperationProgress{{Operation: "Failover", Target: "dc2", Done: 0, Total: 2, Since: now}},
		},
		"FailoverConfigured": {
			reason:   "The regions are configured with dc2 the highest, the primary has not moved yet: one of two.",
			mutate:   []mutation{wantsRegions(0, 1), runsRegions(fdbRegionPair(0, 1), 2, "dc1", 0, true)},
			previous: []v1alpha1.OperationProgress{{Operation: "Failover", Target: "dc2", Done: 0, Total: 2, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Failover", Target: "dc2", Done: 1, Total: 2, Since: earlier}},
		},
		"FailedOver": {
			reason:   "The primary runs in dc2: the failover is over.",
			mutate:   []mutation{wantsRegions(0, 1), runsRegions(fdbRegionPair(0, 1), 2, "dc2", 0, true)},
			previous: []v1alpha1.OperationProgress{{Operation: "Failover", Target: "dc2", Done: 1, Total: 2, Since: earlier}},
		},
		"FailoverUnreadStatus": {
			reason:   "Without a status the failover stays as recorded.",
			mutate:   []mutation{wantsRegions(0, 1), func(_ *v1alpha1.Cluster, o *observation) { o.status = nil }},
			previous: []v1alpha1.OperationProgress{{Operation: "Failover", Target: "dc2", Done: 1, Total: 2, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Failover", Target: "dc2", Done: 1, Total: 2, Since: earlier}},
		},
		"Restore": {
			reason:   "A Restore into the Cluster under way shows its percent, since it was first seen.",
			mutate:   []mutation{restoring("nightly", 45)},
			previous: []v1alpha1.OperationProgress{{Operation: "Restore", Target: "nightly", Done: 10, Total: 100, Since: earlier}},
			want:     []v1alpha1.OperationProgress{{Operation: "Restore", Target: "nightly", Done: 45, Total: 100, Since: earlier}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := converged(5)
			o.now = planNow
			for _, m := range tc.mutate {
				m(cr, o)
			}
			got := o.operations(cr, storageMigration(o.status), tc.previous, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\noperations(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
