// Package statuscache shares the reads of a database's status among the
// reconciles of the resources that belong to it. A database of a hundred
// process groups is otherwise asked for its whole `status json` by each of
// them and by its Cluster, its Backups and Restores on every poll: against a
// real cluster each read is an fdbcli process and a document the cluster
// controller assembles from every process, which is why the FoundationDB
// operator reads it once per cluster reconcile.
//
// A read is shared by the clients of one key (a database as one client
// identity reaches it: Key) while it is younger than the age each reader
// accepts; readers that arrive while a read is under way wait for it. What
// the provider changes makes the next read go to the database: every admin
// call through a shared client but the reads, and every step a reconcile
// took (Cache.Changed). A failed read, or one cut short, is not kept.
//
// A step that changes the database is planned and decided on a status the
// reconcile read itself: a shared read may be as old as its reader
// accepted, and the database may have changed meanwhile without the
// provider (chaos seed 956: a transaction log recruited onto a stateless
// pod a few seconds after the read its group's reconcile shared). Such a
// reconcile leaves its step to the next reconcile of the resource, which
// reads anew (Cache.Owe).
package statuscache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Cache holds the last status read of each key. Its zero value is not
// usable: use New.
type Cache struct {
	clock clock.PassiveClock

	mu      sync.Mutex
	entries map[string]*entry
	// swept is when the cache last let go of the keys nobody read for
	// forget (sweep).
	swept time.Time
	// owed are the resources whose next read goes to the database (Owe).
	owed map[string]bool
}

// forget is how long a key's last read is kept without a newer one: longer
// than any poll interval a read is shared for in practice, short enough
// that a database deleted, or a connection string replaced by a coordinator
// change, does not hold its last status for the life of the process.
const forget = 10 * time.Minute

// entry is what the cache knows of one key.
type entry struct {
	// status was read at readAt; nil when there is none to share.
	status *fdb.Status
	readAt time.Time
	// changes counts the changes made through the key: a read that began
	// before one is not kept.
	changes uint64
	// reading is the read under way, nil when none is.
	reading *read
}

// read is one status read that other readers may wait for.
type read struct {
	done   chan struct{}
	status *fdb.Status
	err    error
}

// New returns a cache that ages its reads by clk.
func New(clk clock.PassiveClock) *Cache {
	return &Cache{clock: clk, entries: map[string]*entry{}, owed: map[string]bool{}}
}

// Key identifies a database as a client reaches it: by its connection
// string (whose description and ID are the database's own) and the
// certificate the client presents, which decides what the client may see.
// The Clusters of a database's data centers share one key.
func Key(connectionString string, tls *fdb.TLSCredentials) string {
	if tls == nil {
		return connectionString
	}
	sum := sha256.Sum256(tls.Certificate)
	return connectionString + " " + hex.EncodeToString(sum[:8])
}

// Client returns c, an admin client of the database of key for the
// reconcile of the resource named resource, whose Status shares reads no
// older than maxAge with the other clients of key (none when the resource
// is owed a read of its own: Owe), and whose other calls but BackupStatus
// and RestoreStatus mark key changed. Readers share the status returned:
// none may change it. ReadHere says whether the last status came from a
// read of this client's own.
func (k *Cache) Client(key, resource string, c fdb.Client, maxAge time.Duration) *Client {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.owed[resource] {
		delete(k.owed, resource)
		maxAge = ownRead
	}
	return &Client{Client: c, cache: k, key: key, maxAge: maxAge}
}

// ownRead is the age a reader accepts that shares no read, stored or under
// way: it reads the database itself.
const ownRead = -1

// Owe makes the next client of resource read the database itself: its
// reconcile planned a step on a status another read, and leaves the step
// to the next reconcile.
func (k *Cache) Owe(resource string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.owed[resource] = true
}

// Changed makes the next status read of key go to the database: the
// provider changed something the status shows, e.g. it deleted a pod.
func (k *Cache) Changed(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e := k.entry(key)
	e.changes++
	// Readers from now on read afresh; those waiting already get the read
	// they waited for, which is not kept.
	e.status, e.reading = nil, nil
}

// entry returns the entry of key, made when missing. The caller holds mu.
func (k *Cache) entry(key string) *entry {
	e := k.entries[key]
	if e == nil {
		e = &entry{}
		k.entries[key] = e
	}
	return e
}

// Status returns the status of key read no longer than maxAge ago, from
// the cache, from the read under way or by reading it with get; with
// ownRead, always by reading it with get. A reader whose wait for another's
// read ends because that reader gave up reads again itself.
func (k *Cache) Status(ctx context.Context, key string, maxAge time.Duration, get func(context.Context) (*fdb.Status, error)) (*fdb.Status, error) {
	for {
		k.mu.Lock()
		e := k.entry(key)
		if e.status != nil && maxAge != ownRead && k.clock.Since(e.readAt) <= maxAge {
			s := e.status
			k.mu.Unlock()
			return s, nil
		}
		if r := e.reading; r != nil && maxAge != ownRead {
			k.mu.Unlock()
			select {
			case <-r.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if r.err != nil && cutShort(r.err) && ctx.Err() == nil {
				continue
			}
			return r.status, r.err
		}
		r := &read{done: make(chan struct{})}
		e.reading = r
		changes, began := e.changes, k.clock.Now()
		k.mu.Unlock()

		r.status, r.err = get(ctx)

		k.mu.Lock()
		if e.reading == r {
			e.reading = nil
		}
		if r.err == nil && e.changes == changes {
			e.status, e.readAt = r.status, began
		}
		k.sweep()
		k.mu.Unlock()
		close(r.done)
		return r.status, r.err
	}
}

// sweep lets go, at most once per forget, of the keys whose last read is
// older than forget and that no read is under way for. The caller holds mu.
func (k *Cache) sweep() {
	now := k.clock.Now()
	if now.Sub(k.swept) < forget {
		return
	}
	k.swept = now
	for key, e := range k.entries {
		if e.reading == nil && now.Sub(e.readAt) > forget {
			delete(k.entries, key)
		}
	}
}

// cutShort reports whether err ended a read because its reader gave up.
func cutShort(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
