package policy

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

var t0 = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func newTestEngine(t testing.TB, o ...Option) *Engine {
	t.Helper()
	e, err := NewEngine(append([]Option{WithClock(clocktesting.NewFakePassiveClock(t0))}, o...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// policyOf returns a policy named name with the spec that mods build, for
// the Exclude action unless a mod says otherwise.
func policyOf(name string, mods ...func(*v1alpha1.SafetyPolicySpec)) Policy {
	s := v1alpha1.SafetyPolicySpec{Actions: []v1alpha1.ActionType{v1alpha1.ActionExclude}}
	for _, m := range mods {
		m(&s)
	}
	return fromContent(&v1alpha1.SafetyPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: s})
}

func rule(name, expr string, mods ...func(*v1alpha1.Validation)) func(*v1alpha1.SafetyPolicySpec) {
	return func(s *v1alpha1.SafetyPolicySpec) {
		v := v1alpha1.Validation{Name: name, Expression: expr}
		for _, m := range mods {
			m(&v)
		}
		s.Validations = append(s.Validations, v)
	}
}

func message(m string) func(*v1alpha1.Validation) {
	return func(v *v1alpha1.Validation) { v.Message = m }
}

func messageExpr(m string) func(*v1alpha1.Validation) {
	return func(v *v1alpha1.Validation) { v.MessageExpression = m }
}

func match(name, expr string) func(*v1alpha1.SafetyPolicySpec) {
	return func(s *v1alpha1.SafetyPolicySpec) {
		s.MatchConditions = append(s.MatchConditions, v1alpha1.MatchCondition{Name: name, Expression: expr})
	}
}

func variable(name, expr string) func(*v1alpha1.SafetyPolicySpec) {
	return func(s *v1alpha1.SafetyPolicySpec) {
		s.Variables = append(s.Variables, v1alpha1.Variable{Name: name, Expression: expr})
	}
}

func enforce(e v1alpha1.Enforcement) func(*v1alpha1.SafetyPolicySpec) {
	return func(s *v1alpha1.SafetyPolicySpec) { s.Enforcement = e }
}

func params(raw string) func(*v1alpha1.SafetyPolicySpec) {
	return func(s *v1alpha1.SafetyPolicySpec) { s.Params = &runtime.RawExtension{Raw: []byte(raw)} }
}

func actions(a ...v1alpha1.ActionType) func(*v1alpha1.SafetyPolicySpec) {
	return func(s *v1alpha1.SafetyPolicySpec) { s.Actions = a }
}

func groups(n int) []ProcessGroup {
	out := make([]ProcessGroup, n)
	for i := range out {
		out[i] = ProcessGroup{ID: fmt.Sprintf("storage-%d", i+1), Class: "storage", Reporting: true, Roles: []string{"storage"}, Conditions: []Condition{{Type: "PodPending", AgeSeconds: 1}}}
	}
	return out
}

func exclude(targets ...string) Input {
	return Input{
		Action:        Action{Type: v1alpha1.ActionExclude, Targets: targets, ProcessClass: "storage"},
		Cluster:       Cluster{Name: "prod", Available: true, SecondsSinceLastRecovery: 42, DesiredCounts: map[string]int64{"storage": 3}, DesiredFaultTolerance: 1},
		ProcessGroups: groups(3),
		Object:        map[string]any{"metadata": map[string]any{"name": "prod"}},
	}
}

func TestCompile(t *testing.T) {
	cases := map[string]struct {
		reason string
		policy Policy
		want   string
	}{
		"Valid": {
			reason: "Variables, match conditions and validations of the right types compile.",
			policy: policyOf("p", variable("n", "processGroups.size()"), match("m", "variables.n > 0"), rule("r", "variables.n < 10", messageExpr("string(variables.n)"))),
		},
		"UndefinedField": {
			reason: "A misspelt field of the input model is a compile error, with CEL's pointer to it.",
			policy: policyOf("p", rule("r", "cluster.secondsSinceRecovery > 1")),
			want:   "cannot compile SafetyPolicy p: validation \"r\": ERROR: <input>:1:8: undefined field 'secondsSinceRecovery'\n | cluster.secondsSinceRecovery > 1\n | .......^",
		},
		"ValidationNotBool": {
			reason: "A validation must be a bool.",
			policy: policyOf("p", rule("r", "cluster.secondsSinceLastRecovery")),
			want:   `cannot compile SafetyPolicy p: validation "r": must evaluate to bool, not int: cluster.secondsSinceLastRecovery`,
		},
		"ValidationDyn": {
			reason: "A dyn value is not a bool: compare it explicitly.",
			policy: policyOf("p", rule("r", "params.enabled")),
			want:   `cannot compile SafetyPolicy p: validation "r": must evaluate to bool, not dyn: params.enabled`,
		},
		"MessageExpressionNotString": {
			reason: "A messageExpression must be a string.",
			policy: policyOf("p", rule("r", "true", messageExpr("cluster.activeGenerations"))),
			want:   `cannot compile SafetyPolicy p: validation "r" messageExpression: must evaluate to string, not int: cluster.activeGenerations`,
		},
		"MatchConditionNotBool": {
			reason: "A match condition must be a bool.",
			policy: policyOf("p", match("m", "action.type"), rule("r", "true")),
			want:   `cannot compile SafetyPolicy p: match condition "m": must evaluate to bool, not string: action.type`,
		},
		"VariableOrder": {
			reason: "A variable may use only the variables before it.",
			policy: policyOf("p", variable("a", "variables.b"), variable("b", "1"), rule("r", "true")),
			want:   "cannot compile SafetyPolicy p: variable \"a\": ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.b\n | ^",
		},
		"StaticCost": {
			reason: "An expression whose worst case costs more than the static limit does not compile.",
			policy: policyOf("p", rule("r", "processGroups.all(g, processGroups.exists(h, h.id == g.id))")),
			want:   "cannot compile SafetyPolicy p: validation \"r\": estimated worst-case cost 444010002 exceeds the limit 10000000: processGroups.all(g, processGroups.exists(h, h.id == g.id))",
		},
		"BadParams": {
			reason: "Params must be an object.",
			policy: policyOf("p", params(`[1]`), rule("r", "true")),
			want:   "cannot compile SafetyPolicy p: cannot decode params: json: cannot unmarshal array into Go value of type map[string]interface {}",
		},
		"SeveralProblems": {
			reason: "Every problem is reported, by the name of its expression.",
			policy: policyOf("p", rule("a", "1"), rule("b", "'x'")),
			want:   `cannot compile SafetyPolicy p: validation "a": must evaluate to bool, not int: 1; validation "b": must evaluate to bool, not string: 'x'`,
		},
		"Missing": {
			reason: "A selected policy that does not exist does not compile.",
			policy: Assemble(nil, nil, []string{"gone"})[0],
			want:   "SafetyPolicy gone is selected by the cluster but does not exist",
		},
		"Inactive": {
			reason: "A selected policy while the SafetyPolicy kind is not active does not compile, and says how to activate the kind.",
			policy: AssembleInactive(nil, []string{"gone"})[0],
			want: "SafetyPolicy gone is selected by the cluster but cannot exist: the SafetyPolicy kind foundationdb.crossplane.io/v1alpha1 is not active: " +
				"activate safetypolicies.foundationdb.crossplane.io with a ManagedResourceActivationPolicy, or install its CRD",
		},
	}
	e := newTestEngine(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := e.Compile(tc.policy).Err(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nCompile(...).Err(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	failing := rule("budget", "action.count <= 1", messageExpr("'%d is more than 1'.format([action.count])"))
	ignore := cmpopts.IgnoreFields(Decision{}, "Trace", "Cost")
	cases := map[string]struct {
		reason   string
		policies []Policy
		in       Input
		want     Decision
	}{
		"NoPolicyApplies": {
			reason:   "Without an applicable policy the action is allowed.",
			policies: []Policy{policyOf("p", actions(v1alpha1.ActionKill), rule("r", "false"))},
			in:       exclude("storage-1"),
			want:     Decision{Action: "Exclude", Targets: []string{"storage-1"}, Allowed: true, Result: ResultAllowed, Message: "exclude storage-1 allowed", NotApplying: []string{"p"}, Time: t0},
		},
		"Denied": {
			reason:   "A failed Deny validation denies, naming policy, rule and values.",
			policies: []Policy{policyOf("p", failing)},
			in:       exclude("storage-1", "storage-2"),
			want: Decision{
				Action: "Exclude", Targets: []string{"storage-1", "storage-2"}, Result: ResultDenied,
				Policy: "p", Rule: "budget", Reason: "Forbidden", Message: "exclude storage-1,storage-2 denied by p/budget: 2 is more than 1",
				Violations: []Violation{{Policy: "p", Rule: "budget", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "2 is more than 1"}},
				Time:       t0,
			},
		},
		"Warned": {
			reason:   "A failed Warn validation allows with a warning.",
			policies: []Policy{policyOf("p", enforce(v1alpha1.EnforcementWarn), failing)},
			in:       exclude("storage-1", "storage-2"),
			want: Decision{
				Action: "Exclude", Targets: []string{"storage-1", "storage-2"}, Allowed: true, Result: ResultWarned,
				Policy: "p", Rule: "budget", Reason: "Forbidden", Message: "exclude storage-1,storage-2 warned by p/budget: 2 is more than 1",
				Warnings:   []string{"p/budget: 2 is more than 1"},
				Violations: []Violation{{Policy: "p", Rule: "budget", Enforcement: v1alpha1.EnforcementWarn, Reason: "Forbidden", Message: "2 is more than 1"}},
				Time:       t0,
			},
		},
		"Audited": {
			reason:   "A failed Audit validation allows and only records.",
			policies: []Policy{policyOf("p", enforce(v1alpha1.EnforcementAudit), failing)},
			in:       exclude("storage-1", "storage-2"),
			want: Decision{
				Action: "Exclude", Targets: []string{"storage-1", "storage-2"}, Allowed: true, Result: ResultAudited,
				Policy: "p", Rule: "budget", Reason: "Forbidden", Message: "exclude storage-1,storage-2 audited by p/budget: 2 is more than 1",
				Violations: []Violation{{Policy: "p", Rule: "budget", Enforcement: v1alpha1.EnforcementAudit, Reason: "Forbidden", Message: "2 is more than 1"}},
				Time:       t0,
			},
		},
		"DenyWinsOverWarn": {
			reason: "A denial decides even when a warning comes first; the warning is kept, and further denials are counted.",
			policies: []Policy{
				policyOf("a", enforce(v1alpha1.EnforcementWarn), rule("w", "false", message("careful"))),
				policyOf("b", rule("x", "false", message("no")), rule("y", "false", message("never"))),
			},
			in: exclude("storage-1"),
			want: Decision{
				Action: "Exclude", Targets: []string{"storage-1"}, Result: ResultDenied,
				Policy: "b", Rule: "x", Reason: "Forbidden", Message: "exclude storage-1 denied by b/x: no (and 1 more)",
				Warnings: []string{"a/w: careful"},
				Violations: []Violation{
					{Policy: "a", Rule: "w", Enforcement: v1alpha1.EnforcementWarn, Reason: "Forbidden", Message: "careful"},
					{Policy: "b", Rule: "x", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "no"},
					{Policy: "b", Rule: "y", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "never"},
				},
				Time: t0,
			},
		},
		"MatchConditionSkips": {
			reason:   "A false match condition skips the policy.",
			policies: []Policy{policyOf("p", match("log-only", "action.processClass == 'log'"), rule("r", "false"))},
			in:       exclude("storage-1"),
			want:     Decision{Action: "Exclude", Targets: []string{"storage-1"}, Allowed: true, Result: ResultAllowed, Message: "exclude storage-1 allowed", Time: t0},
		},
		"MatchConditionErrorFailsClosed": {
			reason:   "A match condition that fails to evaluate denies.",
			policies: []Policy{policyOf("p", match("m", "action.details.flag == true"), rule("r", "true"))},
			in:       exclude(),
			want: Decision{
				Action: "Exclude", Result: ResultDenied, Policy: "p", Rule: "m", Reason: "Forbidden",
				Message:    "exclude denied by p/m: match condition failed to evaluate: no such key: flag",
				Violations: []Violation{{Policy: "p", Rule: "m", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "match condition failed to evaluate: no such key: flag"}},
				Time:       t0,
			},
		},
		"CompileErrorFailsClosed": {
			reason:   "A policy that does not compile denies the actions it applies to.",
			policies: []Policy{policyOf("p", rule("r", "cluster.nope"))},
			in:       exclude("storage-1"),
			want: Decision{
				Action: "Exclude", Targets: []string{"storage-1"}, Result: ResultDenied, Policy: "p", Rule: RuleCompile, Reason: "Forbidden",
				Message:    "exclude storage-1 denied by p/(compile): cannot compile SafetyPolicy p: validation \"r\": ERROR: <input>:1:8: undefined field 'nope'\n | cluster.nope\n | .......^",
				Violations: []Violation{{Policy: "p", Rule: RuleCompile, Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "cannot compile SafetyPolicy p: validation \"r\": ERROR: <input>:1:8: undefined field 'nope'\n | cluster.nope\n | .......^"}},
				Time:       t0,
			},
		},
		"CompileErrorOtherAction": {
			reason:   "A policy that does not compile leaves the actions it does not apply to alone.",
			policies: []Policy{policyOf("p", actions(v1alpha1.ActionKill), rule("r", "cluster.nope"))},
			in:       exclude("storage-1"),
			want:     Decision{Action: "Exclude", Targets: []string{"storage-1"}, Allowed: true, Result: ResultAllowed, Message: "exclude storage-1 allowed", NotApplying: []string{"p"}, Time: t0},
		},
		"EvaluationErrorUnderWarn": {
			reason:   "An evaluation error is a failed validation, subject to the policy's enforcement.",
			policies: []Policy{policyOf("p", enforce(v1alpha1.EnforcementWarn), rule("r", "action.details.x > 1", messageExpr("'unused'")))},
			in:       exclude(),
			want: Decision{
				Action: "Exclude", Allowed: true, Result: ResultWarned, Policy: "p", Rule: "r", Reason: "Forbidden",
				Message:    "exclude warned by p/r: rule failed to evaluate: no such key: x",
				Warnings:   []string{"p/r: rule failed to evaluate: no such key: x"},
				Violations: []Violation{{Policy: "p", Rule: "r", Enforcement: v1alpha1.EnforcementWarn, Reason: "Forbidden", Message: "rule failed to evaluate: no such key: x"}},
				Time:       t0,
			},
		},
		"MessageFallbacks": {
			reason: "A failing messageExpression falls back to the message, a missing message to the expression; a custom reason is kept.",
			policies: []Policy{policyOf("p",
				rule("a", "false", message("static"), messageExpr("string(action.details.nope)")),
				rule("b", "1 > 2", func(v *v1alpha1.Validation) { v.Reason = "Invalid" }),
			)},
			in: exclude(),
			want: Decision{
				Action: "Exclude", Result: ResultDenied, Policy: "p", Rule: "a", Reason: "Forbidden",
				Message: "exclude denied by p/a: static (and 1 more)",
				Violations: []Violation{
					{Policy: "p", Rule: "a", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "static"},
					{Policy: "p", Rule: "b", Enforcement: v1alpha1.EnforcementDeny, Reason: "Invalid", Message: "failed expression: 1 > 2"},
				},
				Time: t0,
			},
		},
		"ParamsOverlay": {
			reason:   "The cluster's params override the policy's.",
			policies: []Policy{policyOf("p", params(`{"limit": 5, "unit": "groups"}`), rule("r", "action.count <= params.limit", messageExpr("'more than %d %s'.format([params.limit, params.unit])")))},
			in: func() Input {
				in := exclude("storage-1", "storage-2")
				in.Params = map[string]any{"limit": 1.0}
				return in
			}(),
			want: Decision{
				Action: "Exclude", Targets: []string{"storage-1", "storage-2"}, Result: ResultDenied, Policy: "p", Rule: "r", Reason: "Forbidden",
				Message:    "exclude storage-1,storage-2 denied by p/r: more than 1 groups",
				Violations: []Violation{{Policy: "p", Rule: "r", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "more than 1 groups"}},
				Time:       t0,
			},
		},
		"ManyTargets": {
			reason:   "A message names the first five targets.",
			policies: []Policy{policyOf("p", rule("r", "false", message("no")))},
			in:       exclude("a", "b", "c", "d", "e", "f", "g"),
			want: Decision{
				Action: "Exclude", Targets: []string{"a", "b", "c", "d", "e", "f", "g"}, Result: ResultDenied, Policy: "p", Rule: "r", Reason: "Forbidden",
				Message:    "exclude a,b,c,d,e and 2 more denied by p/r: no",
				Violations: []Violation{{Policy: "p", Rule: "r", Enforcement: v1alpha1.EnforcementDeny, Reason: "Forbidden", Message: "no"}},
				Time:       t0,
			},
		},
		"Variables": {
			reason: "now, object, budget, targets and the input model are visible.",
			policies: []Policy{policyOf("p",
				rule("now", "now == timestamp('2025-03-01T12:00:00Z')"),
				rule("object", "object.metadata.name == cluster.name"),
				rule("budget", "budget.storage == 1 && budget.size() == 1"),
				rule("targets", "targets.groups.map(g, g.id) == ['storage-2'] && targets.unknown == ['storage-9']"),
				rule("groups", "processGroups.all(g, g.conditions.exists(c, c.type == 'PodPending' && c.ageSeconds == 1))"),
			)},
			in:   exclude("storage-2", "storage-9"),
			want: Decision{Action: "Exclude", Targets: []string{"storage-2", "storage-9"}, Allowed: true, Result: ResultAllowed, Message: "exclude storage-2,storage-9 allowed", Time: t0},
		},
	}
	e := newTestEngine(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := e.Decide(context.Background(), tc.policies, tc.in)
			if diff := cmp.Diff(tc.want, got, ignore, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nDecide(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTrace(t *testing.T) {
	e := newTestEngine(t)
	p := policyOf("p",
		variable("unused", "processGroups.map(g, g.id)"),
		variable("storage", "processGroups.filter(g, g.class == 'storage').size()"),
		match("storage-only", "action.processClass == 'storage'"),
		rule("first", "variables.storage == 3"),
		rule("second", "variables.storage < 3", message("three")),
	)
	d := e.Decide(context.Background(), []Policy{p, policyOf("other", actions(v1alpha1.ActionKill), rule("r", "true"))}, exclude("storage-1"))
	want := []PolicyTrace{
		{
			Policy: "p", Enforcement: v1alpha1.EnforcementDeny, Matched: true, Result: ResultDenied,
			MatchConditions: []ExprTrace{{Name: "storage-only", Expression: "action.processClass == 'storage'", Value: "true", Passed: true}},
			Variables:       []ExprTrace{{Name: "storage", Expression: "processGroups.filter(g, g.class == 'storage').size()", Value: "3"}},
			Validations: []ExprTrace{
				{Name: "first", Expression: "variables.storage == 3", Value: "true", Passed: true},
				{Name: "second", Expression: "variables.storage < 3", Value: "false", Message: "three"},
			},
		},
	}
	if diff := cmp.Diff(want, d.Trace, cmpopts.IgnoreFields(ExprTrace{}, "Cost"), cmpopts.IgnoreFields(PolicyTrace{}, "Cost")); diff != "" {
		t.Errorf("Decide(...).Trace: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"other"}, d.NotApplying); diff != "" {
		t.Errorf("Decide(...).NotApplying: -want, +got:\n%s", diff)
	}
	var sum uint64
	for _, xs := range [][]ExprTrace{d.Trace[0].MatchConditions, d.Trace[0].Variables, d.Trace[0].Validations} {
		for _, x := range xs {
			if x.Cost == 0 {
				t.Errorf("%s: want a cost, got 0", x.Name)
			}
			sum += x.Cost
		}
	}
	if d.Trace[0].Cost != sum || d.Cost != sum {
		t.Errorf("costs: want policy and decision cost %d, got %d and %d", sum, d.Trace[0].Cost, d.Cost)
	}
}

func TestCostLimit(t *testing.T) {
	in := exclude("storage-1")
	in.ProcessGroups = groups(1000)
	cases := map[string]struct {
		reason string
		engine *Engine
		policy Policy
		want   string
	}{
		"RuntimeLimit": {
			reason: "An evaluation of a platform's policy that exceeds the runtime cost limit is cancelled and denies.",
			engine: newTestEngine(t, WithCostLimits(DefaultStaticCostLimit, 1000)),
			policy: policyOf("p", rule("r", "processGroups.all(g, g.id != '')")),
			want:   "exclude storage-1 denied by p/r: rule failed to evaluate: operation cancelled: actual cost limit exceeded",
		},
		"BuiltinOverRuntimeLimit": {
			reason: "A built-in policy's expression whose estimated cost exceeds the runtime limit keeps the runtime limit.",
			engine: newTestEngine(t, WithCostLimits(DefaultStaticCostLimit, 1000)),
			policy: builtin(policyOf("p", rule("r", "processGroups.all(g, g.id != '')"))),
			want:   "exclude storage-1 denied by p/r: rule failed to evaluate: operation cancelled: actual cost limit exceeded",
		},
		"NestedComprehension": {
			reason: "A nested comprehension over the process groups exceeds the static limit and denies.",
			engine: newTestEngine(t),
			policy: policyOf("p", rule("r", "processGroups.all(g, processGroups.all(h, g.id == h.id || g.class == h.class))")),
			want:   "exclude storage-1 denied by p/(compile): cannot compile SafetyPolicy p: validation \"r\": estimated worst-case cost",
		},
		"WithinLimits": {
			reason: "A linear expression over 1000 process groups is well within the default limits.",
			engine: newTestEngine(t),
			policy: policyOf("p", rule("r", "processGroups.all(g, g.roles.exists(r, r == 'storage'))")),
			want:   "exclude storage-1 allowed",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := tc.engine.Decide(context.Background(), []Policy{tc.policy}, in)
			if !strings.HasPrefix(d.Message, tc.want) {
				t.Errorf("\n%s\nDecide(...).Message: want prefix %q, got %q", tc.reason, tc.want, d.Message)
			}
		})
	}
}

// builtin marks p built in, as ParseBuiltin does.
func builtin(p Policy) Policy {
	p.Key, p.builtin = "builtin:"+p.Key, true
	return p
}

func TestCostTracking(t *testing.T) {
	in := exclude("storage-1")
	cases := map[string]struct {
		reason string
		engine *Engine
		policy Policy
		want   bool
	}{
		"Platform": {
			reason: "A platform's policy is evaluated with runtime cost tracking.",
			engine: newTestEngine(t),
			policy: policyOf("p", rule("r", "cluster.available")),
			want:   true,
		},
		"Builtin": {
			reason: "A built-in policy whose estimated cost is within the runtime limit is evaluated without.",
			engine: newTestEngine(t),
			policy: builtin(policyOf("p", rule("r", "cluster.available"))),
			want:   false,
		},
		"BuiltinWithBuiltinCosts": {
			reason: "WithBuiltinCosts tracks the cost of a built-in policy too.",
			engine: newTestEngine(t, WithBuiltinCosts()),
			policy: builtin(policyOf("p", rule("r", "cluster.available"))),
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := tc.engine.Decide(context.Background(), []Policy{tc.policy}, in)
			if !d.Allowed {
				t.Fatalf("\n%s\nDecide(...): want allowed, got %q", tc.reason, d.Message)
			}
			if diff := cmp.Diff(tc.want, d.Cost > 0); diff != "" {
				t.Errorf("\n%s\nDecide(...).Cost > 0: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCancelledContext: a platform's policy stops at a cancelled context
// and denies; a built-in policy whose cost the estimate bounds runs to its
// end, as it would within the cost limit.
func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := exclude("storage-1")
	in.ProcessGroups = groups(3 * interruptCheckFrequency)
	all := rule("r", "processGroups.all(g, g.id != '')")
	cases := map[string]struct {
		reason string
		policy Policy
		want   string
	}{
		"Platform": {
			reason: "A platform's policy with a comprehension is interrupted and denies.",
			policy: policyOf("p", all),
			want:   "exclude storage-1 denied by p/r: rule failed to evaluate: operation interrupted: context canceled",
		},
		"Builtin": {
			reason: "A built-in policy whose estimated cost is within the runtime limit is not interrupted.",
			policy: builtin(policyOf("p", all)),
			want:   "exclude storage-1 allowed",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := newTestEngine(t).Decide(ctx, []Policy{tc.policy}, in)
			if diff := cmp.Diff(tc.want, d.Message); diff != "" {
				t.Errorf("\n%s\nDecide(...).Message: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCache(t *testing.T) {
	e := newTestEngine(t)
	a, b := policyOf("a", rule("r", "true")), policyOf("b", rule("r", "true"))
	decide := func(p ...Policy) CacheStats {
		e.Decide(context.Background(), p, exclude("storage-1"))
		return e.CacheStats()
	}
	if diff := cmp.Diff(CacheStats{Misses: 2}, decide(a, b)); diff != "" {
		t.Errorf("first decision: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(CacheStats{Misses: 2, Hits: 2}, decide(a, b)); diff != "" {
		t.Errorf("second decision hits the cache: -want, +got:\n%s", diff)
	}
	a2 := a
	a2.Key = "a/2"
	if diff := cmp.Diff(CacheStats{Misses: 3, Hits: 2}, decide(a2)); diff != "" {
		t.Errorf("a new version compiles: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(CacheStats{Misses: 4, Hits: 2}, decide(a)); diff != "" {
		t.Errorf("the new version evicted the old: -want, +got:\n%s", diff)
	}
}

func TestVerb(t *testing.T) {
	cases := map[v1alpha1.ActionType]string{
		v1alpha1.ActionExclude:             "exclude",
		v1alpha1.ActionForceDeletePod:      "force-delete-pod",
		v1alpha1.ActionRemoveProcessGroup:  "remove-process-group",
		v1alpha1.ActionReplaceProcessGroup: "replace-process-group",
		"":                                 "",
	}
	for a, want := range cases {
		if got := verb(a); got != want {
			t.Errorf("verb(%s): want %q, got %q", a, want, got)
		}
	}
}

func TestRender(t *testing.T) {
	e := newTestEngine(t)
	in := exclude("storage-1")
	in.ProcessGroups = groups(20)
	p := policyOf("p",
		variable("small", "processGroups.slice(0, 2).map(g, g.id)"),
		variable("large", "processGroups.map(g, g.id)"),
		variable("text", "lists.range(300).map(i, 'x').join('')"),
		variable("yes", "cluster.available"),
		variable("no", "!cluster.available"),
		variable("int", "processGroups.size() - 25"),
		variable("huge", "processGroups.size() * 1000000000000000"),
		variable("none", "processGroups.filter(g, false)"),
		variable("empty", "params"),
		rule("r", "variables.small.size() + variables.large.size() + variables.text.size() > 0 && variables.yes != variables.no && variables.int < variables.huge && variables.none == [] && variables.empty.size() == 0"),
	)
	var got []string
	for _, v := range e.Decide(context.Background(), []Policy{p}, in).Trace[0].Variables {
		got = append(got, v.Value)
	}
	want := []string{`["storage-1","storage-2"]`, "<list of size 20>", `"` + strings.Repeat("x", maxRendered-1) + "...", "true", "false", "-5", `"20000000000000000"`, "[]", "{}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered variables: -want, +got:\n%s", diff)
	}
}

func TestConcurrentDecide(t *testing.T) {
	e := newTestEngine(t)
	ps := []Policy{policyOf("a", variable("n", "processGroups.size()"), rule("r", "variables.n == 3")), policyOf("b", rule("r", "cluster.available"))}
	var wg sync.WaitGroup
	results := make([]Result, 8)
	for i := range results {
		wg.Go(func() { results[i] = e.Decide(context.Background(), ps, exclude("storage-1")).Result })
	}
	wg.Wait()
	for i, r := range results {
		if r != ResultAllowed {
			t.Errorf("decision %d: want %s, got %s", i, ResultAllowed, r)
		}
	}
	if s := e.CacheStats(); s.Hits+s.Misses != 16 {
		t.Errorf("CacheStats(): want 16 lookups, got %+v", s)
	}
}
