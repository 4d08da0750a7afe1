package chaos

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// The maintenance workload announces planned maintenance of a storage
// zone's node with a taint the Cluster names in
// automation.taintReplacements, under faults: every group there is
// replaced, one fault domain at a time, before anything drains the node;
// the taint then goes.
var maintenance = Workload{Name: "maintenance", Ops: []Op{
	bootstrapShaped("for planned maintenance", namesMaintenanceTaint, false), maintainZone(), endMaintenance(),
}}

// maintenanceTaint is the taint key the workload announces maintenance
// with.
const maintenanceTaint = "example.org/maintenance"

// namesMaintenanceTaint has the Cluster replace the groups of nodes
// tainted maintenanceTaint at once.
func namesMaintenanceTaint(c *fdbv1alpha1.Cluster) {
	c.Spec.ForProvider.Automation.TaintReplacements = []fdbv1alpha1.TaintReplacement{{Key: maintenanceTaint}}
}

// maintainZone taints the node of a zone that holds a storage group (the
// seeded source picks which) NoSchedule with maintenanceTaint; it
// converges once the Cluster has and no pod of its groups is left there.
func maintainZone() Op {
	return Op{Name: "maintain a storage zone's node", Faults: faults, Converged: both(clusterConverged, nodeVacated), Do: func(ctx context.Context, r *run) error {
		zone, err := r.storageZone()
		if err != nil {
			return err
		}
		r.maintainedNode = nodeOf(zone)
		r.log("maintenance of node %s", r.maintainedNode)
		return r.taintNode(ctx, r.maintainedNode, true)
	}}
}

// endMaintenance takes the maintenance taint off the node.
func endMaintenance() Op {
	return Op{Name: "end the maintenance", Do: func(ctx context.Context, r *run) error {
		return r.taintNode(ctx, r.maintainedNode, false)
	}}
}

// taintNode puts maintenanceTaint on node, or takes it off.
func (r *run) taintNode(ctx context.Context, node string, on bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n := &corev1.Node{}
		if err := r.kube.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
			return err
		}
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == maintenanceTaint })
		if on {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: maintenanceTaint, Effect: corev1.TaintEffectNoSchedule})
		}
		return r.kube.Update(ctx, n)
	})
}

// nodeVacated: no pod of the run's process groups is on the maintained
// node.
func nodeVacated(r *run) (bool, string) {
	var left []string
	for _, o := range r.hist.latest()[podKind] {
		if p := o.(*corev1.Pod); p.Spec.NodeName == r.maintainedNode && p.Labels[workload.LabelProcessGroup] != "" {
			left = append(left, p.Name)
		}
	}
	slices.Sort(left)
	return len(left) == 0, fmt.Sprintf("pods left on the maintained node %s: %v", r.maintainedNode, left)
}
