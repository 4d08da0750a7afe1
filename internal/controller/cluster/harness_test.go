package cluster_test

import (
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var (
	env *testenv.Env
	h   *controllertest.Harness
)

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// start runs the provider on the shared control plane, once per binary.
func start(t testing.TB) { h = controllertest.For(t, env) }

// Shorthands for the harness's helpers.
func namespace(t testing.TB, name string) string { return h.Namespace(t, name) }
func get(t testing.TB, o client.Object)          { h.Get(t, o) }
func events(t testing.TB, o client.Object) []string {
	return h.Events(t, o)
}
func eventCount(t testing.TB, o client.Object, reason string) int32 {
	return h.EventCount(t, o, reason)
}

// eventCountOnce counts the events of reason about o once at least want
// arrived, or after 10 s: events are recorded asynchronously, so a count
// taken as soon as what they report shows may miss the last.
func eventCountOnce(t testing.TB, o client.Object, reason string, want int32) int32 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	n := eventCount(t, o, reason)
	for n < want && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		n = eventCount(t, o, reason)
	}
	return n
}
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	controllertest.Eventually(t, timeout, what, cond)
}
func containsAny(list []string, frag string) bool { return controllertest.ContainsAny(list, frag) }
