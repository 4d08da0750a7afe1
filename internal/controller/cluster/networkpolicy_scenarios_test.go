package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestNetworkPolicyFollowsTheCluster checks, on a real API server with the
// provider's own permissions, that a Cluster that enables its
// NetworkPolicy gets the one workload.NetworkPolicy builds, written once
// and left alone while nothing changes; that it loses it when it disables
// it and gets it back when it enables it again; and that deleting the
// Cluster deletes it. (envtest, like kwok and the simulator, enforces no
// NetworkPolicy: this checks the object, not the traffic.)
func TestNetworkPolicyFollowsTheCluster(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	ns := namespace(t, "network-policy")
	cr := smallCluster(ns, xpv2.ManagementPolicies{xpv2.ManagementActionAll})
	cr.Spec.ForProvider.NetworkPolicy = &v1alpha1.NetworkPolicySettings{Enabled: true,
		ClientSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "orders"}}}
	createReady(t, cr)

	key := client.ObjectKey{Namespace: ns, Name: workload.NetworkPolicyName(cr)}
	present := func(t *testing.T, what string) *networkingv1.NetworkPolicy {
		t.Helper()
		np := &networkingv1.NetworkPolicy{}
		eventually(t, 60*time.Second, what, func() (bool, string) {
			err := env.Client.Get(ctx, key, np)
			return err == nil, fmt.Sprintf("%v; events %v", err, events(t, cr))
		})
		get(t, cr)
		if diff := cmp.Diff(workload.NetworkPolicy(cr, workload.Densities(cr)).Spec, np.Spec); diff != "" {
			t.Errorf("the NetworkPolicy's spec: -want, +got:\n%s", diff)
		}
		return np
	}
	absent := func(t *testing.T, what string) {
		t.Helper()
		eventually(t, 60*time.Second, what, func() (bool, string) {
			err := env.Client.Get(ctx, key, &networkingv1.NetworkPolicy{})
			return kerrors.IsNotFound(err), fmt.Sprintf("%v; events %v", err, events(t, cr))
		})
	}

	np := present(t, "the NetworkPolicy written")
	// Reconciles that find nothing changed write nothing: the policy as
	// the API server returns it (defaults and all) is what the Cluster
	// wants.
	h.WaitEvents(t, cr, "UpdatedNetworkPolicy: updated NetworkPolicy db")
	ready(t, cr, 30*time.Second)
	before := np.ResourceVersion
	time.Sleep(2 * time.Second)
	if get(t, np); np.ResourceVersion != before || eventCount(t, cr, "UpdatedNetworkPolicy") != 1 {
		t.Errorf("the NetworkPolicy was written again with nothing changed (resource version %s, was %s): %v", np.ResourceVersion, before, events(t, cr))
	}

	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.NetworkPolicy.Enabled = false })
	absent(t, "the NetworkPolicy deleted once disabled")
	h.WaitEvents(t, cr, "DeletedNetworkPolicy: deleted NetworkPolicy db")

	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.NetworkPolicy.Enabled = true })
	present(t, "the NetworkPolicy written again once enabled")

	if err := env.Client.Delete(ctx, cr); err != nil {
		t.Fatal(err)
	}
	absent(t, "the NetworkPolicy deleted with the Cluster")
}
