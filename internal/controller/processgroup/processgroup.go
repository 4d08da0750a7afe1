// Package processgroup is the ProcessGroup controller. Its external client
// observes the group's pod, volume claim and processes (from the
// FoundationDB status, read once per reconcile), records FoundationDB
// operator style conditions, creates the volume claim and pod, recreates a
// pod whose spec drifted (one fault domain at a time), and removes the group
// only once the cluster excluded it and it holds no data, serves no role and
// is no coordinator — as the safety policies confirm.
package processgroup

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
)

const errNotProcessGroup = "managed resource is not a ProcessGroup"

// Setup adds a controller that reconciles ProcessGroups.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return managedkind.Setup(mgr, o, v1alpha1.ProcessGroupGroupVersionKind, &v1alpha1.ProcessGroup{},
		func(d managedkind.Deps) managed.TypedExternalConnector[*v1alpha1.ProcessGroup] {
			return &connecter{Deps: d}
		}, nil)
}

// connecter opens an external client per reconcile.
type connecter struct {
	managedkind.Deps
}

// Connect finds the group's Cluster and opens a session on its target
// cluster and database. A group whose Cluster is gone works against a
// stand-in with the Cluster's name, so its pod and volume can still be
// deleted.
func (c *connecter) Connect(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.TypedExternalClient[*v1alpha1.ProcessGroup], error) {
	if pg == nil {
		return nil, errors.New(errNotProcessGroup)
	}
	o, err := c.Open(ctx, pg, pg.Spec.ForProvider.ClusterName)
	if err != nil {
		return nil, err
	}
	return &external{Deps: c.Deps, session: o.Session, cluster: o.Cluster, clusterGone: o.ClusterGone}, nil
}
