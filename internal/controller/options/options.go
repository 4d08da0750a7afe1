// Package options carries what every controller of the provider is set up
// with: crossplane-runtime's controller options plus the FoundationDB
// backend, the clock, the source of safety policies and the cadence of
// reconciles while a resource converges.
package options

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
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
}

// ForControllerRuntime returns the controller-runtime options.
func (o Options) ForControllerRuntime() ctrlcontroller.Options {
	co := o.Options.ForControllerRuntime()
	if o.RateLimiter != nil {
		co.RateLimiter = o.RateLimiter
	}
	return co
}

// PollIntervalHook reconciles a resource every ActivePoll until it is Ready
// and its last Observe found it up to date (the UpToDate condition the
// external clients set), then every poll interval.
func (o Options) PollIntervalHook() managed.PollIntervalHook {
	active := o.ActivePoll
	if active == 0 {
		active = DefaultActivePoll
	}
	return func(mg resource.Managed, pollInterval time.Duration) time.Duration {
		if mg.GetCondition(xpv2.TypeReady).Reason == xpv2.ReasonAvailable && mg.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue {
			return pollInterval
		}
		return active
	}
}

// ReconcilerOptions are the managed-reconciler options every managed kind
// shares: logger, recorder, poll cadence, management policies, metrics and
// deterministic external names.
func (o Options) ReconcilerOptions(name string, rec managed.ReconcilerOption) []managed.ReconcilerOption {
	opts := []managed.ReconcilerOption{
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		rec,
		managed.WithPollInterval(o.PollInterval),
		managed.WithPollIntervalHook(o.PollIntervalHook()),
		managed.WithManagementPolicies(),
		managed.WithDeterministicExternalName(true),
	}
	if o.MetricOptions != nil && o.MetricOptions.MRMetrics != nil {
		opts = append(opts, managed.WithMetricRecorder(o.MetricOptions.MRMetrics))
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
		Targets: connector.NewTargets(mgr.GetClient(), mgr.GetAPIReader(), connector.KubeconfigClient(client.Options{Scheme: mgr.GetScheme()})),
		FDB:     o.FDB,
	}
}
