// Package restore is the Restore controller. Its external client starts a
// restore of a backup into the destination Cluster once the safety policies
// allow it (the default policy refuses a destination that holds data unless
// the Restore allows it), tracks the restore's state machine and progress
// from FoundationDB, and aborts a restore that is still running when the
// Restore is deleted. A Restore's spec cannot change once it is created
// (enforced at admission), so Update has nothing to do. See docs/BACKUP.md.
package restore

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
	errNotRestore = "managed resource is not a Restore"
	errGetCluster = "cannot get the Restore's destination Cluster"
)

// Setup adds a controller that reconciles Restores.
func Setup(mgr ctrl.Manager, o options.Options) error {
	name := managed.ControllerName(v1alpha1.RestoreKind)
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
	// No creation grace period: Observe reads a restore from the database
	// itself, never from a cache, so a restore that was started is seen at
	// once — and a finished restore whose Restore is deleted right after it
	// was created need not wait out the grace period to be let go.
	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.RestoreGroupVersionKind),
		append(o.ReconcilerOptions(name, managed.WithRecorder(rec)),
			managed.WithTypedExternalConnector[*v1alpha1.Restore](conn), managed.WithCreationGracePeriod(0))...)

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.Restore{}).
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

// Connect finds the Restore's destination Cluster and opens a session on
// its target cluster and database. A Restore whose Cluster is gone works
// against a stand-in with the Cluster's name, which has no database: the
// Restore can still be deleted.
func (c *connecter) Connect(ctx context.Context, r *v1alpha1.Restore) (managed.TypedExternalClient[*v1alpha1.Restore], error) {
	if r == nil {
		return nil, errors.New(errNotRestore)
	}
	cr := &v1alpha1.Cluster{}
	err := c.kube.Get(ctx, client.ObjectKey{Namespace: r.GetNamespace(), Name: r.Spec.ForProvider.ClusterName}, cr)
	switch {
	case kerrors.IsNotFound(err):
		cr.SetName(r.Spec.ForProvider.ClusterName)
		cr.SetNamespace(r.GetNamespace())
	case err != nil:
		return nil, errors.Wrap(err, errGetCluster)
	}
	s, err := c.session.Session(ctx, r, cr)
	if err != nil {
		return nil, err
	}
	return &external{kube: c.kube, session: s, cluster: cr, gate: c.gate, clock: c.clock, record: c.record}, nil
}
