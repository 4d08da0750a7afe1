package composition

import (
	"errors"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// NetworkPolicyParameters are an FDBDatabase's spec.networkPolicy: who may
// connect to the database's ports besides its own pods, its backup agents
// and the provider.
type NetworkPolicyParameters struct {
	// Enabled writes the Cluster's NetworkPolicy. Unset, it is on, unless
	// the database's Clusters run in more than one Kubernetes cluster
	// (sites with providerConfigRefs of their own), whose processes
	// reach each other from outside the target cluster and would be kept
	// out.
	Enabled *bool `json:"enabled,omitempty"`
	// ClientSelector names the application pods that may connect, in the
	// database's namespace or those ClientNamespaceSelector names.
	ClientSelector *metav1.LabelSelector `json:"clientSelector,omitempty"`
	// ClientNamespaceSelector names the namespaces of those pods.
	ClientNamespaceSelector *metav1.LabelSelector `json:"clientNamespaceSelector,omitempty"`
}

// NetworkPolicyDefaults are the platform's NetworkPolicy settings in the
// function input, for every database.
type NetworkPolicyDefaults struct {
	// ProviderSelector names the provider's pods when its Provider is not
	// named provider-foundationdb (the Cluster's default).
	ProviderSelector *metav1.LabelSelector `json:"providerSelector,omitempty"`
	// ExtraPeers may connect to every database too: e.g. an ipBlock for
	// a provider that runs outside the target cluster.
	ExtraPeers []networkingv1.NetworkPolicyPeer `json:"extraPeers,omitempty"`
}

// ValidateNetworkPolicy checks an FDBDatabase's spec.networkPolicy, naming
// the field at fault, as the XRD's schema does.
func ValidateNetworkPolicy(np NetworkPolicyParameters) error {
	if np.ClientNamespaceSelector != nil && np.ClientSelector == nil {
		return errors.New("spec.networkPolicy.clientNamespaceSelector needs clientSelector: it chooses the namespaces in which the pods clientSelector names may connect")
	}
	return nil
}

// clusterNetworkPolicy is the Cluster's spec.forProvider.networkPolicy of
// database p named name. It is on unless the FDBDatabase turns it off or
// spans Kubernetes clusters (see NetworkPolicyParameters.Enabled). A
// database of several Clusters in one Kubernetes cluster admits the pods
// of each of them (the Cluster's own are admitted anyway), since its
// processes talk to one another across sites.
func clusterNetworkPolicy(name string, p Parameters, d NetworkPolicyDefaults) *v1alpha1.NetworkPolicySettings {
	np := p.NetworkPolicy
	enabled := !spansProviderConfigs(p)
	if np.Enabled != nil {
		enabled = *np.Enabled
	}
	s := &v1alpha1.NetworkPolicySettings{Enabled: enabled, ClientSelector: np.ClientSelector, ClientNamespaceSelector: np.ClientNamespaceSelector,
		ProviderSelector: d.ProviderSelector, ExtraPeers: slices.Clone(d.ExtraPeers)}
	if len(p.Sites) > 0 {
		for _, c := range clusterNames(name, p.Sites) {
			s.ExtraPeers = append(s.ExtraPeers, networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{workload.LabelCluster: c, workload.LabelManagedBy: workload.ManagedBy}}})
		}
	}
	return s
}

// spansProviderConfigs reports whether a site of the database runs
// through another ProviderConfig than the FDBDatabase's, and so, as far
// as the function can tell, in another Kubernetes cluster.
func spansProviderConfigs(p Parameters) bool {
	for _, s := range p.Sites {
		if s.ProviderConfigRef != nil && (p.ProviderConfigRef == nil || *s.ProviderConfigRef != *p.ProviderConfigRef) {
			return true
		}
	}
	return false
}
