package v1alpha1

import "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// The method sets angryjet generates (zz_generated.pc.go, zz_generated.pcu.go,
// zz_generated.pculist.go) are found by the types' structure; a type that
// stops matching fails to compile here instead of at run time.
var (
	_ resource.ProviderConfig           = &ProviderConfig{}
	_ resource.ProviderConfig           = &ClusterProviderConfig{}
	_ resource.TypedProviderConfigUsage = &ProviderConfigUsage{}
	_ resource.ProviderConfigUsageList  = &ProviderConfigUsageList{}
)
