package cluster

import (
	"context"
	"fmt"
	"maps"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Event reasons of the PodDisruptionBudget's steps.
const (
	reasonDisruptionBudget        event.Reason = "UpdatedPodDisruptionBudget"
	reasonDisruptionBudgetDeleted event.Reason = "DeletedPodDisruptionBudget"
)

// The kinds of the PodDisruptionBudget's steps.
const (
	kindWriteDisruptionBudget  kind = "WriteDisruptionBudget"
	kindDeleteDisruptionBudget kind = "DeleteDisruptionBudget"
)

// What the errors of the PodDisruptionBudget's steps name.
const (
	errGetDisruptionBudget = "cannot get the cluster's PodDisruptionBudget"
	msgDisruptionBudget    = "the cluster's PodDisruptionBudget"
)

// A Cluster reads, writes and deletes its PodDisruptionBudget in the
// target namespace (spec.forProvider.podDisruptionBudget).
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;update;patch;delete

// observeDisruptionBudget reads the cluster's PodDisruptionBudget; none is
// nil.
func (o *observation) observeDisruptionBudget(ctx context.Context, target client.Reader, cr *v1alpha1.Cluster) (err error) {
	key := client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.DisruptionBudgetName(cr)}
	o.disruptionBudget, err = getOptional(ctx, target, key, &policyv1.PodDisruptionBudget{}, errGetDisruptionBudget)
	return err
}

// disruptionBudgetStep creates the cluster's PodDisruptionBudget
// (workload.DisruptionBudget) unless the Cluster disables it, keeps its
// minimum at all of the groups' pods but one as groups come and go, and
// deletes it once the Cluster disables it. Only a budget the provider
// wrote is deleted or changed (ownedByProvider): one of the same name
// written by someone else is left alone. Not gated: the budget disrupts
// nothing, it holds evictions back.
func disruptionBudgetStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	cur := o.disruptionBudget
	switch {
	case cur != nil && (cur.DeletionTimestamp != nil || !ownedByProvider(cur)):
		return nil
	case !cr.Spec.ForProvider.DisruptionBudgetEnabled():
		if cur == nil {
			return nil
		}
		return &clusterStep{
			Step: step.Step{Reason: reasonDisruptionBudgetDeleted, Message: "deleted PodDisruptionBudget " + cur.Name + ": spec.forProvider.podDisruptionBudget is disabled, so evictions no longer wait for the Cluster's pods"},
			Kind: kindDeleteDisruptionBudget, DisruptionBudget: cur,
		}
	}
	want := workload.DisruptionBudget(cr, len(o.groups))
	if cur != nil {
		if equality.Semantic.DeepEqual(cur.Spec, want.Spec) && maps.Equal(cur.Labels, want.Labels) {
			return nil
		}
		cur = cur.DeepCopy()
		cur.Labels, cur.Spec = want.Labels, want.Spec
		want = cur
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonDisruptionBudget, Message: fmt.Sprintf("updated PodDisruptionBudget %s: evictions take one of the Cluster's pods at a time, while the other %s are Ready",
			want.Name, want.Spec.MinAvailable.String())},
		Kind: kindWriteDisruptionBudget, DisruptionBudget: want,
	}
}

// disruptionBudgetObservation is what the Cluster's budget allowed when
// this reconcile read it; nil without one.
func (o *observation) disruptionBudgetObservation() *v1alpha1.DisruptionBudgetObservation {
	b := o.disruptionBudget
	if b == nil || !ownedByProvider(b) {
		return nil
	}
	return &v1alpha1.DisruptionBudgetObservation{DisruptionsAllowed: b.Status.DisruptionsAllowed, CurrentHealthy: b.Status.CurrentHealthy, DesiredHealthy: b.Status.DesiredHealthy}
}

// deleteDisruptionBudget deletes, with the database, the budget this
// reconcile observed if the provider wrote it.
func (e *external) deleteDisruptionBudget(ctx context.Context) error {
	if b := e.obs.disruptionBudget; b != nil {
		return deleteOwned(ctx, e.session.Target, b, msgDisruptionBudget)
	}
	return nil
}

// writeDisruptionBudget runs a step of the budget (writeObject).
func (e *external) writeDisruptionBudget(ctx context.Context, s *clusterStep) error {
	return writeObject(ctx, e.session.Target, s.DisruptionBudget, s.Kind == kindDeleteDisruptionBudget, msgDisruptionBudget)
}
