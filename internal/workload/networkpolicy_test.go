package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func TestNetworkPolicy(t *testing.T) {
	tcp := func(ports ...int32) []networkingv1.NetworkPolicyPort {
		var out []networkingv1.NetworkPolicyPort
		for _, p := range ports {
			out = append(out, networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p))})
		}
		return out
	}
	own := networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelCluster: "db", LabelManagedBy: ManagedBy}}}
	provider := networkingv1.NetworkPolicyPeer{
		PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"pkg.crossplane.io/provider": "provider-foundationdb"}},
		NamespaceSelector: &metav1.LabelSelector{},
	}
	apps := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "orders"}}
	teams := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "payments"}}
	outside := networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "192.0.2.0/24"}}
	policy := func(ns string, ports []networkingv1.NetworkPolicyPort, from ...networkingv1.NetworkPolicyPeer) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns, Labels: map[string]string{LabelCluster: "db", LabelManagedBy: ManagedBy}},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{
					MatchLabels:      map[string]string{LabelCluster: "db", LabelManagedBy: ManagedBy},
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: LabelProcessGroup, Operator: metav1.LabelSelectorOpExists}},
				},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: ports, From: from}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			},
		}
	}
	cases := map[string]struct {
		reason    string
		settings  *v1alpha1.NetworkPolicySettings
		target    string
		storage   int
		densities map[Density]bool
		want      *networkingv1.NetworkPolicy
	}{
		"OwnPodsAndProvider": {
			reason:   "Without clients only the cluster's own pods and backup agents and the provider's pods, in any namespace, reach the TLS and plain port of each process.",
			settings: &v1alpha1.NetworkPolicySettings{Enabled: true},
			want:     policy("ns", tcp(4500, 4501), own, provider),
		},
		"Clients": {
			reason:   "The client pods the Cluster names reach the ports from the target namespace.",
			settings: &v1alpha1.NetworkPolicySettings{Enabled: true, ClientSelector: apps},
			target:   "fdb",
			want:     policy("fdb", tcp(4500, 4501), own, provider, networkingv1.NetworkPolicyPeer{PodSelector: apps}),
		},
		"ClientsOfNamespaces": {
			reason:   "A namespace selector lets the client pods of those namespaces in.",
			settings: &v1alpha1.NetworkPolicySettings{Enabled: true, ClientSelector: apps, ClientNamespaceSelector: teams},
			want:     policy("ns", tcp(4500, 4501), own, provider, networkingv1.NetworkPolicyPeer{PodSelector: apps, NamespaceSelector: teams}),
		},
		"ProviderNamed": {
			reason:   "A provider installed under another name is named by its own selector.",
			settings: &v1alpha1.NetworkPolicySettings{Enabled: true, ProviderSelector: teams},
			want:     policy("ns", tcp(4500, 4501), own, networkingv1.NetworkPolicyPeer{PodSelector: teams, NamespaceSelector: &metav1.LabelSelector{}}),
		},
		"ExtraPeers": {
			reason:   "Extra peers, such as a provider outside the target cluster, come last as given.",
			settings: &v1alpha1.NetworkPolicySettings{Enabled: true, ExtraPeers: []networkingv1.NetworkPolicyPeer{outside}},
			want:     policy("ns", tcp(4500, 4501), own, provider, outside),
		},
		"DenseStoragePods": {
			reason:    "Storage pods of four processes open the TLS and plain ports of all four.",
			settings:  &v1alpha1.NetworkPolicySettings{Enabled: true},
			storage:   4,
			densities: map[Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 4}: true, {Class: v1alpha1.ProcessClassLog, Processes: 1}: true},
			want:      policy("ns", tcp(4500, 4501, 4502, 4503, 4504, 4505, 4506, 4507), own, provider),
		},
		"DensityMigration": {
			reason:    "While pods of the old density of three still run, their third process stays reachable.",
			settings:  &v1alpha1.NetworkPolicySettings{Enabled: true},
			storage:   2,
			densities: map[Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 2}: true, {Class: v1alpha1.ProcessClassStorage, Processes: 3}: true},
			want:      policy("ns", tcp(4500, 4501, 4502, 4503, 4504, 4505), own, provider),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}}
			c.Spec.ForProvider.NetworkPolicy = tc.settings
			c.Spec.ForProvider.TargetNamespace = tc.target
			c.Spec.ForProvider.StorageServersPerPod = tc.storage
			c.Spec.ForProvider.ProcessCounts.Storage = 3
			densities := tc.densities
			if densities == nil {
				densities = Densities(c)
			}
			if diff := cmp.Diff(tc.want, NetworkPolicy(c, densities)); diff != "" {
				t.Errorf("%s\nNetworkPolicy(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestNetworkPolicyAdmitsEveryPodPort checks that every FoundationDB port a
// pod of the cluster exposes, plain or TLS, is among the policy's ports:
// one left out would be closed to every client once the policy selects the
// pod.
func TestNetworkPolicyAdmitsEveryPodPort(t *testing.T) {
	c := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}}
	c.Spec.ForProvider.Version = "7.3.63"
	c.Spec.ForProvider.StorageServersPerPod = 8
	c.Spec.ForProvider.ProcessCounts.Storage = 3
	c.Spec.ForProvider.TLS = &v1alpha1.TLSSettings{SecretName: "db-tls"}
	c.Spec.ForProvider.NetworkPolicy = &v1alpha1.NetworkPolicySettings{Enabled: true}
	admitted := map[int32]bool{}
	for _, p := range NetworkPolicy(c, Densities(c)).Spec.Ingress[0].Ports {
		admitted[p.Port.IntVal] = true
	}
	pg := &v1alpha1.ProcessGroup{}
	pg.Spec.ForProvider.ProcessClass = v1alpha1.ProcessClassStorage
	pg.Spec.ForProvider.ProcessesPerPod = 8
	var missing []string
	for _, ctr := range Pod(c, pg, "storage-1").Spec.Containers {
		for _, p := range ctr.Ports {
			if !admitted[p.ContainerPort] {
				missing = append(missing, p.Name)
			}
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("ports of the pod the policy does not admit: -want, +got:\n%s", diff)
	}
}
