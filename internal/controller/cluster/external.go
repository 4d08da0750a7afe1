package cluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Connection-detail keys.
const (
	KeyClusterFile      = "clusterFile"
	KeyConnectionString = "connectionString"
)

const (
	errDeleteConfigMap = "cannot delete the cluster's ConfigMap"
	errDeleteService   = "cannot delete the cluster's headless Service"

	reasonDeleted event.Reason = "DeletedDatabase"
)

// external works against one Cluster's target cluster and database during
// one reconcile.
type external struct {
	managedkind.Deps
	session *connector.Session

	// obs and step are what Observe saw and planned, for Update.
	obs  *observation
	step *clusterStep
}

// Observe reads the cluster's world once, fills atProvider and plans the
// next step. It writes nothing.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalObservation, error) {
	obs, err := e.observe(ctx, cr)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if e.session.ConfigMap == nil && len(obs.groups) == 0 {
		e.Metrics.Forget(dbmetrics.KindCluster, cr.GetNamespace(), cr.GetName())
		return managed.ExternalObservation{}, nil
	}
	e.obs = obs
	// What the processes listen on follows the coordinators and pods this
	// reconcile observed (workload.Listen reads them from the status).
	tls := obs.tlsStatus(cr)
	cr.Status.AtProvider.TLS = tls
	// A drill whose time is up ends before the groups are planned.
	cr.Status.AtProvider.Drill = drillRecord(cr, e.Clock.Now())
	e.step = next(cr, obs)
	now := metav1.NewTime(e.Clock.Now())
	previous := cr.Status.AtProvider.Operations
	cr.Status.AtProvider = obs.atProvider(cr.Status.AtProvider, now)
	cr.Status.AtProvider.Operations = obs.operations(cr, cr.Status.AtProvider.StorageMigration, previous, now)
	cr.Status.AtProvider.TLS = tls
	if c, ok := obs.certificateCondition(e.certificateWarning(ctx, cr)); ok {
		if ev, changed := certificateEvent(cr.GetCondition(TypeCertificate), c); changed {
			e.Record.Event(cr, ev)
		}
		cr.SetConditions(c)
	}
	// Locks asked for again are taken at once: enabling them needs no gate.
	cr.Status.AtProvider.LocksDisabled = cr.Status.AtProvider.LocksDisabled && cr.Spec.ForProvider.Locks.DisableLocks
	// The lock last seen has expired: nobody holds it as far as this
	// Cluster knows.
	if cr.Status.AtProvider.GlobalLock == nil && cr.GetCondition(managedkind.TypeGlobalLock).Reason != "" {
		cr.SetConditions(managedkind.LockCondition(cr, "", e.Clock.Now()))
	}

	e.Metrics.Cluster(cr, obs.status)

	cr.SetConditions(readyCondition(obs, e.step))
	if e.step == nil {
		cr.SetConditions(xpv2.ObserveMatched())
	} else {
		cr.SetConditions(xpv2.UpdateRequested().WithMessage(e.step.Message))
	}

	var details managed.ConnectionDetails
	cs := obs.connectionString()
	if cs != "" {
		details = managed.ConnectionDetails{KeyClusterFile: []byte(cs + "\n"), KeyConnectionString: []byte(cs)}
		addTLSDetails(details, cr, obs.tls, cs)
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: e.step == nil, ConnectionDetails: details}, nil
}

// Create writes the cluster's ConfigMap; the next reconciles create the
// process groups, coordinators and database step by step.
func (e *external) Create(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, e.writeConfigMap(ctx, cr, workload.ConfigMap(cr, "", workload.Densities(cr)).Data)
}

// Update takes the step Observe planned through the gate-and-record path.
func (e *external) Update(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalUpdate, error) {
	s := e.step
	if s == nil {
		return managed.ExternalUpdate{}, nil
	}
	ev := managedkind.Evidence{Cluster: cr, Groups: e.obs.groups, Status: e.obs.status, Lock: managedkind.LockOf(cr, e.session.FDB), Changed: e.session.Changed, Firsthand: e.session.Firsthand}
	return managed.ExternalUpdate{}, e.Take(ctx, cr, ev, s.Step, func(ctx context.Context) error { return e.execute(ctx, cr, s) })
}

// Delete deletes the database once the safety policies allow it
// (DeleteCluster; fdb-deletion denies it under deletion protection): its
// ProcessGroups, which, their Cluster being deleted with Delete, tear down
// their pods and volumes without exclusion (each gated as DeleteCluster
// too), and its ConfigMap. Without Delete in its management policies the
// runtime orphans the Cluster and never calls Delete.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalDelete, error) {
	s := step.Step{Reason: reasonDeleted, Message: "deleted the database: its process groups, pods, volumes, ConfigMap, headless Service, NetworkPolicy and PodDisruptionBudget",
		Action: &policy.Action{Type: apiv1alpha1.ActionDeleteCluster, Targets: []string{cr.GetName()}, Reason: "the Cluster is deleted"}}
	ev := managedkind.Evidence{Cluster: cr, Groups: e.obs.groups, Status: e.obs.status, Changed: e.session.Changed, Firsthand: e.session.Firsthand}
	return managed.ExternalDelete{}, e.Take(ctx, cr, ev, s, func(ctx context.Context) error { return e.deleteAll(ctx) })
}

// Deleting a database deletes its ConfigMap, headless Service,
// NetworkPolicy and PodDisruptionBudget too.
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=delete

// deleteAll deletes the Cluster's ProcessGroups, ConfigMap, headless
// Service, NetworkPolicy and PodDisruptionBudget.
func (e *external) deleteAll(ctx context.Context) error {
	for i := range e.obs.groups {
		if err := client.IgnoreNotFound(e.Kube.Delete(ctx, &e.obs.groups[i])); err != nil {
			return errors.Wrap(err, errDeleteGroup)
		}
	}
	if cm := e.session.ConfigMap; cm != nil {
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, cm)); err != nil {
			return errors.Wrap(err, errDeleteConfigMap)
		}
	}
	if svc := e.obs.service; svc != nil {
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, svc)); err != nil {
			return errors.Wrap(err, errDeleteService)
		}
	}
	if err := e.deleteNetworkPolicy(ctx); err != nil {
		return err
	}
	return e.deleteDisruptionBudget(ctx)
}

// Disconnect releases nothing: sessions hold no connections.
func (e *external) Disconnect(context.Context) error { return nil }
