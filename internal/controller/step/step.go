// Package step is the shape every managed kind's reconcile takes: a pure
// planner turns the spec and what one reconcile observed into one Step — a
// mutation with the safety-policy action that gates it, or a wait that says
// why nothing can be done yet — and managedkind.Deps.Take runs it through
// the one gate-and-record path.
package step

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// A Step is the one thing a reconcile does.
type Step struct {
	// Reason is the reason of the event recorded when the step is taken;
	// empty for a wait.
	Reason event.Reason
	// Message says what the step does, or why it waits.
	Message string
	// Action is the safety-policy action that gates the step; nil for a
	// step no policy gates.
	Action *policy.Action
}

// Wait is a step that does nothing until the world changes; the message
// says why.
func Wait(format string, args ...any) Step {
	return Step{Message: fmt.Sprintf(format, args...)}
}

// Waits reports whether the step does nothing.
func (s Step) Waits() bool { return s.Reason == "" }

// A Mutation is one step a controller took, with the decision that let it:
// what the journal of the controllers' options receives.
type Mutation struct {
	// Kind, Namespace and Name name the resource that acted.
	Kind, Namespace, Name string
	// Step is the step taken.
	Step Step
	// Decision is the safety-policy decision on the step's action; nil for
	// a step no policy gates.
	Decision *v1alpha1.PolicyDecision
	// Err is what the mutation returned.
	Err error
}
