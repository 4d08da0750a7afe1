package fdb

import (
	"fmt"
	"time"
)

// DefaultLockDuration is how long a global lock lasts unless its holder
// extends it, as the FoundationDB operator's (lockDurationMinutes 10).
const DefaultLockDuration = 10 * time.Minute

// A GlobalLock serializes the steps with database-wide effect (configure,
// coordinator changes, exclusions, inclusions, bounces, pod updates,
// upgrades) of every provider instance that acts on one database: the
// Clusters of a multi-region database's data centers, or several providers.
// It is held in the database itself, so whoever can reach the database sees
// it, and it is taken, extended and released in one transaction each (Grant
// decides). A holder that stops extending it loses it at End.
type GlobalLock struct {
	// Holder names the instance that holds the lock, e.g. the provider's
	// identity and the Cluster's data center.
	Holder string
	// Start is when the holder took it; End when it expires.
	Start, End time.Time
}

// Expired reports whether the lock has run out at now.
func (l GlobalLock) Expired(now time.Time) bool {
	return !now.Before(l.End)
}

// A LockDenyEntry bars the instance ID from the global lock, or, with
// Allow, lifts that bar.
type LockDenyEntry struct {
	ID    string
	Allow bool
}

// DenyList applies entries to the deny list denied (nil when empty) and
// returns it; nil when nobody is denied.
func DenyList(denied map[string]bool, entries []LockDenyEntry) map[string]bool {
	for _, e := range entries {
		switch {
		case e.Allow:
			delete(denied, e.ID)
		case denied == nil:
			denied = map[string]bool{e.ID: true}
		default:
			denied[e.ID] = true
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return denied
}

// A LockRequest asks for the global lock for Holder at Now, for Duration
// (DefaultLockDuration when zero).
type LockRequest struct {
	Holder   string
	Now      time.Time
	Duration time.Duration
}

// A LockHeldError says that another instance holds the global lock, or that
// the deny list bars the one that asked.
type LockHeldError struct {
	// Held is the lock as it is; zero when the requester is denied and
	// nobody holds it.
	Held GlobalLock
	// Denied is true when the deny list bars the requester.
	Denied bool
	// Requester is the holder that asked.
	Requester string
}

func (e *LockHeldError) Error() string {
	if e.Denied {
		return fmt.Sprintf("%s is on the lock's deny list", e.Requester)
	}
	return fmt.Sprintf("the global lock is held by %s until %s", e.Held.Holder, e.Held.End.UTC().Format(time.RFC3339))
}

// Grant decides a request for the global lock, held is the lock as it is
// (nil when none is) and denied the deny list: every implementation of
// Client applies it inside the one transaction that reads and writes the
// lock. A denied requester gets nothing. The lock is taken when nobody holds
// it, when it has expired, or when its holder is denied (a misbehaving
// instance is stopped by denying it); its holder extends it, keeping its
// start. Anyone else gets a *LockHeldError naming the holder and the end.
func Grant(held *GlobalLock, denied map[string]bool, r LockRequest) (GlobalLock, error) {
	if r.Holder == "" {
		return GlobalLock{}, fmt.Errorf("a lock request names no holder")
	}
	d := r.Duration
	if d <= 0 {
		d = DefaultLockDuration
	}
	if denied[r.Holder] {
		e := &LockHeldError{Denied: true, Requester: r.Holder}
		if held != nil {
			e.Held = *held
		}
		return GlobalLock{}, e
	}
	switch {
	case held == nil || held.Expired(r.Now) || denied[held.Holder]:
		return GlobalLock{Holder: r.Holder, Start: r.Now, End: r.Now.Add(d)}, nil
	case held.Holder == r.Holder:
		return GlobalLock{Holder: r.Holder, Start: held.Start, End: later(held.End, r.Now.Add(d))}, nil
	}
	return GlobalLock{}, &LockHeldError{Held: *held, Requester: r.Holder}
}

// Released is what remains of the lock held (nil when none is) once holder
// releases it: nothing when holder held it, else the lock as it is —
// releasing never takes the lock from another holder.
func Released(held *GlobalLock, holder string) *GlobalLock {
	if held == nil || held.Holder == holder {
		return nil
	}
	return held
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
