package statuscache

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// reader counts the reads that reach the database and returns a status
// numbered by them.
type reader struct {
	mu    sync.Mutex
	reads int
}

func (r *reader) get(context.Context) (*fdb.Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	return &fdb.Status{Client: fdb.ClientStatus{Timestamp: int64(r.reads)}}, nil
}

func TestStatus(t *testing.T) {
	const maxAge = 5 * time.Second
	type call struct {
		// after passes on the clock before the call; changed marks the key
		// changed before it.
		after   time.Duration
		changed bool
		maxAge  time.Duration
	}
	cases := map[string]struct {
		calls []call
		// want is the read each call was served by.
		want []int64
	}{
		"SharedWhileYoung": {
			calls: []call{{maxAge: maxAge}, {after: time.Second, maxAge: maxAge}, {after: 4 * time.Second, maxAge: maxAge}},
			want:  []int64{1, 1, 1},
		},
		"ReadAgainOnceOld": {
			calls: []call{{maxAge: maxAge}, {after: 5*time.Second + 1, maxAge: maxAge}, {after: time.Second, maxAge: maxAge}},
			want:  []int64{1, 2, 2},
		},
		"EachReaderItsOwnAge": {
			calls: []call{{maxAge: time.Minute}, {after: 10 * time.Second, maxAge: time.Minute}, {maxAge: maxAge}, {maxAge: time.Minute}},
			want:  []int64{1, 1, 2, 2},
		},
		"ReadAgainAfterAChange": {
			calls: []call{{maxAge: maxAge}, {changed: true, maxAge: maxAge}, {maxAge: maxAge}},
			want:  []int64{1, 2, 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			k, r := New(clk), &reader{}
			var got []int64
			for _, c := range tc.calls {
				clk.Step(c.after)
				if c.changed {
					k.Changed("db")
				}
				s, err := k.Status(context.Background(), "db", c.maxAge, r.get)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, s.Client.Timestamp)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reads that served each call (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeysAreApart(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	k, r := New(clk), &reader{}
	var got []int64
	for _, key := range []string{"a", Key("a", &fdb.TLSCredentials{Certificate: []byte("x")}), "a", "b"} {
		s, err := k.Status(context.Background(), key, time.Minute, r.get)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Client.Timestamp)
	}
	if diff := cmp.Diff([]int64{1, 2, 1, 3}, got); diff != "" {
		t.Errorf("reads that served each key (-want +got):\n%s", diff)
	}
}

// TestKeysNotReadAreForgotten: a key nobody read for ten minutes, e.g. the
// connection string of a deleted database, lets go of its last status.
func TestKeysNotReadAreForgotten(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	k, r := New(clk), &reader{}
	for _, key := range []string{"gone", "kept"} {
		if _, err := k.Status(context.Background(), key, time.Hour, r.get); err != nil {
			t.Fatal(err)
		}
	}
	clk.Step(forget + time.Second)
	k.Changed("kept")
	if _, err := k.Status(context.Background(), "kept", time.Hour, r.get); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"kept"}, slices.Sorted(maps.Keys(k.entries))); diff != "" {
		t.Errorf("keys held: -want, +got:\n%s", diff)
	}
}

// TestReadersWaitForTheReadUnderWay: readers that come while a read is
// under way share it; one that comes after a change made meanwhile reads
// afresh, and the read under way is not kept.
func TestReadersWaitForTheReadUnderWay(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	k := New(clk)
	release := make(chan struct{})
	var mu sync.Mutex
	reads := 0
	get := func(context.Context) (*fdb.Status, error) {
		mu.Lock()
		reads++
		n := reads
		mu.Unlock()
		if n == 1 {
			<-release
		}
		return &fdb.Status{Client: fdb.ClientStatus{Timestamp: int64(n)}}, nil
	}
	results := make(chan int64, 4)
	status := func() {
		s, err := k.Status(context.Background(), "db", time.Minute, get)
		if err != nil {
			t.Error(err)
			results <- 0
			return
		}
		results <- s.Client.Timestamp
	}
	go status()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return reads == 1 })
	go status()
	waitFor(t, func() bool { k.mu.Lock(); defer k.mu.Unlock(); return k.entries["db"].reading != nil })
	time.Sleep(10 * time.Millisecond) // the second reader waits on the first read
	k.Changed("db")
	go status() // after the change: a read of its own
	select {
	case got := <-results:
		if got != 2 {
			t.Errorf("a reader after a change was served by read %d, want 2", got)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("a reader after a change waited for the read that began before it")
	}
	close(release)
	got := []int64{<-results, <-results}
	if diff := cmp.Diff([]int64{1, 1}, got); diff != "" {
		t.Errorf("reads that served the readers of the first read (-want +got):\n%s", diff)
	}
	status()
	if got := <-results; got != 2 {
		t.Errorf("after the reads: served by read %d, want the one after the change (2): the first began before it", got)
	}
}

// TestAReadCutShortIsNotShared: a reader whose read ends with its own
// context leaves the others to read again.
func TestAReadCutShortIsNotShared(t *testing.T) {
	k := New(clocktesting.NewFakeClock(time.Now()))
	started := make(chan struct{})
	calls := 0
	get := func(ctx context.Context) (*fdb.Status, error) {
		calls++
		if calls == 1 {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &fdb.Status{}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error)
	go func() {
		_, err := k.Status(ctx, "db", time.Minute, get)
		first <- err
	}()
	<-started
	second := make(chan error)
	go func() {
		_, err := k.Status(context.Background(), "db", time.Minute, get)
		second <- err
	}()
	waitFor(t, func() bool { k.mu.Lock(); defer k.mu.Unlock(); return k.entries["db"].reading != nil })
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-first; err == nil {
		t.Error("the reader that gave up got no error")
	}
	if err := <-second; err != nil {
		t.Errorf("the reader that waited: %v, want its own read", err)
	}
}

// TestEveryChangeMarksTheKey calls every method of fdb.Client through a
// shared client and checks that each but the reads makes the next status
// read go to the database: a method added to fdb.Client later cannot pass
// by unnoticed.
func TestEveryChangeMarksTheKey(t *testing.T) {
	reads := map[string]bool{"Status": true, "BackupStatus": true, "RestoreStatus": true}
	iface := reflect.TypeFor[fdb.Client]()
	for i := range iface.NumMethod() {
		m := iface.Method(i)
		t.Run(m.Name, func(t *testing.T) {
			k := New(clocktesting.NewFakeClock(time.Now()))
			r := &reader{}
			c := k.Client("db", "pg", nop{}, time.Minute)
			if _, err := k.Status(context.Background(), "db", time.Minute, r.get); err != nil {
				t.Fatal(err)
			}
			method := reflect.ValueOf(c).MethodByName(m.Name)
			args := []reflect.Value{reflect.ValueOf(context.Background())}
			for j := 1; j < method.Type().NumIn(); j++ {
				args = append(args, reflect.Zero(method.Type().In(j)))
			}
			method.Call(args)
			if _, err := k.Status(context.Background(), "db", time.Minute, r.get); err != nil {
				t.Fatal(err)
			}
			if got, want := r.reads == 2, !reads[m.Name]; got != want {
				t.Errorf("%s made the next status read go to the database: %t, want %t", m.Name, got, want)
			}
		})
	}
}

// nop is an admin client that does nothing.
type nop struct{ fdb.Client }

func (nop) Status(context.Context) (*fdb.Status, error) { return &fdb.Status{}, nil }
func (nop) Configure(context.Context, fdb.DatabaseConfiguration, bool) error {
	return nil
}
func (nop) Exclude(context.Context, []fdb.ProcessAddress) error { return nil }
func (nop) Include(context.Context, []fdb.ProcessAddress) error { return nil }
func (nop) Kill(context.Context, []fdb.ProcessAddress) error    { return nil }
func (nop) ChangeCoordinators(context.Context, []fdb.ProcessAddress) (string, error) {
	return "", nil
}
func (nop) ForceRecovery(context.Context, string) error            { return nil }
func (nop) SetMaintenance(context.Context, string, int) error      { return nil }
func (nop) ResetMaintenance(context.Context) error                 { return nil }
func (nop) StartBackup(context.Context, fdb.BackupRequest) error   { return nil }
func (nop) StopBackup(context.Context, string) error               { return nil }
func (nop) PauseBackups(context.Context) error                     { return nil }
func (nop) ResumeBackups(context.Context) error                    { return nil }
func (nop) ModifyBackup(context.Context, fdb.BackupRequest) error  { return nil }
func (nop) StartRestore(context.Context, fdb.RestoreRequest) error { return nil }
func (nop) AbortRestore(context.Context, string) error             { return nil }
func (nop) BackupStatus(context.Context, string) (*fdb.BackupStatus, error) {
	return nil, nil
}
func (nop) RestoreStatus(context.Context, string) (*fdb.RestoreStatus, error) {
	return nil, nil
}
func (nop) TakeLock(context.Context, fdb.LockRequest) (fdb.GlobalLock, error) {
	return fdb.GlobalLock{}, nil
}
func (nop) ReleaseLock(context.Context, string) error                     { return nil }
func (nop) UpdateLockDenyList(context.Context, []fdb.LockDenyEntry) error { return nil }

// waitFor waits up to ten seconds for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// statusReader is an admin client whose status reads reader r serves.
type statusReader struct {
	nop
	r *reader
}

func (s statusReader) Status(ctx context.Context) (*fdb.Status, error) { return s.r.get(ctx) }

// TestFirsthand: a client says whether its last status came from a read of
// its own, and a resource owed a read of its own (Owe) gets one, once,
// however young the read it would share.
func TestFirsthand(t *testing.T) {
	type read struct {
		Served   int64
		ReadHere bool
	}
	k := New(clocktesting.NewFakeClock(time.Now()))
	r := &reader{}
	status := func(resource string) read {
		c := k.Client("db", resource, statusReader{r: r}, time.Minute)
		s, err := c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return read{s.Client.Timestamp, c.ReadHere()}
	}
	got := []read{status("cluster"), status("pg-1")}
	k.Owe("pg-1")
	got = append(got, status("pg-2"), status("pg-1"), status("pg-1"), status("cluster"))
	want := []read{{1, true}, {1, false}, {1, false}, {2, true}, {2, false}, {2, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}
