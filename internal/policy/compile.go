package policy

import (
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

const errCompilePolicy = "cannot compile SafetyPolicy %s"

// A Policy is a SafetyPolicy as the engine sees it.
type Policy struct {
	// Name of the policy.
	Name string
	// Key identifies this version of the policy in the engine's cache:
	// UID and generation of an object, a hash of a manifest's content.
	Key string
	// Spec is the policy's spec.
	Spec v1alpha1.SafetyPolicySpec

	// missing, when set, marks a policy a cluster selects that does not
	// exist, and says why; it denies every action with that message.
	missing string
	// builtin marks a policy built into the provider (ParseBuiltin).
	builtin bool
}

// Compiled is a policy compiled into CEL programs. A policy that did not
// compile still knows its actions and enforcement: it fails closed, turning
// every action it applies to into a violation.
type Compiled struct {
	Policy
	params          map[string]any
	matchConditions []expression
	variables       []expression
	validations     []validation
	err             error
}

// An expression is a named, compiled CEL expression.
type expression struct {
	name string
	text string
	prg  cel.Program
	// interruptible is true when the expression has a comprehension, the
	// only place where CEL checks whether the context is cancelled, and its
	// cost is not bounded by the estimate (see Engine.expression).
	interruptible bool
}

// A validation is a compiled rule.
type validation struct {
	expression
	message           string
	messageExpression *expression
	reason            string
}

// Err is why the policy did not compile, or nil.
func (c *Compiled) Err() error {
	return c.err
}

// AppliesTo reports whether the policy's actions include a.
func (p *Policy) AppliesTo(a v1alpha1.ActionType) bool {
	for _, t := range p.Spec.Actions {
		if t == a || t == v1alpha1.ActionAll {
			return true
		}
	}
	return false
}

// enforcement is the policy's enforcement, Deny when unset.
func (p *Policy) enforcement() v1alpha1.Enforcement {
	if p.Spec.Enforcement == "" {
		return v1alpha1.EnforcementDeny
	}
	return p.Spec.Enforcement
}

// compile compiles a policy; problems end up in the result's Err.
func (e *Engine) compile(p Policy) *Compiled {
	c := &Compiled{Policy: p}
	if p.missing != "" {
		c.err = errors.New(p.missing)
		return c
	}
	var problems []string
	params, err := DecodeParams(p.Spec.Params)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if params == nil {
		// Never nil, so that a decision without the cluster's params uses
		// them as they are (see overlay).
		params = map[string]any{}
	}
	c.params = params

	env := e.env
	track := e.tracksCost(p)
	for _, v := range p.Spec.Variables {
		x, t, err := e.expression(env, v.Name, v.Expression, nil, track)
		if err != nil {
			problems = append(problems, fmt.Sprintf("variable %q: %s", v.Name, err))
			continue
		}
		c.variables = append(c.variables, x)
		if env, err = env.Extend(cel.Variable(varVariables+v.Name, t)); err != nil {
			problems = append(problems, fmt.Sprintf("variable %q: %s", v.Name, err))
		}
	}
	for _, m := range p.Spec.MatchConditions {
		x, _, err := e.expression(env, m.Name, m.Expression, cel.BoolType, track)
		if err != nil {
			problems = append(problems, fmt.Sprintf("match condition %q: %s", m.Name, err))
			continue
		}
		c.matchConditions = append(c.matchConditions, x)
	}
	for _, v := range p.Spec.Validations {
		val := validation{message: v.Message, reason: v.Reason}
		x, _, err := e.expression(env, v.Name, v.Expression, cel.BoolType, track)
		if err != nil {
			problems = append(problems, fmt.Sprintf("validation %q: %s", v.Name, err))
		}
		val.expression = x
		if v.MessageExpression != "" {
			mx, _, err := e.expression(env, v.Name, v.MessageExpression, cel.StringType, track)
			if err != nil {
				problems = append(problems, fmt.Sprintf("validation %q messageExpression: %s", v.Name, err))
			}
			val.messageExpression = &mx
		}
		c.validations = append(c.validations, val)
	}
	if len(problems) > 0 {
		c.err = errors.Errorf(errCompilePolicy+": %s", p.Name, strings.Join(problems, "; "))
	}
	return c
}

// tracksCost reports whether the expressions of p are evaluated with runtime
// cost tracking, and so with the runtime cost limit (see expression).
func (e *Engine) tracksCost(p Policy) bool {
	return !p.builtin || e.builtinCosts
}

// expression compiles one expression, checks its type against want (any
// type when nil) and its estimated cost, and returns it and its type. When it
// does not compile, the expression has no program.
//
// Its program tracks the runtime cost of every step and stops at the runtime
// cost limit, and its comprehensions stop when the decision's context is
// cancelled, unless track is false (a built-in policy) and the estimated
// worst-case cost is within that limit: then the estimate bounds it, as far
// as the input keeps to the sizes the estimate assumes, and the tracking and
// the context checks, about half of a decision's time, are spared.
func (e *Engine) expression(env *cel.Env, name, text string, want *cel.Type, track bool) (expression, *cel.Type, error) {
	x := expression{name: name, text: text}
	a, iss := env.Compile(text)
	if iss.Err() != nil {
		return x, nil, errors.New(strings.TrimSpace(iss.Err().Error()))
	}
	if want != nil && !a.OutputType().IsExactType(want) {
		return x, nil, errors.Errorf("must evaluate to %s, not %s: %s", want, a.OutputType(), text)
	}
	est, err := env.EstimateCost(a, sizeEstimator{})
	if err != nil {
		return x, nil, err
	}
	if est.Max > e.staticCostLimit {
		return x, nil, errors.Errorf("estimated worst-case cost %d exceeds the limit %d: %s", est.Max, e.staticCostLimit, text)
	}
	bounded := !track && est.Max <= e.runtimeCostLimit
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	if !bounded {
		x.interruptible = hasComprehension(a)
		opts = append(opts, cel.CostLimit(e.runtimeCostLimit), cel.InterruptCheckFrequency(interruptCheckFrequency))
	}
	prg, err := env.Program(a, opts...)
	if err != nil {
		return x, nil, err
	}
	x.prg = prg
	return x, a.OutputType(), nil
}

// interruptCheckFrequency is how many iterations of a comprehension CEL
// evaluates between checks of the context.
const interruptCheckFrequency = 100

// hasComprehension reports whether a checked expression has a comprehension,
// e.g. a macro such as all or filter.
func hasComprehension(a *cel.Ast) bool {
	return len(ast.MatchDescendants(ast.NavigateAST(a.NativeRep()), ast.KindMatcher(ast.ComprehensionKind))) > 0
}
