package bindings

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// bindingsCache stands in for the Go bindings' cache of open databases: a
// map no lock guards, written by fdb.OpenDatabase and Database.Close.
type bindingsCache map[string]int

func (c bindingsCache) open(clusterFile string) (string, error) {
	c[clusterFile]++
	return clusterFile, nil
}

func (c bindingsCache) close(clusterFile string) { delete(c, clusterFile) }

// TestOpenDatabaseCacheIsWrittenOneAtATime: the pinned bindings' fdb.
// OpenDatabase writes a map no lock guards (bindings/go/src/fdb/fdb.go:
// 336-349 at 51e1c42), and the reconciles of different clusters open their
// databases at once. Through the pool the cache is written by one goroutine
// at a time: run with -race, the detector reports any two writes that are
// not, and without it Go may abort the test with "concurrent map writes".
func TestOpenDatabaseCacheIsWrittenOneAtATime(t *testing.T) {
	cache := bindingsCache{}
	clock := time.Unix(0, 0)
	var mu sync.Mutex
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Minute) // every release leaves its handle idle
		return clock
	}
	p := newPool(cache.open, cache.close, now, time.Minute)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			for j := range 20 {
				_, release, err := p.acquire(fmt.Sprintf("/tmp/%d.cluster", (i+j)%8))
				if err != nil {
					t.Error(err)
					return
				}
				release()
			}
		})
	}
	wg.Wait()
}

// TestPoolClosesDatabasesNoLongerUsed: one handle per cluster file, opened
// on first use and kept while used; a handle unused for the idle time is
// closed when another cluster file's is acquired (the database of a
// cluster that is gone, or of coordinators since replaced), never while a
// transaction uses it, and opened again when its file is used again.
func TestPoolClosesDatabasesNoLongerUsed(t *testing.T) {
	// A step acquires a file's handle, or releases its oldest acquire.
	type step struct {
		at               time.Duration // since the start
		acquire, release string
	}
	cases := map[string]struct {
		steps []step
		want  []string
	}{
		"KeptWhileUsedEachPoll": {
			steps: []step{
				{at: 0, acquire: "a"}, {at: 0, release: "a"},
				{at: 9 * time.Minute, acquire: "b"}, {at: 9 * time.Minute, release: "b"},
				{at: 18 * time.Minute, acquire: "a"}, {at: 18 * time.Minute, release: "a"},
			},
			want: []string{"open a", "open b"},
		},
		"IdleClosedWhenAnotherIsAcquired": {
			steps: []step{
				{at: 0, acquire: "a"}, {at: 0, release: "a"},
				{at: 10 * time.Minute, acquire: "b"}, {at: 10 * time.Minute, release: "b"},
			},
			want: []string{"open a", "close a", "open b"},
		},
		"InUseNeverClosed": {
			steps: []step{
				{at: 0, acquire: "a"},
				{at: time.Hour, acquire: "b"}, {at: time.Hour, release: "b"},
				{at: 2 * time.Hour, release: "a"},
				{at: 3 * time.Hour, acquire: "b"},
			},
			want: []string{"open a", "open b", "close a"},
		},
		"OpenedAgainAfterClosed": {
			steps: []step{
				{at: 0, acquire: "a"}, {at: 0, release: "a"},
				{at: time.Hour, acquire: "b"}, {at: time.Hour, release: "b"},
				{at: 2 * time.Hour, acquire: "a"},
			},
			want: []string{"open a", "close a", "open b", "close b", "open a"},
		},
		"AcquiredIdleHandleKept": {
			steps: []step{
				{at: 0, acquire: "a"}, {at: 0, release: "a"},
				{at: time.Hour, acquire: "a"},
			},
			want: []string{"open a"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			clock := start
			var got []string
			p := newPool(
				func(f string) (string, error) { got = append(got, "open "+f); return f, nil },
				func(f string) { got = append(got, "close "+f) },
				func() time.Time { return clock }, idleAfter)
			releases := map[string][]func(){}
			for _, s := range tc.steps {
				clock = start.Add(s.at)
				if s.acquire != "" {
					h, release, err := p.acquire(s.acquire)
					if err != nil || h != s.acquire {
						t.Fatalf("acquire(%q): %q, %v", s.acquire, h, err)
					}
					releases[s.acquire] = append(releases[s.acquire], release)
					continue
				}
				releases[s.release][0]()
				releases[s.release] = releases[s.release][1:]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("opens and closes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPoolOpenFails: a cluster file that cannot be opened is not kept, and
// is tried again on the next acquire.
func TestPoolOpenFails(t *testing.T) {
	tries := 0
	p := newPool(func(string) (int, error) { tries++; return 0, errors.New("no cluster file") }, func(int) {}, time.Now, idleAfter)
	for range 2 {
		if _, _, err := p.acquire("a"); err == nil {
			t.Fatal("acquire: no error, want the open's")
		}
	}
	if tries != 2 {
		t.Errorf("opened %d times, want 2", tries)
	}
}
