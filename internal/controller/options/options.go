// Package options carries what every controller of the provider is set up
// with: crossplane-runtime's controller options plus the FoundationDB
// backend, the clock, the source of safety policies and the cadence of
// reconciles: while a resource converges, the floor of a resource's own
// poll interval, the longer one of a resource whose drift arrives as watch
// events, the jitter of all and the poll budget.
package options

import (
	"math/rand/v2"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cadence"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/groupnudge"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
	"github.com/crossplane-contrib/provider-foundationdb/internal/statuscache"
)

const errNoPolicies = "cannot set up the safety-policy gate: the options name no policy engine or SafetyPolicy source"

// DefaultActivePoll is how often a resource that is not yet Ready, or whose
// last step was waiting, is reconciled.
const DefaultActivePoll = 5 * time.Second

// Options configure the provider's controllers.
type Options struct {
	controller.Options

	// FDB reaches FoundationDB: the real tools or the simulator.
	FDB connector.FDB

	// Clock is the time every decision uses.
	Clock clock.PassiveClock

	// Engine compiles and evaluates safety policies, for the SafetyPolicy
	// controller and every gate: each policy compiles once.
	Engine *policy.Engine

	// Policies are the SafetyPolicy objects the gates add to the defaults
	// (safetypolicy.Source: the manager's cache, once synced).
	Policies gate.Source

	// ActivePoll is the reconcile cadence while a resource converges;
	// DefaultActivePoll when zero. Options.PollInterval applies once it is
	// Ready and up to date.
	ActivePoll time.Duration

	// Journal, when set, receives every mutation a managed kind's
	// controller takes, with the safety-policy decision that let it: the
	// fault-injection harness checks them.
	Journal func(step.Mutation)

	// RateLimiter replaces crossplane-runtime's per-item backoff (1 s to
	// 60 s); tests use it to keep waits short.
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]

	// MinPollInterval is the shortest interval at which a Ready, up-to-date
	// resource is polled: crossplane-runtime raises a shorter
	// crossplane.io/poll-interval annotation to it, and PollIntervalHook
	// keeps jitter from going below it.
	MinPollInterval time.Duration

	// PollJitterPercentage is how far, in percent of the interval and in
	// either direction, PollIntervalHook moves each poll at random, so that
	// resources created together do not poll in lock-step; 0 for none.
	PollJitterPercentage uint

	// Statuses, when set, shares the status reads of a database among the
	// reconciles of its resources (cadence.Freshness says how old a read
	// each may take).
	Statuses *statuscache.Cache

	// Nudges, when set, wakes the ProcessGroups whose processes changed in
	// a status their Cluster read (groupnudge).
	Nudges *groupnudge.Nudger

	// Metrics, when set, receives the database figures each reconcile
	// observed (dbmetrics); the provider's is dbmetrics.Default, which its
	// /metrics serves.
	Metrics *dbmetrics.Recorder

	// Rand returns a pseudo-random number in [0, 1) for the jitter;
	// math/rand/v2's Float64 when nil. It is called from concurrent
	// reconciles.
	Rand func() float64

	// Budget is the poll budget every managed kind's drift polls take a
	// token of (see package cadence); polls are not budgeted when nil.
	Budget *cadence.Budget
	// Converging is the budget every managed kind's re-checks of a
	// converging resource take a token of (see package cadence); they are
	// not budgeted when nil.
	Converging *cadence.Budget

	// WatchedPoll is the poll interval of a Ready, up-to-date resource for
	// which Watched is true, when longer than its poll interval and it has
	// no crossplane.io/poll-interval annotation.
	WatchedPoll time.Duration

	// Shard is the part of the objects this provider reconciles (package
	// shard); the zero value is all of them.
	Shard shard.Shard

	// Watched, set by a kind's controller on its copy of the options,
	// reports whether a resource's drift reaches the controller as watch
	// events, so that it may be polled every WatchedPoll.
	Watched func(resource.Managed) bool
}

// ForControllerRuntime returns the controller-runtime options.
func (o Options) ForControllerRuntime() ctrlcontroller.Options {
	co := o.Options.ForControllerRuntime()
	if o.RateLimiter != nil {
		co.RateLimiter = o.RateLimiter
	}
	return co
}

// PollIntervalHook reconciles a resource every ActivePoll until it is
// settled (cadence.Settled: Ready, and its last Observe found it up to
// date), then every poll interval: PollInterval, or the resource's
// crossplane.io/poll-interval annotation, which crossplane-runtime has
// already raised to MinPollInterval, or, without the annotation,
// WatchedPoll when longer and Watched holds. Both cadences
// are jittered by PollJitterPercentage; a jittered poll interval is raised
// to MinPollInterval, the active cadence (the provider's own, never a
// user's) is not.
func (o Options) PollIntervalHook() managed.PollIntervalHook {
	active := o.activePoll()
	return func(mg resource.Managed, pollInterval time.Duration) time.Duration {
		if cadence.Settled(mg) {
			if _, annotated := meta.GetPollInterval(mg); !annotated && o.WatchedPoll > pollInterval && o.Watched != nil && o.Watched(mg) {
				pollInterval = o.WatchedPoll
			}
			return max(o.jitter(pollInterval), o.MinPollInterval)
		}
		return o.jitter(active)
	}
}

// activePoll is ActivePoll, or DefaultActivePoll when it is zero.
func (o Options) activePoll() time.Duration {
	if o.ActivePoll == 0 {
		return DefaultActivePoll
	}
	return o.ActivePoll
}

// jitter moves d by a random fraction in [-1, 1) of PollJitterPercentage
// percent of d.
func (o Options) jitter(d time.Duration) time.Duration {
	if o.PollJitterPercentage == 0 {
		return d
	}
	random := o.Rand
	if random == nil {
		random = rand.Float64
	}
	return d + time.Duration((2*random()-1)*float64(d)*float64(o.PollJitterPercentage)/100)
}

// ReconcilerOptions are the managed-reconciler options every managed kind
// shares: logger, recorder, poll cadence (with the floor of the
// poll-interval annotation), management policies, metrics, change logs and
// deterministic external names.
func (o Options) ReconcilerOptions(name string, rec managed.ReconcilerOption) []managed.ReconcilerOption {
	opts := []managed.ReconcilerOption{
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		rec,
		managed.WithPollInterval(o.PollInterval),
		managed.WithMinPollInterval(o.MinPollInterval),
		managed.WithPollIntervalHook(o.PollIntervalHook()),
		managed.WithManagementPolicies(),
		managed.WithDeterministicExternalName(true),
	}
	if o.MetricOptions != nil && o.MetricOptions.MRMetrics != nil {
		opts = append(opts, managed.WithMetricRecorder(o.MetricOptions.MRMetrics))
	}
	if o.ChangeLogOptions != nil && o.ChangeLogOptions.ChangeLogger != nil {
		opts = append(opts, managed.WithChangeLogger(o.ChangeLogOptions.ChangeLogger))
	}
	return opts
}

// PolicyGate returns the safety-policy gate of a controller that records events
// with rec.
func (o Options) PolicyGate(rec event.Recorder) (*gate.Gate, error) {
	if o.Engine == nil || o.Policies == nil {
		return nil, errors.New(errNoPolicies)
	}
	return gate.New(rec, o.Engine, o.Policies)
}

// Connector returns what opens sessions on target clusters and databases
// for the managed resources of mgr.
func (o Options) Connector(mgr ctrl.Manager) *connector.Connector {
	return &connector.Connector{
		Targets:  connector.NewTargets(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetConfig(), connector.KubeconfigClient(client.Options{Scheme: mgr.GetScheme()})),
		FDB:      o.FDB,
		Statuses: o.Statuses,
		StatusAge: cadence.Freshness{Active: o.activePoll(), Settled: o.PollInterval, MinPoll: o.MinPollInterval,
			JitterPercentage: o.PollJitterPercentage}.Of,
	}
}
