package controllertest

import (
	"maps"
	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// writeCounter counts the provider's write requests to the API server —
// every request that is not a read — by "<method> <path>". It counts what
// the provider sends, also writes the API server then finds change
// nothing: those cost it as much as any other.
type writeCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// counting returns cfg with its requests counted by w.
func (w *writeCounter) counting(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.mu.Lock()
				w.counts[r.Method+" "+r.URL.Path]++
				w.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return cfg
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// WriteRequests returns how many write requests the provider sent so far
// to objects in namespace ns, by "<method> <path>".
func (h *Harness) WriteRequests(ns string) map[string]int {
	h.writes.mu.Lock()
	defer h.writes.mu.Unlock()
	out := maps.Clone(h.writes.counts)
	maps.DeleteFunc(out, func(k string, _ int) bool { return !strings.Contains(k, "/namespaces/"+ns+"/") })
	return out
}
