package composition_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// TestActivationPolicyActivatesEveryKind checks that the example
// ManagedResourceActivationPolicy names every ManagedResourceDefinition
// Crossplane makes of the provider package, and nothing else: one per CRD
// of package/crds but the ProviderConfig kinds, which stay CRDs.
func TestActivationPolicyActivatesEveryKind(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.Root(), "package", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds, err := manifest.Read(files, "CustomResourceDefinition")
	if err != nil || len(crds) == 0 {
		t.Fatalf("cannot read the provider's CRDs: %d, error %v", len(crds), err)
	}
	stayCRDs := []string{"ProviderConfig", "ClusterProviderConfig", "ProviderConfigUsage", "ClusterProviderConfigUsage"}
	var want []string
	for _, crd := range crds {
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		if !slices.Contains(stayCRDs, kind) {
			want = append(want, crd.GetName())
		}
	}
	got, _, _ := unstructured.NestedStringSlice(example(t, "activationpolicy.yaml", "ManagedResourceActivationPolicy").Object, "spec", "activate")
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec.activate: -want, +got:\n%s", diff)
	}
}
