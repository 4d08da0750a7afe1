package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
)

// TestSafetyPolicyObjectDenies creates a SafetyPolicy object that freezes
// every change to one cluster: the provider's gates read it through the
// SafetyPolicy informer, so the Cluster's first gated step is denied with
// the policy's message and recorded, and nothing is created; deleting the
// policy lets the cluster come up.
func TestSafetyPolicyObjectDenies(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	ns := namespace(t, "policy-object")
	release := denyInNamespace(t, ns, "freeze-"+ns, apiv1alpha1.ActionAll, "change-freeze", "changes to this cluster are frozen")
	cr := smallCluster(ns, nil)
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	const denial = "denied by freeze-policy-object/change-freeze: changes to this cluster are frozen"
	eventually(t, 30*time.Second, "the freeze denies creating process groups", func() (bool, string) {
		get(t, cr)
		d, c := cr.Status.AtProvider.LastPolicyDecision, cr.GetCondition(gate.TypePolicyAllowed)
		denied := d != nil && d.Action == "CreateProcessGroup" && d.Result == "Denied" && d.Rule == "freeze-policy-object/change-freeze"
		return denied && c.Reason == gate.ReasonPolicyDenied && containsAny(events(t, cr), denial),
			fmt.Sprintf("decision %+v; PolicyAllowed %s %q; events %v", d, c.Status, c.Message, events(t, cr))
	})
	if n := len(groupsOf(t, cr)); n != 0 {
		t.Errorf("%d process groups were created under the freeze, want none", n)
	}

	release()
	ready(t, cr, 90*time.Second)
}

// denyInNamespace creates a SafetyPolicy called name whose rule always
// denies action to the Clusters of namespace ns with message. The returned
// func deletes it; so does the test's cleanup, if it is still there.
func denyInNamespace(t *testing.T, ns, name string, action apiv1alpha1.ActionType, rule, message string) (release func()) {
	t.Helper()
	p := &apiv1alpha1.SafetyPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiv1alpha1.SafetyPolicySpec{
			Actions:         []apiv1alpha1.ActionType{action},
			MatchConditions: []apiv1alpha1.MatchCondition{{Name: "this-namespace", Expression: fmt.Sprintf("cluster.namespace == %q", ns)}},
			Validations:     []apiv1alpha1.Validation{{Name: rule, Expression: "false", Message: message}},
		},
	}
	if err := env.Client.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), p) })
	return func() {
		if err := env.Client.Delete(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
}
