package workload

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// DisruptionBudgetName is the name of a Cluster's PodDisruptionBudget in
// its target namespace.
func DisruptionBudgetName(c *v1alpha1.Cluster) string { return c.GetName() }

// DisruptionBudget is the PodDisruptionBudget of a Cluster whose groups
// run pods pods: the eviction API (kubectl drain, a cluster autoscaler
// scaling a node down) takes one of its process pods at a time, and only
// while every other one is Ready, so that a drain never takes down more
// than the fault domain of the pod it evicts and waits until that pod runs
// again. Evictions are the only disruptions it holds back: the provider's
// own pod deletions pass the safety policies instead, and a kubelet's
// node-pressure eviction ignores budgets (Kubernetes docs, "Node-pressure
// Eviction").
//
// The pods have no controller with a scale subresource (a ProcessGroup
// makes each), so the budget names minAvailable as a number, the one
// form the disruption controller supports for such pods (Kubernetes docs,
// "Specifying a Disruption Budget for your Application"): all pods but
// one. A pod that is not Ready serves nothing the budget could protect,
// and may be evicted whatever the budget says (unhealthyPodEvictionPolicy
// AlwaysAllow), so that a drain is not held up by the pod it would move.
func DisruptionBudget(c *v1alpha1.Cluster, pods int) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: DisruptionBudgetName(c), Namespace: Namespace(c), Labels: Labels(c, "", "")},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable:               ptr.To(intstr.FromInt32(int32(max(pods-1, 0)))),
			Selector:                   processPods(c),
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}

// processPods selects the pods of a Cluster's process groups (not its
// backup agents').
func processPods(c *v1alpha1.Cluster) *metav1.LabelSelector {
	return &metav1.LabelSelector{
		MatchLabels:      map[string]string{LabelCluster: c.GetName(), LabelManagedBy: ManagedBy},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: LabelProcessGroup, Operator: metav1.LabelSelectorOpExists}},
	}
}
