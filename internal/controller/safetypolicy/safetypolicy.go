// Package safetypolicy compiles SafetyPolicies as they change, reports in
// their status whether they compiled, and keeps the policy store that every
// safety gate reads current.
package safetypolicy

import (
	"context"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

const (
	errGetPolicy    = "cannot get SafetyPolicy"
	errUpdateStatus = "cannot update SafetyPolicy status"
)

// Reasons of a SafetyPolicy's Ready condition.
const (
	ReasonCompiled      xpv2.ConditionReason = "Compiled"
	ReasonCompileFailed xpv2.ConditionReason = "CompileFailed"
)

// Setup adds a controller that reconciles SafetyPolicies into the shared
// engine and store (policy.SharedEngine, policy.SharedStore).
func Setup(mgr ctrl.Manager, o controller.Options) error {
	name := "safetypolicy/" + strings.ToLower(v1alpha1.SafetyPolicyKind)
	e, err := policy.SharedEngine()
	if err != nil {
		return err
	}
	r := NewReconciler(mgr.GetClient(), e, policy.SharedStore(), o.Logger.WithValues("controller", name))
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(&v1alpha1.SafetyPolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(ratelimiter.NewReconciler(name, errors.WithSilentRequeueOnConflict(r), o.GlobalRateLimiter))
}

// A Reconciler compiles SafetyPolicies and keeps a store of them.
type Reconciler struct {
	client client.Client
	engine *policy.Engine
	store  *policy.Store
	log    logging.Logger
}

// NewReconciler returns a reconciler that compiles with e and keeps s.
func NewReconciler(c client.Client, e *policy.Engine, s *policy.Store, l logging.Logger) *Reconciler {
	return &Reconciler{client: c, engine: e, store: s, log: l}
}

// Reconcile compiles a SafetyPolicy, puts it in the store, compiled or not
// (a policy that does not compile denies the actions it applies to), and
// reports the outcome as its Ready condition. A deleted policy leaves the
// store.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	sp := &v1alpha1.SafetyPolicy{}
	if err := r.client.Get(ctx, req.NamespacedName, sp); err != nil {
		if kerrors.IsNotFound(err) {
			r.store.Delete(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, errors.Wrap(err, errGetPolicy)
	}
	if meta.WasDeleted(sp) {
		r.store.Delete(sp.Name)
		return reconcile.Result{}, nil
	}
	p := policy.FromObject(sp)
	err := r.engine.Compile(p).Err()
	r.store.Put(p)
	r.log.Debug("Compiled SafetyPolicy", "name", sp.Name, "generation", sp.Generation, "error", err)

	sp.Status.ObservedGeneration = sp.Generation
	sp.Status.SetConditions(Ready(err, sp.Generation))
	return reconcile.Result{}, errors.Wrap(r.client.Status().Update(ctx, sp), errUpdateStatus)
}

// Ready is the Ready condition of a SafetyPolicy that compiled with err.
func Ready(err error, generation int64) xpv2.Condition {
	c := xpv2.Condition{
		Type:               xpv2.TypeReady,
		Status:             corev1.ConditionTrue,
		Reason:             ReasonCompiled,
		LastTransitionTime: metav1.Now(),
		ObservedGeneration: generation,
	}
	if err != nil {
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, ReasonCompileFailed, err.Error()
	}
	return c
}
