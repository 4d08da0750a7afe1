package chaos

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// gatedBy are the actions whose allowing decision lets an admin call of
// each operation reach a database, and whether the decision's targets
// must name the call's process groups (by) or its arguments (args). An
// operation not here (the global lock's, which the gate itself takes) is
// not gated.
var gatedBy = map[sim.Op]struct {
	actions []v1alpha1.ActionType
	by      targetsOf
}{
	sim.OpExclude:       {[]v1alpha1.ActionType{v1alpha1.ActionExclude}, byGroups},
	sim.OpInclude:       {[]v1alpha1.ActionType{v1alpha1.ActionInclude}, byGroups},
	sim.OpKill:          {[]v1alpha1.ActionType{v1alpha1.ActionKill, v1alpha1.ActionUpgrade}, byGroups},
	sim.OpCoordinators:  {[]v1alpha1.ActionType{v1alpha1.ActionChangeCoordinators}, byArgs},
	sim.OpConfigure:     {[]v1alpha1.ActionType{v1alpha1.ActionConfigureDatabase, v1alpha1.ActionFailoverRegion}, byNothing},
	sim.OpForceRecovery: {[]v1alpha1.ActionType{v1alpha1.ActionFailoverRegion}, byArgs},
	sim.OpMaintenance:   {[]v1alpha1.ActionType{v1alpha1.ActionSetMaintenance, v1alpha1.ActionResetMaintenance}, byNothing},
	sim.OpStartBackup:   {[]v1alpha1.ActionType{v1alpha1.ActionStartBackup}, byFirstArg},
	sim.OpStopBackup:    {[]v1alpha1.ActionType{v1alpha1.ActionStopBackup}, byFirstArg},
	sim.OpModifyBackup:  {[]v1alpha1.ActionType{v1alpha1.ActionModifyBackup}, byFirstArg},
	sim.OpPauseBackups:  {[]v1alpha1.ActionType{v1alpha1.ActionPauseBackup}, byNothing},
	// A stopped backup's agents are resumed with it.
	sim.OpResumeBackups: {[]v1alpha1.ActionType{v1alpha1.ActionResumeBackup, v1alpha1.ActionStopBackup}, byNothing},
	sim.OpStartRestore:  {[]v1alpha1.ActionType{v1alpha1.ActionStartRestore}, byFirstArg},
	sim.OpAbortRestore:  {[]v1alpha1.ActionType{v1alpha1.ActionAbortRestore}, byFirstArg},
	// The way back from lost coordinators copies files and restarts pods
	// by process ID.
	sim.OpCopyCoordinationFiles: {[]v1alpha1.ActionType{v1alpha1.ActionRecoverCoordinators}, byNothing},
	sim.OpRestartOnClusterFile:  {[]v1alpha1.ActionType{v1alpha1.ActionRecoverCoordinators}, byNothing},
}

// targetsOf returns what of a call a decision's targets must name.
type targetsOf func(sim.AdminCall) []string

func byGroups(c sim.AdminCall) []string { return c.Groups }
func byArgs(c sim.AdminCall) []string   { return c.Args }
func byFirstArg(c sim.AdminCall) []string {
	return c.Args[:min(1, len(c.Args))]
}
func byNothing(sim.AdminCall) []string { return nil }

// allowing are the results of a decision that let its step run.
var allowing = []string{string(policy.ResultAllowed), string(policy.ResultWarned), string(policy.ResultAudited)}

// checkAdminCalls: every admin call that reached a database, as the
// simulator recorded it (not as the provider journaled it), was allowed by
// a decision in force on one of the run's managed resources as the API
// server stores them after the step, or as the step wrote them (a
// resource the step deleted): a decision of an action that gates the
// call, with a result that lets it run, whose targets name what the call
// acts on. Each exclusion is also held to the exclusion budget
// (checkExclusionBudget).
func (r *run) checkAdminCalls(before map[string]*database, writes []write) {
	if r.checks.callsSeen == nil {
		r.checks.callsSeen = map[*sim.Sim]int{}
	}
	decisions := r.decisionsInForce(writes)
	for _, db := range r.reached() {
		calls := db.AdminCalls(r.checks.callsSeen[db])
		r.checks.callsSeen[db] += len(calls)
		for _, c := range calls {
			if c.Op == sim.OpExclude {
				r.checkExclusionBudget(before, c)
			}
			gate, gated := gatedBy[c.Op]
			if !gated {
				continue
			}
			r.report.Checks++
			if !slices.ContainsFunc(decisions, func(d *fdbv1alpha1.PolicyDecision) bool {
				return slices.Contains(gate.actions, v1alpha1.ActionType(d.Action)) && slices.Contains(allowing, d.Result) &&
					!slices.ContainsFunc(gate.by(c), func(t string) bool { return !slices.Contains(d.Targets, t) })
			}) {
				r.violate("ungated-admin-call", fmt.Sprintf("the database took %s %s (groups %s) with no decision in force that allows it",
					c.Op, strings.Join(c.Args, " "), strings.Join(c.Groups, ",")))
			}
		}
	}
}

// reached returns every database the provider reached in the run, once.
func (r *run) reached() []*sim.Sim {
	var out []*sim.Sim
	for _, name := range slices.Sorted(maps.Keys(r.used)) {
		if db := r.used[name]; db != nil && !slices.Contains(out, db) {
			out = append(out, db)
		}
	}
	return out
}

// decisionsInForce are the last decisions recorded on the run's managed
// resources: as stored after the step, and as the step wrote them.
func (r *run) decisionsInForce(writes []write) []*fdbv1alpha1.PolicyDecision {
	type decider interface {
		client.Object
		GetLastPolicyDecision() *fdbv1alpha1.PolicyDecision
	}
	var out []*fdbv1alpha1.PolicyDecision
	add := func(o client.Object) {
		if d, ok := o.(decider); ok && d.GetLastPolicyDecision() != nil {
			out = append(out, d.GetLastPolicyDecision())
		}
	}
	for _, gvk := range []schema.GroupVersionKind{clusterKind, groupKind, backupKind, restoreKind} {
		for _, o := range r.hist.latest()[gvk] {
			add(o)
		}
	}
	for _, w := range writes {
		add(w.obj)
	}
	return out
}
