// Package backup is the Backup controller. Its external client observes a
// Backup's agents Deployment and the backup layer of the FoundationDB
// status (the backup on its tag, whether the agents are paused, the other
// tags) once per reconcile, plans the one next step from the spec and what
// it observed — create or update the agents Deployment, start, stop, pause,
// resume or modify the backup — passes the FoundationDB steps through the
// safety-policy gate, and takes the step. Deleting a Backup stops its
// backup (gated) and removes its agents. See docs/BACKUP.md.
package backup

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
)

// Setup adds a controller that reconciles Backups.
//
// It has no creation grace period: Create is idempotent (an agents
// Deployment or a backup that already exists is taken as created), so an
// Observe that does not see them yet costs nothing, and a Backup deleted
// right after it was created need not wait out the grace period to be let
// go.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return managedkind.Setup(mgr, o, v1alpha1.BackupGroupVersionKind, &v1alpha1.Backup{}, &v1alpha1.BackupList{}, connect, nil, managedkind.IdempotentCreate)
}

// NewReconciler returns the Backup's managed reconciler as Setup wires it,
// without a controller: for a driver that calls Reconcile itself.
func NewReconciler(mgr ctrl.Manager, o options.Options) (*managed.Reconciler, error) {
	return managedkind.NewReconciler(mgr, o, v1alpha1.BackupGroupVersionKind, connect, managedkind.IdempotentCreate)
}

func connect(d managedkind.Deps) managed.TypedExternalConnector[*v1alpha1.Backup] {
	return newConnector(d)
}

// newConnector returns the connector, which finds the Backup's Cluster and opens a session on its target
// cluster and database. A Backup whose Cluster is gone works against a
// stand-in with the Cluster's name, so its agents can still be removed.
func newConnector(d managedkind.Deps) *managedkind.BelongingConnector[*v1alpha1.Backup] {
	return &managedkind.BelongingConnector[*v1alpha1.Backup]{
		Deps:        d,
		ClusterName: func(b *v1alpha1.Backup) string { return b.Spec.ForProvider.ClusterName },
		New: func(d managedkind.Deps, b *managedkind.Belonging) managed.TypedExternalClient[*v1alpha1.Backup] {
			return &external{Deps: d, session: b.Session, cluster: b.Cluster, clusterGone: b.ClusterGone}
		},
	}
}
