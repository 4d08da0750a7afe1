package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
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
		objectEventually(t, cr, key, np, true, what)
		get(t, cr)
		if diff := cmp.Diff(workload.NetworkPolicy(cr, workload.Densities(cr)).Spec, np.Spec); diff != "" {
			t.Errorf("the NetworkPolicy's spec: -want, +got:\n%s", diff)
		}
		return np
	}
	absent := func(t *testing.T, what string) {
		t.Helper()
		objectEventually(t, cr, key, &networkingv1.NetworkPolicy{}, false, what)
	}

	np := present(t, "the NetworkPolicy written")
	// Reconciles that find nothing changed write nothing: the policy as
	// the API server returns it (defaults and all) is what the Cluster
	// wants.
	writtenOnce(t, cr, np, "UpdatedNetworkPolicy", "NetworkPolicy")

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

// writtenOnce checks that obj, written by cr's step of reason (an event
// "<reason>: updated <kind> <cr's name>"), is not written again while
// nothing changes once cr is Ready.
func writtenOnce(t *testing.T, cr *v1alpha1.Cluster, obj client.Object, reason, kind string) {
	t.Helper()
	h.WaitEvents(t, cr, fmt.Sprintf("%s: updated %s %s", reason, kind, cr.Name))
	ready(t, cr, 30*time.Second)
	get(t, obj)
	before, written := obj.GetResourceVersion(), eventCount(t, cr, reason)
	time.Sleep(2 * time.Second)
	if get(t, obj); obj.GetResourceVersion() != before || eventCount(t, cr, reason) != written {
		t.Errorf("the %s was written again with nothing changed (resource version %s, was %s): %v", kind, obj.GetResourceVersion(), before, events(t, cr))
	}
}

// objectEventually waits until the object named key of cr's target
// exists (read into obj) or, with !exists, is gone.
func objectEventually(t *testing.T, cr *v1alpha1.Cluster, key client.ObjectKey, obj client.Object, exists bool, what string) {
	t.Helper()
	eventually(t, 60*time.Second, what, func() (bool, string) {
		err := env.Client.Get(context.Background(), key, obj)
		if exists {
			return err == nil, fmt.Sprintf("%v; events %v", err, events(t, cr))
		}
		return kerrors.IsNotFound(err), fmt.Sprintf("%v; events %v", err, events(t, cr))
	})
}

// TestDisruptionBudgetFollowsTheCluster checks, on a real API server with
// the provider's own permissions, that every Cluster gets the
// PodDisruptionBudget workload.DisruptionBudget builds for its groups:
// it selects exactly the Cluster's process pods and keeps all but one of
// them, is written once and left alone while nothing changes, counts a
// group added, goes when the Cluster disables it and with the Cluster.
// (envtest runs no disruption controller: this checks the object; the
// local cluster's test drains nodes against it.)
func TestDisruptionBudgetFollowsTheCluster(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "disruption-budget"), xpv2.ManagementPolicies{xpv2.ManagementActionAll})
	createReady(t, cr)
	key := client.ObjectKey{Namespace: cr.Namespace, Name: workload.DisruptionBudgetName(cr)}
	present := func(t *testing.T, groups int, what string) *policyv1.PodDisruptionBudget {
		t.Helper()
		b := &policyv1.PodDisruptionBudget{}
		eventually(t, 60*time.Second, what, func() (bool, string) {
			err := env.Client.Get(ctx, key, b)
			return err == nil && b.Spec.MinAvailable.IntValue() == groups-1, fmt.Sprintf("%v, %v; events %v", err, b.Spec.MinAvailable, events(t, cr))
		})
		if diff := cmp.Diff(workload.DisruptionBudget(cr, groups).Spec, b.Spec); diff != "" {
			t.Errorf("the budget's spec: -want, +got:\n%s", diff)
		}
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		// A group added has its pod a moment after the budget counts it.
		eventually(t, 60*time.Second, "the budget selecting each group's pod", func() (bool, string) {
			pods := &corev1.PodList{}
			if err := env.Client.List(ctx, pods, client.InNamespace(cr.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
				return false, err.Error()
			}
			want := len(groupsOf(t, cr))
			return len(pods.Items) == want, fmt.Sprintf("the budget selects %d pods, want the %d of the Cluster's groups", len(pods.Items), want)
		})
		return b
	}

	b := present(t, 6, "the budget written for six groups")
	writtenOnce(t, cr, b, "UpdatedPodDisruptionBudget", "PodDisruptionBudget")
	if get(t, cr); cr.Status.AtProvider.DisruptionBudget == nil {
		t.Errorf("the Cluster's status shows no budget")
	}

	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.ProcessCounts.Storage = 4 })
	present(t, 7, "the budget counting the group added")

	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.PodDisruptionBudget = &v1alpha1.PodDisruptionBudgetSettings{Disabled: true}
	})
	objectEventually(t, cr, key, &policyv1.PodDisruptionBudget{}, false, "the budget deleted once disabled")
	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.PodDisruptionBudget = nil })
	present(t, 7, "the budget written again once enabled")

	if err := env.Client.Delete(ctx, cr); err != nil {
		t.Fatal(err)
	}
	objectEventually(t, cr, key, &policyv1.PodDisruptionBudget{}, false, "the budget deleted with the Cluster")
}
