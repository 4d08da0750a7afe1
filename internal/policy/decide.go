package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

// A Result is the outcome of a decision, or of one policy in it.
type Result string

// Results, with the meaning of ValidatingAdmissionPolicy validationActions.
const (
	// ResultAllowed: no policy that applies failed.
	ResultAllowed Result = "Allowed"
	// ResultDenied: a Deny policy failed; the action must not happen.
	ResultDenied Result = "Denied"
	// ResultWarned: only Warn (and Audit) policies failed; the action may
	// happen and the failures are shown as warnings.
	ResultWarned Result = "Warned"
	// ResultAudited: only Audit policies failed; the action may happen and
	// the failures are only recorded.
	ResultAudited Result = "Audited"
)

// RuleCompile is the rule a violation names when its policy did not compile
// (or a cluster selects a policy that does not exist).
const RuleCompile = "(compile)"

// reasonDefault is the reason of a failed validation that names none.
const reasonDefault = "Forbidden"

// A Decision says whether an action may happen, why, and how it was reached.
type Decision struct {
	Action  v1alpha1.ActionType `json:"action"`
	Targets []string            `json:"targets,omitempty"`
	// Allowed is false only when Result is Denied.
	Allowed bool   `json:"allowed"`
	Result  Result `json:"result"`
	// Policy, Rule and Reason of the violation that decided, if any: the
	// first denial, else the first warning, else the first audit.
	Policy string `json:"policy,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Message explains the decision, e.g. "exclude storage-3 denied by
	// fdb-exclusion/min-recovery-time: the last recovery was less than 120s ago".
	Message string `json:"message"`
	// Warnings are the failures of Warn policies, as <policy>/<rule>: <message>.
	Warnings []string `json:"warnings,omitempty"`
	// Violations are every failed rule of every policy that applies.
	Violations []Violation `json:"violations,omitempty"`
	// Trace shows how every policy that applies to the action was
	// evaluated.
	Trace []PolicyTrace `json:"trace"`
	// NotApplying names the policies whose actions do not include the
	// action.
	NotApplying []string `json:"notApplying,omitempty"`
	// Cost is the total CEL cost of the decision, of the expressions whose
	// cost was tracked (see WithBuiltinCosts).
	Cost uint64    `json:"cost"`
	Time time.Time `json:"time"`
}

// A Violation is a failed rule.
type Violation struct {
	Policy      string               `json:"policy"`
	Rule        string               `json:"rule"`
	Enforcement v1alpha1.Enforcement `json:"enforcement"`
	Reason      string               `json:"reason"`
	Message     string               `json:"message"`
}

// A PolicyTrace shows how one policy was evaluated.
type PolicyTrace struct {
	Policy      string               `json:"policy"`
	Enforcement v1alpha1.Enforcement `json:"enforcement"`
	// Matched is true when the policy applies to the action and every match
	// condition held (or one failed to evaluate).
	Matched bool   `json:"matched"`
	Result  Result `json:"result,omitempty"`
	// CompileError is why the policy did not compile.
	CompileError    string      `json:"compileError,omitempty"`
	MatchConditions []ExprTrace `json:"matchConditions,omitempty"`
	// Variables are those the evaluation needed, in declaration order.
	Variables   []ExprTrace `json:"variables,omitempty"`
	Validations []ExprTrace `json:"validations,omitempty"`
	Cost        uint64      `json:"cost"`
}

// An ExprTrace shows the evaluation of one expression.
type ExprTrace struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
	// Value is the result, rendered as JSON.
	Value string `json:"value,omitempty"`
	// Passed is true when a match condition or validation evaluated to true.
	Passed bool `json:"passed"`
	// Message of a failed validation.
	Message string `json:"message,omitempty"`
	// Error of an evaluation that failed, e.g. on an exceeded cost limit.
	Error string `json:"error,omitempty"`
	// Cost of the evaluation; 0 when its cost was not tracked (see
	// WithBuiltinCosts).
	Cost uint64 `json:"cost"`
}

// Decide evaluates the policies in order against the input and decides on
// its action. A policy applies when its actions include the action and its
// match conditions hold; every validation of every policy that applies is
// evaluated. A policy that did not compile, a match condition or validation
// that fails to evaluate (e.g. over the cost limit) counts as a failed
// validation, so a broken Deny policy denies: the engine fails closed.
func (e *Engine) Decide(ctx context.Context, policies []Policy, in Input) Decision {
	return e.decide(ctx, policies, in, e.clock.Now())
}

// decide is Decide at now.
func (e *Engine) decide(ctx context.Context, policies []Policy, in Input, now time.Time) Decision {
	applying := 0
	for i := range policies {
		if policies[i].AppliesTo(in.Action.Type) {
			applying++
		}
	}
	d := Decision{Action: in.Action.Type, Targets: in.Action.Targets, Time: now, Trace: make([]PolicyTrace, 0, applying)}
	if applying < len(policies) {
		d.NotApplying = make([]string, 0, len(policies)-applying)
	}
	vars := &inputVariables{in: in, now: now}
	if len(in.Params) > 0 {
		vars.params = normalizeMap(in.Params)
	}
	for i := range policies {
		p := &policies[i]
		if !p.AppliesTo(in.Action.Type) {
			// It needs no program.
			d.NotApplying = append(d.NotApplying, p.Name)
			continue
		}
		d.Trace = append(d.Trace, PolicyTrace{Policy: p.Name, Enforcement: p.enforcement()})
		t := &d.Trace[len(d.Trace)-1]
		d.Violations = append(d.Violations, evaluate(ctx, e.Compile(*p), vars, t)...)
		d.Cost += t.Cost
	}
	d.conclude()
	return d
}

// inputVariables are the CEL variables every policy of a decision shares,
// converted from the input on first use: a decision whose policies never read
// processGroups does not pay for converting them.
type inputVariables struct {
	in  Input
	now time.Time
	// params are the cluster's params, which override each policy's; nil
	// when it has none.
	params map[string]any
	// values are the variables converted so far, by their index in
	// inputNames; nil until converted (no conversion returns nil).
	values [len(inputNames)]any
}

// inputNames are the CEL variables of the input.
var inputNames = [...]string{varAction, varCluster, varProcessGroups, varTargets, varBudget, varNow, varObject}

func (v *inputVariables) get(name string) (any, bool) {
	i := slices.Index(inputNames[:], name)
	if i < 0 {
		return nil, false
	}
	if v.values[i] == nil {
		v.values[i] = v.convert(name)
	}
	return v.values[i], true
}

// convert converts the input variable name.
func (v *inputVariables) convert(name string) any {
	switch name {
	case varAction:
		return objectOf(&v.in.Action)
	case varCluster:
		return objectOf(&v.in.Cluster)
	case varProcessGroups:
		return objectList(v.in.ProcessGroups)
	case varTargets:
		t := ResolveTargets(v.in.Action.Targets, v.in.ProcessGroups)
		return objectOf(&t)
	case varBudget:
		return ExclusionBudget(v.in.Cluster.DesiredCounts, v.in.Cluster.DesiredFaultTolerance, v.in.ProcessGroups)
	case varNow:
		return v.now
	default: // varObject
		return normalizeMap(v.in.Object)
	}
}

// evaluate evaluates one policy that applies to the action into its trace t,
// which has its name and enforcement, and returns its violations.
func evaluate(ctx context.Context, c *Compiled, vars *inputVariables, t *PolicyTrace) []Violation {
	violation := func(rule, reason, msg string) Violation {
		return Violation{Policy: c.Name, Rule: rule, Enforcement: c.enforcement(), Reason: reason, Message: msg}
	}
	if c.err != nil {
		t.Matched, t.CompileError = true, c.err.Error()
		return t.conclude([]Violation{violation(RuleCompile, reasonDefault, c.err.Error())})
	}
	a := &activation{ctx: ctx, vars: vars, params: overlay(c.params, vars.params), compiled: c}
	buf := make(traceBuffer, len(c.matchConditions)+len(c.variables)+len(c.validations))
	finish := func(vs []Violation) []Violation {
		t.Variables = a.traces(buf.take(len(c.variables)))
		return t.conclude(vs)
	}
	t.MatchConditions = buf.take(len(c.matchConditions))
	for _, m := range c.matchConditions {
		x := a.eval(m)
		t.MatchConditions = append(t.MatchConditions, x)
		if x.Error != "" {
			t.Matched = true
			return finish([]Violation{violation(m.name, reasonDefault, "match condition failed to evaluate: "+x.Error)})
		}
		if !x.Passed {
			return finish(nil)
		}
	}
	t.Matched = true
	var vs []Violation
	t.Validations = buf.take(len(c.validations))
	for _, v := range c.validations {
		x := a.eval(v.expression)
		switch {
		case x.Error != "":
			x.Message = "rule failed to evaluate: " + x.Error
		case !x.Passed:
			x.Message = a.message(v, &x)
		}
		t.Validations = append(t.Validations, x)
		if x.Message != "" {
			reason := v.reason
			if reason == "" {
				reason = reasonDefault
			}
			vs = append(vs, violation(v.name, reason, x.Message))
		}
	}
	return finish(vs)
}

// A traceBuffer hands out the room for the traces of a policy's expressions
// from one array.
type traceBuffer []ExprTrace

// take returns an empty slice with room for n traces; nil when n is 0.
func (b *traceBuffer) take(n int) []ExprTrace {
	if n == 0 {
		return nil
	}
	s := (*b)[:0:n]
	*b = (*b)[n:]
	return s
}

// conclude sets the policy's result and total cost from its evaluation and
// its violations vs, and returns vs.
func (t *PolicyTrace) conclude(vs []Violation) []Violation {
	for _, x := range [][]ExprTrace{t.MatchConditions, t.Variables, t.Validations} {
		for _, e := range x {
			t.Cost += e.Cost
		}
	}
	switch {
	case !t.Matched:
	case len(vs) == 0:
		t.Result = ResultAllowed
	default:
		t.Result = resultOf(t.Enforcement)
	}
	return vs
}

func resultOf(e v1alpha1.Enforcement) Result {
	switch e {
	case v1alpha1.EnforcementWarn:
		return ResultWarned
	case v1alpha1.EnforcementAudit:
		return ResultAudited
	default:
		return ResultDenied
	}
}

// conclude derives the result and message from the violations: any denial
// denies, else any warning warns, else any audit audits.
func (d *Decision) conclude() {
	d.Result, d.Allowed = ResultAllowed, true
	var decisive []Violation
	for _, want := range []Result{ResultDenied, ResultWarned, ResultAudited} {
		for _, v := range d.Violations {
			if resultOf(v.Enforcement) == want {
				decisive = append(decisive, v)
			}
		}
		if len(decisive) > 0 {
			d.Result = want
			break
		}
	}
	for _, v := range d.Violations {
		if v.Enforcement == v1alpha1.EnforcementWarn {
			d.Warnings = append(d.Warnings, v.Policy+"/"+v.Rule+": "+v.Message)
		}
	}
	// The subject, e.g. "exclude storage-3", in the message's one
	// concatenation.
	subject, sep, targets := verb(d.Action), "", ""
	if len(d.Targets) > 0 {
		sep, targets = " ", targetList(d.Targets)
	}
	if len(decisive) == 0 {
		d.Message = subject + sep + targets + " allowed"
		return
	}
	first := decisive[0]
	d.Allowed = d.Result != ResultDenied
	d.Policy, d.Rule, d.Reason = first.Policy, first.Rule, first.Reason
	d.Message = fmt.Sprintf("%s%s%s %s by %s/%s: %s", subject, sep, targets, strings.ToLower(string(d.Result)), first.Policy, first.Rule, first.Message)
	if n := len(decisive) - 1; n > 0 {
		d.Message += fmt.Sprintf(" (and %d more)", n)
	}
}

// verbs are the verbs of the action types decided so far: a decision's
// message needs one, and action types are few.
var verbs sync.Map

// verb turns an action type into lower-case words: ForceDeletePod becomes
// force-delete-pod.
func verb(a v1alpha1.ActionType) string {
	if v, ok := verbs.Load(a); ok {
		return v.(string)
	}
	v := words(a)
	verbs.Store(a, v)
	return v
}

// words turns an action type into lower-case words, hyphenated.
func words(a v1alpha1.ActionType) string {
	var b strings.Builder
	// Room for every letter and a hyphen before every word but the first:
	// one allocation.
	n := len(a)
	for i, r := range string(a) {
		if unicode.IsUpper(r) && i > 0 {
			n++
		}
	}
	b.Grow(n)
	for i, r := range string(a) {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// maxListedTargets is how many targets a message names.
const maxListedTargets = 5

func targetList(t []string) string {
	if len(t) <= maxListedTargets {
		return strings.Join(t, ",")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(t[:maxListedTargets], ","), len(t)-maxListedTargets)
}

// An activation resolves the CEL variables of one policy's evaluation. It
// evaluates the policy's variables lazily, once each, on first use.
type activation struct {
	ctx      context.Context
	vars     *inputVariables
	params   map[string]any
	compiled *Compiled
	// variables are the policy's variables, by declaration index; nil until
	// the first is evaluated.
	variables []evaluated
}

// An evaluated variable: its value and trace, once done.
type evaluated struct {
	done  bool
	value ref.Val
	trace ExprTrace
}

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch {
	case name == varParams:
		return a.params, true
	case strings.HasPrefix(name, varVariables):
		return a.variable(strings.TrimPrefix(name, varVariables))
	default:
		return a.vars.get(name)
	}
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation {
	return nil
}

func (a *activation) variable(name string) (ref.Val, bool) {
	for i, x := range a.compiled.variables {
		if x.name != name {
			continue
		}
		if a.variables == nil {
			a.variables = make([]evaluated, len(a.compiled.variables))
		}
		v := &a.variables[i]
		if !v.done {
			v.value, v.trace = a.evalValue(x)
			v.done = true
		}
		return v.value, true
	}
	return nil, false
}

// traces returns the traces of the variables evaluated, in declaration order.
// They are appended to out, which has room for all; nil when there are none.
func (a *activation) traces(out []ExprTrace) []ExprTrace {
	for _, v := range a.variables {
		if v.done {
			out = append(out, v.trace)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// evalValue evaluates an expression; an error becomes an error value.
func (a *activation) evalValue(x expression) (ref.Val, ExprTrace) {
	t := ExprTrace{Name: x.name, Expression: x.text}
	val, det, err := x.eval(a.ctx, a)
	if det != nil && det.ActualCost() != nil {
		t.Cost = *det.ActualCost()
	}
	if err != nil {
		t.Error = err.Error()
		return types.WrapErr(err), t
	}
	t.Value = render(val)
	return val, t
}

// eval evaluates x with the activation. Only an interruptible expression is
// evaluated with the context, which costs a cancellable context of its own
// (and an execution frame that tracks asynchronous calls) for every
// evaluation; without a comprehension, CEL would never look at it.
func (x expression) eval(ctx context.Context, a *activation) (ref.Val, *cel.EvalDetails, error) {
	if x.interruptible {
		return x.prg.ContextEval(ctx, a)
	}
	return x.prg.Eval(a)
}

// eval evaluates a bool expression.
func (a *activation) eval(x expression) ExprTrace {
	val, t := a.evalValue(x)
	if t.Error == "" {
		b, ok := val.(types.Bool)
		t.Passed = ok && bool(b)
		if !ok {
			t.Error = "expression evaluated to " + t.Value + ", not a bool"
		}
	}
	return t
}

// message is the message of a failed validation: its messageExpression's
// result, else its message, else the expression that failed. The cost of the
// messageExpression is added to the validation's trace.
func (a *activation) message(v validation, x *ExprTrace) string {
	if v.messageExpression != nil {
		val, t := a.evalValue(*v.messageExpression)
		x.Cost += t.Cost
		if s, ok := val.(types.String); ok && t.Error == "" && strings.TrimSpace(string(s)) != "" {
			return strings.Join(strings.Fields(string(s)), " ")
		}
	}
	if v.message != "" {
		return v.message
	}
	return "failed expression: " + v.text
}

// Bounds of a value rendered in a trace: rendering must stay cheap, since
// every evaluation renders its result.
const (
	maxRendered      = 256
	maxRenderedItems = 16
)

// maxExactInt is the largest int a float64 holds exactly along with every
// int below it (2^53-1, JavaScript's Number.MAX_SAFE_INTEGER).
const maxExactInt = 1<<53 - 1

// render renders a CEL value as JSON for a trace; a list or map of more than
// maxRenderedItems only by its size.
func render(v ref.Val) string {
	switch c := v.(type) {
	case types.Bool:
		// Most results are; spare them the conversion to JSON.
		return strconv.FormatBool(bool(c))
	case types.Int:
		// The conversion to JSON makes an int a number when a float64
		// holds it exactly, which renders as its digits.
		if c >= -maxExactInt && c <= maxExactInt {
			return strconv.FormatInt(int64(c), 10)
		}
	case traits.Lister, traits.Mapper:
		n, ok := c.(traits.Sizer).Size().(types.Int)
		switch {
		case ok && n > maxRenderedItems:
			return fmt.Sprintf("<%s of size %d>", v.Type().TypeName(), n)
		case ok && n == 0:
			// As JSON renders them, e.g. the result of a filter that
			// found nothing.
			if _, isList := c.(traits.Lister); isList {
				return "[]"
			}
			return "{}"
		}
	}
	var s string
	if n, err := v.ConvertToNative(reflect.TypeFor[*structpb.Value]()); err == nil {
		if b, err := json.Marshal(n.(*structpb.Value).AsInterface()); err == nil {
			s = string(b)
		}
	}
	if s == "" {
		s = fmt.Sprint(v.Value())
	}
	if len(s) > maxRendered {
		s = s[:maxRendered] + "..."
	}
	return s
}
