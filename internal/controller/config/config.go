// Package config runs the ProviderConfig and ClusterProviderConfig
// controllers, which count users and block deletion of a config in use.
package config

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/uncopied"
)

const errNewConfig = "cannot create a %s object"

// Kinds are the config kinds, each with a controller of its own.
var Kinds = []schema.GroupVersionKind{v1alpha1.ProviderConfigGroupVersionKind, v1alpha1.ClusterProviderConfigGroupVersionKind}

// Setup adds the controller of config kind gvk, one of Kinds, for the
// configs of shard s. It counts the
// namespaced ProviderConfigUsages that name a config of its kind and watches
// them: managed resources record the use of either kind there, so a
// ClusterProviderConfig in use cannot be deleted either.
func Setup(mgr ctrl.Manager, o controller.Options, s shard.Shard, gvk schema.GroupVersionKind) error {
	obj, err := mgr.GetScheme().New(gvk)
	if err != nil {
		return errors.Wrapf(err, errNewConfig, gvk.Kind)
	}
	return setup(mgr, o, s, gvk.Kind, obj.(client.Object))
}

// The config reconciler counts a config's usages (deleting those without a
// controller), holds the config with a finalizer while it is in use,
// reports the count in its status and records events.
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=providerconfigs;clusterproviderconfigs,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=providerconfigs/status;clusterproviderconfigs/status,verbs=update
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=providerconfigusages,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

func setup(mgr ctrl.Manager, o controller.Options, s shard.Shard, kind string, obj client.Object) error {
	name := providerconfig.ControllerName(kind)
	of := resource.ProviderConfigKinds{
		Config:    v1alpha1.SchemeGroupVersion.WithKind(kind),
		Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
	}
	r := providerconfig.NewReconciler(uncopied.Manager(mgr), of,
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		//lint:ignore SA1019 crossplane-runtime's event.NewAPIRecorder takes the old record.EventRecorder
		providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))))

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(obj, builder.WithPredicates(s.Predicate())).
		Watches(&v1alpha1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{}).
		Complete(ratelimiter.NewReconciler(name, s.Reconciler(r), o.GlobalRateLimiter))
}
