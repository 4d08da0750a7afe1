// Package cluster is the Cluster controller. Its external client observes
// the cluster's ConfigMap, its ProcessGroup managed resources and the
// FoundationDB status once per reconcile, plans the one next step from the
// spec and what it observed, passes that step through the safety-policy
// gate, and takes it: write the ConfigMap, create or remove ProcessGroups,
// choose the first coordinators, configure the database, exclude the groups
// being removed (one batch per pass), change coordinators, include removed
// groups (one batch).
package cluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Setup adds a controller that reconciles Clusters. A Cluster is also
// reconciled when one of its ProcessGroups changes, status included, and
// every Cluster when a node of the control plane's own cluster turns Ready
// or not Ready (or goes away), so that pods on a failed node are
// force-deleted at once; Clusters whose target is another cluster see its
// nodes at their next poll.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return managedkind.Setup(mgr, o, v1alpha1.ClusterGroupVersionKind, &v1alpha1.Cluster{}, &v1alpha1.ClusterList{},
		connect,
		func(b *builder.Builder) *builder.Builder {
			return b.Watches(&v1alpha1.ProcessGroup{}, handler.EnqueueRequestsFromMapFunc(clusterOf)).
				Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(allClusters(mgr.GetClient())),
					builder.WithPredicates(predicate.Funcs{
						CreateFunc:  func(event.CreateEvent) bool { return false },
						UpdateFunc:  func(e event.UpdateEvent) bool { return readinessChanged(e.ObjectOld, e.ObjectNew) },
						GenericFunc: func(event.GenericEvent) bool { return false },
					}))
		})
}

// readinessChanged reports whether a node turned Ready or not Ready.
func readinessChanged(old, cur client.Object) bool {
	o, ok1 := old.(*corev1.Node)
	n, ok2 := cur.(*corev1.Node)
	return !ok1 || !ok2 || workload.NodeReady(o) != workload.NodeReady(n)
}

// allClusters maps anything to every Cluster.
func allClusters(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		list := &v1alpha1.ClusterList{}
		if err := c.List(ctx, list); err != nil {
			return nil
		}
		out := make([]reconcile.Request, len(list.Items))
		for i := range list.Items {
			out[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])}
		}
		return out
	}
}

// clusterOf maps a ProcessGroup to its Cluster.
func clusterOf(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[workload.LabelCluster]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

const errNotCluster = "managed resource is not a Cluster"

// connecter opens an external client per reconcile.
type connecter struct {
	managedkind.Deps
}

// Connect opens a session on the Cluster's target cluster and database.
func (c *connecter) Connect(ctx context.Context, cr *v1alpha1.Cluster) (managed.TypedExternalClient[*v1alpha1.Cluster], error) {
	if cr == nil {
		return nil, errors.New(errNotCluster)
	}
	s, err := c.Connector.Session(ctx, cr, cr)
	if err != nil {
		return nil, err
	}
	return &external{Deps: c.Deps, session: s}, nil
}
