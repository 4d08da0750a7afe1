package managedkind

import (
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
)

const (
	errBuildInput     = "cannot build the safety-policy input"
	errRecordDecision = "cannot record the safety-policy decision"
)

// ErrSecondhand is what Take returns for a gated step planned on a status
// shared from another's read: nothing ran, and the caller must do nothing
// that rests on the step; the reconcile ends without error
// (firsthandExternal) and the next one reads the database itself.
var ErrSecondhand = errors.New("the step was planned on a status read by another reconcile: the next reconcile reads the database itself")

// A Decider is a managed resource that records its last safety-policy
// decision in its status.
type Decider interface {
	resource.Managed
	GetLastPolicyDecision() *v1alpha1.PolicyDecision
	SetLastPolicyDecision(d *v1alpha1.PolicyDecision)
}

// Evidence is what one reconcile observed that a decision rests on.
type Evidence struct {
	// Cluster is the Cluster the acting resource belongs to (or is).
	Cluster *v1alpha1.Cluster
	// Groups are the Cluster's ProcessGroups as listed in this reconcile;
	// nil to have Take list them.
	Groups []v1alpha1.ProcessGroup
	// Status is the database status read in this reconcile; nil when none
	// could be read, and then every action that needs one is denied.
	Status *fdb.Status
	// Lock is the global lock that steps with database-wide effect
	// (Global) take before they run; nil when the Cluster acts alone on
	// its database (LockOf).
	Lock *Lock
	// Changed, when set, is called once a step ran, whether it succeeded
	// or not: the next status read of the database goes to the database
	// (connector.Session.Changed).
	Changed func()
	// Firsthand, when set, reports whether Status came from a read of this
	// reconcile's own rather than one shared from an earlier read of
	// another (connector.Session.Firsthand, which then makes the
	// resource's next reconcile read the database itself).
	Firsthand func() bool
}

// Take takes step s on mg, the one gate-and-record path of every managed
// kind. A step that waits does nothing. A gated step planned on a status
// that was not firsthand (ev.Firsthand) does nothing either and returns
// ErrSecondhand: the next reconcile reads the database itself, plans again
// and decides on what it read, since the database may have changed without
// the provider since the shared read. A gated step is decided on with the
// input built from ev alone (never from a status recorded by an earlier
// reconcile); the decision is recorded on mg (the PolicyAllowed condition, a
// Warning event when denied or warned, the decision metric and
// atProvider.lastPolicyDecision, which for an allowed decision is written to
// the API server before anything runs) and a denial is returned as a
// *gate.DeniedError without running anything. A step with database-wide
// effect then takes (or extends) ev's global lock, if any: while another
// holds it, nothing runs and the error names the holder and until when.
// Then run makes the mutation, after which ev.Changed marks the database
// changed, the journal (when set) receives it with its decision, and a Normal event
// with the step's reason and message records it.
func (d Deps) Take(ctx context.Context, mg Decider, ev Evidence, s step.Step, run func(context.Context) error) error {
	if s.Waits() {
		return nil
	}
	if s.Action != nil && ev.Status != nil && ev.Firsthand != nil && !ev.Firsthand() {
		return ErrSecondhand
	}
	var decision *v1alpha1.PolicyDecision
	if s.Action != nil {
		var err error
		if decision, err = d.decide(ctx, mg, ev, *s.Action); err != nil {
			return err
		}
		if ev.Lock != nil && NeedsLock(*s.Action) {
			held, taken, err := ev.Lock.take(ctx, d.Clock.Now())
			if c, ok := mg.(*v1alpha1.Cluster); ok {
				recordLock(c, held, d.Clock.Now())
			}
			if err != nil {
				d.Record.Event(mg, event.Warning(ReasonLockHeld, err))
				return err
			}
			if taken {
				d.Record.Event(mg, event.Normal(ReasonTookLock, fmt.Sprintf("took the global lock as %s until %s", held.Holder, held.End.UTC().Format(time.RFC3339))))
			}
		}
	}
	err := run(ctx)
	if ev.Changed != nil {
		ev.Changed()
	}
	if d.Journal != nil {
		d.Journal(step.Mutation{Kind: mg.GetObjectKind().GroupVersionKind().Kind, Namespace: mg.GetNamespace(), Name: mg.GetName(), Step: s, Decision: decision, Err: err})
	}
	if err != nil {
		return err
	}
	d.Record.Event(mg, event.Normal(s.Reason, s.Message))
	return nil
}

// decide passes action a on mg through the gate and records the decision
// on mg. The input holds ev's Cluster and groups (mg's own observation
// where mg is one of them), ev's status and mg as the object.
func (d Deps) decide(ctx context.Context, mg Decider, ev Evidence, a policy.Action) (*v1alpha1.PolicyDecision, error) {
	groups := ev.Groups
	if groups == nil {
		var err error
		if groups, err = Groups(ctx, d.Kube, ev.Cluster.GetNamespace(), ev.Cluster.GetName()); err != nil {
			return nil, err
		}
	}
	if self, ok := mg.(*v1alpha1.ProcessGroup); ok {
		groups = withSelf(groups, self)
	}
	in, err := policy.NewInput(ev.Cluster, groups, ev.Status, d.Clock.Now(), a)
	if err != nil {
		return nil, errors.Wrap(err, errBuildInput)
	}
	if in.Object, err = policy.ObjectOf(mg); err != nil {
		return nil, errors.Wrap(err, errBuildInput)
	}
	before := mg.DeepCopyObject().(Decider)
	decision, err := d.Gate.Check(ctx, mg, in)
	decision = sinceRecorded(before.GetLastPolicyDecision(), decision)
	mg.SetLastPolicyDecision(decision)
	if err != nil {
		return decision, err
	}
	return decision, d.persist(ctx, mg, before, decision)
}

// sinceRecorded returns decision d with the time of the decision recorded
// before when both decide alike (action, targets, result, rule and
// message): a step decided alike on every retry, e.g. denied for the same
// reason, records nothing new, and the time says since when it is so.
func sinceRecorded(recorded, d *v1alpha1.PolicyDecision) *v1alpha1.PolicyDecision {
	if !gate.Alike(recorded, d) {
		return d
	}
	kept := *d
	kept.Time = recorded.Time
	if sameMoment(recorded.AllowedAt, d.AllowedAt) {
		kept.AllowedAt = recorded.AllowedAt
	}
	return &kept
}

// allowedAtJitter is how far apart two reconciles may put the moment a
// wait ends when nothing but the clock moved between them: the ages they
// read and the times they read them at are a second or so apart.
const allowedAtJitter = 2 * time.Second

// sameMoment reports whether two recorded AllowedAt name the same moment,
// give or take allowedAtJitter; a moment that moved further (a new
// recovery restarted the wait) is recorded anew.
func sameMoment(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	d := a.Sub(b.Time)
	return d <= allowedAtJitter && d >= -allowedAtJitter
}

// Recording a decision patches the resource's status.
// +kubebuilder:rbac:groups=foundationdb.m.crossplane.io,resources=clusters/status;processgroups/status;backups/status;restores/status,verbs=patch

// persist records an allowed decision in mg's status on the API server
// before the mutation runs, so that the record survives a status write of
// the reconcile that later loses a conflict. The patch carries the
// resourceVersion this reconcile read: when mg changed since (a stale
// cache), it conflicts and nothing runs; the next reconcile decides again.
// mg takes the new resourceVersion, so its own status write does not
// conflict with this one.
func (d Deps) persist(ctx context.Context, mg, before Decider, decision *v1alpha1.PolicyDecision) error {
	recorded := before.DeepCopyObject().(Decider)
	recorded.SetLastPolicyDecision(decision)
	if err := d.Kube.Status().Patch(ctx, recorded, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return errors.Wrap(err, errRecordDecision)
	}
	mg.SetResourceVersion(recorded.GetResourceVersion())
	return nil
}

// withSelf returns groups with self's entry replaced by self, whose status
// this reconcile just observed.
func withSelf(groups []v1alpha1.ProcessGroup, self *v1alpha1.ProcessGroup) []v1alpha1.ProcessGroup {
	out := make([]v1alpha1.ProcessGroup, len(groups))
	for i := range groups {
		out[i] = groups[i]
		if out[i].ID() == self.ID() {
			out[i] = *self
		}
	}
	return out
}
