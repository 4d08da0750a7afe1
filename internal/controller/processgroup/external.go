package processgroup

import (
	"context"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errCreatePod      = "cannot create the group's pod"
	errCreatePVC      = "cannot create the group's volume claim"
	errCreateSvc      = "cannot create the group's Service"
	errDeleteSvc      = "cannot delete the group's Service"
	errDeletePod      = "cannot delete the group's pod"
	errStagePod       = "cannot change the image of the pod's sidecar"
	errReloadPod      = "cannot ask the pod's monitor to read its configuration again"
	errDeletePVC      = "cannot delete the group's volume claim"
	errGetCluster     = "cannot read the group's Cluster for its disruption grant"
	errClusterGone    = "cannot create a process group whose Cluster is deleted or missing"
	msgNotRunning     = "the pod is not running"
	msgNoProcesses    = "the pod runs but its processes do not report to the database"
	msgUnavailable    = "the database is not available"
	msgNoGrant        = "no fault domain holds the disruption grant yet"
	msgOtherDomain    = "fault domain %s holds the disruption grant, this group is in %s"
	msgStaleGrant     = "the disruption grant (generation %d) and the Cluster this group planned against (generation %d) differ"
	msgNoMaintenance  = "zone %s holds the disruption grant but the database status does not show it under maintenance yet"
	msgMaintenanceLow = "zone %s is under maintenance for %.0fs more, less than the %ds a recreated pod is given to come back: waiting for the Cluster to set it again"
	msgVolatileFirst  = "fault domain %s holds the disruption grant for its groups without a volume first: a transaction log recruited onto one of their pods while this one is down would go with it"
	msgDisruptedOnly  = "fault domain %s holds the disruption grant while another domain is disrupted too: only pods that serve nothing may be recreated, and this one's processes report (or the status cannot show that none do)"
)

// external works against one ProcessGroup's pod, volume and processes
// during one reconcile.
type external struct {
	managedkind.Deps
	session     *connector.Session
	cluster     *v1alpha1.Cluster
	clusterGone bool
	// consent: the Cluster is being deleted with Delete in its management
	// policies (see managedkind.Belonging.TeardownConsent).
	consent bool

	obs  *observation
	step groupStep
}

// Observe reads the group's world once, fills atProvider and plans the
// next step. It writes nothing.
func (e *external) Observe(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalObservation, error) {
	o, err := e.observe(ctx, pg)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	e.obs = o
	if o.pod == nil && o.pvc == nil {
		return managed.ExternalObservation{}, nil
	}
	o.at = e.atProvider(pg, o, e.Clock.Now())
	pg.Status.AtProvider = o.at
	if o.grantWhy, err = e.grant(ctx, pg, o); err != nil {
		return managed.ExternalObservation{}, err
	}
	e.step = next(pg, o, e.clusterGone, e.consent)

	switch {
	case !o.running():
		pg.SetConditions(xpv2.Unavailable().WithMessage(notRunning(o.pod)))
	case o.status == nil && e.session.FDB != nil:
		pg.SetConditions(xpv2.Unavailable().WithMessage(msgUnavailable))
	case o.status != nil && len(o.procs) == 0:
		pg.SetConditions(xpv2.Unavailable().WithMessage(msgNoProcesses))
	default:
		pg.SetConditions(xpv2.Available())
	}
	// Processes with an incorrect command line are the Cluster's to
	// restart, in one batch across groups. Without its Cluster the group
	// has no desired pod to converge to: it is only observed, and deleted
	// on request.
	upToDate := e.step.Kind == kindUnchanged || e.step.Kind == kindRemove || e.step.Kind == kindRemoveUnreachable ||
		e.step.Kind == kindTeardown || e.step.Kind == kindRelease
	switch {
	case upToDate:
		pg.SetConditions(xpv2.ObserveMatched())
	case e.step.Waits():
		pg.SetConditions(xpv2.UpdateRestricted().WithMessage(e.step.Message))
	default:
		pg.SetConditions(xpv2.UpdateRequested().WithMessage(e.step.Message))
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: upToDate}, nil
}

// grant says why the group may not disrupt its pod now ("" when it may),
// for a group whose pod's spec drifted. It reads the Cluster fresh from the
// API server, not from the cache: the group acts only while the Cluster's
// disruption grant allows it (disruption.Allows), under the generation of
// the Cluster this reconcile planned against, and, when the grant names its
// zone, while the status read in this reconcile shows the zone under
// maintenance (which the Cluster sets for it), so that its data waits for
// the pod instead of being re-replicated. A grant for disrupted groups only
// lets a group whose pod serves nothing go in any domain.
func (e *external) grant(ctx context.Context, pg *v1alpha1.ProcessGroup, o *observation) (string, error) {
	if e.clusterGone || pg.GetDeletionTimestamp() != nil || !o.recreates() {
		return "", nil
	}
	live := &v1alpha1.Cluster{}
	if err := e.Live.Get(ctx, client.ObjectKeyFromObject(e.cluster), live); err != nil {
		return "", errors.Wrap(err, errGetCluster)
	}
	g := disruption.FromAPI(live.Status.AtProvider.Disruption)
	me := disruption.Member{Group: o.id, Zone: pg.Zone(), Volatile: !pg.Spec.ForProvider.ProcessClass.IsStateful(), Disrupted: o.servesNothing()}
	if why := grantWait(g, live.GetGeneration(), e.cluster.GetGeneration(), me); why != "" || g.Domain != me.Domain() || !disruption.IsZone(g.Domain) {
		return why, nil
	}
	return maintenanceWait(o, g.Domain), nil
}

// grantWait says why group me may not disrupt its pod under grant g, read
// with the Cluster's generation gen, when it planned against generation
// planned ("" when it may: disruption.Allows).
func grantWait(g *disruption.Grant, gen, planned int64, me disruption.Member) string {
	switch {
	case disruption.Allows(g, gen, planned, me):
		return ""
	case g == nil:
		return msgNoGrant
	case g.Domain != me.Domain() && !g.DisruptedOnly:
		return fmt.Sprintf(msgOtherDomain, g.Domain, me.Domain())
	case g.Generation != gen || g.Generation != planned:
		return fmt.Sprintf(msgStaleGrant, g.Generation, planned)
	case g.DisruptedOnly:
		return fmt.Sprintf(msgDisruptedOnly, g.Domain)
	}
	return fmt.Sprintf(msgVolatileFirst, g.Domain)
}

// maintenanceWait says why the group may not recreate its pod in zone yet
// ("" when it may): the status read in this reconcile must show the zone
// under FoundationDB's maintenance, for at least the time a recreated pod
// is given to come back (disruption.MaintenanceRenewSeconds).
func maintenanceWait(o *observation, zone string) string {
	switch {
	case o.status == nil || o.status.Cluster.MaintenanceZone != zone:
		return fmt.Sprintf(msgNoMaintenance, zone)
	case o.status.Cluster.MaintenanceSecondsRemaining < disruption.MaintenanceRenewSeconds:
		return fmt.Sprintf(msgMaintenanceLow, zone, o.status.Cluster.MaintenanceSecondsRemaining, disruption.MaintenanceRenewSeconds)
	}
	return ""
}

// Create creates the group's volume claim (stateful classes) and pod.
func (e *external) Create(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalCreation, error) {
	if e.clusterGone {
		return managed.ExternalCreation{}, errors.New(errClusterGone)
	}
	return managed.ExternalCreation{}, e.ensure(ctx, pg)
}

// Update takes the step Observe planned through the gate-and-record path.
func (e *external) Update(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, e.take(ctx, pg)
}

// Delete removes the group: once the cluster excluded it and it holds
// nothing, its pod and volume claim are deleted. When its whole Cluster is
// being deleted, they are deleted right away.
func (e *external) Delete(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalDelete, error) {
	if e.step.Waits() {
		pg.SetConditions(xpv2.Deleting().WithMessage(e.step.Message))
	}
	return managed.ExternalDelete{}, e.take(ctx, pg)
}

// take takes the planned step, with the status read in this reconcile as
// the evidence of its decision.
func (e *external) take(ctx context.Context, pg *v1alpha1.ProcessGroup) error {
	ev := managedkind.Evidence{Cluster: e.cluster, Status: e.obs.status, Changed: e.session.Changed, Firsthand: e.session.Firsthand}
	if e.cluster != nil {
		ev.Lock = managedkind.LockOf(e.cluster, e.session.FDB)
	}
	return e.Take(ctx, pg, ev, e.step.Step, func(ctx context.Context) error { return e.execute(ctx, pg) })
}

// A group creates its volume claim, Service and pod, stages a version in its pod,
// recreates a drifted pod and tears both down when it is removed.
// +kubebuilder:rbac:groups="",resources=pods,verbs=create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims;services,verbs=create;delete

// execute makes the mutation of the planned step; the gate allowed it.
func (e *external) execute(ctx context.Context, pg *v1alpha1.ProcessGroup) error {
	switch e.step.Kind {
	case kindEnsure:
		return e.ensure(ctx, pg)
	case kindStage:
		// The pod as this reconcile read it: a stale one conflicts.
		pod := e.obs.pod.DeepCopy()
		workload.SetSidecarImage(pod, workload.SidecarImage(e.obs.want))
		return errors.Wrap(e.session.Target.Update(ctx, pod), errStagePod)
	case kindReload:
		orig := e.obs.pod
		pod := orig.DeepCopy()
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[workload.AnnotationOutdatedConfigMap] = workload.ReloadAnnotation(e.Clock.Now())
		return errors.Wrap(e.session.Target.Patch(ctx, pod, client.MergeFrom(orig)), errReloadPod)
	case kindRecreate:
		// Only the pod this reconcile saw drift: if it was recreated since,
		// the UID differs and nothing is deleted.
		uid := e.obs.pod.UID
		return errors.Wrap(client.IgnoreNotFound(e.session.Target.Delete(ctx, e.obs.pod, client.Preconditions{UID: &uid})), errDeletePod)
	case kindRemove, kindRemoveUnreachable, kindTeardown:
		return e.teardown(ctx)
	}
	return nil
}

func (e *external) ensure(ctx context.Context, pg *v1alpha1.ProcessGroup) error {
	if pg.Spec.ForProvider.ProcessClass.IsStateful() && e.obs.pvc == nil {
		// Marked with the connection string of this reconcile's status (a
		// coordinator change after it names the group's coordinator only
		// with this volume in place), or as made under an unknown one when
		// the status cannot be read. Before the Cluster ever had a cluster
		// file (none now, none recorded: a lost ConfigMap does not count)
		// the group's processes are in no database: nothing can name them
		// before the volume is there, and it is not marked.
		pvc := workload.PVC(e.cluster, pg, e.obs.id)
		switch {
		case e.obs.status != nil:
			workload.MarkNewVolume(pvc, e.obs.status.Cluster.ConnectionString)
		case e.session.ConnectionString != "" || e.cluster.Status.AtProvider.ConnectionString != "":
			workload.MarkNewVolume(pvc, "")
		}
		if err := client.IgnoreAlreadyExists(e.session.Target.Create(ctx, pvc)); err != nil {
			return errors.Wrap(err, errCreatePVC)
		}
	}
	if pg.Spec.ForProvider.PublicIPSource.Service() && e.obs.service == nil {
		// The pod waits for the next reconcile, which reads the Service's
		// cluster IP that its processes are to be known by.
		return errors.Wrap(client.IgnoreAlreadyExists(e.session.Target.Create(ctx, workload.GroupService(e.cluster, pg, e.obs.id))), errCreateSvc)
	}
	if e.obs.pod == nil {
		return errors.Wrap(client.IgnoreAlreadyExists(e.session.Target.Create(ctx, e.obs.want)), errCreatePod)
	}
	return nil
}

// teardown deletes the group's pod, then its volume claim and Service.
func (e *external) teardown(ctx context.Context) error {
	if e.obs.pod != nil {
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, e.obs.pod)); err != nil {
			return errors.Wrap(err, errDeletePod)
		}
	}
	if e.obs.pvc != nil {
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, e.obs.pvc)); err != nil {
			return errors.Wrap(err, errDeletePVC)
		}
	}
	if e.obs.service != nil {
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, e.obs.service)); err != nil {
			return errors.Wrap(err, errDeleteSvc)
		}
	}
	return nil
}

// Disconnect releases nothing: sessions hold no connections.
func (e *external) Disconnect(context.Context) error { return nil }
