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
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Setup adds a controller that reconciles Clusters. A Cluster is also
// reconciled when one of its ProcessGroups changes, status included.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return managedkind.Setup(mgr, o, v1alpha1.ClusterGroupVersionKind, &v1alpha1.Cluster{},
		connect,
		func(b *builder.Builder) *builder.Builder {
			return b.Watches(&v1alpha1.ProcessGroup{}, handler.EnqueueRequestsFromMapFunc(clusterOf))
		})
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
