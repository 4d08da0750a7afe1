package processgroup

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
)

// NewReconciler returns the ProcessGroup's managed reconciler as Setup
// wires it, without a controller: for a driver that calls Reconcile itself.
func NewReconciler(mgr ctrl.Manager, o options.Options) (*managed.Reconciler, error) {
	return managedkind.NewReconciler(mgr, o, v1alpha1.ProcessGroupGroupVersionKind, connect, managedkind.IdempotentCreate)
}

func connect(d managedkind.Deps) managed.TypedExternalConnector[*v1alpha1.ProcessGroup] {
	return newConnector(d)
}
