package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// budgetDisabled disables the Cluster's PodDisruptionBudget.
func budgetDisabled() mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.PodDisruptionBudget = &v1alpha1.PodDisruptionBudgetSettings{Disabled: true}
	}
}

// budgetOf changes the observed budget with change.
func budgetOf(change func(*observation)) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) { change(o) }
}

func TestPlanDisruptionBudget(t *testing.T) {
	const (
		updated = "updated PodDisruptionBudget db: evictions take one of the Cluster's pods at a time, while the other 4 are Ready"
		deleted = "deleted PodDisruptionBudget db: spec.forProvider.podDisruptionBudget is disabled, so evictions no longer wait for the Cluster's pods"
	)
	cr, _ := observed(5)
	want := workload.DisruptionBudget(cr, 5)
	// written is the budget as an earlier reconcile wrote it for four pods.
	written := workload.DisruptionBudget(cr, 4)
	written.ResourceVersion, written.UID = "7", "pdb-uid"
	grown := written.DeepCopy()
	grown.Spec = want.Spec
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"Current": {
			reason: "A budget that counts every group's pod needs no step.",
		},
		"Missing": {
			reason: "Every Cluster gets a budget unless it disables it: all of its pods but one must stay Ready.",
			mutate: []mutation{budgetOf(func(o *observation) { o.disruptionBudget = nil })},
			want: &clusterStep{Step: step.Step{Reason: reasonDisruptionBudget, Message: updated},
				Kind: kindWriteDisruptionBudget, DisruptionBudget: want},
		},
		"GroupAdded": {
			reason: "A budget written for fewer groups is updated to count the new group's pod, its resource version kept.",
			mutate: []mutation{budgetOf(func(o *observation) { o.disruptionBudget = written.DeepCopy() })},
			want: &clusterStep{Step: step.Step{Reason: reasonDisruptionBudget, Message: updated},
				Kind: kindWriteDisruptionBudget, DisruptionBudget: grown},
		},
		"DisabledWritten": {
			reason: "The budget the provider wrote goes once the Cluster disables it.",
			mutate: []mutation{budgetDisabled(), budgetOf(func(o *observation) { o.disruptionBudget = written.DeepCopy() })},
			want: &clusterStep{Step: step.Step{Reason: reasonDisruptionBudgetDeleted, Message: deleted},
				Kind: kindDeleteDisruptionBudget, DisruptionBudget: written},
		},
		"DisabledNone": {
			reason: "A Cluster that disables its budget and has none needs no step.",
			mutate: []mutation{budgetDisabled(), budgetOf(func(o *observation) { o.disruptionBudget = nil })},
		},
		"SomeoneElses": {
			reason: "A budget of the Cluster's name the provider did not write (a platform's own) is neither changed nor deleted.",
			mutate: []mutation{budgetOf(func(o *observation) {
				o.disruptionBudget = written.DeepCopy()
				o.disruptionBudget.Labels = map[string]string{"team": "platform"}
			})},
		},
		"Deleting": {
			reason: "A budget being deleted is left to go.",
			mutate: []mutation{budgetOf(func(o *observation) {
				o.disruptionBudget = written.DeepCopy()
				o.disruptionBudget.DeletionTimestamp = &metav1.Time{}
			})},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			if diff := cmp.Diff(tc.want, next(cr, o), compareGroups); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlanDisruptionBudgetAfterNewGroups: groups to create come before the
// budget, which then counts their pods in one update.
func TestPlanDisruptionBudgetAfterNewGroups(t *testing.T) {
	cr, o := observed(5, storage(6), budgetOf(func(o *observation) { o.disruptionBudget = nil }))
	if got := next(cr, o); got == nil || got.Kind != kindCreateGroups {
		t.Errorf("next(...) = %+v, want the groups created first", got)
	}
}
