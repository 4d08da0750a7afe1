// Package controller registers every controller of the provider with a
// manager.
package controller

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/backup"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/config"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/processgroup"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/restore"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/safetypolicy"
)

// managedKinds are the managed-resource controllers and the kind each
// reconciles.
var managedKinds = []struct {
	gvk        schema.GroupVersionKind
	setup      func(ctrl.Manager, options.Options) error
	reconciler func(ctrl.Manager, options.Options) (*managed.Reconciler, error)
}{
	{v1alpha1.ClusterGroupVersionKind, cluster.Setup, cluster.NewReconciler},
	{v1alpha1.ProcessGroupGroupVersionKind, processgroup.Setup, processgroup.NewReconciler},
	{v1alpha1.BackupGroupVersionKind, backup.Setup, backup.NewReconciler},
	{v1alpha1.RestoreGroupVersionKind, restore.Setup, restore.NewReconciler},
}

// Setup adds every controller to the manager. With crossplane-runtime's
// safe-start in the options (its controller.Options.Gate, the only "gate"
// here that is not the safety-policy gate), the controller of each managed
// kind starts only once its CRD is established; without it, all start at
// once.
func Setup(mgr ctrl.Manager, o options.Options) error {
	if err := config.Setup(mgr, o.Options); err != nil {
		return err
	}
	if err := safetypolicy.Setup(mgr, o); err != nil {
		return err
	}
	log := o.Logger.WithValues("component", "safe-start")
	safeStart := o.Options.Gate
	for _, k := range managedKinds {
		if safeStart == nil {
			if err := k.setup(mgr, o); err != nil {
				return errors.Wrapf(err, "cannot set up the %s controller", k.gvk.Kind)
			}
			continue
		}
		safeStart.Register(func() {
			if err := k.setup(mgr, o); err != nil {
				log.Info("cannot set up controller", "kind", k.gvk.Kind, "error", err)
			}
		}, k.gvk)
	}
	return nil
}
