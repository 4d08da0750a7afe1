package bindings

import (
	"sync"
	"time"
)

// idleAfter is how long an open database stays open unused. The provider
// reads a cluster's status at least once per poll (a minute by default),
// so a database still in use is seldom closed; one whose cluster is gone,
// or whose cluster file named coordinators since replaced (the connector
// writes one cluster file per connection string), is.
const idleAfter = 10 * time.Minute

// pool keeps the open databases of one process, one handle of type H per
// cluster file. The Go bindings keep the handles fdb.OpenDatabase returns
// in a map that no lock guards, and Database.Close deletes from it
// (bindings/go/src/fdb/fdb.go:336-349 and database.go:71-83 at the pinned
// 51e1c42): two reconciles opening databases at once would write it
// concurrently, which Go aborts the process for. Every open and close goes
// through the pool's one mutex. A handle is in use from acquire until its
// release; one unused for idle is closed when another cluster file's is
// acquired, never while in use.
type pool[H any] struct {
	open  func(clusterFile string) (H, error)
	close func(H)
	now   func() time.Time
	idle  time.Duration

	mu      sync.Mutex
	handles map[string]*pooled[H]
}

// pooled is one open handle, how many callers use it and when the last of
// them released it.
type pooled[H any] struct {
	handle   H
	users    int
	released time.Time
}

// newPool returns a pool that opens and closes handles with open and
// close, and closes those unused for idle by the time now reads.
func newPool[H any](open func(string) (H, error), close func(H), now func() time.Time, idle time.Duration) *pool[H] {
	return &pool[H]{open: open, close: close, now: now, idle: idle, handles: map[string]*pooled[H]{}}
}

// acquire returns the handle of clusterFile, opened if it is not open, and
// the release the caller calls once when done with it. It first closes the
// handles of other cluster files that have been unused for the pool's idle
// time.
func (p *pool[H]) acquire(clusterFile string) (H, func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for f, h := range p.handles {
		if f != clusterFile && h.users == 0 && now.Sub(h.released) >= p.idle {
			p.close(h.handle)
			delete(p.handles, f)
		}
	}
	h, ok := p.handles[clusterFile]
	if !ok {
		handle, err := p.open(clusterFile)
		if err != nil {
			var none H
			return none, nil, err
		}
		h = &pooled[H]{handle: handle}
		p.handles[clusterFile] = h
	}
	h.users++
	release := func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		h.users--
		h.released = p.now()
	}
	return h.handle, sync.OnceFunc(release), nil
}
