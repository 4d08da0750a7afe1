package policy

import (
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/cel-go/cel"

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
func (c *Compiled) AppliesTo(a v1alpha1.ActionType) bool {
	for _, t := range c.Spec.Actions {
		if t == a || t == v1alpha1.ActionAll {
			return true
		}
	}
	return false
}

// enforcement is the policy's enforcement, Deny when unset.
func (c *Compiled) enforcement() v1alpha1.Enforcement {
	if c.Spec.Enforcement == "" {
		return v1alpha1.EnforcementDeny
	}
	return c.Spec.Enforcement
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
	for _, v := range p.Spec.Variables {
		x, t, err := e.program(env, v.Expression, nil)
		if err != nil {
			problems = append(problems, fmt.Sprintf("variable %q: %s", v.Name, err))
			continue
		}
		c.variables = append(c.variables, expression{name: v.Name, text: v.Expression, prg: x})
		if env, err = env.Extend(cel.Variable(varVariables+v.Name, t)); err != nil {
			problems = append(problems, fmt.Sprintf("variable %q: %s", v.Name, err))
		}
	}
	for _, m := range p.Spec.MatchConditions {
		x, _, err := e.program(env, m.Expression, cel.BoolType)
		if err != nil {
			problems = append(problems, fmt.Sprintf("match condition %q: %s", m.Name, err))
			continue
		}
		c.matchConditions = append(c.matchConditions, expression{name: m.Name, text: m.Expression, prg: x})
	}
	for _, v := range p.Spec.Validations {
		val := validation{message: v.Message, reason: v.Reason}
		x, _, err := e.program(env, v.Expression, cel.BoolType)
		if err != nil {
			problems = append(problems, fmt.Sprintf("validation %q: %s", v.Name, err))
		}
		val.expression = expression{name: v.Name, text: v.Expression, prg: x}
		if v.MessageExpression != "" {
			mx, _, err := e.program(env, v.MessageExpression, cel.StringType)
			if err != nil {
				problems = append(problems, fmt.Sprintf("validation %q messageExpression: %s", v.Name, err))
			}
			val.messageExpression = &expression{name: v.Name, text: v.MessageExpression, prg: mx}
		}
		c.validations = append(c.validations, val)
	}
	if len(problems) > 0 {
		c.err = errors.Errorf(errCompilePolicy+": %s", p.Name, strings.Join(problems, "; "))
	}
	return c
}

// program compiles one expression, checks its type against want (any type
// when nil) and its estimated cost, and returns the program and its type.
func (e *Engine) program(env *cel.Env, text string, want *cel.Type) (cel.Program, *cel.Type, error) {
	ast, iss := env.Compile(text)
	if iss.Err() != nil {
		return nil, nil, errors.New(strings.TrimSpace(iss.Err().Error()))
	}
	if want != nil && !ast.OutputType().IsExactType(want) {
		return nil, nil, errors.Errorf("must evaluate to %s, not %s: %s", want, ast.OutputType(), text)
	}
	est, err := env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return nil, nil, err
	}
	if est.Max > e.staticCostLimit {
		return nil, nil, errors.Errorf("estimated worst-case cost %d exceeds the limit %d: %s", est.Max, e.staticCostLimit, text)
	}
	prg, err := env.Program(ast,
		cel.CostLimit(e.runtimeCostLimit),
		cel.EvalOptions(cel.OptOptimize),
		cel.InterruptCheckFrequency(100),
	)
	return prg, ast.OutputType(), err
}
