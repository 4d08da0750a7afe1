// Package managedkind wires the controller of one managed kind the same way
// for every kind: an event recorder, the safety-policy gate, the session
// connector, crossplane-runtime's managed reconciler with the provider's
// options, and the controller-runtime controller. It also finds the Cluster
// a resource belongs to.
package managedkind

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
)

const errGetCluster = "cannot get the resource's Cluster"

// Deps are what every external client of the provider works with.
type Deps struct {
	// Kube is the client of the control plane the managed resources live in.
	Kube client.Client
	// Connector opens a session on a target cluster and database.
	Connector *connector.Connector
	// Gate decides on every mutation.
	Gate   *gate.Gate
	Clock  clock.PassiveClock
	Record event.Recorder
}

// Setup adds the controller of the managed kind gvk, whose resources are
// like obj, to mgr. newConnector receives the kind's Deps; watch may add
// watches to the controller (nil for none). The kind's own events pass
// crossplane-runtime's DesiredStateChanged filter.
func Setup[T resource.ModernManaged](mgr ctrl.Manager, o options.Options, gvk schema.GroupVersionKind, obj T,
	newConnector func(Deps) managed.TypedExternalConnector[T], watch func(*builder.Builder) *builder.Builder) error {
	name := managed.ControllerName(gvk.Kind)
	rec := event.NewAPIRecorder(mgr.GetEventRecorderFor(name))
	g, err := o.PolicyGate(rec)
	if err != nil {
		return err
	}
	deps := Deps{Kube: mgr.GetClient(), Connector: o.Connector(mgr), Gate: g, Clock: o.Clock, Record: rec}
	r := managed.NewReconciler(mgr, resource.ManagedKind(gvk),
		append(o.ReconcilerOptions(name, managed.WithRecorder(rec)), managed.WithTypedExternalConnector[T](newConnector(deps)))...)

	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(obj, builder.WithPredicates(resource.DesiredStateChanged()))
	if watch != nil {
		b = watch(b)
	}
	return b.Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

// ClusterOf returns the Cluster named name in mg's namespace. gone is true
// when that Cluster is missing or being deleted; a missing one is returned
// as a stand-in that carries only its name and namespace, enough to find
// and delete what a resource created for it.
func (d Deps) ClusterOf(ctx context.Context, mg client.Object, name string) (cr *v1alpha1.Cluster, gone bool, err error) {
	cr = &v1alpha1.Cluster{}
	err = d.Kube.Get(ctx, client.ObjectKey{Namespace: mg.GetNamespace(), Name: name}, cr)
	switch {
	case kerrors.IsNotFound(err):
		cr.SetName(name)
		cr.SetNamespace(mg.GetNamespace())
		return cr, true, nil
	case err != nil:
		return nil, false, errors.Wrap(err, errGetCluster)
	}
	return cr, cr.GetDeletionTimestamp() != nil, nil
}
