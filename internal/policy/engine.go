// Package policy decides whether a mutation of a FoundationDB cluster is safe
// by evaluating SafetyPolicies, CEL rules shaped like Kubernetes
// ValidatingAdmissionPolicies, against a snapshot of the cluster: the action,
// the cluster's spec and observed status, its process groups, the exclusion
// budget, parameters, the time and the managed resource.
package policy

import (
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"k8s.io/utils/clock"
)

// An Engine compiles policies, caches their programs and decides. It is safe
// for concurrent use; build one per process and share it.
type Engine struct {
	env              *cel.Env
	clock            clock.PassiveClock
	staticCostLimit  uint64
	runtimeCostLimit uint64
	// builtinCosts is true when the built-in policies' costs are tracked.
	builtinCosts bool

	mu       sync.RWMutex
	compiled map[string]*Compiled // by Policy.Key
	keys     map[string]string    // Policy.Name to the Key cached for it
	hits     atomic.Uint64
	misses   atomic.Uint64
}

// An Option configures an Engine.
type Option func(*Engine)

// WithClock sets the clock that gives decisions their time and the CEL
// variable now.
func WithClock(c clock.PassiveClock) Option {
	return func(e *Engine) { e.clock = c }
}

// WithCostLimits sets the static (estimated, per expression) and runtime
// (per evaluation) cost limits.
func WithCostLimits(static, runtime uint64) Option {
	return func(e *Engine) {
		e.staticCostLimit = static
		e.runtimeCostLimit = runtime
	}
}

// WithBuiltinCosts tracks the runtime cost of the built-in policies' expressions
// too, so that their traces show costs, as a tool that prints traces wants
// (fdbpolicy). Without it, a built-in policy's expression whose estimated
// worst-case cost is within the runtime limit is evaluated without cost
// tracking and without context checks, which spares about half of a
// decision's time, and its trace shows a cost of 0. Decisions are the same either way as long as the
// input keeps to the sizes the estimate assumes (see MaxProcessGroups).
func WithBuiltinCosts() Option {
	return func(e *Engine) { e.builtinCosts = true }
}

// NewEngine builds the CEL environment once and returns an engine.
func NewEngine(o ...Option) (*Engine, error) {
	env, err := newEnv()
	if err != nil {
		return nil, err
	}
	e := &Engine{
		env:              env,
		clock:            clock.RealClock{},
		staticCostLimit:  DefaultStaticCostLimit,
		runtimeCostLimit: DefaultRuntimeCostLimit,
		compiled:         map[string]*Compiled{},
		keys:             map[string]string{},
	}
	for _, fn := range o {
		fn(e)
	}
	return e, nil
}

// CacheStats count the lookups of compiled policies.
type CacheStats struct {
	Hits   uint64
	Misses uint64
}

// CacheStats returns how often Compile found a policy in the cache.
func (e *Engine) CacheStats() CacheStats {
	return CacheStats{Hits: e.hits.Load(), Misses: e.misses.Load()}
}

// Compile returns the compiled policy, from the cache when this version of
// it was compiled before. A newer version of a policy evicts the older one.
func (e *Engine) Compile(p Policy) *Compiled {
	e.mu.RLock()
	c, ok := e.compiled[p.Key]
	e.mu.RUnlock()
	if ok {
		e.hits.Add(1)
		return c
	}
	e.misses.Add(1)
	c = e.compile(p)

	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.keys[p.Name]; ok && old != p.Key {
		delete(e.compiled, old)
	}
	e.keys[p.Name] = p.Key
	e.compiled[p.Key] = c
	return c
}
