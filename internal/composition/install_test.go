package composition_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// dryRun reads the YAML files of dir and applies them with a server-side
// dry run, with Crossplane's CRDs installed: the API server must accept
// each object.
func dryRun(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	if err := manifest.InstallCRDs(ctx, env.Client, crossplaneCRDs(t)); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := manifest.Apply(ctx, env.Client, objs, client.DryRunAll); err != nil {
		t.Fatalf("the API server (with Crossplane's CRDs) rejects %s: %v", dir, err)
	}
	return objs
}

// TestProviderInstall checks examples/provider, the provider's install:
// Crossplane's CRDs accept its DeploymentRuntimeConfig and Provider (a
// server-side dry run of every object), and its names agree — the Provider
// runs with the DeploymentRuntimeConfig, which runs it as the
// ServiceAccount the binding binds to the ClusterRole generated from the
// code.
func TestProviderInstall(t *testing.T) {
	objs := dryRun(t, testenv.ProviderManifests())

	byKind := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if byKind[o.GetKind()] != nil {
			t.Fatalf("examples/provider has more than one %s", o.GetKind())
		}
		byKind[o.GetKind()] = o
	}
	field := func(kind string, path ...string) string {
		t.Helper()
		o := byKind[kind]
		if o == nil {
			t.Fatalf("examples/provider has no %s", kind)
		}
		v, _, _ := unstructured.NestedString(o.Object, path...)
		return v
	}
	subjects, _, _ := unstructured.NestedSlice(byKind["ClusterRoleBinding"].Object, "subjects")
	var bound []string
	for _, s := range subjects {
		m, _ := s.(map[string]any)
		bound = append(bound, fmt.Sprintf("%v %v/%v", m["kind"], m["namespace"], m["name"]))
	}
	sa := field("ServiceAccount", "metadata", "name")
	want := map[string]any{
		"Provider's runtime config":         field("DeploymentRuntimeConfig", "metadata", "name"),
		"runtime config's ServiceAccount":   sa,
		"ServiceAccounts the binding binds": []string{"ServiceAccount " + field("ServiceAccount", "metadata", "namespace") + "/" + sa},
		"ClusterRole the binding grants":    field("ClusterRole", "metadata", "name"),
	}
	got := map[string]any{
		"Provider's runtime config":         field("Provider", "spec", "runtimeConfigRef", "name"),
		"runtime config's ServiceAccount":   field("DeploymentRuntimeConfig", "spec", "serviceAccountTemplate", "metadata", "name"),
		"ServiceAccounts the binding binds": bound,
		"ClusterRole the binding grants":    field("ClusterRoleBinding", "roleRef", "name"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("examples/provider's names: -want, +got:\n%s", diff)
	}
}

// TestShardedInstall checks examples/shards: Crossplane and the API server
// accept its objects (a server-side dry run), and its instances run one
// shard each of one count, every index from 0 to count-1 once, each as the
// ServiceAccount of examples/provider.
func TestShardedInstall(t *testing.T) {
	objs := dryRun(t, filepath.Join(testenv.Root(), "examples", "shards"))
	var shards []string
	var accounts []string
	for _, o := range objs {
		pod := []string{"spec", "template", "spec"}
		account := []string{"spec", "template", "spec", "serviceAccountName"}
		if o.GetKind() == "DeploymentRuntimeConfig" {
			pod = []string{"spec", "deploymentTemplate", "spec", "template", "spec"}
			account = []string{"spec", "serviceAccountTemplate", "metadata", "name"}
		}
		sa, _, _ := unstructured.NestedString(o.Object, account...)
		accounts = append(accounts, sa)
		containers, _, _ := unstructured.NestedSlice(o.Object, append(pod, "containers")...)
		for _, c := range containers {
			args, _, _ := unstructured.NestedStringSlice(c.(map[string]any), "args")
			for _, a := range args {
				if s, ok := strings.CutPrefix(a, "--shard="); ok {
					shards = append(shards, s)
				}
			}
		}
	}
	slices.Sort(shards)
	var want []string
	for i := range len(shards) {
		want = append(want, fmt.Sprintf("%d/%d", i, len(shards)))
	}
	if diff := cmp.Diff(want, shards); diff != "" || len(shards) < 2 {
		t.Errorf("examples/shards runs shards %v, want each of one count once (-want, +got):\n%s", shards, diff)
	}
	for _, sa := range accounts {
		if sa != "provider-foundationdb" {
			t.Errorf("an instance of examples/shards runs as ServiceAccount %q, not examples/provider's provider-foundationdb", sa)
		}
	}
}
