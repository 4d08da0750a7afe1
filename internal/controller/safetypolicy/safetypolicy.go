// Package safetypolicy compiles SafetyPolicies as they change and reports in
// their status whether they compiled, and is the source every safety gate
// lists them from: the manager's cache, once it synced, or none while the
// SafetyPolicy kind is not active.
package safetypolicy

import (
	"context"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

const (
	errGetPolicy    = "cannot get SafetyPolicy"
	errUpdateStatus = "cannot update SafetyPolicy status"
	errNoEngine     = "cannot set up the SafetyPolicy controller: the options name no policy engine"
	errGetCRD       = "cannot get the SafetyPolicy CRD"
	errInformer     = "cannot get the SafetyPolicy informer"
	errNotSynced    = "the SafetyPolicy informer has not synced"
	errListPolicies = "cannot list SafetyPolicies"
)

// Reasons of a SafetyPolicy's Ready condition.
const (
	ReasonCompiled      xpv2.ConditionReason = "Compiled"
	ReasonCompileFailed xpv2.ConditionReason = "CompileFailed"
)

// Setup adds a controller that compiles SafetyPolicies with the options'
// engine, the one every gate decides with.
func Setup(mgr ctrl.Manager, o options.Options) error {
	name := "safetypolicy/" + strings.ToLower(v1alpha1.SafetyPolicyKind)
	if o.Engine == nil {
		return errors.New(errNoEngine)
	}
	r := NewReconciler(mgr.GetClient(), o.Engine, o.Logger.WithValues("controller", name))
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(&v1alpha1.SafetyPolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{}, o.Shard.Predicate())).
		Complete(ratelimiter.NewReconciler(name, errors.WithSilentRequeueOnConflict(o.Shard.Reconciler(r)), o.GlobalRateLimiter))
}

// The SafetyPolicy controller and the gates read SafetyPolicies; the
// controller reports in their status whether they compiled.
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=safetypolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=safetypolicies/status,verbs=update

// A Reconciler compiles SafetyPolicies and reports the outcome.
type Reconciler struct {
	client client.Client
	engine *policy.Engine
	log    logging.Logger
}

// NewReconciler returns a reconciler that compiles with e.
func NewReconciler(c client.Client, e *policy.Engine, l logging.Logger) *Reconciler {
	return &Reconciler{client: c, engine: e, log: l}
}

// Reconcile compiles a SafetyPolicy and reports the outcome as its Ready
// condition. The gates read the policy from the cache themselves, compiled
// or not: one that does not compile denies the actions it applies to.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	sp := &v1alpha1.SafetyPolicy{}
	if err := r.client.Get(ctx, req.NamespacedName, sp); err != nil {
		return reconcile.Result{}, errors.Wrap(client.IgnoreNotFound(err), errGetPolicy)
	}
	if meta.WasDeleted(sp) {
		return reconcile.Result{}, nil
	}
	err := r.engine.Compile(policy.FromObject(sp)).Err()
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

// A Source lists the SafetyPolicy objects for the gates from a cache. Until
// the cache's SafetyPolicy informer synced (after a start or a leader
// change) it fails rather than list what it has, so that the gates deny
// instead of deciding without a stricter replacement of a default or an
// org-wide policy.
//
// It reads the SafetyPolicy CRD from the same cache first, as
// crossplane-runtime's safe-start does before it starts the SafetyPolicy
// controller: while the kind is not active (Crossplane has not activated its
// ManagedResourceDefinition, or the CRD is not installed) it fails with
// policy.ErrKindInactive and never asks the cache for a kind the API server
// does not serve.
type Source struct {
	Cache cache.Cache
}

// The gates read the SafetyPolicy CRD to tell whether the kind is active.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// List returns the SafetyPolicy objects as policies.
func (s Source) List(ctx context.Context) ([]policy.Policy, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := s.Cache.Get(ctx, client.ObjectKey{Name: v1alpha1.SafetyPolicyCRDName}, crd)
	if kerrors.IsNotFound(err) || (err == nil && !serves(crd)) {
		return nil, policy.ErrKindInactive
	}
	if err != nil {
		return nil, errors.Wrap(err, errGetCRD)
	}
	inf, err := s.Cache.GetInformer(ctx, &v1alpha1.SafetyPolicy{}, cache.BlockUntilSynced(false))
	if err != nil {
		return nil, errors.Wrap(err, errInformer)
	}
	if !inf.HasSynced() {
		return nil, errors.New(errNotSynced)
	}
	list := &v1alpha1.SafetyPolicyList{}
	if err := s.Cache.List(ctx, list); err != nil {
		return nil, errors.Wrap(err, errListPolicies)
	}
	out := make([]policy.Policy, len(list.Items))
	for i := range list.Items {
		out[i] = policy.FromObject(&list.Items[i])
	}
	return out, nil
}

// serves reports whether crd serves the provider's SafetyPolicy version: it
// is established, not being deleted, and serves that version. This is when
// crossplane-runtime's safe-start gate starts the SafetyPolicy controller.
func serves(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if !crd.DeletionTimestamp.IsZero() {
		return false
	}
	established := slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
	})
	return established && slices.ContainsFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
		return v.Name == v1alpha1.Version && v.Served
	})
}
