package chaos

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// TestChaosCatchesDisabledRule disables one safety rule the way a user
// can — a SafetyPolicy named like the default fdb-unreachable-removal that
// always allows replaces it — and shows that the node-loss workload, on
// the seeds of the default budget, catches a group removed before its data
// was re-replicated (it stops at the first seed that does).
func TestChaosCatchesDisabledRule(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	allow := &v1alpha1.SafetyPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "fdb-unreachable-removal"},
		Spec: v1alpha1.SafetyPolicySpec{
			Actions:     []v1alpha1.ActionType{v1alpha1.ActionRemoveUnreachableProcessGroup},
			Validations: []v1alpha1.Validation{{Name: "always", Expression: "true"}},
		},
	}
	if err := env.Client.Create(ctx, allow); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), allow) })

	var reports []*Report
	for seed := uint64(1); seed <= DefaultSeeds; seed++ {
		runs++
		rep, err := Run(ctx, env, seed, workloadNamed(t, "node-loss"), DefaultSteps, fmt.Sprintf("disabled-%d-%d", seed, runs))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if os.Getenv(TraceEnv) != "" {
			for _, l := range rep.Lines {
				fmt.Println(l)
			}
		}
		reports = append(reports, rep)
		if caught(rep.Violations) {
			break
		}
	}
	s := Summarize(reports)
	var out strings.Builder
	s.Print(&out)
	t.Log("\n" + out.String())
	if !caught(s.Violations) {
		t.Errorf("with fdb-unreachable-removal replaced by an always-allow policy, %d node-loss seeds found no volume deleted while it held data", len(reports))
	}
}

// workloadNamed returns the workload called name.
func workloadNamed(t *testing.T, name string) Workload {
	t.Helper()
	for _, w := range Workloads {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("no workload %q", name)
	return Workload{}
}

// caught reports whether vs hold a volume deleted while it held data.
func caught(vs []Violation) bool {
	for _, v := range vs {
		if v.Check == "volume-deleted" || v.Check == "sim/RemovedHeldData" || v.Check == "sim/DataLoss" {
			return true
		}
	}
	return false
}
