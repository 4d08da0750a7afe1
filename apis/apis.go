// Package apis contains the provider's Kubernetes API types: the FoundationDB
// managed resources and the provider's configuration types.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

// AddToScheme adds every API group of the provider to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{fdbv1alpha1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}
