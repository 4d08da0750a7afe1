package processgroup

import (
	"context"
	"fmt"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errCreatePod   = "cannot create the group's pod"
	errCreatePVC   = "cannot create the group's volume claim"
	errDeletePod   = "cannot delete the group's pod"
	errDeletePVC   = "cannot delete the group's volume claim"
	errListGroups  = "cannot list the cluster's ProcessGroups"
	errListPods    = "cannot list the cluster's pods"
	errClusterGone = "cannot create a process group whose Cluster is deleted or missing"
	reasonRecreate = event.Reason("RecreatingPod")
	reasonRemoved  = event.Reason("RemovedProcessGroup")
	reasonTeardown = event.Reason("DeletedWithCluster")
	msgWaitExclude = "waiting for the cluster to exclude the group before it is removed"
	msgWaitZone    = "waiting to recreate the pod: pods in zone %s are being recreated"
	msgWaitTurn    = "waiting to recreate the pod: zone %s goes first"
	msgNotRunning  = "the pod is not running"
	msgNoProcesses = "the pod runs but its processes do not report to the database"
	msgUnavailable = "the database is not available"
	msgStillInUse  = "refusing to remove a group that still serves roles %v: data, a role or a coordinator would be lost"
)

// external works against one ProcessGroup's pod, volume and processes
// during one reconcile.
type external struct {
	managedkind.Deps
	session     *connector.Session
	cluster     *v1alpha1.Cluster
	clusterGone bool

	obs *observation
}

// Observe reads the group's world once and fills atProvider. It writes
// nothing.
func (e *external) Observe(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalObservation, error) {
	o, err := e.observe(ctx, pg)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	e.obs = o
	if o.pod == nil && o.pvc == nil {
		return managed.ExternalObservation{}, nil
	}
	pg.Status.AtProvider = e.atProvider(pg, o, e.Clock.Now())

	switch {
	case !o.running():
		pg.SetConditions(xpv2.Unavailable().WithMessage(msgNotRunning))
	case o.status == nil && e.session.FDB != nil:
		pg.SetConditions(xpv2.Unavailable().WithMessage(msgUnavailable))
	case o.status != nil && len(o.procs) == 0:
		pg.SetConditions(xpv2.Unavailable().WithMessage(msgNoProcesses))
	default:
		pg.SetConditions(xpv2.Available())
	}
	if e.clusterGone {
		// Without its Cluster the group has no desired pod to converge to:
		// it is only observed, and deleted on request.
		pg.SetConditions(xpv2.ObserveMatched())
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	// Processes with an incorrect command line are the Cluster's to
	// restart, in one batch across groups.
	upToDate := o.pod != nil && !e.has(pg, v1alpha1.IncorrectPodSpec) &&
		!(pg.Spec.ForProvider.ProcessClass.IsStateful() && o.pvc == nil)
	if upToDate {
		pg.SetConditions(xpv2.ObserveMatched())
	} else {
		pg.SetConditions(xpv2.UpdateRequested())
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: upToDate}, nil
}

func (e *external) has(pg *v1alpha1.ProcessGroup, t v1alpha1.ProcessGroupConditionType) bool {
	return slices.ContainsFunc(pg.Status.AtProvider.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool { return c.Type == t })
}

// Create creates the group's volume claim (stateful classes) and pod.
func (e *external) Create(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalCreation, error) {
	if e.clusterGone {
		return managed.ExternalCreation{}, errors.New(errClusterGone)
	}
	return managed.ExternalCreation{}, e.ensure(ctx, pg)
}

func (e *external) ensure(ctx context.Context, pg *v1alpha1.ProcessGroup) error {
	if pg.Spec.ForProvider.ProcessClass.IsStateful() && e.obs.pvc == nil {
		if err := client.IgnoreAlreadyExists(e.session.Target.Create(ctx, workload.PVC(e.cluster, pg, e.obs.id))); err != nil {
			return errors.Wrap(err, errCreatePVC)
		}
	}
	if e.obs.pod == nil {
		return errors.Wrap(client.IgnoreAlreadyExists(e.session.Target.Create(ctx, e.obs.want)), errCreatePod)
	}
	return nil
}

// Update creates what is missing and recreates a pod whose spec drifted
// (one fault domain at a time across the cluster) once the safety policies
// allow it.
func (e *external) Update(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalUpdate, error) {
	o := e.obs
	if o.pod == nil || (pg.Spec.ForProvider.ProcessClass.IsStateful() && o.pvc == nil) {
		return managed.ExternalUpdate{}, e.ensure(ctx, pg)
	}
	if e.has(pg, v1alpha1.IncorrectPodSpec) {
		busy, err := e.zoneBusy(ctx, pg)
		if err != nil || busy != "" {
			pg.SetConditions(xpv2.UpdateRestricted().WithMessage(busy))
			return managed.ExternalUpdate{}, err
		}
		// A pod that runs another version is an upgrade; any other spec
		// change a plain pod deletion.
		a := policy.Action{Type: apiv1alpha1.ActionDeletePod, Targets: []string{o.id}, ProcessClass: string(pg.Spec.ForProvider.ProcessClass), Reason: "pod spec changed"}
		if o.pod.Spec.Containers[0].Image != o.want.Spec.Containers[0].Image {
			a.Type, a.Reason = apiv1alpha1.ActionUpgrade, "upgrade to "+e.cluster.Spec.ForProvider.Version
		}
		if err := e.check(ctx, pg, a); err != nil {
			return managed.ExternalUpdate{}, err
		}
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, o.pod)); err != nil {
			return managed.ExternalUpdate{}, errors.Wrap(err, errDeletePod)
		}
		e.Record.Event(pg, event.Normal(reasonRecreate, "deleted pod "+o.pod.Name+" to recreate it with the new spec"))
		return managed.ExternalUpdate{}, nil
	}
	return managed.ExternalUpdate{}, nil
}

// zoneBusy says why the group must wait before its pod is recreated, or
// returns "" when it may go now. Pods are recreated one fault domain at a
// time across the cluster: the group waits while another zone has a pod
// that is missing, not running or terminating, and while another zone that
// sorts first still has pods whose spec drifted. It judges from the pods
// themselves, not from other groups' recorded conditions, which may not
// yet say that their pods drifted too.
func (e *external) zoneBusy(ctx context.Context, pg *v1alpha1.ProcessGroup) (string, error) {
	sel := client.MatchingLabels{workload.LabelCluster: e.cluster.GetName()}
	groups := &v1alpha1.ProcessGroupList{}
	if err := e.Kube.List(ctx, groups, client.InNamespace(pg.GetNamespace()), sel); err != nil {
		return "", errors.Wrap(err, errListGroups)
	}
	pods := &corev1.PodList{}
	if err := e.session.Target.List(ctx, pods, client.InNamespace(workload.Namespace(e.cluster)), sel); err != nil {
		return "", errors.Wrap(err, errListPods)
	}
	byName := map[string]*corev1.Pod{}
	for i := range pods.Items {
		byName[pods.Items[i].Name] = &pods.Items[i]
	}
	mine := pg.Spec.ForProvider.FaultDomain
	for i := range groups.Items {
		other := &groups.Items[i]
		zone := other.Spec.ForProvider.FaultDomain
		if other.ID() == pg.ID() || zone == mine || other.GetDeletionTimestamp() != nil {
			continue
		}
		pod := byName[workload.PodName(e.cluster, other.ID())]
		if pod == nil || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
			return fmt.Sprintf(msgWaitZone, zone), nil
		}
		drifted := pod.Annotations[workload.AnnotationSpec] != workload.Pod(e.cluster, other, other.ID()).Annotations[workload.AnnotationSpec]
		if drifted && zone < mine {
			return fmt.Sprintf(msgWaitTurn, zone), nil
		}
	}
	return "", nil
}

// check passes an action on the group through the safety-policy gate.
func (e *external) check(ctx context.Context, pg *v1alpha1.ProcessGroup, a policy.Action) error {
	_, err := e.Check(ctx, pg, e.cluster, e.obs.status, a)
	return err
}

// Delete removes the group: once the cluster excluded it and it holds
// nothing, its pod and volume claim are deleted. When its whole Cluster is
// being deleted, they are deleted right away.
func (e *external) Delete(ctx context.Context, pg *v1alpha1.ProcessGroup) (managed.ExternalDelete, error) {
	o := e.obs
	if e.clusterGone {
		e.Record.Event(pg, event.Normal(reasonTeardown, "deleting the pod and volume of a group whose Cluster is deleted"))
		return managed.ExternalDelete{}, e.teardown(ctx)
	}
	if !pg.Status.AtProvider.Excluded {
		pg.SetConditions(xpv2.Deleting().WithMessage(msgWaitExclude))
		return managed.ExternalDelete{}, nil
	}
	a := policy.Action{Type: apiv1alpha1.ActionRemoveProcessGroup, Targets: []string{o.id}, ProcessClass: string(pg.Spec.ForProvider.ProcessClass), Reason: "removal"}
	if err := e.check(ctx, pg, a); err != nil {
		return managed.ExternalDelete{}, err
	}
	// Policies can be replaced; this invariant cannot: a group that still
	// keeps data, serves a role or is a coordinator is never removed, even
	// when a policy allows it.
	if roles := pg.Status.AtProvider.Roles; len(roles) > 0 {
		return managed.ExternalDelete{}, errors.Errorf(msgStillInUse, roles)
	}
	if err := e.teardown(ctx); err != nil {
		return managed.ExternalDelete{}, err
	}
	e.Record.Event(pg, event.Normal(reasonRemoved, "deleted the pod and volume of fully excluded group "+o.id))
	return managed.ExternalDelete{}, nil
}

// teardown deletes the group's pod, then its volume claim.
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
	return nil
}

// Disconnect releases nothing: sessions hold no connections.
func (e *external) Disconnect(context.Context) error { return nil }
