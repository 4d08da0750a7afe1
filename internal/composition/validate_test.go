package composition_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/composition"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// crossplaneCRDs returns the directory of Crossplane's CRDs, skipping the
// test without it unless a control plane is required.
func crossplaneCRDs(t *testing.T) string {
	t.Helper()
	testenv.Require(t, env)
	return testenv.Getenv(t, testenv.CrossplaneCRDsEnv, "hack/crossplane.sh")
}

// xrCRD is the CRD of the composite resource an XRD defines, as far as
// validating an XR against the XRD's schema goes (Crossplane adds its own
// fields, spec.crossplane and status.conditions, which the examples do not
// use).
func xrCRD(t *testing.T, xrd *unstructured.Unstructured) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var spec struct {
		Group    string                                        `json:"group"`
		Names    apiextensionsv1.CustomResourceDefinitionNames `json:"names"`
		Versions []struct {
			Name          string                                   `json:"name"`
			Served        bool                                     `json:"served"`
			Referenceable bool                                     `json:"referenceable"`
			Schema        apiextensionsv1.CustomResourceValidation `json:"schema"`
		} `json:"versions"`
	}
	b, err := json.Marshal(xrd.Object["spec"])
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	names := spec.Names
	names.ListKind = names.Kind + "List"
	names.Singular = strings.ToLower(names.Kind)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: names.Plural + "." + spec.Group},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: spec.Group, Names: names, Scope: apiextensionsv1.NamespaceScoped},
	}
	for _, v := range spec.Versions {
		schema := v.Schema
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Referenceable, Schema: &schema,
			Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
		})
	}
	return crd
}

// TestExamplesAgainstCrossplane installs Crossplane core's CRDs, applies the
// XRD, Composition, Function and ManagedResourceActivationPolicy of
// examples/composition, checks the example
// FDBDatabase against the XRD's schema, and applies what the function
// composes for it with a server-side dry run against the provider's CRDs
// and Crossplane's (the Usage).
func TestExamplesAgainstCrossplane(t *testing.T) {
	dir := crossplaneCRDs(t)
	ctx := context.Background()
	if err := manifest.InstallCRDs(ctx, env.Client, dir); err != nil {
		t.Fatal(err)
	}
	files := []string{}
	for _, f := range []string{"xrd.yaml", "composition.yaml", "function.yaml", "activationpolicy.yaml"} {
		files = append(files, filepath.Join(testenv.Root(), "examples", "composition", f))
	}
	objs, err := manifest.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := manifest.Apply(ctx, env.Client, objs); err != nil {
		t.Fatalf("Crossplane rejects the examples: %v", err)
	}

	// Crossplane's validation is live: a bad scope is refused.
	bad := example(t, "xrd.yaml", "CompositeResourceDefinition")
	bad.SetName("planets." + "fdb.platform.example.org")
	_ = unstructured.SetNestedField(bad.Object, "Planet", "spec", "scope")
	if err := manifest.Apply(ctx, env.Client, []*unstructured.Unstructured{bad}, client.DryRunAll); err == nil {
		t.Error("an XRD with scope Planet was accepted; Crossplane's CRDs do not validate")
	}

	// The example FDBDatabase fits the XRD's schema, which defaults it, and
	// so does one with deletion protection on.
	crd := xrCRD(t, example(t, "xrd.yaml", "CompositeResourceDefinition"))
	if err := env.Client.Create(ctx, crd); err != nil {
		t.Fatalf("cannot create the FDBDatabase CRD: %v", err)
	}
	if err := manifest.WaitEstablished(ctx, env.Client, crd.Name); err != nil {
		t.Fatal(err)
	}
	xr := example(t, "fdbdatabase.yaml", "FDBDatabase")
	if err := manifest.WaitServed(ctx, env.Client, xr.GroupVersionKind(), time.Minute); err != nil {
		t.Fatal(err)
	}
	full := xr.DeepCopy()
	if err := unstructured.SetNestedField(full.Object, true, "spec", "deletionProtection"); err != nil {
		t.Fatal(err)
	}
	multi := xr.DeepCopy()
	for k, v := range multiRegion {
		if err := unstructured.SetNestedField(multi.Object, v, "spec", k); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []*unstructured.Unstructured{xr, full, multi} {
		if err := manifest.Apply(ctx, env.Client, []*unstructured.Unstructured{o}, client.DryRunAll); err != nil {
			t.Fatalf("the FDBDatabase %v does not fit the XRD: %v", o.Object["spec"], err)
		}
	}

	// What the function composes is valid for the provider's CRDs, deletion
	// protection included, and its Usage for Crossplane's.
	fn := &composition.Function{}
	rsp, err := fn.RunFunction(ctx, call{zones: 5, spec: map[string]any{"deletionProtection": true}}.request(t))
	if err != nil {
		t.Fatal(err)
	}
	var composed []*unstructured.Unstructured
	for name, r := range rsp.GetDesired().GetResources() {
		o := &unstructured.Unstructured{Object: r.GetResource().AsMap()}
		t.Logf("composed %s: %s %s", name, o.GetKind(), o.GetName())
		composed = append(composed, o)
	}
	if len(composed) != 3 || rsp.GetResults()[len(rsp.GetResults())-1].GetSeverity() != fnv1.Severity_SEVERITY_NORMAL {
		t.Fatalf("composed %d resources, results %v; want a Cluster, a Backup and a Usage", len(composed), rsp.GetResults())
	}
	if err := manifest.Apply(ctx, env.Client, composed, client.DryRunAll); err != nil {
		t.Errorf("the CRDs reject what the function composes: %v", err)
	}

	// So is each Cluster of a multi-region database: the first, and the
	// joiners once its connection string is known.
	rsp = call{zones: 5, spec: multiRegion, observed: map[string]map[string]any{"cluster": {
		"apiVersion": "foundationdb.m.crossplane.io/v1alpha1", "kind": "Cluster", "metadata": map[string]any{"name": "orders-east"},
		"status": map[string]any{"atProvider": map[string]any{"connectionString": "orders:abc@10.1.0.1:4501"}}}}}.run(t)
	var clusters []*unstructured.Unstructured
	for _, r := range rsp.GetDesired().GetResources() {
		if o := (&unstructured.Unstructured{Object: r.GetResource().AsMap()}); o.GetKind() == "Cluster" {
			clusters = append(clusters, o)
		}
	}
	if len(clusters) != 3 {
		t.Fatalf("composed %d Clusters of a multi-region database, results %v; want 3", len(clusters), rsp.GetResults())
	}
	if err := manifest.Apply(ctx, env.Client, clusters, client.DryRunAll); err != nil {
		t.Errorf("the CRDs reject the Clusters of a multi-region database: %v", err)
	}

	checkTLSExample(ctx, t)
}

// checkTLSExample checks the TLS example against the XRD's schema, which
// refuses a Secret and an issuer at once, the removal of tls and a
// NetworkPolicy's client namespaces without clients, naming the field,
// and the Cluster the function composes for it (with its NetworkPolicy's
// clients) against the provider's CRD. (The Certificates are checked field by field in
// TestRunFunctionTLS: cert-manager's CRDs are not installed here.)
func checkTLSExample(ctx context.Context, t *testing.T) {
	t.Helper()
	xr := example(t, "fdbdatabase-tls.yaml", "FDBDatabase")
	if err := manifest.Apply(ctx, env.Client, []*unstructured.Unstructured{xr.DeepCopy()}); err != nil {
		t.Fatalf("the FDBDatabase %v does not fit the XRD: %v", xr.Object["spec"], err)
	}
	both := xr.DeepCopy()
	_ = unstructured.SetNestedField(both.Object, "payments-certs", "spec", "tls", "secretName")
	cert := xr.DeepCopy()
	_ = unstructured.SetNestedField(cert.Object, "Issuers", "spec", "tls", "issuerRef", "kind")
	dropped := xr.DeepCopy()
	unstructured.RemoveNestedField(dropped.Object, "spec", "tls")
	namespaces := xr.DeepCopy()
	unstructured.RemoveNestedField(namespaces.Object, "spec", "networkPolicy", "clientSelector")
	_ = unstructured.SetNestedField(namespaces.Object, map[string]any{}, "spec", "networkPolicy", "clientNamespaceSelector")
	for o, want := range map[*unstructured.Unstructured]string{
		both:       "spec.tls: set secretName (a Secret you provide) or issuerRef (cert-manager issues the certificates), not both",
		cert:       "spec.tls.issuerRef.kind: cert-manager.io issuers are Issuer (this namespace) or ClusterIssuer",
		dropped:    "spec.tls: cannot be removed once set; set spec.tls.enabled to false to run the database in plain text",
		namespaces: "spec.networkPolicy.clientNamespaceSelector needs clientSelector",
	} {
		err := manifest.Apply(ctx, env.Client, []*unstructured.Unstructured{o}, client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the XRD takes spec %v with error %v, want %q", o.Object["spec"], err, want)
		}
	}

	rsp := call{zones: 5, xr: "fdbdatabase-tls.yaml"}.run(t)
	var clusters []*unstructured.Unstructured
	for _, r := range rsp.GetDesired().GetResources() {
		if o := (&unstructured.Unstructured{Object: r.GetResource().AsMap()}); o.GetKind() == "Cluster" {
			clusters = append(clusters, o)
		}
	}
	if len(clusters) != 1 {
		t.Fatalf("composed %d Clusters of the TLS example, results %v; want 1", len(clusters), rsp.GetResults())
	}
	if err := manifest.Apply(ctx, env.Client, clusters, client.DryRunAll); err != nil {
		t.Errorf("the CRDs reject the Cluster of the TLS example: %v", err)
	}
}

// multiRegion is the spec of a multi-region FDBDatabase: east with its
// satellite, west the remote.
var multiRegion = map[string]any{"topology": "multi-region", "backup": map[string]any{"enabled": false}, "sites": []any{
	map[string]any{"id": "east", "region": "primary"}, map[string]any{"id": "east-sat", "region": "primary", "satellite": true},
	map[string]any{"id": "west", "region": "remote"},
}}
