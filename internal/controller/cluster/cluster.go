// Package cluster is the Cluster controller. Its external client observes
// the cluster's ConfigMap, its ProcessGroup managed resources and the
// FoundationDB status once per reconcile, plans the one next step from the
// spec and what it observed, passes that step through the safety-policy
// gate, and takes it: write the ConfigMap, create or remove ProcessGroups,
// choose the first coordinators, configure the database, exclude the groups
// being removed (one batch per pass), change coordinators, include removed
// groups (one batch).
package cluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Setup adds a controller that reconciles Clusters. A Cluster is also
// reconciled when one of its ProcessGroups changes, status included.
func Setup(mgr ctrl.Manager, o options.Options) error {
	name := managed.ControllerName(v1alpha1.ClusterKind)
	rec := event.NewAPIRecorder(mgr.GetEventRecorderFor(name))
	g, err := o.PolicyGate(rec)
	if err != nil {
		return err
	}
	conn := &connecter{
		kube:    mgr.GetClient(),
		session: o.Connector(mgr),
		gate:    g,
		clock:   o.Clock,
		record:  rec,
	}
	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.ClusterGroupVersionKind),
		append(o.ReconcilerOptions(name, managed.WithRecorder(rec)), managed.WithTypedExternalConnector[*v1alpha1.Cluster](conn))...)

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(&v1alpha1.Cluster{}, builder.WithPredicates(resource.DesiredStateChanged())).
		Watches(&v1alpha1.ProcessGroup{}, handler.EnqueueRequestsFromMapFunc(clusterOf)).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

// clusterOf maps a ProcessGroup to its Cluster.
func clusterOf(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[workload.LabelCluster]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

const errNotCluster = "managed resource is not a Cluster"

// connecter opens an external client per reconcile.
type connecter struct {
	kube    client.Client
	session *connector.Connector
	gate    *gate.Gate
	clock   clock.PassiveClock
	record  event.Recorder
}

// Connect opens a session on the Cluster's target cluster and database.
func (c *connecter) Connect(ctx context.Context, cr *v1alpha1.Cluster) (managed.TypedExternalClient[*v1alpha1.Cluster], error) {
	if cr == nil {
		return nil, errors.New(errNotCluster)
	}
	s, err := c.session.Session(ctx, cr, cr)
	if err != nil {
		return nil, err
	}
	return &external{kube: c.kube, session: s, gate: c.gate, clock: c.clock, record: c.record}, nil
}
