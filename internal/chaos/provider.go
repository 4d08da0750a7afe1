package chaos

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	fdbcontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/statuscache"
)

const (
	errEngine     = "cannot create the policy engine"
	errNotSynced  = "the SafetyPolicy informer has not synced"
	errReconciler = "cannot build the provider's reconcilers"
)

// provider is one incarnation of the provider: its reconcilers, its
// client with its caches, its policy engine. A crash throws all of it away;
// the simulator (FoundationDB) and the API server stay.
type provider struct {
	client      *providerClient
	reconcilers map[schema.GroupVersionKind]reconcile.Reconciler
	// syncedAt is the step from which its SafetyPolicy informer has synced.
	syncedAt int
	step     func() int
}

// pollInterval is how often the provider polls a settled object.
const pollInterval = time.Minute

// start builds a provider incarnation on the run's world.
func (r *run) start() (*provider, error) {
	p := &provider{step: func() int { return r.step }, syncedAt: r.step + r.crashes.IntN(3)}
	reads := newStatusReads(r.clock)
	p.client = &providerClient{Client: r.asProvider, view: newView(r.hist), reads: reads, crash: r.crashNow}
	engine, err := policy.NewEngine(policy.WithClock(r.clock))
	if err != nil {
		return nil, errors.Wrap(err, errEngine)
	}
	o := options.Options{
		Options: controller.Options{
			Logger:                  logging.NewNopLogger(),
			GlobalRateLimiter:       ratelimiter.NewGlobal(1000),
			PollInterval:            pollInterval,
			MaxConcurrentReconciles: 1,
		},
		FDB:      &backend{sims: r.sims, live: r.kube, keys: r.keys, alive: func() bool { return !p.client.dead }, used: r.used, reads: reads},
		Clock:    r.clock,
		Engine:   engine,
		Policies: p,
		Journal:  r.journalEntry,
		// A crash loses the cache with the rest of the process.
		Statuses: statuscache.New(r.clock),
	}
	mgr := &driverManager{client: p.client, reader: r.asProvider, scheme: r.env.Scheme}
	if p.reconcilers, err = fdbcontroller.Reconcilers(mgr, o); err != nil {
		return nil, errors.Wrap(err, errReconciler)
	}
	return p, nil
}

// List returns the SafetyPolicies from the provider's cache once its
// informer synced, and fails before, as safetypolicy.Source does.
func (p *provider) List(ctx context.Context) ([]policy.Policy, error) {
	if p.step() < p.syncedAt {
		return nil, errors.New(errNotSynced)
	}
	list := &v1alpha1.SafetyPolicyList{}
	if err := p.client.List(ctx, list); err != nil {
		return nil, err
	}
	out := make([]policy.Policy, len(list.Items))
	for i := range list.Items {
		out[i] = policy.FromObject(&list.Items[i])
	}
	return out, nil
}

// reconcile runs one reconcile of the object named key of kind gvk.
func (p *provider) reconcile(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) (reconcile.Result, error) {
	return p.reconcilers[gvk].Reconcile(ctx, reconcile.Request{NamespacedName: key})
}

// driverManager is the part of a manager the reconcilers are built from:
// the provider's client, an uncached reader, the scheme and event
// recorders. Nothing starts it; the harness calls the reconcilers itself.
type driverManager struct {
	ctrl.Manager
	client client.Client
	reader client.Reader
	scheme *runtime.Scheme
}

func (m *driverManager) GetClient() client.Client    { return m.client }
func (m *driverManager) GetAPIReader() client.Reader { return m.reader }
func (m *driverManager) GetScheme() *runtime.Scheme  { return m.scheme }

// GetConfig is nil: the simulator's pods run no containers to exec in.
func (m *driverManager) GetConfig() *rest.Config { return nil }
func (m *driverManager) GetEventRecorderFor(string) record.EventRecorder {
	return &record.FakeRecorder{}
}
