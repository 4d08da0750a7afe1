// Package gate is the single choke point a controller passes before it
// mutates a FoundationDB cluster: it decides with the safety policies in
// effect and records the decision as a condition on the managed resource, a
// Warning event, a metric and a PolicyDecision for its status.
package gate

import (
	"context"
	"slices"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
)

// TypePolicyAllowed is the condition a gate sets on the managed resource:
// True when its last gated action was allowed (possibly with warnings),
// False while a policy denies it. A condition of its own rather than
// UpToDate, because a gate also blocks creations, deletions and the
// provider's own operations (exclusions, kills), not only spec updates.
const TypePolicyAllowed xpv2.ConditionType = "PolicyAllowed"

// Reasons of the PolicyAllowed condition and of the gate's events.
const (
	ReasonPolicyAllowed = "PolicyAllowed"
	ReasonPolicyWarned  = "PolicyWarned"
	ReasonPolicyDenied  = "PolicyDenied"
)

// decisions counts decisions per policy that applied; policy is empty when
// none did.
var decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "fdb_policy_decisions_total",
	Help: "Safety-policy decisions on FoundationDB mutations, per policy that applied, action and result.",
}, []string{"policy", "action", "result"})

func init() {
	metrics.Registry.MustRegister(decisions)
}

// A Source lists the SafetyPolicy objects in effect. It fails while it
// cannot tell them all, e.g. before their informer synced, and with
// policy.ErrKindInactive while the SafetyPolicy kind is not active (no
// object can exist then).
type Source interface {
	List(ctx context.Context) ([]policy.Policy, error)
}

// A Gate decides on mutations and records its decisions.
type Gate struct {
	engine   *policy.Engine
	source   Source
	defaults []policy.Policy
	recorder event.Recorder
}

// New returns a gate that decides with engine e on the defaults and the
// policies of source, and records events with r.
func New(r event.Recorder, e *policy.Engine, source Source) (*Gate, error) {
	d, err := defaults.Policies()
	if err != nil {
		return nil, err
	}
	return &Gate{engine: e, source: source, defaults: d, recorder: r}, nil
}

// A DeniedError says a policy denied an action.
type DeniedError struct {
	Decision policy.Decision
}

// Error returns the decision's message.
func (e *DeniedError) Error() string {
	return e.Decision.Message
}

// IsDenied reports whether err is or wraps a *DeniedError.
func IsDenied(err error) bool {
	var d *DeniedError
	return errors.As(err, &d)
}

// Check decides on in.Action and records the decision. It fails closed: an
// action that needs the database status is denied when in was built without
// one, and every action is denied while the SafetyPolicy objects cannot be
// listed. Otherwise it decides with the policies in effect for the
// cluster: the defaults, replaced or joined by SafetyPolicy objects as
// policy.Assemble says. While the SafetyPolicy kind is not active, the
// defaults decide, and a cluster that selects a SafetyPolicy by name is
// denied every action, with a message that names the policy and says that
// the kind is not active (policy.AssembleInactive). It sets the
// PolicyAllowed condition on mg, emits a Warning event when the action is
// denied or warned about, and counts the decision. It returns the record for status.atProvider.lastPolicyDecision
// and, when the action is denied, a *DeniedError.
func (g *Gate) Check(ctx context.Context, mg resource.Managed, in policy.Input) (*fdbv1alpha1.PolicyDecision, error) {
	d, policies := g.decide(ctx, in)
	count(d)
	mg.SetConditions(Condition(d, mg.GetGeneration()))
	record := Record(d)
	var err error
	switch {
	case d.Result == policy.ResultDenied:
		err = &DeniedError{Decision: d}
		record.AllowedAt = g.allowedAt(ctx, d, policies, in)
		if !repeats(mg, record) {
			g.recorder.Event(mg, event.Warning(ReasonPolicyDenied, err))
		}
	case d.Result == policy.ResultWarned && !repeats(mg, record):
		g.recorder.Event(mg, event.Warning(ReasonPolicyWarned, errors.New(d.Message)))
	}
	return record, err
}

// repeats reports whether d decides as the decision mg recorded last
// (action, targets, result, rule and message): a step denied for the same
// reason on every retry says so once in an event — the condition and
// atProvider.lastPolicyDecision say since when — and does not spend the
// object's event budget, which Kubernetes keeps small (client-go drops an
// object's events beyond it, the steps' own among them).
func repeats(mg resource.Managed, d *fdbv1alpha1.PolicyDecision) bool {
	r, ok := mg.(interface {
		GetLastPolicyDecision() *fdbv1alpha1.PolicyDecision
	})
	return ok && Alike(r.GetLastPolicyDecision(), d)
}

// Alike reports whether two recorded decisions decide alike: the same
// action, targets, result, rule and message, whenever they were taken.
func Alike(a, b *fdbv1alpha1.PolicyDecision) bool {
	return a != nil && b != nil && a.Action == b.Action && slices.Equal(a.Targets, b.Targets) &&
		a.Result == b.Result && a.Rule == b.Rule && a.Message == b.Message
}

// allowedAt is when policies would allow the action d denied if nothing
// but the clock moved; nil when they would not within a day, or d is a
// decision of the provider's rules of evidence (policies nil).
func (g *Gate) allowedAt(ctx context.Context, d policy.Decision, policies []policy.Policy, in policy.Input) *metav1.Time {
	if policies == nil {
		return nil
	}
	after, ok := g.engine.AllowedAfter(ctx, policies, in)
	if !ok {
		return nil
	}
	return &metav1.Time{Time: d.Time.Add(after).Truncate(time.Second)}
}

// decide decides on in and returns the policies that decided: nil for the
// provider's own rules of evidence, which time alone never satisfies.
func (g *Gate) decide(ctx context.Context, in policy.Input) (policy.Decision, []policy.Policy) {
	if !in.Observed && in.Action.RequiresStatus() {
		return g.engine.Unobserved(in), nil
	}
	objects, err := g.source.List(ctx)
	var policies []policy.Policy
	switch {
	case errors.Is(err, policy.ErrKindInactive):
		policies = policy.AssembleInactive(g.defaults, in.Policies)
	case err != nil:
		return g.engine.Unloaded(in, err), nil
	default:
		policies = policy.Assemble(g.defaults, objects, in.Policies)
	}
	return g.engine.Decide(ctx, policies, in), policies
}

// Condition is the PolicyAllowed condition that describes a decision.
func Condition(d policy.Decision, generation int64) xpv2.Condition {
	c := xpv2.Condition{
		Type:               TypePolicyAllowed,
		Status:             corev1.ConditionTrue,
		Reason:             ReasonPolicyAllowed,
		Message:            d.Message,
		LastTransitionTime: metav1.NewTime(d.Time),
		ObservedGeneration: generation,
	}
	switch d.Result {
	case policy.ResultDenied:
		c.Status, c.Reason = corev1.ConditionFalse, ReasonPolicyDenied
	case policy.ResultWarned:
		c.Reason = ReasonPolicyWarned
	}
	return c
}

// Record is the PolicyDecision that records a decision in a resource's
// status.
func Record(d policy.Decision) *fdbv1alpha1.PolicyDecision {
	r := &fdbv1alpha1.PolicyDecision{
		Action:  string(d.Action),
		Targets: d.Targets,
		Result:  string(d.Result),
		Message: d.Message,
		Time:    metav1.NewTime(d.Time),
	}
	if d.Policy != "" {
		r.Rule = d.Policy + "/" + d.Rule
	}
	return r
}

// count adds the decision to the metric, once per policy that applied; a
// decision no policy applied to counts under the provider's evidence rule
// that decided it, or under no policy.
func count(d policy.Decision) {
	counted := false
	for _, t := range d.Trace {
		if t.Matched {
			decisions.WithLabelValues(t.Policy, string(d.Action), string(t.Result)).Inc()
			counted = true
		}
	}
	if !counted {
		decisions.WithLabelValues(d.Policy, string(d.Action), string(d.Result)).Inc()
	}
}

// Param is the value of parameter key of policy name in effect for the
// cluster of in (the defaults, replaced or joined by SafetyPolicy objects
// as Check assembles them; the Cluster's params over the policy's): for a
// step that is not a mutation but follows a policy's parameter, e.g. how
// early a certificate's expiry is warned of. False when the policies
// cannot be listed, or the policy or its parameter is not there.
func (g *Gate) Param(ctx context.Context, in policy.Input, name, key string) (any, bool) {
	objects, err := g.source.List(ctx)
	switch {
	case errors.Is(err, policy.ErrKindInactive):
		return policy.Param(policy.AssembleInactive(g.defaults, in.Policies), name, key, in)
	case err != nil:
		return nil, false
	}
	return policy.Param(policy.Assemble(g.defaults, objects, in.Policies), name, key, in)
}
