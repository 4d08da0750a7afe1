package kubectlplugin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// run runs the plugin with args against the test control plane and
// returns what it printed and its exit code.
func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig(t), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd := NewCommand("kubectl foundationdb", genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, clocktesting.NewFakePassiveClock(now))
	cmd.SetArgs(append([]string{"--kubeconfig", kubeconfig}, args...))
	err := cmd.ExecuteContext(context.Background())
	var exit *ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.Code
	case err != nil:
		return out.String() + errOut.String() + err.Error(), 2
	}
	return out.String(), 0
}

// create makes Cluster cr with its status as given in namespace ns.
func create(t *testing.T, ns string, cr *v1alpha1.Cluster) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	status := cr.Status
	cr = cr.DeepCopy()
	cr.Namespace, cr.ResourceVersion = ns, ""
	cr.Spec.ForProvider.Version = "7.3.63"
	cr.Spec.ForProvider.ProcessCounts.Storage = 3
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	cr.Status = status
	if err := env.Client.Status().Update(ctx, cr); err != nil {
		t.Fatal(err)
	}
}

func TestAnalyzeCommand(t *testing.T) {
	testenv.Require(t, env)
	create(t, "healthy", healthyCluster())
	create(t, "waiting", healthyCluster(func(cr *v1alpha1.Cluster) {
		cr.SetConditions(xpv2.UpdateRequested().WithMessage("include storage-4: removal finished"))
		cr.Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: "Include", Targets: []string{"storage-4"}, Result: "Denied",
			Rule: "fdb-inclusion/min-recovery-time", Message: includeDenied, Time: metav1.Time{Time: now.Add(-30e9)}, AllowedAt: at(9 * 60e9)}
	}))

	t.Run("HealthyFleetExitsZero", func(t *testing.T) {
		out, code := run(t, "analyze", "-n", "healthy")
		if code != 0 || !strings.Contains(out, "healthy/orders: Healthy") {
			t.Errorf("analyze -n healthy: exit %d, want 0; printed:\n%s", code, out)
		}
	})
	t.Run("WaitingFleetExitsOne", func(t *testing.T) {
		out, code := run(t, "analyze", "-A")
		for _, want := range []string{"waiting/orders: Waiting", "rule fdb-inclusion/min-recovery-time", "less than 600s ago", "allowed at 2026-11-30T10:09:00Z"} {
			if !strings.Contains(out, want) {
				t.Errorf("analyze -A printed no %q:\n%s", want, out)
			}
		}
		if code != 1 {
			t.Errorf("analyze -A: exit %d, want 1", code)
		}
	})
	t.Run("NamedClusterAsYAML", func(t *testing.T) {
		out, code := run(t, "analyze", "orders", "-n", "waiting", "-o", "yaml")
		var reports []Report
		if err := yaml.Unmarshal([]byte(out), &reports); err != nil || len(reports) != 1 {
			t.Fatalf("analyze -o yaml printed no one report (%v):\n%s", err, out)
		}
		if r := reports[0]; code != 1 || r.Verdict != VerdictWaiting || len(r.Waiting) != 1 || r.Waiting[0].AllowedAt == nil {
			t.Errorf("analyze orders -o yaml: exit %d, report %+v", code, r)
		}
	})
	t.Run("FleetAsTable", func(t *testing.T) {
		out, code := run(t, "analyze", "-A", "-o", "table")
		want := `NAMESPACE   NAME     VERDICT   AVAILABLE   FAULT TOLERANCE   WAITING                           OPERATIONS   DRILL
healthy     orders   Healthy   true        1/1               <none>                            <none>       <none>
waiting     orders   Waiting   true        1/1               fdb-inclusion/min-recovery-time   <none>       <none>
`
		if diff := cmp.Diff(want, out); diff != "" || code != 1 {
			t.Errorf("analyze -A -o table: exit %d, want 1; -want +got:\n%s", code, diff)
		}
	})
	t.Run("NoTableToExplain", func(t *testing.T) {
		out, code := run(t, "explain", "orders", "-n", "waiting", "-o", "table")
		if code != 2 || !strings.Contains(out, `unknown output format "table": want text, yaml or json`) {
			t.Errorf("explain -o table: exit %d, want 2; printed:\n%s", code, out)
		}
	})
	t.Run("UnknownCluster", func(t *testing.T) {
		out, code := run(t, "analyze", "nope", "-n", "waiting")
		if code != 2 || !strings.Contains(out, "no Cluster nope in namespace waiting") {
			t.Errorf("analyze nope: exit %d, want 2; printed:\n%s", code, out)
		}
	})
}
