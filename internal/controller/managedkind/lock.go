package managedkind

import (
	"cmp"
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Reasons of the global lock's events.
const (
	ReasonTookLock event.Reason = "TookGlobalLock"
	ReasonLockHeld event.Reason = "GlobalLockHeld"
)

// A Lock is the global lock of a database that several Clusters (one per
// data center) or provider instances act on: a step with database-wide
// effect takes it, or extends it, before it runs, so that no two of them
// act at once (see fdb.GlobalLock).
type Lock struct {
	// Locker holds the lock in the database.
	Locker fdb.Locker
	// Holder is the acting Cluster's lock ID (LockID).
	Holder string
	// Duration of the lock from each step that takes it.
	Duration time.Duration
}

// SharesDatabase reports whether Cluster c is one of several that act on
// its database: it has regions (a Cluster per data center), is one data
// hall's (a Cluster per hall, the first of which joins no other) or joins
// a database through a seed connection string.
func SharesDatabase(c *v1alpha1.Cluster) bool {
	p := c.Spec.ForProvider
	return len(p.DatabaseConfiguration.Regions) > 0 || p.SeedConnectionString != "" || p.DataHall != ""
}

// LockOf returns the global lock the steps of Cluster c take through l, or
// nil when c acts alone on its database (!SharesDatabase: a single
// Cluster, whose reconciles the provider's leader election and per-object
// queue already serialize), when c's locks are disabled (the safety
// policies allowed it, atProvider.locksDisabled, and the spec still asks
// for it), or without l (no database client yet: before a cluster file
// exists, the only steps are the ones that make the database, which take
// no lock).
func LockOf(c *v1alpha1.Cluster, l fdb.Locker) *Lock {
	p := c.Spec.ForProvider
	if l == nil || !SharesDatabase(c) || p.Locks.DisableLocks && c.Status.AtProvider.LocksDisabled {
		return nil
	}
	d := time.Duration(p.Locks.DurationSeconds) * time.Second
	if d <= 0 {
		d = fdb.DefaultLockDuration
	}
	return &Lock{Locker: l, Holder: LockID(c), Duration: d}
}

// LockID is the ID Cluster c holds the global lock under, and that a deny
// list names: its data center, else its data hall, or <namespace>/<name>
// without either.
func LockID(c *v1alpha1.Cluster) string {
	if id := cmp.Or(c.Spec.ForProvider.DataCenter, c.Spec.ForProvider.DataHall); id != "" {
		return id
	}
	return c.GetNamespace() + "/" + c.GetName()
}

// NeedsLock reports whether action a takes the global lock: it has
// database-wide effect (Global) and acts on a database that can hold the
// lock — not a step that makes the database (its first coordinators,
// `configure new`), nor a forced recovery of one that cannot recover (it
// is unavailable: there is no lock to take; its policy asks for an
// acknowledgement instead).
func NeedsLock(a policy.Action) bool {
	forced := a.Type == apiv1alpha1.ActionFailoverRegion && a.Details[policy.DetailForced] == true
	return Global(a.Type) && a.RequiresStatus() && !forced
}

// Global reports whether action a has database-wide effect, so that it
// takes the global lock: the exclusion list, the coordinators, the
// configuration, restarts (kills, upgrades) and pod updates (a recreated
// pod, the maintenance zone that covers it — FoundationDB has one).
func Global(a apiv1alpha1.ActionType) bool {
	switch a {
	case apiv1alpha1.ActionExclude, apiv1alpha1.ActionInclude, apiv1alpha1.ActionChangeCoordinators, apiv1alpha1.ActionConfigureDatabase,
		apiv1alpha1.ActionKill, apiv1alpha1.ActionUpgrade, apiv1alpha1.ActionDeletePod, apiv1alpha1.ActionForceDeletePod,
		apiv1alpha1.ActionSetMaintenance, apiv1alpha1.ActionResetMaintenance, apiv1alpha1.ActionFailoverRegion:
		return true
	}
	return false
}

// take takes or extends the lock at now, and reports whether it was newly
// taken (not an extension of the holder's own). It returns the lock as it
// saw it: its own, another holder's, or none (zero) when it could not
// read it.
func (l *Lock) take(ctx context.Context, now time.Time) (fdb.GlobalLock, bool, error) {
	held, err := l.Locker.TakeLock(ctx, fdb.LockRequest{Holder: l.Holder, Now: now, Duration: l.Duration})
	if err != nil {
		var other *fdb.LockHeldError
		if errors.As(err, &other) {
			held = other.Held
		}
		return held, false, err // every Locker says it could not take the lock, and why
	}
	return held, held.Start.Equal(now), nil
}

// recordLock records the lock a step of Cluster c saw at now on c's status
// and in its GlobalLock condition.
func recordLock(c *v1alpha1.Cluster, seen fdb.GlobalLock, now time.Time) {
	if seen.Holder == "" {
		return
	}
	c.Status.AtProvider.GlobalLock = &v1alpha1.GlobalLockObservation{Holder: seen.Holder, Until: metav1.NewTime(seen.End)}
	c.SetConditions(LockCondition(c, seen.Holder, now))
}

// TypeGlobalLock is the condition of a Cluster whose steps take the global
// lock: True while it holds the lock, False while another holder does (as
// its last request saw it, until that expires) or once it released it. Its
// message names the holder, never the lock's end, so that extending the
// lock changes nothing.
const TypeGlobalLock xpv2.ConditionType = "GlobalLock"

// Reasons of the GlobalLock condition.
const (
	ReasonHoldingLock   xpv2.ConditionReason = "Holding"
	ReasonLockElsewhere xpv2.ConditionReason = "HeldByAnother"
	ReasonLockNotHeld   xpv2.ConditionReason = "NotHeld"
)

// LockCondition is the GlobalLock condition of Cluster c that saw the lock
// held by holder at now; "" is no holder c knows of: it released the lock,
// or the lock it last saw has expired.
func LockCondition(c *v1alpha1.Cluster, holder string, now time.Time) xpv2.Condition {
	cond := xpv2.Condition{Type: TypeGlobalLock, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(now), ObservedGeneration: c.GetGeneration()}
	switch id := LockID(c); holder {
	case "":
		cond.Reason, cond.Message = ReasonLockNotHeld, "does not hold the global lock, and saw no one else hold it"
	case id:
		cond.Status, cond.Reason, cond.Message = corev1.ConditionTrue, ReasonHoldingLock, "holds the global lock as "+id
	default:
		cond.Reason, cond.Message = ReasonLockElsewhere, holder+" holds the global lock: steps with database-wide effect wait for it"
	}
	return cond
}
