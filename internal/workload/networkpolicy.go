package workload

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// LabelCrossplaneProvider is the label Crossplane puts on the pods it runs
// for a Provider, with the Provider's name: the package runtime's pod
// selectors, which it copies onto the pod template
// (crossplane/crossplane v2.4.0, internal/controller/pkg/runtime/runtime.go
// podSelectors and runtime_override_options.go DeploymentWithSelectors;
// the key is apis/pkg/v1 LabelProvider, the value the revision's
// pkg.crossplane.io/package label, which the package manager sets to the
// Provider's name).
const LabelCrossplaneProvider = "pkg.crossplane.io/provider"

// DefaultProviderName is the name of the Provider the examples install
// (examples/provider): whose pods a NetworkPolicy admits unless the
// Cluster names the provider's pods itself.
const DefaultProviderName = "provider-foundationdb"

// NetworkPolicyName is the name of the cluster's NetworkPolicy.
func NetworkPolicyName(c *v1alpha1.Cluster) string { return c.GetName() }

// NetworkPolicy is the cluster's NetworkPolicy (spec.forProvider.
// networkPolicy): it selects the pods that run the cluster's processes
// and admits, on their FoundationDB ports only, the cluster's own pods and
// backup agents (both carry the cluster's labels), the provider's pods in
// any namespace, the client pods the Cluster names and its extra peers.
// Its ports are the plain and the TLS port of every process of the
// densest pod among densities (the spec's and, during a density
// migration, the existing groups'): both whatever TLS the processes run,
// so that a migration between plain text and TLS, when they listen on
// both, needs no change of the policy. It restricts ingress only; what
// the pods reach is untouched.
func NetworkPolicy(c *v1alpha1.Cluster, densities map[Density]bool) *networkingv1.NetworkPolicy {
	s := ptr.Deref(c.Spec.ForProvider.NetworkPolicy, v1alpha1.NetworkPolicySettings{})
	densest := 1
	for d := range densities {
		densest = max(densest, d.Processes)
	}
	var ports []networkingv1.NetworkPolicyPort
	for _, p := range processPorts(densest) {
		ports = append(ports, networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p))})
	}
	provider := s.ProviderSelector
	if provider == nil {
		provider = &metav1.LabelSelector{MatchLabels: map[string]string{LabelCrossplaneProvider: DefaultProviderName}}
	}
	from := []networkingv1.NetworkPolicyPeer{
		{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelCluster: c.GetName(), LabelManagedBy: ManagedBy}}},
		{PodSelector: provider.DeepCopy(), NamespaceSelector: &metav1.LabelSelector{}},
	}
	if s.ClientSelector != nil {
		from = append(from, networkingv1.NetworkPolicyPeer{PodSelector: s.ClientSelector.DeepCopy(), NamespaceSelector: s.ClientNamespaceSelector.DeepCopy()})
	}
	for i := range s.ExtraPeers {
		from = append(from, *s.ExtraPeers[i].DeepCopy())
	}
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: NetworkPolicyName(c), Namespace: Namespace(c), Labels: Labels(c, "", "")},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: *processPods(c),
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: ports, From: from}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
}

// processPorts are the ports the processes of a pod that runs n of them
// may listen on, ascending: each process's TLS port and then its plain
// one (fdb.TLSProcessPort, fdb.ProcessPort), 4500 to 4499+2n.
func processPorts(n int) []int32 {
	var out []int32
	for i := 1; i <= n; i++ {
		out = append(out, int32(fdb.TLSProcessPort(i)), int32(fdb.ProcessPort(i)))
	}
	return out
}
