// Package processgroup is the ProcessGroup controller. Its external client
// observes the group's pod, volume claim and processes (from the
// FoundationDB status, read once per reconcile), records FoundationDB
// operator style conditions, creates the volume claim and pod, recreates a
// pod whose spec drifted (one fault domain at a time), and removes the group
// only once the cluster excluded it and it holds no data, serves no role and
// is no coordinator — as the safety policies confirm.
package processgroup

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
)

const (
	errNotProcessGroup = "managed resource is not a ProcessGroup"
	errGetCluster      = "cannot get the ProcessGroup's Cluster"
)

// Setup adds a controller that reconciles ProcessGroups.
func Setup(mgr ctrl.Manager, o options.Options) error {
	name := managed.ControllerName(v1alpha1.ProcessGroupKind)
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
	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.ProcessGroupGroupVersionKind),
		append(o.ReconcilerOptions(name, managed.WithRecorder(rec)), managed.WithTypedExternalConnector[*v1alpha1.ProcessGroup](conn))...)

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.ProcessGroup{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

// connecter opens an external client per reconcile.
type connecter struct {
	kube    client.Client
	session *connector.Connector
	gate    *gate.Gate
	clock   clock.PassiveClock
	record  event.Recorder
}

// Connect finds the group's Cluster and opens a session on its target
// cluster and database. A group whose Cluster is gone works against a
// stand-in with the Cluster's name, so its pod and volume can still be
// deleted.
func (c *connecter) Connect(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.TypedExternalClient[*v1alpha1.ProcessGroup], error) {
	if pg == nil {
		return nil, errors.New(errNotProcessGroup)
	}
	cr := &v1alpha1.Cluster{}
	err := c.kube.Get(ctx, client.ObjectKey{Namespace: pg.GetNamespace(), Name: pg.Spec.ForProvider.ClusterName}, cr)
	gone := kerrors.IsNotFound(err)
	switch {
	case gone:
		cr.SetName(pg.Spec.ForProvider.ClusterName)
		cr.SetNamespace(pg.GetNamespace())
	case err != nil:
		return nil, errors.Wrap(err, errGetCluster)
	}
	s, err := c.session.Session(ctx, pg, cr)
	if err != nil {
		return nil, err
	}
	return &external{kube: c.kube, session: s, cluster: cr, clusterGone: gone || cr.GetDeletionTimestamp() != nil,
		gate: c.gate, clock: c.clock, record: c.record}, nil
}
