// Package backup is the Backup controller. Its external client observes a
// Backup's agents Deployment and the backup layer of the FoundationDB
// status (the backup on its tag, whether the agents are paused, the other
// tags) once per reconcile, plans the one next step from the spec and what
// it observed — create or update the agents Deployment, start, stop, pause,
// resume or modify the backup — passes the FoundationDB steps through the
// safety-policy gate, and takes the step. Deleting a Backup stops its
// backup (gated) and removes its agents. See docs/BACKUP.md.
package backup

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
	errNotBackup  = "managed resource is not a Backup"
	errGetCluster = "cannot get the Backup's Cluster"
)

// Setup adds a controller that reconciles Backups.
func Setup(mgr ctrl.Manager, o options.Options) error {
	name := managed.ControllerName(v1alpha1.BackupKind)
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
	// No creation grace period: Create is idempotent (an agents Deployment
	// or a backup that already exists is taken as created), so an Observe
	// that does not see them yet costs nothing, and a Backup deleted right
	// after it was created need not wait out the grace period to be let go.
	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.BackupGroupVersionKind),
		append(o.ReconcilerOptions(name, managed.WithRecorder(rec)),
			managed.WithTypedExternalConnector[*v1alpha1.Backup](conn), managed.WithCreationGracePeriod(0))...)

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.Backup{}).
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

// Connect finds the Backup's Cluster and opens a session on its target
// cluster and database. A Backup whose Cluster is gone works against a
// stand-in with the Cluster's name, so its agents can still be removed.
func (c *connecter) Connect(ctx context.Context, b *v1alpha1.Backup) (managed.TypedExternalClient[*v1alpha1.Backup], error) {
	if b == nil {
		return nil, errors.New(errNotBackup)
	}
	cr := &v1alpha1.Cluster{}
	err := c.kube.Get(ctx, client.ObjectKey{Namespace: b.GetNamespace(), Name: b.Spec.ForProvider.ClusterName}, cr)
	gone := kerrors.IsNotFound(err)
	switch {
	case gone:
		cr.SetName(b.Spec.ForProvider.ClusterName)
		cr.SetNamespace(b.GetNamespace())
	case err != nil:
		return nil, errors.Wrap(err, errGetCluster)
	}
	s, err := c.session.Session(ctx, b, cr)
	if err != nil {
		return nil, err
	}
	return &external{kube: c.kube, session: s, cluster: cr, clusterGone: gone, gate: c.gate, clock: c.clock, record: c.record}, nil
}
