package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1alpha1fdb "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	fdbcontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

var (
	env     *testenv.Env
	backend connector.SimFDB
	clk     = clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// flowing makes virtual time pass while it is true.
	flowing atomic.Bool
)

// zones are the test nodes' fault domains: five, so a triple cluster finds
// its five coordinators in distinct zones.
var zones = []string{"zone-a", "zone-b", "zone-c", "zone-d", "zone-e"}

func TestMain(m *testing.M) { testenv.Main(m, &env) }

var started atomic.Bool

// start runs the provider's controllers with the simulator on the shared
// control plane, once per test binary, with nodes in five zones.
func start(t *testing.T) {
	t.Helper()
	testenv.Require(t, env)
	if started.Swap(true) {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	testenv.OnStop(cancel)
	// Tests count events, so client-go's spam filter (25 per object, then
	// one per five minutes) must not drop them.
	events := record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{BurstSize: 1 << 20, QPS: 1000})
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, EventBroadcaster: events}) //nolint:staticcheck // the only way to tune the spam filter
	if err != nil {
		t.Fatal(err)
	}
	backend = connector.SimFDB{Registry: sim.NewRegistry(clk, sim.Options{Seed: 7, TotalKVBytes: 1 << 30})}
	o := options.Options{
		Options: controller.Options{
			Logger:                  logging.NewNopLogger(),
			GlobalRateLimiter:       ratelimiter.NewGlobal(1000),
			PollInterval:            time.Second,
			MaxConcurrentReconciles: 4,
		},
		FDB:         backend,
		Clock:       clk,
		Policies:    policy.NewStore(),
		ActivePoll:  100 * time.Millisecond,
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](20*time.Millisecond, 300*time.Millisecond),
	}
	if err := fdbcontroller.Setup(mgr, o); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	if _, err := testenv.StartNodes(ctx, env.Client, zones, 2); err != nil {
		t.Fatal(err)
	}
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}}
	if err := env.Client.Create(ctx, cpc); err != nil {
		t.Fatal(err)
	}
	// Virtual time passes 20 s every 20 ms while flowing.
	go func() {
		for range time.Tick(20 * time.Millisecond) {
			if flowing.Load() {
				clk.Step(20 * time.Second)
			}
		}
	}()
}

// namespace creates a namespace for one test.
func namespace(t *testing.T, name string) string {
	t.Helper()
	if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// eventually polls cond until it holds or the wall-clock timeout passes; it
// reports the last failure.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
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

// get reads an object fresh from the API server.
func get(t *testing.T, o client.Object) client.Object {
	t.Helper()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatal(err)
	}
	return o
}

// events returns the reasons and messages of the events about an object.
func events(t *testing.T, o client.Object) []string {
	t.Helper()
	list := &corev1.EventList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(o.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == o.GetName() {
			out = append(out, fmt.Sprintf("%s: %s", e.Reason, e.Message))
		}
	}
	return out
}

func containsAny(list []string, frag string) bool {
	for _, s := range list {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

// simOf returns the simulated database of a cluster.
func simOf(t *testing.T, cr *v1alpha1fdb.Cluster) *sim.Sim {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: cr.GetNamespace()}}
	get(t, cm)
	return backend.Sim(cm)
}

// eventCount sums the counts of the events about o whose reason is reason.
func eventCount(t *testing.T, o client.Object, reason string) int32 {
	t.Helper()
	list := &corev1.EventList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(o.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	var n int32
	for _, e := range list.Items {
		if e.InvolvedObject.Name == o.GetName() && e.Reason == reason {
			n += max(e.Count, 1)
		}
	}
	return n
}
