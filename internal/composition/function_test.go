package composition_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane-contrib/provider-foundationdb/internal/composition"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// example reads the one object of a kind in an examples/composition file.
func example(t *testing.T, file, kind string) *unstructured.Unstructured {
	t.Helper()
	objs, err := manifest.Read([]string{filepath.Join(testenv.Root(), "examples", "composition", file)}, kind)
	if err != nil || len(objs) != 1 {
		t.Fatalf("%s: %d %s objects, error %v", file, len(objs), kind, err)
	}
	return objs[0]
}

// exampleInput is the function input of the example Composition's step.
func exampleInput(t *testing.T) map[string]any {
	t.Helper()
	steps, _, _ := unstructured.NestedSlice(example(t, "composition.yaml", "Composition").Object, "spec", "pipeline")
	if len(steps) != 1 {
		t.Fatalf("%d pipeline steps, want 1", len(steps))
	}
	in, _ := steps[0].(map[string]any)["input"].(map[string]any)
	return in
}

func toStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// nodes are fake nodes over n zones, as Crossplane would hand them over.
func nodes(t *testing.T, n int) *fnv1.Resources {
	t.Helper()
	r := &fnv1.Resources{}
	for zi, z := range localcluster.Zones(n) {
		for i := 0; i < 2; i++ {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(localcluster.Node(z, zi, i))
			if err != nil {
				t.Fatal(err)
			}
			r.Items = append(r.Items, &fnv1.Resource{Resource: toStruct(t, u)})
		}
	}
	return r
}

// call is one RunFunction request.
type call struct {
	xr       string         // the examples/composition file of the FDBDatabase; fdbdatabase.yaml when empty
	spec     map[string]any // merged into the example FDBDatabase's spec
	input    map[string]any // nil: the example Composition's
	zones    int            // -1: the nodes are not fetched yet
	observed map[string]map[string]any
}

func (c call) request(t *testing.T) *fnv1.RunFunctionRequest {
	t.Helper()
	xr := example(t, cmp.Or(c.xr, "fdbdatabase.yaml"), "FDBDatabase")
	for k, v := range c.spec {
		if err := unstructured.SetNestedField(xr.Object, v, "spec", k); err != nil {
			t.Fatal(err)
		}
	}
	in := c.input
	if in == nil {
		in = exampleInput(t)
	}
	req := &fnv1.RunFunctionRequest{
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: toStruct(t, xr.Object)}, Resources: map[string]*fnv1.Resource{}},
		Input:    toStruct(t, in),
	}
	for name, o := range c.observed {
		req.Observed.Resources[name] = &fnv1.Resource{Resource: toStruct(t, o)}
	}
	if c.zones >= 0 {
		req.RequiredResources = map[string]*fnv1.Resources{composition.RequiredNodes: nodes(t, c.zones)}
	}
	return req
}

// run calls the function with the request.
func (c call) run(t *testing.T) *fnv1.RunFunctionResponse {
	t.Helper()
	rsp, err := (&composition.Function{}).RunFunction(context.Background(), c.request(t))
	if err != nil {
		t.Fatal(err)
	}
	return rsp
}

// outcome is what a test looks at in a response.
type outcome struct {
	Requirements       bool
	Fatal              string
	Warnings           []string
	Redundancy         string
	DeletionProtection bool
	Storage            int64
	Policies           []any
	Secret             string
	Backup             string // the Backup's blob-store backupName, "" without one
	Usage              string // the Usage of the Cluster by the Backup, "" without one
	ClusterReady       fnv1.Ready
	Status             map[string]any
}

func outcomeOf(rsp *fnv1.RunFunctionResponse) outcome {
	o := outcome{Requirements: rsp.GetRequirements().GetResources()[composition.RequiredNodes] != nil}
	for _, r := range rsp.GetResults() {
		switch r.GetSeverity() {
		case fnv1.Severity_SEVERITY_FATAL:
			o.Fatal = r.GetMessage()
		case fnv1.Severity_SEVERITY_WARNING:
			o.Warnings = append(o.Warnings, r.GetMessage())
		}
	}
	if c := rsp.GetDesired().GetResources()[string(composition.ResourceCluster)]; c != nil {
		m := c.GetResource().AsMap()
		o.Redundancy, _, _ = unstructured.NestedString(m, "spec", "forProvider", "databaseConfiguration", "redundancyMode")
		o.DeletionProtection, _, _ = unstructured.NestedBool(m, "spec", "forProvider", "deletionProtection")
		storage, _, _ := unstructured.NestedFloat64(m, "spec", "forProvider", "processCounts", "storage")
		o.Storage = int64(storage)
		o.Policies, _, _ = unstructured.NestedSlice(m, "spec", "forProvider", "safety", "policies")
		o.Secret, _, _ = unstructured.NestedString(m, "spec", "writeConnectionSecretToRef", "name")
		o.ClusterReady = c.GetReady()
	}
	if b := rsp.GetDesired().GetResources()[string(composition.ResourceBackup)]; b != nil {
		o.Backup, _, _ = unstructured.NestedString(b.GetResource().AsMap(), "spec", "forProvider", "blobStore", "backupName")
	}
	if u := rsp.GetDesired().GetResources()[string(composition.ResourceUsage)]; u != nil {
		m := u.GetResource().AsMap()
		ref := func(side string) string {
			v, _, _ := unstructured.NestedString(m, "spec", side, "apiVersion")
			k, _, _ := unstructured.NestedString(m, "spec", side, "kind")
			n, _, _ := unstructured.NestedString(m, "spec", side, "resourceRef", "name")
			return v + " " + k + " " + n
		}
		md := &unstructured.Unstructured{Object: m}
		replay, _, _ := unstructured.NestedBool(m, "spec", "replayDeletion")
		o.Usage = fmt.Sprintf("%s %s/%s: %s uses %s (replayDeletion %t, %s)", md.GetKind(), md.GetNamespace(), md.GetName(), ref("by"), ref("of"), replay, u.GetReady())
	}
	o.Status, _, _ = unstructured.NestedMap(rsp.GetDesired().GetComposite().GetResource().AsMap(), "status")
	return o
}

// observedCluster is the composed Cluster as Crossplane observes it, running
// a redundancy mode.
func observedCluster(mode any) map[string]any {
	return map[string]any{
		"apiVersion": "foundationdb.m.crossplane.io/v1alpha1", "kind": "Cluster", "metadata": map[string]any{"name": "orders"},
		"spec": map[string]any{"forProvider": map[string]any{"databaseConfiguration": map[string]any{"redundancyMode": mode}}},
	}
}

func TestRunFunction(t *testing.T) {
	policies := []any{"storage-exclusions"}
	// A Backup keeps its Cluster from being deleted before it is gone.
	usage := "Usage default/orders-backup-uses-cluster: foundationdb.m.crossplane.io/v1alpha1 Backup orders-backup uses foundationdb.m.crossplane.io/v1alpha1 Cluster orders (replayDeletion true, READY_TRUE)"
	cases := map[string]struct {
		call call
		want outcome
	}{
		"AsksForNodesFirst": {
			call: call{zones: -1},
			want: outcome{Requirements: true},
		},
		"ExampleOnFiveZones": {
			call: call{zones: 5},
			want: outcome{
				Requirements: true, Redundancy: "triple", Storage: 3, Policies: policies, Secret: "orders-fdb",
				Backup: "default-orders", Usage: usage, ClusterReady: fnv1.Ready_READY_FALSE,
				Status: map[string]any{"redundancy": "triple", "zones": float64(5), "clusterFileSecret": "orders-fdb"},
			},
		},
		"ThreeZonesGiveDouble": {
			call: call{zones: 3, spec: map[string]any{"size": "large", "backup": map[string]any{"enabled": false}}},
			want: outcome{
				Requirements: true, Redundancy: "double", Storage: 12, Policies: policies, Secret: "orders-fdb",
				ClusterReady: fnv1.Ready_READY_FALSE,
				Status:       map[string]any{"redundancy": "double", "zones": float64(3), "clusterFileSecret": "orders-fdb"},
			},
		},
		"ExplicitTripleOnThreeZonesWarns": {
			call: call{zones: 3, spec: map[string]any{"redundancy": "triple", "backup": map[string]any{"enabled": false}}},
			want: outcome{
				Requirements: true, Redundancy: "triple", Warnings: []string{"redundancy triple needs 5 zones and the nodes of this cluster span 3: the database will not become ready here"}, Storage: 3, Policies: policies, Secret: "orders-fdb",
				ClusterReady: fnv1.Ready_READY_FALSE,
				Status:       map[string]any{"redundancy": "triple", "zones": float64(3), "clusterFileSecret": "orders-fdb"},
			},
		},
		"ReadyWhenTheProviderSaysSo": {
			call: call{zones: 5, spec: map[string]any{"size": "medium"}, observed: map[string]map[string]any{
				"cluster": {"apiVersion": "foundationdb.m.crossplane.io/v1alpha1", "kind": "Cluster", "metadata": map[string]any{"name": "orders"},
					"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}},
			}},
			want: outcome{
				Requirements: true, Redundancy: "triple", Storage: 6, Policies: policies, Secret: "orders-fdb",
				Backup: "default-orders", Usage: usage, ClusterReady: fnv1.Ready_READY_TRUE,
				Status: map[string]any{"redundancy": "triple", "zones": float64(5), "clusterFileSecret": "orders-fdb"},
			},
		},
		"AutoKeepsTheRunningTriple": {
			call: call{zones: 2, spec: map[string]any{"backup": map[string]any{"enabled": false}}, observed: map[string]map[string]any{
				"cluster": observedCluster("triple"),
			}},
			want: outcome{
				Requirements: true, Redundancy: "triple", Storage: 3, Policies: policies, Secret: "orders-fdb",
				Warnings:     []string{"redundancy auto: the nodes of this cluster span 2 zones, enough for single, but the database runs triple; keeping triple (set spec.redundancy to single to lower it)"},
				ClusterReady: fnv1.Ready_READY_FALSE,
				Status:       map[string]any{"redundancy": "triple", "zones": float64(2), "clusterFileSecret": "orders-fdb"},
			},
		},
		"AutoRaisesTheRunningDouble": {
			call: call{zones: 5, spec: map[string]any{"backup": map[string]any{"enabled": false}}, observed: map[string]map[string]any{
				"cluster": observedCluster("double"),
			}},
			want: outcome{
				Requirements: true, Redundancy: "triple", Storage: 3, Policies: policies, Secret: "orders-fdb",
				ClusterReady: fnv1.Ready_READY_FALSE,
				Status:       map[string]any{"redundancy": "triple", "zones": float64(5), "clusterFileSecret": "orders-fdb"},
			},
		},
		"ExplicitLowerThanTheRunningTriple": {
			call: call{zones: 5, spec: map[string]any{"redundancy": "double", "backup": map[string]any{"enabled": false}}, observed: map[string]map[string]any{
				"cluster": observedCluster("triple"),
			}},
			want: outcome{
				Requirements: true, Redundancy: "double", Storage: 3, Policies: policies, Secret: "orders-fdb",
				ClusterReady: fnv1.Ready_READY_FALSE,
				Status:       map[string]any{"redundancy": "double", "zones": float64(5), "clusterFileSecret": "orders-fdb"},
			},
		},
		"ObservedRedundancyNotAString": {
			call: call{zones: 5, observed: map[string]map[string]any{"cluster": observedCluster(float64(3))}},
			want: outcome{Requirements: true, Fatal: "cannot read the observed Cluster: spec.forProvider.databaseConfiguration.redundancyMode: not a string"},
		},
		"DeletionProtection": {
			call: call{zones: 5, spec: map[string]any{"deletionProtection": true, "backup": map[string]any{"enabled": false}}},
			want: outcome{
				Requirements: true, Redundancy: "triple", DeletionProtection: true, Storage: 3, Policies: policies, Secret: "orders-fdb",
				ClusterReady: fnv1.Ready_READY_FALSE,
				Status:       map[string]any{"redundancy": "triple", "zones": float64(5), "clusterFileSecret": "orders-fdb"},
			},
		},
		"NoNodesVisible": {
			call: call{zones: 0},
			want: outcome{Requirements: true, Fatal: "cannot choose redundancy: no nodes are visible; set spec.redundancy"},
		},
		"BackupWithoutBlobStore": {
			call: call{zones: 5, input: map[string]any{"apiVersion": composition.InputAPIVersion, "kind": composition.InputKind}},
			want: outcome{Requirements: true, Fatal: "cannot compose a backup: the Composition's function input has no blobStore"},
		},
		"TypoInInput": {
			call: call{zones: 5, input: map[string]any{"apiVersion": composition.InputAPIVersion, "kind": composition.InputKind, "safetyPolicy": "x"}},
			want: outcome{Requirements: true, Fatal: `cannot read function input: json: unknown field "safetyPolicy"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := gocmp.Diff(tc.want, outcomeOf(tc.call.run(t))); diff != "" {
				t.Errorf("RunFunction (-want +got):\n%s", diff)
			}
		})
	}
}

// member is what TestRunFunctionTopologies looks at in a composed Cluster.
type member struct {
	Name, DataCenter, DataHall, Seed, Redundancy, Regions, Secret string
	UsableRegions, Storage, Log                                   int64
}

func membersOf(rsp *fnv1.RunFunctionResponse) map[string]member {
	out := map[string]member{}
	for name, r := range rsp.GetDesired().GetResources() {
		m := r.GetResource().AsMap()
		if kind, _, _ := unstructured.NestedString(m, "kind"); kind != "Cluster" {
			continue
		}
		fp, _, _ := unstructured.NestedMap(m, "spec", "forProvider")
		str := func(path ...string) string { v, _, _ := unstructured.NestedString(fp, path...); return v }
		num := func(path ...string) int64 { v, _, _ := unstructured.NestedFloat64(fp, path...); return int64(v) }
		var regions []string
		rs, _, _ := unstructured.NestedSlice(fp, "databaseConfiguration", "regions")
		for _, r := range rs {
			dcs, _, _ := unstructured.NestedSlice(r.(map[string]any), "datacenters")
			for _, dc := range dcs {
				d := dc.(map[string]any)
				if d["priority"] == nil {
					d["priority"] = 0 // left out when zero, as the Kubernetes JSON conventions do
				}
				regions = append(regions, fmt.Sprintf("%v=%v%v", d["id"], d["priority"], map[bool]string{true: "s"}[d["satellite"] == true]))
			}
		}
		secret, _, _ := unstructured.NestedString(m, "spec", "writeConnectionSecretToRef", "name")
		name2, _, _ := unstructured.NestedString(m, "metadata", "name")
		out[name] = member{Name: name2, DataCenter: str("dataCenter"), DataHall: str("dataHall"), Seed: str("seedConnectionString"),
			Redundancy: str("databaseConfiguration", "redundancyMode"), Regions: fmt.Sprint(regions), Secret: secret,
			UsableRegions: num("databaseConfiguration", "usableRegions"), Storage: num("processCounts", "storage"), Log: num("processCounts", "log")}
	}
	return out
}

// TestRunFunctionTopologies: a multi-region FDBDatabase composes the
// Cluster of the primary's main data center first and the others, which
// join it, once its connection string is known; a three-data-hall one a
// Cluster per hall; bad sites are fatal, naming the field.
func TestRunFunctionTopologies(t *testing.T) {
	const seed = "orders:abc@10.1.0.1:4501"
	halls := map[string]any{"topology": "three-data-hall", "backup": map[string]any{"enabled": false}, "sites": []any{
		map[string]any{"id": "hall-a"}, map[string]any{"id": "hall-b"}, map[string]any{"id": "hall-c"},
	}}
	made := map[string]map[string]any{"cluster": {"apiVersion": "foundationdb.m.crossplane.io/v1alpha1", "kind": "Cluster", "metadata": map[string]any{"name": "orders-east"},
		"status": map[string]any{"atProvider": map[string]any{"connectionString": seed}}}}
	regions := "[east=1 east-sat=1s west=0]"
	east := member{Name: "orders-east", DataCenter: "east", Redundancy: "triple", Regions: regions, Secret: "orders-fdb", UsableRegions: 2, Storage: 3, Log: 4}
	cases := map[string]struct {
		call  call
		want  map[string]member
		fatal string
	}{
		"MultiRegionFirst": {
			call: call{zones: 5, spec: multiRegion},
			want: map[string]member{"cluster": east},
		},
		"MultiRegionJoin": {
			call: call{zones: 5, spec: multiRegion, observed: made},
			want: map[string]member{
				"cluster":          east,
				"cluster-east-sat": {Name: "orders-east-sat", DataCenter: "east-sat", Seed: seed, Redundancy: "triple", Regions: regions, UsableRegions: 2, Log: 4},
				"cluster-west":     {Name: "orders-west", DataCenter: "west", Seed: seed, Redundancy: "triple", Regions: regions, UsableRegions: 2, Storage: 3, Log: 4},
			},
		},
		"ThreeDataHalls": {
			call: call{zones: 5, spec: halls, observed: map[string]map[string]any{"cluster": {"apiVersion": "foundationdb.m.crossplane.io/v1alpha1", "kind": "Cluster",
				"metadata": map[string]any{"name": "orders-hall-a"}, "status": map[string]any{"atProvider": map[string]any{"connectionString": seed}}}}},
			want: map[string]member{
				"cluster":        {Name: "orders-hall-a", DataHall: "hall-a", Redundancy: "three_data_hall", Regions: "[]", Secret: "orders-fdb", Storage: 3, Log: 4},
				"cluster-hall-b": {Name: "orders-hall-b", DataHall: "hall-b", Seed: seed, Redundancy: "three_data_hall", Regions: "[]", Storage: 3, Log: 4},
				"cluster-hall-c": {Name: "orders-hall-c", DataHall: "hall-c", Seed: seed, Redundancy: "three_data_hall", Regions: "[]", Storage: 3, Log: 4},
			},
		},
		"MultiRegionWithoutARemote": {
			call:  call{zones: 5, spec: map[string]any{"topology": "multi-region", "sites": []any{map[string]any{"id": "east", "region": "primary"}}}},
			fatal: "spec.sites: multi-region needs exactly one main (not satellite) data center in each region, has 1 primary and 0 remote",
		},
		"TwoHalls": {
			call:  call{zones: 5, spec: map[string]any{"topology": "three-data-hall", "sites": []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}}}},
			fatal: "spec.sites: three-data-hall needs three data halls, has 2",
		},
		"SiteTwice": {
			call:  call{zones: 5, spec: map[string]any{"topology": "three-data-hall", "sites": []any{map[string]any{"id": "a"}, map[string]any{"id": "a"}, map[string]any{"id": "b"}}}},
			fatal: `spec.sites[1].id: "a" is empty or used twice`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := tc.call.run(t)
			if got := outcomeOf(rsp).Fatal; got != tc.fatal {
				t.Fatalf("fatal %q, want %q", got, tc.fatal)
			}
			if diff := gocmp.Diff(tc.want, membersOf(rsp), cmpopts.EquateEmpty()); tc.fatal == "" && diff != "" {
				t.Errorf("composed Clusters (-want +got):\n%s", diff)
			}
		})
	}
}

// tlsOutcome is what TestRunFunctionTLS looks at in a response: the
// Clusters' tls, the Certificates composed, whether each is ready, and
// the XR's status.tls.
type tlsOutcome struct {
	Fatal        string
	ClusterTLS   map[string]any            // composed resource name → spec.forProvider.tls
	Certificates map[string]map[string]any // composed resource name → the whole object
	Ready        map[string]fnv1.Ready     // of the Certificates
	Status       map[string]any
}

func tlsOutcomeOf(rsp *fnv1.RunFunctionResponse) tlsOutcome {
	o := tlsOutcome{Fatal: outcomeOf(rsp).Fatal}
	for name, r := range rsp.GetDesired().GetResources() {
		m := r.GetResource().AsMap()
		switch kind, _, _ := unstructured.NestedString(m, "kind"); kind {
		case "Cluster":
			if tls, ok, _ := unstructured.NestedMap(m, "spec", "forProvider", "tls"); ok {
				if o.ClusterTLS == nil {
					o.ClusterTLS = map[string]any{}
				}
				o.ClusterTLS[name] = tls
			}
		case "Certificate":
			if o.Certificates == nil {
				o.Certificates, o.Ready = map[string]map[string]any{}, map[string]fnv1.Ready{}
			}
			o.Certificates[name], o.Ready[name] = m, r.GetReady()
		}
	}
	o.Status, _, _ = unstructured.NestedMap(rsp.GetDesired().GetComposite().GetResource().AsMap(), "status", "tls")
	return o
}

// certificate is a Certificate the function composes for FDBDatabase db
// in namespace default, issued by issuer.
func certificate(db, secret string, issuer map[string]any, dnsNames ...any) map[string]any {
	spec := map[string]any{
		"secretName": secret, "commonName": db, "issuerRef": issuer,
		"duration": "2160h0m0s", "renewBefore": "1080h0m0s",
		"usages":     []any{"digital signature", "key encipherment", "server auth", "client auth"},
		"privateKey": map[string]any{"rotationPolicy": "Always"},
	}
	if len(dnsNames) > 0 {
		spec["dnsNames"] = dnsNames
	}
	return map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": secret, "namespace": "default"}, "spec": spec}
}

// TestRunFunctionTLS: an FDBDatabase with tls gets a Cluster with tls; when
// an issuer is named, by the FDBDatabase or the platform, the function
// composes cert-manager Certificates of the processes and of the clients,
// whose Secrets the Cluster names, ready once cert-manager says so; tls
// cannot be dropped from a database that has it.
func TestRunFunctionTLS(t *testing.T) {
	noBackup := map[string]any{"enabled": false}
	clusterIssuer := map[string]any{"name": "fdb-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}
	platformInput := func() map[string]any {
		in := exampleInput(t)
		in["tls"] = map[string]any{"issuerRef": map[string]any{"name": "platform-ca", "kind": "ClusterIssuer"}}
		return in
	}
	issued := map[string]any{"secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls"}
	ordersDNS := []any{"orders.default.svc.cluster.local", "*.orders.default.svc.cluster.local"}
	readyCertificate := certificate("orders", "orders-fdb-tls", clusterIssuer)
	readyCertificate["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	withTLS := observedCluster("triple")
	_ = unstructured.SetNestedField(withTLS, map[string]any{"secretName": "orders-certs"}, "spec", "forProvider", "tls")

	cases := map[string]struct {
		call call
		want tlsOutcome
	}{
		"NoTLS": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup}},
			want: tlsOutcome{},
		},
		"IssuerOfTheDatabase": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup, "tls": map[string]any{"issuerRef": clusterIssuer, "peerVerificationRules": "S.CN=orders"}}},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": map[string]any{"secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls", "peerVerificationRules": "S.CN=orders"}},
				Certificates: map[string]map[string]any{
					"certificate":        certificate("orders", "orders-fdb-tls", clusterIssuer, ordersDNS...),
					"client-certificate": certificate("orders", "orders-fdb-client-tls", clusterIssuer),
				},
				Ready:  map[string]fnv1.Ready{"certificate": fnv1.Ready_READY_FALSE, "client-certificate": fnv1.Ready_READY_FALSE},
				Status: map[string]any{"enabled": true, "secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls", "issuer": "ClusterIssuer/fdb-ca"},
			},
		},
		"IssuerInTheNamespace": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup, "tls": map[string]any{"issuerRef": map[string]any{"name": "team-ca"}}}},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": issued},
				Certificates: map[string]map[string]any{
					"certificate":        certificate("orders", "orders-fdb-tls", map[string]any{"name": "team-ca", "kind": "Issuer", "group": "cert-manager.io"}, ordersDNS...),
					"client-certificate": certificate("orders", "orders-fdb-client-tls", map[string]any{"name": "team-ca", "kind": "Issuer", "group": "cert-manager.io"}),
				},
				Ready:  map[string]fnv1.Ready{"certificate": fnv1.Ready_READY_FALSE, "client-certificate": fnv1.Ready_READY_FALSE},
				Status: map[string]any{"enabled": true, "secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls", "issuer": "Issuer/team-ca"},
			},
		},
		"PlatformIssuer": {
			call: call{zones: 5, input: platformInput(), spec: map[string]any{"backup": noBackup, "tls": map[string]any{}}},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": issued},
				Certificates: map[string]map[string]any{
					"certificate":        certificate("orders", "orders-fdb-tls", map[string]any{"name": "platform-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}, ordersDNS...),
					"client-certificate": certificate("orders", "orders-fdb-client-tls", map[string]any{"name": "platform-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}),
				},
				Ready:  map[string]fnv1.Ready{"certificate": fnv1.Ready_READY_FALSE, "client-certificate": fnv1.Ready_READY_FALSE},
				Status: map[string]any{"enabled": true, "secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls", "issuer": "ClusterIssuer/platform-ca"},
			},
		},
		"OwnSecretOverThePlatformIssuer": {
			call: call{zones: 5, input: platformInput(), spec: map[string]any{"backup": noBackup, "tls": map[string]any{
				"secretName": "orders-certs", "trustedCAs": []any{"-----BEGIN CERTIFICATE-----\nnext\n-----END CERTIFICATE-----\n"}}}},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": map[string]any{"secretName": "orders-certs", "trustedCAs": []any{"-----BEGIN CERTIFICATE-----\nnext\n-----END CERTIFICATE-----\n"}}},
				Status:     map[string]any{"enabled": true, "secretName": "orders-certs", "clientSecretName": "orders-certs"},
			},
		},
		"DisabledKeepsTheCertificates": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup, "tls": map[string]any{"enabled": false, "issuerRef": clusterIssuer}},
				observed: map[string]map[string]any{"certificate": readyCertificate}},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": map[string]any{"enabled": false, "secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls"}},
				Certificates: map[string]map[string]any{
					"certificate":        certificate("orders", "orders-fdb-tls", clusterIssuer, ordersDNS...),
					"client-certificate": certificate("orders", "orders-fdb-client-tls", clusterIssuer),
				},
				Ready:  map[string]fnv1.Ready{"certificate": fnv1.Ready_READY_TRUE, "client-certificate": fnv1.Ready_READY_FALSE},
				Status: map[string]any{"enabled": false, "secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls", "issuer": "ClusterIssuer/fdb-ca"},
			},
		},
		"OneCertificateForEverySite": {
			call: call{zones: 5, spec: func() map[string]any {
				s := map[string]any{"tls": map[string]any{"issuerRef": clusterIssuer}}
				for k, v := range multiRegion {
					s[k] = v
				}
				return s
			}()},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": issued},
				Certificates: map[string]map[string]any{
					"certificate": certificate("orders", "orders-fdb-tls", clusterIssuer,
						"orders-east.default.svc.cluster.local", "*.orders-east.default.svc.cluster.local",
						"orders-east-sat.default.svc.cluster.local", "*.orders-east-sat.default.svc.cluster.local",
						"orders-west.default.svc.cluster.local", "*.orders-west.default.svc.cluster.local"),
					"client-certificate": certificate("orders", "orders-fdb-client-tls", clusterIssuer),
				},
				Ready:  map[string]fnv1.Ready{"certificate": fnv1.Ready_READY_FALSE, "client-certificate": fnv1.Ready_READY_FALSE},
				Status: map[string]any{"enabled": true, "secretName": "orders-fdb-tls", "clientSecretName": "orders-fdb-client-tls", "issuer": "ClusterIssuer/fdb-ca"},
			},
		},
		"TheExample": {
			call: call{zones: 5, xr: "fdbdatabase-tls.yaml"},
			want: tlsOutcome{
				ClusterTLS: map[string]any{"cluster": map[string]any{"secretName": "payments-fdb-tls", "clientSecretName": "payments-fdb-client-tls", "peerVerificationRules": "S.CN=payments"}},
				Certificates: map[string]map[string]any{
					"certificate":        certificate("payments", "payments-fdb-tls", clusterIssuer, "payments.default.svc.cluster.local", "*.payments.default.svc.cluster.local"),
					"client-certificate": certificate("payments", "payments-fdb-client-tls", clusterIssuer),
				},
				Ready:  map[string]fnv1.Ready{"certificate": fnv1.Ready_READY_FALSE, "client-certificate": fnv1.Ready_READY_FALSE},
				Status: map[string]any{"enabled": true, "secretName": "payments-fdb-tls", "clientSecretName": "payments-fdb-client-tls", "issuer": "ClusterIssuer/fdb-ca"},
			},
		},
		"NoIssuerAnywhere": {
			call: call{zones: 5, input: map[string]any{"apiVersion": composition.InputAPIVersion, "kind": composition.InputKind},
				spec: map[string]any{"tls": map[string]any{"enabled": true}}},
			want: tlsOutcome{Fatal: "spec.tls: names neither secretName nor issuerRef, and the platform has no default issuer (the function input's tls.issuerRef)"},
		},
		"SecretAndIssuer": {
			call: call{zones: 5, spec: map[string]any{"tls": map[string]any{"secretName": "orders-certs", "issuerRef": clusterIssuer}}},
			want: tlsOutcome{Fatal: "spec.tls: set secretName (a Secret you provide) or issuerRef (cert-manager issues the certificates), not both"},
		},
		"TLSCannotBeDropped": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup}, observed: map[string]map[string]any{"cluster": withTLS}},
			want: tlsOutcome{Fatal: "spec.tls: cannot be removed once the database has it; set spec.tls.enabled to false to run the database in plain text"},
		},
		"RenewedTooLate": {
			call: call{zones: 5, input: func() map[string]any {
				in := exampleInput(t)
				in["tls"] = map[string]any{"renewBefore": "1h"}
				return in
			}()},
			want: tlsOutcome{Fatal: "cannot read function input: tls.renewBefore: 1h0m0s is less than 12h5m0s, the 12 hours FoundationDB may take to load a renewed certificate (TLS_CERT_REFRESH_DELAY_SECONDS) plus the kubelet's sync"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := gocmp.Diff(tc.want, tlsOutcomeOf(tc.call.run(t))); diff != "" {
				t.Errorf("RunFunction (-want +got):\n%s", diff)
			}
		})
	}
}
