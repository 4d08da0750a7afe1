package apis_test

import (
	"context"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// TestNetworkPolicySettingsAdmission checks what admission takes and
// refuses of spec.forProvider.networkPolicy, each refusal naming the
// field.
func TestNetworkPolicySettingsAdmission(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	at := func(p ...string) []string {
		return append([]string{"spec", "forProvider", "networkPolicy"}, p...)
	}
	apps := map[string]any{"matchLabels": map[string]any{"app": "orders"}}
	teams := map[string]any{"matchLabels": map[string]any{"team": "payments"}}
	cases := map[string]struct {
		settings map[string]any
		want     []string // nil: accepted
	}{
		"Enabled":              {settings: map[string]any{"enabled": true}},
		"ClientsOfNamespaces":  {settings: map[string]any{"enabled": true, "clientSelector": apps, "clientNamespaceSelector": teams}},
		"ProviderAndIPBlock":   {settings: map[string]any{"enabled": true, "providerSelector": teams, "extraPeers": []any{map[string]any{"ipBlock": map[string]any{"cidr": "192.0.2.0/24"}}}}},
		"PeerOfPodsInAnywhere": {settings: map[string]any{"extraPeers": []any{map[string]any{"podSelector": apps, "namespaceSelector": map[string]any{}}}}},
		"NamespacesWithoutClients": {settings: map[string]any{"enabled": true, "clientNamespaceSelector": teams},
			want: []string{"spec.forProvider.networkPolicy", "clientNamespaceSelector needs clientSelector"}},
		"PeerOfNothing": {settings: map[string]any{"extraPeers": []any{map[string]any{}}},
			want: []string{"spec.forProvider.networkPolicy.extraPeers", "each peer names either an ipBlock or a podSelector"}},
		"PeerOfBoth": {settings: map[string]any{"extraPeers": []any{map[string]any{"podSelector": apps, "ipBlock": map[string]any{"cidr": "192.0.2.0/24"}}}},
			want: []string{"spec.forProvider.networkPolicy.extraPeers", "not both"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := exampleOf(t, "Cluster")
			u.SetName("np-" + strings.ToLower(name))
			set(tc.settings, at()...)(u)
			err := env.Client.Create(ctx, u)
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != nil && err == nil:
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err.Error(), w)
				}
			}
		})
	}
}
