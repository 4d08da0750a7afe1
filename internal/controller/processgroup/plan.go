package processgroup

import (
	"fmt"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Event reasons and messages of the steps.
const (
	reasonCreated  event.Reason = "CreatedPod"
	reasonRecreate event.Reason = "RecreatingPod"
	reasonRemoved  event.Reason = "RemovedProcessGroup"
	reasonTeardown event.Reason = "DeletedWithCluster"

	msgWaitExclude = "waiting for the cluster to exclude the group before it is removed"
	msgStillInUse  = "refusing to remove a group that still serves roles %v: data, a role or a coordinator would be lost"
)

// kind is what a step of a ProcessGroup does; the executor runs it.
type kind string

// The kinds of steps.
const (
	kindWait      kind = "Wait"
	kindEnsure    kind = "Ensure"
	kindRecreate  kind = "Recreate"
	kindRemove    kind = "Remove"
	kindTeardown  kind = "Teardown"
	kindUnchanged kind = ""
)

// groupStep is the one step a reconcile of a ProcessGroup takes.
type groupStep struct {
	step.Step
	Kind kind
}

// next plans the one next step for the group from its spec and one
// reconcile's observation (o.at is the group's observed state, o.grant the
// disruption grant's verdict for its fault domain). A group being removed
// waits until the cluster excluded it; one that still serves a role (holds
// data, runs a log or is a coordinator) is never removed, whatever the
// policies say; then its removal is gated. A group whose Cluster is gone is
// only deleted with it. Otherwise missing pods and volume claims are
// created, and a pod whose spec drifted is recreated under the disruption
// grant, gated as Upgrade when its image changes.
func next(pg *v1alpha1.ProcessGroup, o *observation, clusterGone bool) groupStep {
	id, class := o.id, string(pg.Spec.ForProvider.ProcessClass)
	switch {
	case pg.GetDeletionTimestamp() != nil && clusterGone:
		return groupStep{Kind: kindTeardown, Step: step.Step{Reason: reasonTeardown, Message: "deleted the pod and volume of a group whose Cluster is deleted"}}
	case pg.GetDeletionTimestamp() != nil && !o.at.Excluded:
		return groupStep{Kind: kindWait, Step: step.Wait(msgWaitExclude)}
	case pg.GetDeletionTimestamp() != nil && len(o.at.Roles) > 0:
		return groupStep{Kind: kindWait, Step: step.Wait(msgStillInUse, o.at.Roles)}
	case pg.GetDeletionTimestamp() != nil:
		return groupStep{Kind: kindRemove, Step: step.Step{Reason: reasonRemoved, Message: "deleted the pod and volume of fully excluded group " + id,
			Action: &policy.Action{Type: apiv1alpha1.ActionRemoveProcessGroup, Targets: []string{id}, ProcessClass: class, Reason: "removal"}}}
	case clusterGone:
		return groupStep{Kind: kindUnchanged}
	case o.pod == nil || (pg.Spec.ForProvider.ProcessClass.IsStateful() && o.pvc == nil):
		return groupStep{Kind: kindEnsure, Step: step.Step{Reason: reasonCreated, Message: "created the group's missing pod or volume claim"}}
	case !slices.ContainsFunc(o.at.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool { return c.Type == v1alpha1.IncorrectPodSpec }):
		return groupStep{Kind: kindUnchanged}
	case o.grantWhy != "":
		return groupStep{Kind: kindWait, Step: step.Wait("waiting to recreate the pod: %s", o.grantWhy)}
	}
	a := &policy.Action{Type: apiv1alpha1.ActionDeletePod, Targets: []string{id}, ProcessClass: class, Reason: "pod spec changed"}
	if o.pod.Spec.Containers[0].Image != o.want.Spec.Containers[0].Image {
		a.Type, a.Reason = apiv1alpha1.ActionUpgrade, "upgrade to "+o.version
	}
	return groupStep{Kind: kindRecreate, Step: step.Step{Reason: reasonRecreate, Action: a,
		Message: fmt.Sprintf("deleted pod %s to recreate it with the new spec", o.pod.Name)}}
}
