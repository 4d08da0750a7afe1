package policy

import (
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

// The provider's own rules, which no SafetyPolicy replaces: a decision needs
// its evidence. They are reported as <ProviderPolicy>/<rule>.
const (
	// ProviderPolicy names the provider's built-in evidence rules in
	// decisions.
	ProviderPolicy = "provider"
	// RuleStatusObserved: the action needs the database status read in the
	// same reconcile.
	RuleStatusObserved = "status-observed"
	// RulePoliciesLoaded: the SafetyPolicy objects must be loaded.
	RulePoliciesLoaded = "policies-loaded"

	msgStatusNotObserved = "the database status could not be read in this reconcile, and no decision rests on an earlier one"
	msgPoliciesNotLoaded = "the SafetyPolicy objects are not loaded yet: "
)

// RequiresStatus reports whether deciding on the action needs the database
// status read in the same reconcile. Every action does, but creating a
// process group, deleting a whole database (a matter of the spec: a dead
// database can be deleted too), and the two steps that make a database that
// does not exist yet: its first coordinators and `configure new`.
func (a Action) RequiresStatus() bool {
	switch {
	case a.Type == v1alpha1.ActionCreateProcessGroup, a.Type == v1alpha1.ActionDeleteCluster:
		return false
	case a.Type == v1alpha1.ActionChangeCoordinators && a.Details[DetailInitial] == true:
		return false
	case a.Type == v1alpha1.ActionConfigureDatabase && a.Details[DetailNewDatabase] == true:
		return false
	}
	return true
}

// Unobserved is the denial of an action that RequiresStatus when the input
// was built without a status.
func (e *Engine) Unobserved(in Input) Decision {
	return e.refuse(in.Action, RuleStatusObserved, msgStatusNotObserved)
}

// Unloaded is the denial of an action while the SafetyPolicy objects could
// not be listed, e.g. before their informer synced after a restart: a
// stricter replacement of a default or an org-wide policy might not be in
// force yet.
func (e *Engine) Unloaded(in Input, err error) Decision {
	return e.refuse(in.Action, RulePoliciesLoaded, msgPoliciesNotLoaded+err.Error())
}

// refuse is a denial by one of the provider's evidence rules.
func (e *Engine) refuse(a Action, rule, msg string) Decision {
	d := Decision{Action: a.Type, Targets: a.Targets, Time: e.clock.Now(), Violations: []Violation{{
		Policy: ProviderPolicy, Rule: rule, Enforcement: v1alpha1.EnforcementDeny, Reason: reasonDefault, Message: msg,
	}}}
	d.conclude()
	return d
}
