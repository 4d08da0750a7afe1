// Package v1alpha1 contains the provider's configuration types in API group
// foundationdb.crossplane.io: ProviderConfig, ClusterProviderConfig,
// ProviderConfigUsage and the cluster-scoped SafetyPolicy.
// +kubebuilder:object:generate=true
// +groupName=foundationdb.crossplane.io
// +versionName=v1alpha1
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "foundationdb.crossplane.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group version used to register these objects.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder is used to add go types to the GroupVersionKind scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}

	// AddToScheme adds the types of this group to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind and GroupVersionKind of every type in this group.
var (
	ProviderConfigKind                      = "ProviderConfig"
	ProviderConfigGroupVersionKind          = SchemeGroupVersion.WithKind(ProviderConfigKind)
	ClusterProviderConfigKind               = "ClusterProviderConfig"
	ClusterProviderConfigGroupVersionKind   = SchemeGroupVersion.WithKind(ClusterProviderConfigKind)
	ProviderConfigUsageKind                 = "ProviderConfigUsage"
	ProviderConfigUsageGroupVersionKind     = SchemeGroupVersion.WithKind(ProviderConfigUsageKind)
	ProviderConfigUsageListKind             = "ProviderConfigUsageList"
	ProviderConfigUsageListGroupVersionKind = SchemeGroupVersion.WithKind(ProviderConfigUsageListKind)
	SafetyPolicyKind                        = "SafetyPolicy"
	SafetyPolicyGroupVersionKind            = SchemeGroupVersion.WithKind(SafetyPolicyKind)
)

// SafetyPolicyCRDName is the name of the SafetyPolicy CRD, and of the
// ManagedResourceDefinition Crossplane makes of it: the name a
// ManagedResourceActivationPolicy activates.
const SafetyPolicyCRDName = "safetypolicies." + Group

func init() {
	SchemeBuilder.Register(&ProviderConfig{}, &ProviderConfigList{})
	SchemeBuilder.Register(&ClusterProviderConfig{}, &ClusterProviderConfigList{})
	SchemeBuilder.Register(&ProviderConfigUsage{}, &ProviderConfigUsageList{})
	SchemeBuilder.Register(&SafetyPolicy{}, &SafetyPolicyList{})
}
