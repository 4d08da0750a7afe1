package v1alpha1

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkPolicySettings give a Cluster a NetworkPolicy in its target
// namespace that admits connections to the FoundationDB ports of its pods
// (plain and TLS, of every process a pod runs) only from its own pods and
// backup agents, the provider's pods, the clients ClientSelector names and
// the ExtraPeers. FoundationDB without TLS lets anyone who reaches a port
// read and write every key; with TLS, only a client with a certificate the
// processes trust gets in, and the policy narrows who may even try. Only a
// network plugin that enforces NetworkPolicies makes it effective; without
// one the object is written and changes nothing. Every other port of the
// pods is closed to all once the policy selects them.
// +kubebuilder:validation:XValidation:rule="!has(self.clientNamespaceSelector) || has(self.clientSelector)",message="spec.forProvider.networkPolicy.clientNamespaceSelector needs clientSelector: it chooses the namespaces in which the pods clientSelector names may connect"
type NetworkPolicySettings struct {
	// Enabled writes the NetworkPolicy; false deletes the one written
	// before. The FDBDatabase composition enables it unless told not to.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// ClientSelector names the application pods that may connect: those
	// carrying these labels in the target namespace, or in the namespaces
	// ClientNamespaceSelector names. Unset, no application pod may (only
	// the Cluster's own pods, its backup agents, the provider and the
	// ExtraPeers). An empty selector admits every pod of the namespace.
	// +optional
	ClientSelector *metav1.LabelSelector `json:"clientSelector,omitempty"`

	// ClientNamespaceSelector names the namespaces whose pods that carry
	// ClientSelector's labels may connect; unset, only the target
	// namespace's. An empty selector names every namespace.
	// +optional
	ClientNamespaceSelector *metav1.LabelSelector `json:"clientNamespaceSelector,omitempty"`

	// ProviderSelector names the provider's pods, in any namespace, which
	// run fdbcli, fdbbackup, fdbrestore and the native client against the
	// database. Unset, the pods Crossplane runs for a Provider named
	// provider-foundationdb: Crossplane labels them
	// pkg.crossplane.io/provider with the Provider's name. Name yours if
	// the Provider has another name; a provider that runs outside the
	// target cluster is admitted by an ipBlock among ExtraPeers.
	// +optional
	ProviderSelector *metav1.LabelSelector `json:"providerSelector,omitempty"`

	// ExtraPeers may connect too: e.g. an ipBlock for a provider or
	// clients outside the target cluster, or the pods of the other
	// Clusters of a database that spans several (regions, data halls)
	// when they run in the same target cluster. Each names either an
	// ipBlock or pods and namespaces, as a NetworkPolicy's peers do.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(p, has(p.ipBlock) != (has(p.podSelector) || has(p.namespaceSelector)))",message="spec.forProvider.networkPolicy.extraPeers: each peer names either an ipBlock or a podSelector and/or namespaceSelector, not both and not neither"
	ExtraPeers []networkingv1.NetworkPolicyPeer `json:"extraPeers,omitempty"`
}

// NetworkPolicyEnabled reports whether the Cluster wants its NetworkPolicy.
func (p ClusterParameters) NetworkPolicyEnabled() bool {
	return p.NetworkPolicy != nil && p.NetworkPolicy.Enabled
}
