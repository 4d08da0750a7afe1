package manifest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestAsPackage splits the provider's own CRDs as Crossplane's package
// manager does: the ProviderConfig kinds stay CRDs, the rest become
// inactive ManagedResourceDefinitions with the CRD's name and spec.
func TestAsPackage(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	crds, err := ReadCRDs(filepath.Join(filepath.Dir(file), "..", "..", "package", "crds"))
	if err != nil {
		t.Fatal(err)
	}
	kept, mrds, err := AsPackage(crds)
	if err != nil {
		t.Fatal(err)
	}
	names := func(objs []*unstructured.Unstructured) map[string]string {
		out := map[string]string{}
		for _, o := range objs {
			out[o.GetName()] = o.GetKind()
		}
		return out
	}
	wantKept := map[string]string{
		"clusterproviderconfigs.foundationdb.crossplane.io": "CustomResourceDefinition",
		"providerconfigs.foundationdb.crossplane.io":        "CustomResourceDefinition",
		"providerconfigusages.foundationdb.crossplane.io":   "CustomResourceDefinition",
	}
	wantMRDs := map[string]string{
		"backups.foundationdb.m.crossplane.io":       "ManagedResourceDefinition",
		"clusters.foundationdb.m.crossplane.io":      "ManagedResourceDefinition",
		"processgroups.foundationdb.m.crossplane.io": "ManagedResourceDefinition",
		"restores.foundationdb.m.crossplane.io":      "ManagedResourceDefinition",
		"safetypolicies.foundationdb.crossplane.io":  "ManagedResourceDefinition",
	}
	if diff := cmp.Diff(wantKept, names(kept)); diff != "" {
		t.Errorf("CRDs kept: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(wantMRDs, names(mrds)); diff != "" {
		t.Errorf("ManagedResourceDefinitions: -want, +got:\n%s", diff)
	}
	for _, m := range mrds {
		if state, _, _ := unstructured.NestedString(m.Object, "spec", "state"); state != "Inactive" {
			t.Errorf("%s: spec.state %q, want Inactive", m.GetName(), state)
		}
		if kind, _, _ := unstructured.NestedString(m.Object, "spec", "names", "kind"); kind == "" {
			t.Errorf("%s: spec.names.kind missing: the CRD's spec was not carried over", m.GetName())
		}
	}
}
