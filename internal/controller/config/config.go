// Package config runs the ProviderConfig and ClusterProviderConfig
// controllers, which count users and block deletion of a config in use.
package config

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

// Setup adds a controller for ProviderConfig and one for
// ClusterProviderConfig. Both count the namespaced ProviderConfigUsages:
// managed resources record the use of either kind there, so a
// ClusterProviderConfig in use cannot be deleted either.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	for _, cfg := range []struct {
		kind string
		obj  client.Object
	}{
		{v1alpha1.ProviderConfigKind, &v1alpha1.ProviderConfig{}},
		{v1alpha1.ClusterProviderConfigKind, &v1alpha1.ClusterProviderConfig{}},
	} {
		if err := setup(mgr, o, cfg.kind, cfg.obj); err != nil {
			return err
		}
	}
	return nil
}

func setup(mgr ctrl.Manager, o controller.Options, kind string, obj client.Object) error {
	name := providerconfig.ControllerName(kind)
	of := resource.ProviderConfigKinds{
		Config:    v1alpha1.SchemeGroupVersion.WithKind(kind),
		Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
	}
	r := providerconfig.NewReconciler(mgr, of,
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		//lint:ignore SA1019 crossplane-runtime's event.NewAPIRecorder takes the old record.EventRecorder
		providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))))

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(obj).
		Watches(&v1alpha1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
