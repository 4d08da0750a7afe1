package sim

import (
	"hash/fnv"
	"slices"
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

// ClockAndSeed are the clock the registry's simulators share and the seed
// of its options, for what models the world around them on the same time
// and seed (the connector's kubelet and monitors).
func (r *Registry) ClockAndSeed() (clock.PassiveClock, uint64) { return r.clock, r.opts.Seed }

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

// Open returns the simulator of the cluster identified by key, creating it
// on first use, unless a simulated database already answers at
// connectionString: a cluster file that reaches a database (Sim.Reaches)
// reaches it whatever holds the file (a ConfigMap
// written again after it was lost). key then names that database too.
// Only a key seen for the first time is looked up by its cluster file.
func (r *Registry) Open(key, connectionString string) *Sim {
	r.mu.Lock()
	s, known := r.sims[key]
	r.mu.Unlock()
	if known {
		return s
	}
	if k, ok := r.KeyAt(connectionString); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, taken := r.sims[key]; !taken {
			r.sims[key] = r.sims[k]
		}
		return r.sims[key]
	}
	return r.Get(key)
}

// KeyAt returns a key of the simulated database a client holding the
// cluster file connectionString reaches (Sim.Reaches), if one does.
func (r *Registry) KeyAt(connectionString string) (string, bool) {
	if connectionString == "" {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.sims))
	for k := range r.sims {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same key every time, whatever the map's order
	for _, k := range keys {
		if r.sims[k].Reaches(connectionString) {
			return k, true
		}
	}
	return "", false
}
