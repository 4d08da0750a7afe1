// Package controllertest runs the provider's controllers against a real API
// server (internal/testenv) with the FoundationDB simulator, stand-in
// nodes in five zones and a virtual clock, for the controllers' integration
// tests, and offers the polling and event helpers those tests share.
package controllertest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	safestart "github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpmeta "github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	fdbcontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cadence"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/groupnudge"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/safetypolicy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/statuscache"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Zones are the stand-in nodes' fault domains: five, so a triple cluster
// finds its five coordinators in distinct zones.
var Zones = []string{"zone-a", "zone-b", "zone-c", "zone-d", "zone-e"}

// Harness is the provider running on a test control plane.
type Harness struct {
	Env     *testenv.Env
	Backend connector.SimFDB
	// Clock is the virtual time of every decision and of the simulator.
	// While Flow(true), it passes 20 s every 20 ms of wall time.
	Clock *clocktesting.FakeClock
	// Nodes stand in for the scheduler and kubelets; SetReady fails a node.
	Nodes   *testenv.Nodes
	flowing atomic.Bool
	// admin reaches Backend and counts the provider's admin calls.
	admin *adminCounter
	// writes counts the provider's write requests to the API server.
	writes *writeCounter

	// acted are the shards whose instances acted on each resource, by
	// kind, namespace and name (Acted).
	actedMu sync.Mutex
	acted   map[string]map[int]bool

	// started is when the provider started; stopped is closed once it
	// (or one of its instances) stopped, with stopErr saying why.
	started time.Time
	stopped chan struct{}
	stopErr error
}

// CacheSyncTimeout is how long a controller of the harness may wait for its
// caches before it stops the provider: with controller-runtime's two
// minutes, a controller that watches a kind without a CRD would stop it
// only after most tests ended.
const CacheSyncTimeout = 15 * time.Second

// Start runs all controllers with the simulator on env, acting as the
// provider's ServiceAccount with exactly its shipped permissions
// (testenv.Env.Provider), counting their admin calls (AdminCalls) and
// write requests (WriteRequests), and
// creates the nodes and the default ClusterProviderConfig. Call it once
// per test binary.
func Start(env *testenv.Env) (*Harness, error) { return StartShards(env, 1) }

// StartShards is Start with count provider instances, each running every
// controller for one shard of count (package shard), as the provider runs
// with --shard; all share the simulator, the clock and the nodes, as
// instances share the databases and the control plane. Acted says which
// instances acted on a resource.
func StartShards(env *testenv.Env, count int) (*Harness, error) {
	ctx, cancel := context.WithCancel(context.Background())
	testenv.OnStop(cancel)
	h := &Harness{Env: env, Clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), stopped: make(chan struct{}), acted: map[string]map[int]bool{}}
	h.Backend = connector.NewSimFDB(sim.NewRegistry(h.Clock, sim.Options{Seed: 7, TotalKVBytes: 1 << 30}))
	h.admin = &adminCounter{FDB: h.Backend, calls: map[client.ObjectKey]*AdminCalls{}}
	h.writes = &writeCounter{counts: map[string]int{}}
	h.started = time.Now()
	var stop sync.Once
	for i := range count {
		mgr, err := h.newManager(env, shard.Shard{Index: i, Count: count})
		if err != nil {
			return nil, err
		}
		go func() {
			err := mgr.Start(ctx)
			stop.Do(func() {
				h.stopErr = err
				close(h.stopped)
			})
		}()
	}
	var err error
	if h.Nodes, err = testenv.StartNodes(ctx, env.Client, Zones, 2); err != nil {
		return nil, err
	}
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}}
	if err := env.Client.Create(ctx, cpc); err != nil {
		return nil, err
	}
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if h.flowing.Load() {
					h.Clock.Step(20 * time.Second)
				}
			}
		}
	}()
	return h, nil
}

// newManager returns a manager of every controller for shard s.
func (h *Harness) newManager(env *testenv.Env, s shard.Shard) (ctrl.Manager, error) {
	// Tests count events, so client-go's spam filter (25 per object, then
	// one per five minutes) must not drop them.
	events := record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{BurstSize: 1 << 20, QPS: 1000})
	mgr, err := ctrl.NewManager(h.writes.counting(env.Provider), ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, EventBroadcaster: events, //lint:ignore SA1019 the only way to tune the spam filter
		// Several instances of one process register the same controllers.
		Controller: config.Controller{CacheSyncTimeout: CacheSyncTimeout, SkipNameValidation: ptr.To(s.Count > 1)},
		Cache:      fdbcontroller.CacheOptions(nil)})
	if err != nil {
		return nil, err
	}
	engine, err := policy.NewEngine(policy.WithClock(h.Clock))
	if err != nil {
		return nil, err
	}
	o := options.Options{
		Options: controller.Options{
			Logger:            logging.NewNopLogger(),
			GlobalRateLimiter: ratelimiter.NewGlobal(1000),
			PollInterval:      time.Second,
			// As many as the provider runs with by default
			// (--max-reconcile-rate), so scenarios see the same concurrency.
			MaxConcurrentReconciles: 10,
			// crossplane-runtime's safe-start, as the provider runs.
			Gate: new(safestart.Gate[schema.GroupVersionKind]),
		},
		FDB:        instanceFDB{FDB: h.admin, opened: func(c *fdbv1alpha1.Cluster) { h.record(s.Index, fdbv1alpha1.ClusterKind, c.Namespace, c.Name) }},
		Clock:      h.Clock,
		Engine:     engine,
		Policies:   safetypolicy.Source{Cache: mgr.GetCache()},
		ActivePoll: 100 * time.Millisecond,
		// The cache ages its reads by the wall clock, as the polls it is
		// bounded by are wall-clock requeues; virtual time runs 1000 times
		// faster.
		Statuses:    statuscache.New(clock.RealClock{}),
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](20*time.Millisecond, 300*time.Millisecond),
		// Polls run on the queue's wall clock, as generously as the
		// global limiter lets the other controllers run.
		Budget:     cadence.NewBudget(1000, 1000, clock.RealClock{}),
		Converging: cadence.NewBudget(1000, 1000, clock.RealClock{}),
		// Settled groups are polled hourly: every scenario sees their drift
		// arrive as events, status nudges included.
		WatchedPoll: time.Hour,
		Nudges:      groupnudge.New(),
		Shard:       s,
		Journal:     func(m step.Mutation) { h.record(s.Index, m.Kind, m.Namespace, m.Name) },
	}
	if err := customresourcesgate.Setup(mgr, o.Options); err != nil {
		return nil, err
	}
	if err := fdbcontroller.Setup(mgr, o); err != nil {
		return nil, err
	}
	return mgr, nil
}

// instanceFDB is FDB as one provider instance reaches it: opened is called
// with the Cluster of each session it opens.
type instanceFDB struct {
	connector.FDB
	opened func(*fdbv1alpha1.Cluster)
}

func (f instanceFDB) Client(ctx context.Context, target connector.Target, c *fdbv1alpha1.Cluster, cm *corev1.ConfigMap, blob *fdbv1alpha1.BlobStore, tls *fdb.TLSCredentials) (fdb.Client, error) {
	f.opened(c)
	return f.FDB.Client(ctx, target, c, cm, blob, tls)
}

// record notes that the instance of shard index acted on the resource of
// kind in namespace ns named name.
func (h *Harness) record(index int, kind, ns, name string) {
	h.actedMu.Lock()
	defer h.actedMu.Unlock()
	key := kind + "/" + ns + "/" + name
	if h.acted[key] == nil {
		h.acted[key] = map[int]bool{}
	}
	h.acted[key][index] = true
}

// Acted returns the shards whose instances acted on the resource of kind in
// namespace ns named name, in order: took a step on it or, for a Cluster,
// opened a session on its database (any reconcile of a resource of the
// Cluster that found its cluster file).
func (h *Harness) Acted(kind, ns, name string) []int {
	h.actedMu.Lock()
	defer h.actedMu.Unlock()
	return slices.Sorted(maps.Keys(h.acted[kind+"/"+ns+"/"+name]))
}

// Running fails the test if the provider stopped, e.g. because a
// controller's caches did not sync. It first waits until twice
// CacheSyncTimeout passed since the provider started: by then every
// controller that started with it has synced its caches or stopped it.
func (h *Harness) Running(t testing.TB) {
	t.Helper()
	select {
	case <-h.stopped:
	case <-time.After(time.Until(h.started.Add(2 * CacheSyncTimeout))):
	}
	select {
	case <-h.stopped:
		t.Fatalf("the provider stopped: %v", h.stopErr)
	default:
	}
}

// Flow starts or stops the passing of virtual time.
func (h *Harness) Flow(on bool) { h.flowing.Store(on) }

// Namespace creates a namespace for one test. When the test ends, every
// managed resource in it is paused: the tests of a binary share the
// control plane, the nodes and the clock, and a finished test's clusters
// must not go on reconciling (and recreating pods when a later test fails
// a node) while later tests run against virtual time.
func (h *Harness) Namespace(t testing.TB, name string) string {
	t.Helper()
	if err := h.Env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.pause(context.Background(), name); err != nil {
			t.Errorf("cannot pause the managed resources of namespace %s: %v", name, err)
		}
	})
	return name
}

// pause sets the pause annotation on every managed resource in namespace
// ns, so that their reconcilers leave them and their workloads alone.
func (h *Harness) pause(ctx context.Context, ns string) error {
	lists := []client.ObjectList{&fdbv1alpha1.ClusterList{}, &fdbv1alpha1.ProcessGroupList{}, &fdbv1alpha1.BackupList{}, &fdbv1alpha1.RestoreList{}}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+xpmeta.AnnotationKeyReconciliationPaused+`":"true"}}}`))
	for _, l := range lists {
		if err := h.Env.Client.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err
		}
		if err := apimeta.EachListItem(l, func(o runtime.Object) error {
			return client.IgnoreNotFound(h.Env.Client.Patch(ctx, o.(client.Object), patch))
		}); err != nil {
			return err
		}
	}
	return nil
}

// Get reads an object fresh from the API server.
func (h *Harness) Get(t testing.TB, o client.Object) {
	t.Helper()
	if err := h.Env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatal(err)
	}
}

// Sim returns the simulated database of a cluster.
func (h *Harness) Sim(t testing.TB, cr *fdbv1alpha1.Cluster) *sim.Sim {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: cr.GetNamespace()}}
	h.Get(t, cm)
	return h.Backend.Sim(cm)
}

// Events returns "reason: message" of every event about o.
func (h *Harness) Events(t testing.TB, o client.Object) []string {
	t.Helper()
	var out []string
	for _, e := range h.events(t, o) {
		out = append(out, fmt.Sprintf("%s: %s", e.Reason, e.Message))
	}
	return out
}

// WaitEvents waits until every fragment shows up in an event about o.
// Events are recorded asynchronously, so one may arrive after the state it
// reports.
func (h *Harness) WaitEvents(t testing.TB, o client.Object, frags ...string) {
	t.Helper()
	Eventually(t, 10*time.Second, "events "+strings.Join(frags, ", "), func() (bool, string) {
		events := h.Events(t, o)
		for _, f := range frags {
			if !ContainsAny(events, f) {
				return false, fmt.Sprintf("no %q in %v", f, events)
			}
		}
		return true, ""
	})
}

// EventCount sums the counts of the events about o with the given reason.
func (h *Harness) EventCount(t testing.TB, o client.Object, reason string) int32 {
	t.Helper()
	var n int32
	for _, e := range h.events(t, o) {
		if e.Reason == reason {
			n += max(e.Count, 1)
		}
	}
	return n
}

func (h *Harness) events(t testing.TB, o client.Object) []corev1.Event {
	t.Helper()
	list := &corev1.EventList{}
	if err := h.Env.Client.List(context.Background(), list, client.InNamespace(o.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Name == o.GetName() {
			out = append(out, e)
		}
	}
	return out
}

// Eventually polls cond until it holds or the wall-clock timeout passes,
// then fails with cond's last explanation.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		ok, why := cond()
		last = why
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not after %s: %s", what, timeout, last)
	}
}

// ContainsAny reports whether some string of list contains frag.
func ContainsAny(list []string, frag string) bool {
	for _, s := range list {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

var (
	sharedMu sync.Mutex
	shared   *Harness
)

// For returns the harness of this test binary, starting it on env the first
// time. It skips the test when the package runs without a control plane.
func For(t testing.TB, env *testenv.Env) *Harness {
	t.Helper()
	testenv.Require(t, env)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil {
		h, err := Start(env)
		if err != nil {
			t.Fatal(err)
		}
		shared = h
	}
	return shared
}
