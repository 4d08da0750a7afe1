package kubectlplugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

func TestExplainCommand(t *testing.T) {
	testenv.Require(t, env)
	create(t, "explain", healthyCluster(func(cr *v1alpha1.Cluster) {
		cr.Status.AtProvider.Health.Healthy, cr.Status.AtProvider.Health.FullReplication = true, true
		cr.SetConditions(xpv2.UpdateRequested().WithMessage("include storage-4: removal finished"))
		cr.Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: "Include", Targets: []string{"storage-4"}, Result: "Denied",
			Rule: "fdb-inclusion/min-recovery-time", Message: includeDenied, Time: *at(-30e9)}
	}))
	cases := map[string]struct {
		args []string
		want []string
	}{
		"TheLastDecisionsAction": {
			args: []string{"explain", "-n", "explain", "orders"},
			want: []string{"RESULT:  Denied", "policy fdb-inclusion (Deny): Denied", "the last recovery was less than 600s ago",
				"ALLOWED AT: 2026-11-30T10:09:00Z (in 9m0s)", "no status records cluster.dataMovement.inFlightBytes"},
		},
		"ANamedAction": {
			args: []string{"explain", "-n", "explain", "orders", "DeleteCluster", "orders"},
			want: []string{"RESULT:  Allowed", "policy fdb-deletion (Deny): Allowed"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, code := run(t, tc.args...)
			if code != 0 {
				t.Errorf("%v: exit %d, want 0", tc.args, code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%v says no %q; printed:\n%s", tc.args, w, out)
				}
			}
		})
	}
}

func TestPolicyTestCommand(t *testing.T) {
	testenv.Require(t, env)
	failing := t.TempDir()
	test := `apiVersion: foundationdb.crossplane.io/v1alpha1
kind: PolicyTest
input:
  action: {type: Include, targets: [storage-1]}
  cluster: {available: true, healthy: true, recoveryState: fully_recovered, secondsSinceLastRecovery: 10}
tests:
- name: an inclusion 10s after a recovery
  expect: {result: Allowed}
`
	if err := os.WriteFile(filepath.Join(failing, "inclusion.yaml"), []byte(test), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, "policy", "test", filepath.Join(testenv.Root(), "internal", "policy", "defaults", "tests")); code != 0 {
		t.Errorf("policy test of the defaults' suite: exit %d, want 0; printed:\n%s", code, out)
	}
	if out, code := run(t, "policy", "test", failing); code != 1 || !strings.Contains(out, "0 passed, 1 failed") {
		t.Errorf("policy test of a failing suite: exit %d, want 1; printed:\n%s", code, out)
	}
}
