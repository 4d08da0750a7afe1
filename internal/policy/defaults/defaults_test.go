package defaults_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/suite"
)

func TestPoliciesCompile(t *testing.T) {
	ps, err := defaults.Policies()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	e, err := policy.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		names = append(names, p.Name+".yaml")
		if err := e.Compile(p).Err(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
	if diff := cmp.Diff(files, names); diff != "" {
		t.Errorf("every file holds the policy it is named after: -files, +policies:\n%s", diff)
	}
}

// runSuite runs the test suite of the default policies as `fdbpolicy test`
// does, and returns the defaults, the suite and its results.
func runSuite(t *testing.T) ([]policy.Policy, *suite.Suite, []suite.Result) {
	t.Helper()
	ps, err := defaults.Policies()
	if err != nil {
		t.Fatal(err)
	}
	s, err := suite.Load("tests")
	if err != nil {
		t.Fatal(err)
	}
	results, err := s.Run(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	return ps, s, results
}

// TestSuite runs the test suite of the default policies, as
// `fdbpolicy test internal/policy/defaults/tests` does, and checks that
// every rule of every default denies in at least one test.
func TestSuite(t *testing.T) {
	ps, _, results := runSuite(t)
	denied := map[string]bool{}
	for _, r := range results {
		t.Run(r.Test.Name, func(t *testing.T) {
			if diff := cmp.Diff(r.Test.Expect.Result, r.Decision.Result); diff != "" {
				t.Errorf("%s: result: -want, +got:\n%s\n%s", r.Test.File, diff, r.Decision.Message)
			}
			if !strings.Contains(r.Decision.Message, r.Test.Expect.Message) {
				t.Errorf("%s: message: want it to contain %q, got %q", r.Test.File, r.Test.Expect.Message, r.Decision.Message)
			}
		})
		for _, v := range r.Decision.Violations {
			denied[v.Policy+"/"+v.Rule] = true
		}
	}
	for _, p := range ps {
		for _, v := range p.Spec.Validations {
			if rule := fmt.Sprintf("%s/%s", p.Name, v.Name); !denied[rule] {
				t.Errorf("no test fails rule %s", rule)
			}
		}
	}
	if !slices.ContainsFunc(results, func(r suite.Result) bool { return r.Decision.Result == policy.ResultAllowed }) {
		t.Error("no test is allowed")
	}
}

// TestUntrackedCost checks that the engine's default evaluation of the
// built-in policies, without runtime cost tracking, decides every test of
// their suite as the suite's runner does with it (traces included, costs
// aside), and that it tracks no cost at all: every built-in expression's
// estimated worst-case cost is within the runtime limit.
func TestUntrackedCost(t *testing.T) {
	ps, s, tracked := runSuite(t)
	clock := clocktesting.NewFakePassiveClock(suite.DefaultNow)
	e, err := policy.NewEngine(policy.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	ignoreCost := cmpopts.IgnoreFields(policy.Decision{}, "Cost")
	ignoreTraceCost := cmpopts.IgnoreFields(policy.PolicyTrace{}, "Cost")
	ignoreExprCost := cmpopts.IgnoreFields(policy.ExprTrace{}, "Cost")
	for _, r := range tracked {
		t.Run(r.Test.Name, func(t *testing.T) {
			clock.SetTime(r.Test.Now)
			d := e.Decide(context.Background(), policy.Assemble(ps, s.Policies, r.Test.Input.Policies), r.Test.Input)
			if diff := cmp.Diff(r.Decision, d, ignoreCost, ignoreTraceCost, ignoreExprCost); diff != "" {
				t.Errorf("%s: -tracked, +untracked:\n%s", r.Test.File, diff)
			}
			if d.Cost != 0 {
				t.Errorf("%s: untracked cost: want 0, got %d", r.Test.File, d.Cost)
			}
		})
	}
}

// TestDetailKeys keeps the detail keys and the override annotation that
// controllers set in step with the rules that read them.
func TestDetailKeys(t *testing.T) {
	ps, err := defaults.Policies()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, p := range ps {
		for _, v := range p.Spec.Validations {
			text.WriteString(v.Expression + "\n" + v.MessageExpression + "\n")
		}
	}
	for _, key := range []string{
		policy.DetailMinimumUptimeSeconds, policy.DetailNodeReady, policy.DetailReportingProcesses,
		policy.DetailAutomatic, policy.DetailReplacementsInFlight, policy.DetailMaxConcurrentReplacements,
		policy.DetailIsLastRunningBackup,
		policy.DetailRestorableVersionAgeSeconds, policy.DetailOverrideAnnotation,
		policy.DetailDestinationHasData, policy.DetailAllowNonEmptyDestination,
		policy.AnnotationAllowStopLastBackup, policy.DetailLockHolder, policy.DetailLocksAcknowledged,
	} {
		if !strings.Contains(text.String(), key) {
			t.Errorf("no default rule reads %q", key)
		}
	}
}
