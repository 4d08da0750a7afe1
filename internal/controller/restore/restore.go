// Package restore is the Restore controller. Its external client starts a
// restore of a backup into the destination Cluster once the safety policies
// allow it (the default policy refuses a destination that holds data unless
// the Restore allows it), tracks the restore's state machine and progress
// from FoundationDB, and aborts a restore that is still running when the
// Restore is deleted. A Restore's spec cannot change once it is created
// (enforced at admission), so Update has nothing to do. See docs/BACKUP.md.
package restore

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
)

// Setup adds a controller that reconciles Restores.
//
// It has no creation grace period: Observe reads a restore from the
// database itself, never from a cache, so a restore that was started is
// seen at once — and a finished restore whose Restore is deleted right
// after it was created need not wait out the grace period to be let go.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return managedkind.Setup(mgr, o, v1alpha1.RestoreGroupVersionKind, &v1alpha1.Restore{}, &v1alpha1.RestoreList{}, connect, nil, managedkind.IdempotentCreate)
}

// NewReconciler returns the Restore's managed reconciler as Setup wires it,
// without a controller: for a driver that calls Reconcile itself.
func NewReconciler(mgr ctrl.Manager, o options.Options) (*managed.Reconciler, error) {
	return managedkind.NewReconciler(mgr, o, v1alpha1.RestoreGroupVersionKind, connect, managedkind.IdempotentCreate)
}

func connect(d managedkind.Deps) managed.TypedExternalConnector[*v1alpha1.Restore] {
	return newConnector(d)
}

// newConnector returns the connector, which finds the Restore's destination Cluster and opens a session
// on its target cluster and database. A Restore whose Cluster is gone works
// against a stand-in with the Cluster's name, which has no database: the
// Restore can still be deleted.
func newConnector(d managedkind.Deps) *managedkind.BelongingConnector[*v1alpha1.Restore] {
	return &managedkind.BelongingConnector[*v1alpha1.Restore]{
		Deps:        d,
		ClusterName: func(r *v1alpha1.Restore) string { return r.Spec.ForProvider.ClusterName },
		New: func(d managedkind.Deps, b *managedkind.Belonging) managed.TypedExternalClient[*v1alpha1.Restore] {
			return &external{Deps: d, session: b.Session, cluster: b.Cluster}
		},
	}
}
