package cadence

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A Budget is the provider's poll budget: a token bucket shared by every
// managed kind's controller, from which each drift poll takes one token. A
// poll that finds no token is given the next free one, held for it until
// it comes back for it (see Admit). It is safe for concurrent use.
type Budget struct {
	clock clock.PassiveClock

	mu      sync.Mutex
	limiter *rate.Limiter
	held    map[key]hold
}

// key names a request of one controller: kinds may share names.
type key struct {
	controller string
	req        reconcile.Request
}

// hold is a token held for a poll that waits: it may run from at.
type hold struct {
	at time.Time
	r  *rate.Reservation
}

// NewBudget returns a budget of perSecond polls a second, of which burst
// may run at once, on clock c.
func NewBudget(perSecond float64, burst int, c clock.PassiveClock) *Budget {
	return &Budget{clock: c, limiter: rate.NewLimiter(rate.Limit(perSecond), burst), held: map[key]hold{}}
}

// Admit takes a token for a poll of req by controller and returns zero, or
// returns how long the poll must wait for the token it now holds: the
// caller requeues it for then, and the poll that comes back at or after
// that time runs without taking another.
func (b *Budget) Admit(controller string, req reconcile.Request) time.Duration {
	k, now := key{controller, req}, b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if h, ok := b.held[k]; ok {
		if now.Before(h.at) {
			return h.at.Sub(now)
		}
		delete(b.held, k)
		return 0
	}
	r := b.limiter.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d > 0 {
		b.held[k] = hold{at: now.Add(d), r: r}
	}
	return d
}

// Release gives back the token held for a poll of req by controller that
// was served as work before its time: what sooner polls may then take.
func (b *Budget) Release(controller string, req reconcile.Request) {
	k, now := key{controller, req}, b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if h, ok := b.held[k]; ok {
		h.r.CancelAt(now)
		delete(b.held, k)
	}
}
