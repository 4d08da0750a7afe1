package v1alpha1

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reference"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// clusterName extracts the name by which a resource refers to a Cluster: its
// metadata.name, which a Cluster has from the start (its external name is set
// only once it was reconciled). The ResolveReferences methods generated from
// the reference markers of ClusterReference.ClusterName use it.
func clusterName() reference.ExtractValueFn {
	return func(mg resource.Managed) string { return mg.GetName() }
}
