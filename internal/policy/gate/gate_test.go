package gate

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

type recorder struct{ events []event.Event }

func (r *recorder) Event(_ runtime.Object, e event.Event)    { r.events = append(r.events, e) }
func (r *recorder) WithAnnotations(...string) event.Recorder { return r }

var now = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func exclude(available bool) policy.Input {
	return policy.Input{
		Action:        policy.Action{Type: v1alpha1.ActionExclude, Targets: []string{"storage-1"}, ProcessClass: "storage"},
		Cluster:       policy.Cluster{Available: available, ActiveGenerations: 1, SecondsSinceLastRecovery: 3600, DesiredCounts: map[string]int64{"storage": 1}, DesiredFaultTolerance: 1},
		ProcessGroups: []policy.ProcessGroup{{ID: "storage-1", Class: "storage", Reporting: true}},
		Observed:      true,
	}
}

// unlisted is a source that cannot list the policies yet.
type unlisted struct{}

func (unlisted) List(context.Context) ([]policy.Policy, error) {
	return nil, errors.New("the SafetyPolicy informer has not synced")
}

// inactive is a source while the SafetyPolicy kind is not active.
type inactive struct{}

func (inactive) List(context.Context) ([]policy.Policy, error) {
	return nil, errors.Wrap(policy.ErrKindInactive, "cannot list SafetyPolicies")
}

func manifest(t *testing.T, doc string) policy.Policy {
	t.Helper()
	p, err := policy.ParseManifest([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheck(t *testing.T) {
	warn := `{"apiVersion": "foundationdb.crossplane.io/v1alpha1", "kind": "SafetyPolicy", "metadata": {"name": "team"},
		"spec": {"actions": ["Exclude"], "enforcement": "Warn", "validations": [{"name": "quiet-hours", "expression": "false", "message": "outside the change window"}]}}`
	denied := "exclude storage-1 denied by fdb-database-health/database-available: the database is not available"
	waiting := "include storage-1 denied by fdb-inclusion/min-recovery-time: the last recovery was less than 600s ago"
	warned := "exclude storage-1 warned by team/quiet-hours: outside the change window"
	unobserved := "exclude storage-1 denied by provider/status-observed: the database status could not be read in this reconcile, and no decision rests on an earlier one"
	unloaded := "exclude storage-1 denied by provider/policies-loaded: the SafetyPolicy objects are not loaded yet: the SafetyPolicy informer has not synced"
	held := "exclude storage-1 denied by team/(compile): SafetyPolicy team is selected by the cluster but cannot exist: the SafetyPolicy kind foundationdb.crossplane.io/v1alpha1 is not active: " +
		"activate safetypolicies.foundationdb.crossplane.io with a ManagedResourceActivationPolicy, or install its CRD"
	selecting := func(in policy.Input, names ...string) policy.Input { in.Policies = names; return in }

	type want struct {
		denied    bool
		record    *fdbv1alpha1.PolicyDecision
		condition xpv2.Condition
		events    []event.Event
		metric    [3]string
	}
	deniedRecord := &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "fdb-database-health/database-available", Message: denied, Time: metav1.NewTime(now)}
	cases := map[string]struct {
		reason string
		source Source
		in     policy.Input
		// recorded is the decision the resource recorded last.
		recorded *fdbv1alpha1.PolicyDecision
		want     want
	}{
		"DeniedAgain": {
			reason:   "A denial alike the one recorded last (a retry) emits no event: the condition and the record say it, since when.",
			in:       exclude(false),
			recorded: &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "fdb-database-health/database-available", Message: denied, Time: metav1.NewTime(now.Add(-time.Hour))},
			want: want{
				denied:    true,
				record:    deniedRecord,
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: denied, ObservedGeneration: 7},
				metric:    [3]string{"fdb-database-health", "Exclude", "Denied"},
			},
		},
		"DeniedAnew": {
			reason:   "A denial for another reason than the one recorded emits its event.",
			in:       exclude(false),
			recorded: &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "fdb-exclusion/exclusion-budget", Message: "over budget", Time: metav1.NewTime(now)},
			want: want{
				denied:    true,
				record:    deniedRecord,
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: denied, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyDenied, errors.New(denied))},
				metric:    [3]string{"fdb-database-health", "Exclude", "Denied"},
			},
		},
		"Denied": {
			reason: "A denial returns a DeniedError, sets PolicyAllowed=False, emits a Warning and is counted.",
			in:     exclude(false),
			want: want{
				denied:    true,
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "fdb-database-health/database-available", Message: denied, Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: denied, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyDenied, errors.New(denied))},
				metric:    [3]string{"fdb-database-health", "Exclude", "Denied"},
			},
		},
		"DeniedUntilAnAgePasses": {
			reason: "A denial that the clock alone ends records when: here the inclusion delay's 600 s after a recovery 42 s ago.",
			in: func() policy.Input {
				in := exclude(true)
				in.Action.Type, in.Cluster.SecondsSinceLastRecovery, in.Cluster.RecoveryState = v1alpha1.ActionInclude, 42, "fully_recovered"
				return in
			}(),
			want: want{
				denied: true,
				record: &fdbv1alpha1.PolicyDecision{Action: "Include", Targets: []string{"storage-1"}, Result: "Denied", Rule: "fdb-inclusion/min-recovery-time", Message: waiting,
					Time: metav1.NewTime(now), AllowedAt: &metav1.Time{Time: now.Add(558 * time.Second)}},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: waiting, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyDenied, errors.New(waiting))},
				metric:    [3]string{"fdb-inclusion", "Include", "Denied"},
			},
		},
		"Warned": {
			reason: "A Warn policy's failure allows, sets PolicyAllowed=True/PolicyWarned and emits a Warning.",
			source: policy.Static{manifest(t, warn)},
			in:     exclude(true),
			want: want{
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Warned", Rule: "team/quiet-hours", Message: warned, Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionTrue, Reason: ReasonPolicyWarned, Message: warned, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyWarned, errors.New(warned))},
				metric:    [3]string{"team", "Exclude", "Warned"},
			},
		},
		"Allowed": {
			reason: "An allowed action sets PolicyAllowed=True and emits no event.",
			in:     exclude(true),
			want: want{
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Allowed", Message: "exclude storage-1 allowed", Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionTrue, Reason: ReasonPolicyAllowed, Message: "exclude storage-1 allowed", ObservedGeneration: 7},
				metric:    [3]string{"fdb-exclusion", "Exclude", "Allowed"},
			},
		},
		"StatusNotObserved": {
			reason: "An action that needs the database status is denied when none was read in this reconcile, whatever the policies say.",
			in:     func() policy.Input { in := exclude(true); in.Observed = false; return in }(),
			want: want{
				denied:    true,
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "provider/status-observed", Message: unobserved, Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: unobserved, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyDenied, errors.New(unobserved))},
				metric:    [3]string{"provider", "Exclude", "Denied"},
			},
		},
		"PoliciesNotLoaded": {
			reason: "Every action is denied while the SafetyPolicy objects cannot be listed: a stricter one may not be in force yet.",
			source: unlisted{},
			in:     exclude(true),
			want: want{
				denied:    true,
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "provider/policies-loaded", Message: unloaded, Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: unloaded, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyDenied, errors.New(unloaded))},
				metric:    [3]string{"provider", "Exclude", "Denied"},
			},
		},
		"KindInactive": {
			reason: "While the SafetyPolicy kind is not active, the defaults decide for a cluster that selects no policy by name.",
			source: inactive{},
			in:     exclude(true),
			want: want{
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Allowed", Message: "exclude storage-1 allowed", Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionTrue, Reason: ReasonPolicyAllowed, Message: "exclude storage-1 allowed", ObservedGeneration: 7},
				metric:    [3]string{"fdb-exclusion", "Exclude", "Allowed"},
			},
		},
		"KindInactiveDefaultSelected": {
			reason: "While the SafetyPolicy kind is not active, selecting a default by name needs no object.",
			source: inactive{},
			in:     selecting(exclude(true), "fdb-exclusion"),
			want: want{
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Allowed", Message: "exclude storage-1 allowed", Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionTrue, Reason: ReasonPolicyAllowed, Message: "exclude storage-1 allowed", ObservedGeneration: 7},
				metric:    [3]string{"fdb-exclusion", "Exclude", "Allowed"},
			},
		},
		"KindInactivePolicySelected": {
			reason: "While the SafetyPolicy kind is not active, a cluster that selects a policy by name is held, and told which policy and that the kind is not active.",
			source: inactive{},
			in:     selecting(exclude(true), "team"),
			want: want{
				denied:    true,
				record:    &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-1"}, Result: "Denied", Rule: "team/(compile)", Message: held, Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionFalse, Reason: ReasonPolicyDenied, Message: held, ObservedGeneration: 7},
				events:    []event.Event{event.Warning(ReasonPolicyDenied, errors.New(held))},
				metric:    [3]string{"team", "Exclude", "Denied"},
			},
		},
		"NoPolicyApplies": {
			reason: "A decision no policy applied to is counted without a policy.",
			in:     policy.Input{Action: policy.Action{Type: v1alpha1.ActionCreateProcessGroup}},
			want: want{
				record:    &fdbv1alpha1.PolicyDecision{Action: "CreateProcessGroup", Result: "Allowed", Message: "create-process-group allowed", Time: metav1.NewTime(now)},
				condition: xpv2.Condition{Type: TypePolicyAllowed, Status: corev1.ConditionTrue, Reason: ReasonPolicyAllowed, Message: "create-process-group allowed", ObservedGeneration: 7},
				metric:    [3]string{"", "CreateProcessGroup", "Allowed"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e, err := policy.NewEngine(policy.WithClock(clocktesting.NewFakePassiveClock(now)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.source == nil {
				tc.source = policy.Static{}
			}
			rec := &recorder{}
			g, err := New(rec, e, tc.source)
			if err != nil {
				t.Fatal(err)
			}
			mg := &fake.ModernManaged{ObjectMeta: metav1.ObjectMeta{Generation: 7}}
			counter := decisions.WithLabelValues(tc.want.metric[:]...)
			before := testutil.ToFloat64(counter)

			var checked resource.Managed = mg
			if tc.recorded != nil {
				checked = &deciding{ModernManaged: mg, last: tc.recorded}
			}
			record, err := g.Check(context.Background(), checked, tc.in)

			if diff := cmp.Diff(tc.want.denied, IsDenied(err)); diff != "" {
				t.Errorf("\n%s\nIsDenied(Check(...)): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.record, record); diff != "" {
				t.Errorf("\n%s\nCheck(...) record: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]xpv2.Condition{tc.want.condition}, mg.Conditions, test.EquateConditions()); diff != "" {
				t.Errorf("\n%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.events, rec.events); diff != "" {
				t.Errorf("\n%s\nevents: -want, +got:\n%s", tc.reason, diff)
			}
			if got := testutil.ToFloat64(counter) - before; got != 1 {
				t.Errorf("\n%s\nfdb_policy_decisions_total%v: want +1, got %+v", tc.reason, tc.want.metric, got)
			}
		})
	}
}

func TestDeniedError(t *testing.T) {
	err := errors.Wrap(&DeniedError{Decision: policy.Decision{Message: "no"}}, "cannot exclude")
	if !IsDenied(err) {
		t.Error("IsDenied(wrapped DeniedError): want true")
	}
	if IsDenied(errors.New("boom")) {
		t.Error("IsDenied(other error): want false")
	}
	if got := err.Error(); got != "cannot exclude: no" {
		t.Errorf("Error(): want %q, got %q", "cannot exclude: no", got)
	}
}

// deciding is a managed resource that recorded a decision last.
type deciding struct {
	*fake.ModernManaged
	last *fdbv1alpha1.PolicyDecision
}

func (d *deciding) GetLastPolicyDecision() *fdbv1alpha1.PolicyDecision { return d.last }

// TestParam: a parameter a Cluster follows outside a decision is the one
// its rules would see: the Cluster's params over the policy's, of the
// policy in effect (a SafetyPolicy object replaces the default of its
// name), and unknown while the policies cannot be listed.
func TestParam(t *testing.T) {
	replaced := manifest(t, `apiVersion: foundationdb.crossplane.io/v1alpha1
kind: SafetyPolicy
metadata: {name: fdb-tls}
spec:
  actions: [Kill]
  params: {certificateWarningDays: 7}
  validations: [{name: ok, expression: "true"}]`)
	type result struct {
		Value any
		OK    bool
	}
	cases := map[string]struct {
		source Source
		params map[string]any
		want   result
	}{
		"TheDefault":          {source: policy.Static{}, want: result{Value: int64(30), OK: true}},
		"TheClustersOverride": {source: policy.Static{}, params: map[string]any{"certificateWarningDays": int64(60)}, want: result{Value: int64(60), OK: true}},
		"AReplacedPolicys":    {source: policy.Static{replaced}, want: result{Value: int64(7), OK: true}},
		"KindInactive":        {source: inactive{}, want: result{Value: int64(30), OK: true}},
		"Unlisted":            {source: unlisted{}, want: result{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e, err := policy.NewEngine()
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(&recorder{}, e, tc.source)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := g.Param(context.Background(), policy.Input{Params: tc.params}, "fdb-tls", "certificateWarningDays")
			if diff := cmp.Diff(tc.want, result{Value: v, OK: ok}); diff != "" {
				t.Errorf("Param(...): -want, +got:\n%s", diff)
			}
		})
	}
}
