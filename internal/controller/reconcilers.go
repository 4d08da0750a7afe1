package controller

import (
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	apisv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/safetypolicy"
)

// Reconcilers returns the reconciler of every managed kind and of
// SafetyPolicies, keyed by kind, wired as Setup wires them but without
// controllers, watches or rate limiters: for a driver that decides itself
// which object to reconcile next (the fault-injection harness). mgr needs
// only its client, uncached reader, scheme and event recorders.
func Reconcilers(mgr ctrl.Manager, o options.Options) (map[schema.GroupVersionKind]reconcile.Reconciler, error) {
	out := map[schema.GroupVersionKind]reconcile.Reconciler{
		apisv1alpha1.SafetyPolicyGroupVersionKind: errors.WithSilentRequeueOnConflict(
			safetypolicy.NewReconciler(mgr.GetClient(), o.Engine, o.Logger.WithValues("controller", "safetypolicy/"+strings.ToLower(apisv1alpha1.SafetyPolicyKind)))),
	}
	for _, k := range managedKinds {
		r, err := k.reconciler(mgr, o)
		if err != nil {
			return nil, errors.Wrapf(err, "cannot build the %s reconciler", k.gvk.Kind)
		}
		out[k.gvk] = r
	}
	return out, nil
}
