package composition_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// networkPoliciesOf are the composed Clusters' spec.forProvider.
// networkPolicy, by composed resource name.
func networkPoliciesOf(t *testing.T, c call) map[string]any {
	t.Helper()
	rsp := c.run(t)
	if f := outcomeOf(rsp).Fatal; f != "" {
		t.Fatalf("fatal: %s", f)
	}
	out := map[string]any{}
	for name, r := range rsp.GetDesired().GetResources() {
		m := r.GetResource().AsMap()
		if kind, _, _ := unstructured.NestedString(m, "kind"); kind == "Cluster" {
			out[name], _, _ = unstructured.NestedFieldNoCopy(m, "spec", "forProvider", "networkPolicy")
		}
	}
	return out
}

// TestRunFunctionNetworkPolicy: every composed Cluster has its
// NetworkPolicy on unless the FDBDatabase turns it off or its sites run
// through other ProviderConfigs (other Kubernetes clusters, whose
// processes it would keep out); it admits the clients the FDBDatabase
// names, the platform's extra peers and, in a database of several
// Clusters, each Cluster's pods.
func TestRunFunctionNetworkPolicy(t *testing.T) {
	noBackup := map[string]any{"enabled": false}
	podsOf := func(cluster string) any {
		return map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{
			"foundationdb.crossplane.io/cluster": cluster, "app.kubernetes.io/managed-by": "provider-foundationdb"}}}
	}
	halls := func(providerConfig map[string]any) map[string]any {
		var sites []any
		for _, id := range []string{"a", "b", "c"} {
			s := map[string]any{"id": id}
			if providerConfig != nil && id == "c" {
				s["providerConfigRef"] = providerConfig
			}
			sites = append(sites, s)
		}
		return map[string]any{"topology": "three-data-hall", "backup": noBackup, "sites": sites}
	}
	platform := exampleInput(t)
	platform["networkPolicy"] = map[string]any{
		"providerSelector": map[string]any{"matchLabels": map[string]any{"pkg.crossplane.io/provider": "fdb"}},
		"extraPeers":       []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.9.0.0/16"}}},
	}
	cases := map[string]struct {
		call call
		want map[string]any
	}{
		"OnByDefault": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup}},
			want: map[string]any{"cluster": map[string]any{"enabled": true}},
		},
		"TurnedOff": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup, "networkPolicy": map[string]any{"enabled": false}}},
			want: map[string]any{"cluster": map[string]any{}},
		},
		"Clients": {
			call: call{zones: 5, spec: map[string]any{"backup": noBackup, "networkPolicy": map[string]any{
				"clientSelector":          map[string]any{"matchLabels": map[string]any{"app": "orders-api"}},
				"clientNamespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "orders"}},
			}}},
			want: map[string]any{"cluster": map[string]any{"enabled": true,
				"clientSelector":          map[string]any{"matchLabels": map[string]any{"app": "orders-api"}},
				"clientNamespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "orders"}},
			}},
		},
		"PlatformPeers": {
			call: call{zones: 5, input: platform, spec: map[string]any{"backup": noBackup}},
			want: map[string]any{"cluster": map[string]any{"enabled": true,
				"providerSelector": map[string]any{"matchLabels": map[string]any{"pkg.crossplane.io/provider": "fdb"}},
				"extraPeers":       []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.9.0.0/16"}}},
			}},
		},
		"EveryHallAdmitsTheOthers": {
			call: call{zones: 5, spec: halls(nil)},
			want: map[string]any{"cluster": map[string]any{"enabled": true, "extraPeers": []any{podsOf("orders-a"), podsOf("orders-b"), podsOf("orders-c")}}},
		},
		"OffWhenAHallRunsElsewhere": {
			call: call{zones: 5, spec: halls(map[string]any{"kind": "ProviderConfig", "name": "dc3"})},
			want: map[string]any{"cluster": map[string]any{"extraPeers": []any{podsOf("orders-a"), podsOf("orders-b"), podsOf("orders-c")}}},
		},
		"OnWhenAskedAcrossClusters": {
			call: call{zones: 5, spec: func() map[string]any {
				s := halls(map[string]any{"kind": "ProviderConfig", "name": "dc3"})
				s["networkPolicy"] = map[string]any{"enabled": true}
				return s
			}()},
			want: map[string]any{"cluster": map[string]any{"enabled": true, "extraPeers": []any{podsOf("orders-a"), podsOf("orders-b"), podsOf("orders-c")}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := gocmp.Diff(tc.want, networkPoliciesOf(t, tc.call)); diff != "" {
				t.Errorf("the Clusters' networkPolicy (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("NamespacesWithoutClients", func(t *testing.T) {
		c := call{zones: 5, spec: map[string]any{"networkPolicy": map[string]any{"clientNamespaceSelector": map[string]any{}}}}
		want := "spec.networkPolicy.clientNamespaceSelector needs clientSelector: it chooses the namespaces in which the pods clientSelector names may connect"
		if diff := gocmp.Diff(want, outcomeOf(c.run(t)).Fatal); diff != "" {
			t.Errorf("fatal (-want +got):\n%s", diff)
		}
	})
}
