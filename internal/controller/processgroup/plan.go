package processgroup

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Event reasons and messages of the steps.
const (
	reasonCreated  event.Reason = "CreatedPod"
	reasonStaged   event.Reason = "StagedBinaries"
	reasonReload   event.Reason = "RequestedConfigurationReload"
	reasonRecreate event.Reason = "RecreatingPod"
	reasonTerminal event.Reason = "DeletedTerminalPod"
	reasonRemoved  event.Reason = "RemovedProcessGroup"
	reasonTeardown event.Reason = "DeletedWithCluster"
	reasonReleased event.Reason = "ReleasedProcessGroup"

	msgReleased         = "left the pod and volume in place: the group's Cluster is gone without a deletion that consents to removing its data"
	msgWaitExclude      = "waiting for the cluster to exclude the group before it is removed"
	msgTearingDown      = "waiting for the group's pod and volume claim, already being deleted, to go"
	msgNotDrained       = "refusing to remove the group until the database status proves it holds nothing: %s"
	msgPodTerminating   = "waiting for pod %s, being deleted, to go before it is created anew"
	msgClaimTerminating = "waiting for volume claim %s, being deleted, to go before it and the pod are created anew"
	msgServiceIP        = "waiting for Service %s to have a cluster IP, which the group's processes are known by, before the pod is created"
)

// kind is what a step of a ProcessGroup does; the executor runs it.
type kind string

// The kinds of steps.
const (
	kindWait   kind = "Wait"
	kindEnsure kind = "Ensure"
	// kindStage changes the image of the pod's sidecar in place, so that
	// it stages the binaries of the cluster's version.
	kindStage kind = "Stage"
	// kindReload asks the pod's monitor to read its configuration file
	// again (workload.AnnotationOutdatedConfigMap).
	kindReload   kind = "Reload"
	kindRecreate kind = "Recreate"
	kindRemove   kind = "Remove"
	// kindRemoveUnreachable removes a group none of whose processes
	// report, so that it cannot prove it holds no data.
	kindRemoveUnreachable kind = "RemoveUnreachable"
	kindTeardown          kind = "Teardown"
	// kindRelease lets go of a group whose Cluster vanished without
	// consent: pod and volume stay.
	kindRelease   kind = "Release"
	kindUnchanged kind = ""
)

// groupStep is the one step a reconcile of a ProcessGroup takes.
type groupStep struct {
	step.Step
	Kind kind
}

// next plans the one next step for the group from its spec and one
// reconcile's observation (o.at is the group's observed state, o.drain what
// the status proves about removing it, o.grantWhy the disruption grant's
// verdict for its fault domain). A group being removed waits until the
// cluster excluded it. It is removed (RemoveProcessGroup) only on positive
// evidence that it is drained, whatever the policies say: a complete
// status of this reconcile in which every process of it reports, is
// excluded and serves no role and none is a coordinator. A group none of
// whose processes report cannot prove that: removing it is a separate
// action, RemoveUnreachableProcessGroup, which the default policies deny
// until data distribution reports full replication without it. Any other
// doubt waits and says why. A group whose Cluster is gone is torn down only
// with the consent of a Cluster deletion (gated as DeleteCluster, like the
// Cluster's own); without it the group lets go and leaves its pod and volume
// in place. A pod whose sidecar runs another version than the cluster's,
// of a group being removed or not, gets the cluster's image in place (not
// gated: it stages binaries and restarts no fdbserver; the Cluster
// restarts every process on the new version, gated as Upgrade, once every
// pod staged it). A pod whose monitor has reported another configuration
// than its ConfigMap holds for longer than the kubelet takes to deliver it
// is asked to read it again (not gated either). Otherwise missing pods,
// volume claims and Services are created (a group known by its Service's
// IP creates its pod only once the Service has one),
// and a pod whose spec drifted, or whose processes an upgrade left behind
// on a version the database no longer speaks (fdb.LeftBehind: no kill can
// reach them), is recreated under the disruption grant, gated as DeletePod.
func next(pg *v1alpha1.ProcessGroup, o *observation, clusterGone, consent bool) groupStep {
	id, class := o.id, string(pg.Spec.ForProvider.ProcessClass)
	switch {
	case pg.GetDeletionTimestamp() != nil && consent:
		cluster := pg.Spec.ForProvider.ClusterName
		return groupStep{Kind: kindTeardown, Step: step.Step{Reason: reasonTeardown, Message: "deleted the pod and volume of a group whose Cluster " + cluster + " is deleted",
			Action: &policy.Action{Type: apiv1alpha1.ActionDeleteCluster, Targets: []string{cluster}, Reason: "process group " + id + " of the deleted Cluster"}}}
	case pg.GetDeletionTimestamp() != nil && clusterGone:
		return groupStep{Kind: kindRelease, Step: step.Step{Reason: reasonReleased, Message: msgReleased}}
	case !clusterGone && o.pod != nil && o.pod.DeletionTimestamp == nil && !workload.PodTerminal(o.pod) && workload.SidecarImage(o.pod) != "" && workload.SidecarImage(o.pod) != workload.SidecarImage(o.want):
		// Before any removal wait: a group being drained restarts on the
		// new version with the others.
		return groupStep{Kind: kindStage, Step: step.Step{Reason: reasonStaged,
			Message: fmt.Sprintf("changed the sidecar of pod %s to %s in place to stage FoundationDB %s", o.pod.Name, workload.SidecarImage(o.want), o.version)}}
	case !clusterGone && o.reloads():
		// Not gated: the monitor restarts no process when it loads a
		// configuration; its processes pick it up when they restart.
		return groupStep{Kind: kindReload, Step: step.Step{Reason: reasonReload,
			Message: fmt.Sprintf("asked the monitor of pod %s to read its configuration again: it has reported another than the ConfigMap holds for it for more than %s", o.pod.Name, reloadAfter)}}
	case pg.GetDeletionTimestamp() != nil && o.tearingDown(pg.Spec.ForProvider.ProcessClass.IsStateful()):
		return groupStep{Kind: kindWait, Step: step.Wait(msgTearingDown)}
	case pg.GetDeletionTimestamp() != nil && !o.at.Excluded:
		return groupStep{Kind: kindWait, Step: step.Wait(msgWaitExclude)}
	case pg.GetDeletionTimestamp() != nil && o.drain.Drained:
		return groupStep{Kind: kindRemove, Step: step.Step{Reason: reasonRemoved, Message: "deleted the pod and volume of fully excluded group " + id,
			Action: &policy.Action{Type: apiv1alpha1.ActionRemoveProcessGroup, Targets: []string{id}, ProcessClass: class, Reason: "removal"}}}
	case pg.GetDeletionTimestamp() != nil && o.status != nil && o.drain.Complete && !o.drain.Reporting && !slices.Contains(o.drain.Roles, fdb.RoleCoordinator):
		return groupStep{Kind: kindRemoveUnreachable, Step: step.Step{Reason: reasonRemoved, Message: "deleted the pod and volume of unreachable group " + id + ": " + o.drain.Why,
			Action: &policy.Action{Type: apiv1alpha1.ActionRemoveUnreachableProcessGroup, Targets: []string{id}, ProcessClass: class, Reason: o.drain.Why}}}
	case pg.GetDeletionTimestamp() != nil && o.status == nil:
		return groupStep{Kind: kindWait, Step: step.Wait(msgNotDrained, "the database status could not be read")}
	case pg.GetDeletionTimestamp() != nil:
		return groupStep{Kind: kindWait, Step: step.Wait(msgNotDrained, o.drain.Why)}
	case clusterGone:
		return groupStep{Kind: kindUnchanged}
	case o.pod == nil && pg.Spec.ForProvider.ProcessClass.IsStateful() && o.pvc != nil && o.pvc.DeletionTimestamp != nil:
		// A pod made now would mount the volume that goes (a lost disk):
		// the claim goes first, then both are made anew.
		return groupStep{Kind: kindWait, Step: step.Wait(msgClaimTerminating, o.pvc.Name)}
	case o.pod == nil && pg.Spec.ForProvider.PublicIPSource.Service() && o.service != nil && o.serviceIP() == "":
		return groupStep{Kind: kindWait, Step: step.Wait(msgServiceIP, o.service.Name)}
	case o.pod == nil || (pg.Spec.ForProvider.ProcessClass.IsStateful() && o.pvc == nil) || pg.Spec.ForProvider.PublicIPSource.Service() && o.service == nil:
		return groupStep{Kind: kindEnsure, Step: step.Step{Reason: reasonCreated, Message: "created the group's missing pod, volume claim or Service"}}
	case o.pod.DeletionTimestamp != nil:
		// Deleted already, to be recreated or by someone else: deleting
		// it again would change nothing, and its policy would weigh the
		// pod's own processes, down now, against it.
		return groupStep{Kind: kindWait, Step: step.Wait(msgPodTerminating, o.pod.Name)}
	case workload.PodTerminal(o.pod):
		return terminalStep(o, class)
	}
	if !o.recreates() {
		return groupStep{Kind: kindUnchanged}
	}
	why, msg := "pod spec changed", "deleted pod %s to recreate it with the new spec"
	switch {
	case fdb.OnOtherPatch(o.procs, o.version):
		// A patch changes the pod's spec too (its main container's
		// image): the patch is what the recreation is for.
		why, msg = "patch upgrade to "+o.version, "deleted pod %s to run FoundationDB "+o.version+": a patch release runs from the image of the pod's main container, so the pod rolls onto an image of "+o.version
	case o.has(v1alpha1.IncorrectPodSpec):
	default:
		why, msg = "left behind by the upgrade to "+o.version, "deleted pod %s: its processes were left behind on a version the database no longer speaks, and restart on "+o.version+" with the new pod"
	}
	if kept := dataInPod(pg, o); kept != "" {
		return groupStep{Kind: kindWait, Step: step.Wait("waiting to recreate the pod: %s", kept)}
	}
	if o.grantWhy != "" {
		return groupStep{Kind: kindWait, Step: step.Wait("waiting to recreate the pod: %s", o.grantWhy)}
	}
	a := &policy.Action{Type: apiv1alpha1.ActionDeletePod, Targets: []string{id}, ProcessClass: class, Reason: why, Details: reportingDetails(o)}
	return groupStep{Kind: kindRecreate, Step: step.Step{Reason: reasonRecreate, Action: a, Message: fmt.Sprintf(msg, o.pod.Name)}}
}

// terminalStep deletes a pod in a terminal phase, so that the next
// reconcile creates it anew: a kubelet never runs such a pod again (one
// evicted under node pressure is Failed, reason Evicted), and waiting for
// the failure detection time would replace the whole group, volume and all,
// for a pod that only needs to start again (the FoundationDB operator
// deletes terminal pods too: controllers/delete_terminal_pods.go, 2.33.0).
// It takes no disruption grant: the pod's processes are down already, and
// its deletion stops nothing. It is gated as DeletePod, with the pod's
// reporting processes as its evidence that nothing of it runs.
func terminalStep(o *observation, class string) groupStep {
	end := ended(o.pod)
	a := &policy.Action{Type: apiv1alpha1.ActionDeletePod, Targets: []string{o.id}, ProcessClass: class, Reason: "pod " + end, Details: reportingDetails(o)}
	return groupStep{Kind: kindRecreate, Step: step.Step{Reason: reasonTerminal, Action: a,
		Message: fmt.Sprintf("deleted pod %s (%s) to create it anew: no kubelet runs a pod in a terminal phase again", o.pod.Name, end)}}
}

// ended says how a pod in a terminal phase ended: its phase, and the
// kubelet's reason when it gave one ("Failed, Evicted").
func ended(p *corev1.Pod) string {
	if p.Status.Reason == "" {
		return string(p.Status.Phase)
	}
	return string(p.Status.Phase) + ", " + p.Status.Reason
}

// reportingDetails tells the DeletePod policies how many of the pod's
// processes report (policy.DetailReportingProcesses: fdb.ReportingOf, by
// the group's instance_id or the pod's IP), when the status can show it:
// its view is complete, so a process it does not list is down or cut off,
// not left out. Without that the detail is absent. A pod none of whose
// processes report serves nothing: recreating it takes away no fault
// domain the database still has (an upgrade's left-behind processes, whose
// zone's maintenance keeps data distribution from restoring the fault
// tolerance they cost).
func reportingDetails(o *observation) map[string]any {
	n, ok := fdb.ReportingOf(o.status, o.id, workload.PublicIP(o.pod))
	if !ok {
		return nil
	}
	return map[string]any{policy.DetailReportingProcesses: n}
}

// dataInPod says why deleting the pod of a group without a volume would
// destroy data FoundationDB still needs, or returns "" (always for a group
// with a volume, which outlives its pod). A stateless process may serve a
// transaction log, recruited while log processes were missing, whose data
// lives only in the pod until a recovery recruits the logs elsewhere; and
// a status that is incomplete, or shows old log generations still active,
// cannot show that the pod keeps none.
func dataInPod(pg *v1alpha1.ProcessGroup, o *observation) string {
	if pg.Spec.ForProvider.ProcessClass.IsStateful() {
		return ""
	}
	held := fdb.DataRoles(o.drain.Roles)
	switch {
	case len(held) > 0:
		return fmt.Sprintf("its processes serve %s, whose data this pod without a volume keeps until FoundationDB recruits the role elsewhere", strings.Join(held, ", "))
	case o.status == nil:
		return "the pod has no volume and without the status nothing shows that it keeps no log data"
	case !o.drain.Complete:
		return "the pod has no volume and the status cannot show that it keeps no log data: " + o.drain.Why
	}
	return ""
}
