package sim

import (
	"hash/fnv"
	"sync"

	"k8s.io/utils/clock"
)

// Registry hands out one simulator per cluster identity so that successive
// reconciles of the same cluster see the same simulated database. The
// simulators live in memory only: restarting the provider restarts every
// simulated database from scratch (the provider then re-creates it like a
// lost cluster).
type Registry struct {
	clock clock.PassiveClock
	opts  Options

	mu   sync.Mutex
	sims map[string]*Sim
}

// NewRegistry returns a registry whose simulators share clk and opts; each
// gets a seed derived from opts.Seed and its key.
func NewRegistry(clk clock.PassiveClock, opts Options) *Registry {
	return &Registry{clock: clk, opts: opts, sims: map[string]*Sim{}}
}

// Get returns the simulator of the cluster identified by key (for example
// namespace/name), creating it on first use.
func (r *Registry) Get(key string) *Sim {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sims[key]; ok {
		return s
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	opts := r.opts
	opts.Seed ^= h.Sum64()
	s := New(r.clock, opts)
	r.sims[key] = s
	return s
}
