// Package scheme builds the one runtime scheme the provider, `make run` and
// the integration tests share: the Kubernetes built-in types,
// CustomResourceDefinitions and the provider's APIs. It is a package of its
// own so that binaries need not link the test environment to get it.
package scheme

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/crossplane-contrib/provider-foundationdb/apis"
)

const errAddToScheme = "cannot add APIs to scheme"

// New returns a scheme with the Kubernetes built-in types,
// apiextensions.k8s.io/v1 and every API group of the provider.
func New() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apis.AddToScheme} {
		if err := add(s); err != nil {
			return nil, errors.Wrap(err, errAddToScheme)
		}
	}
	return s, nil
}
