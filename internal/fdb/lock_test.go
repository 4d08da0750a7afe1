package fdb

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGrant(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	held := func(holder string, start time.Time, d time.Duration) *GlobalLock {
		return &GlobalLock{Holder: holder, Start: start, End: start.Add(d)}
	}
	type want struct {
		lock GlobalLock
		err  string
	}
	cases := map[string]struct {
		reason string
		held   *GlobalLock
		denied map[string]bool
		r      LockRequest
		want   want
	}{
		"Free": {
			reason: "Nobody holds the lock: the requester takes it for the default duration.",
			r:      LockRequest{Holder: "dc1", Now: t0},
			want:   want{lock: GlobalLock{Holder: "dc1", Start: t0, End: t0.Add(DefaultLockDuration)}},
		},
		"HeldByAnother": {
			reason: "Another instance holds an unexpired lock: the requester is told who and until when.",
			held:   held("dc2", t0, time.Minute),
			r:      LockRequest{Holder: "dc1", Now: t0.Add(30 * time.Second)},
			want:   want{err: "the global lock is held by dc2 until 2026-01-01T00:01:00Z"},
		},
		"ExpiredAtItsEnd": {
			reason: "A lock whose holder stopped extending it is taken over at its end.",
			held:   held("dc2", t0, time.Minute),
			r:      LockRequest{Holder: "dc1", Now: t0.Add(time.Minute), Duration: time.Minute},
			want:   want{lock: GlobalLock{Holder: "dc1", Start: t0.Add(time.Minute), End: t0.Add(2 * time.Minute)}},
		},
		"Extended": {
			reason: "The holder extends its lock and keeps its start.",
			held:   held("dc1", t0, time.Minute),
			r:      LockRequest{Holder: "dc1", Now: t0.Add(50 * time.Second), Duration: time.Minute},
			want:   want{lock: GlobalLock{Holder: "dc1", Start: t0, End: t0.Add(110 * time.Second)}},
		},
		"NeverShortened": {
			reason: "An extension for less than is left never shortens the lock.",
			held:   held("dc1", t0, time.Hour),
			r:      LockRequest{Holder: "dc1", Now: t0.Add(time.Minute), Duration: time.Minute},
			want:   want{lock: GlobalLock{Holder: "dc1", Start: t0, End: t0.Add(time.Hour)}},
		},
		"RenewedAfterExpiry": {
			reason: "A holder whose lock expired takes it anew, from now.",
			held:   held("dc1", t0, time.Minute),
			r:      LockRequest{Holder: "dc1", Now: t0.Add(2 * time.Minute), Duration: time.Minute},
			want:   want{lock: GlobalLock{Holder: "dc1", Start: t0.Add(2 * time.Minute), End: t0.Add(3 * time.Minute)}},
		},
		"HolderDenied": {
			reason: "Denying the holder of an unexpired lock lets another take it over at once.",
			held:   held("dc2", t0, time.Hour),
			denied: map[string]bool{"dc2": true},
			r:      LockRequest{Holder: "dc1", Now: t0.Add(time.Minute), Duration: time.Minute},
			want:   want{lock: GlobalLock{Holder: "dc1", Start: t0.Add(time.Minute), End: t0.Add(2 * time.Minute)}},
		},
		"RequesterDenied": {
			reason: "A denied instance gets nothing, not even a free lock.",
			denied: map[string]bool{"dc1": true},
			r:      LockRequest{Holder: "dc1", Now: t0},
			want:   want{err: "dc1 is on the lock's deny list"},
		},
		"DeniedHolderExtends": {
			reason: "A denied holder cannot extend its own lock.",
			held:   held("dc1", t0, time.Hour),
			denied: map[string]bool{"dc1": true},
			r:      LockRequest{Holder: "dc1", Now: t0},
			want:   want{err: "dc1 is on the lock's deny list"},
		},
		"NoHolder": {
			reason: "A request must name its holder.",
			r:      LockRequest{Now: t0},
			want:   want{err: "a lock request names no holder"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, err := Grant(tc.held, tc.denied, tc.r)
			got := want{lock: l}
			if err != nil {
				got.err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nGrant(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReleased(t *testing.T) {
	mine := &GlobalLock{Holder: "dc1"}
	cases := map[string]struct {
		reason string
		held   *GlobalLock
		want   *GlobalLock
	}{
		"Mine":    {reason: "The holder's release frees the lock.", held: mine},
		"Another": {reason: "A release never takes the lock from another holder.", held: &GlobalLock{Holder: "dc2"}, want: &GlobalLock{Holder: "dc2"}},
		"None":    {reason: "Releasing a free lock leaves it free."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Released(tc.held, "dc1")); diff != "" {
				t.Errorf("\n%s\nReleased(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDenyList(t *testing.T) {
	cases := map[string]struct {
		reason  string
		denied  map[string]bool
		entries []LockDenyEntry
		want    map[string]bool
	}{
		"Deny":      {reason: "An entry denies its ID.", entries: []LockDenyEntry{{ID: "dc2"}}, want: map[string]bool{"dc2": true}},
		"Allow":     {reason: "An entry that allows lifts the bar.", denied: map[string]bool{"dc2": true, "dc3": true}, entries: []LockDenyEntry{{ID: "dc2", Allow: true}}, want: map[string]bool{"dc3": true}},
		"AllowLast": {reason: "Nobody denied is an empty list.", denied: map[string]bool{"dc2": true}, entries: []LockDenyEntry{{ID: "dc2", Allow: true}}},
		"InOrder":   {reason: "Entries apply in order: the last word on an ID counts.", entries: []LockDenyEntry{{ID: "dc2"}, {ID: "dc2", Allow: true}}},
		"AllowNone": {reason: "Allowing an ID that is not denied changes nothing.", entries: []LockDenyEntry{{ID: "dc2", Allow: true}}},
		"NoEntries": {reason: "No entries keep the list.", denied: map[string]bool{"dc2": true}, want: map[string]bool{"dc2": true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DenyList(tc.denied, tc.entries)); diff != "" {
				t.Errorf("\n%s\nDenyList(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
