package toolcost

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// methodOps is the operation each method of fdb.Client runs.
var methodOps = map[string]Op{
	"Status": OpStatus, "Configure": OpConfigure, "Exclude": OpExclude, "Include": OpInclude, "Kill": OpKill,
	"ChangeCoordinators": OpCoordinators, "ForceRecovery": OpForceRecovery,
	"SetMaintenance": OpMaintenance, "ResetMaintenance": OpMaintenanceOff,
	"StartBackup": OpBackupStart, "StopBackup": OpBackupDiscontinue, "PauseBackups": OpBackupPause,
	"ResumeBackups": OpBackupResume, "ModifyBackup": OpBackupModify, "BackupStatus": OpBackupStatus,
	"StartRestore": OpRestoreStart, "RestoreStatus": OpRestoreStatus, "AbortRestore": OpRestoreAbort,
	"TakeLock": OpTakeLock, "ReleaseLock": OpReleaseLock, "UpdateLockDenyList": OpLockDenyList,
}

// TestEveryMethodIsCharged walks fdb.Client's methods: each one forwards
// to the wrapped client once and waits what its operation costs, the start
// before the call and the run after; a tool's run is counted under its
// operation, a lock's transaction is not. A method added to fdb.Client
// fails here until it is charged and named in methodOps.
func TestEveryMethodIsCharged(t *testing.T) {
	const processes = 7
	iface := reflect.TypeFor[fdb.Client]()
	for i := range iface.NumMethod() {
		m := iface.Method(i)
		t.Run(m.Name, func(t *testing.T) {
			op, ok := methodOps[m.Name]
			if !ok {
				t.Fatalf("fdb.Client.%s has no operation in methodOps, and no cost", m.Name)
			}
			inner := &fake{processes: processes}
			var events []string
			inner.onCall = func(name string) { events = append(events, "call "+name) }
			metrics := NewMetrics()
			c := &Client{inner: inner, metrics: metrics, wait: func(_ context.Context, d time.Duration) error {
				if d > 0 {
					events = append(events, "wait "+d.String())
				}
				return nil
			}}
			args := []reflect.Value{reflect.ValueOf(context.Background())}
			for j := 1; j < m.Type.NumIn(); j++ {
				args = append(args, reflect.Zero(m.Type.In(j)))
			}
			out := reflect.ValueOf(c).MethodByName(m.Name).Call(args)
			if err, _ := out[len(out)-1].Interface().(error); err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}

			start, run := Of(op, 0)
			if op == OpStatus {
				_, run = Of(op, processes)
			}
			var want []string
			if start.Wall > 0 {
				want = append(want, "wait "+start.Wall.String())
			}
			want = append(want, "call "+m.Name, "wait "+run.Wall.String())
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("%s: waits and calls: -want, +got:\n%s", m.Name, diff)
			}
			wantRuns := 0.0
			if Tool(op) {
				wantRuns = 1
			}
			if got := testutil.ToFloat64(metrics.invocations.WithLabelValues(string(op))); got != wantRuns {
				t.Errorf("%s: fdb_tool_invocations_total{op=%q} = %v, want %v", m.Name, op, got, wantRuns)
			}
			wantCPU := (start.ToolCPU + run.ToolCPU).Seconds()
			if got := testutil.ToFloat64(metrics.toolCPU); got != wantCPU {
				t.Errorf("%s: fdb_tool_cpu_seconds_total = %v, want %v", m.Name, got, wantCPU)
			}
			if got, want := testutil.ToFloat64(metrics.controllerCPU), run.ControllerCPU.Seconds(); got != want {
				t.Errorf("%s: fdb_cluster_controller_status_cpu_seconds_total = %v, want %v", m.Name, got, want)
			}
		})
	}
}

// TestCancelStopsTheWait: a context that ends while the tool starts
// returns its error at once and the operation does not run; one that ends
// while the command's cost is waited returns its error after the
// operation ran. The clock never reaches the costs.
func TestCancelStopsTheWait(t *testing.T) {
	cases := map[string]struct {
		// started lets the tool's start pass before the cancel.
		started   bool
		wantCalls []string
	}{
		"DuringTheStart":   {},
		"DuringTheCommand": {started: true, wantCalls: []string{"Include"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(0, 0))
			inner := &fake{}
			called := make(chan string, 1)
			inner.onCall = func(name string) { called <- name }
			c := Wrap(inner, NewMetrics(), clk)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.Include(ctx, nil) }()

			var calls []string
			awaitWaiter(t, clk, done)
			if tc.started {
				start, _ := Of(OpInclude, 0)
				clk.Step(start.Wall)
				calls = append(calls, <-called)
				awaitWaiter(t, clk, done)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Include: %v, want context.Canceled", err)
			}
			if diff := cmp.Diff(tc.wantCalls, calls); diff != "" {
				t.Errorf("calls of the wrapped client: -want, +got:\n%s", diff)
			}
			if len(called) > 0 {
				t.Errorf("the wrapped client's %s ran after the cancel", <-called)
			}
		})
	}
}

// TestSleeperWaitsOnItsClock: the wait ends when the clock has moved by the
// whole duration, not before.
func TestSleeperWaitsOnItsClock(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	done := make(chan error, 1)
	go func() { done <- sleeper(clk)(context.Background(), time.Second) }()
	awaitWaiter(t, clk, done)
	clk.Step(time.Second - time.Nanosecond)
	select {
	case err := <-done:
		t.Fatalf("the wait ended (%v) a nanosecond early", err)
	default:
	}
	clk.Step(time.Nanosecond)
	if err := <-done; err != nil {
		t.Errorf("wait: %v", err)
	}
}

// awaitWaiter returns once something waits on clk; it fails the test when
// the call that should wait returned (done) instead.
func awaitWaiter(t *testing.T, clk *clocktesting.FakeClock, done <-chan error) {
	t.Helper()
	for !clk.HasWaiters() {
		select {
		case err := <-done:
			t.Fatalf("returned (%v) without waiting on the clock", err)
		case <-time.After(time.Millisecond):
		}
	}
}

// fake is an fdb.Client that reports each call to onCall and returns zero
// values, and a status of processes processes.
type fake struct {
	processes int
	onCall    func(method string)
}

func (f *fake) called(method string) {
	if f.onCall != nil {
		f.onCall(method)
	}
}

func (f *fake) Status(context.Context) (*fdb.Status, error) {
	f.called("Status")
	s := &fdb.Status{}
	s.Cluster.Processes = map[string]fdb.Process{}
	for i := range f.processes {
		s.Cluster.Processes[string(rune('a'+i))] = fdb.Process{}
	}
	return s, nil
}

func (f *fake) Configure(context.Context, fdb.DatabaseConfiguration, bool) error {
	f.called("Configure")
	return nil
}

func (f *fake) Exclude(context.Context, []fdb.ProcessAddress) error {
	f.called("Exclude")
	return nil
}

func (f *fake) Include(context.Context, []fdb.ProcessAddress) error {
	f.called("Include")
	return nil
}

func (f *fake) Kill(context.Context, []fdb.ProcessAddress) error { f.called("Kill"); return nil }

func (f *fake) ChangeCoordinators(context.Context, []fdb.ProcessAddress) (string, error) {
	f.called("ChangeCoordinators")
	return "", nil
}

func (f *fake) ForceRecovery(context.Context, string) error { f.called("ForceRecovery"); return nil }

func (f *fake) SetMaintenance(context.Context, string, int) error {
	f.called("SetMaintenance")
	return nil
}

func (f *fake) ResetMaintenance(context.Context) error { f.called("ResetMaintenance"); return nil }

func (f *fake) StartBackup(context.Context, fdb.BackupRequest) error {
	f.called("StartBackup")
	return nil
}

func (f *fake) StopBackup(context.Context, string) error { f.called("StopBackup"); return nil }

func (f *fake) PauseBackups(context.Context) error { f.called("PauseBackups"); return nil }

func (f *fake) ResumeBackups(context.Context) error { f.called("ResumeBackups"); return nil }

func (f *fake) ModifyBackup(context.Context, fdb.BackupRequest) error {
	f.called("ModifyBackup")
	return nil
}

func (f *fake) BackupStatus(context.Context, string) (*fdb.BackupStatus, error) {
	f.called("BackupStatus")
	return &fdb.BackupStatus{}, nil
}

func (f *fake) StartRestore(context.Context, fdb.RestoreRequest) error {
	f.called("StartRestore")
	return nil
}

func (f *fake) RestoreStatus(context.Context, string) (*fdb.RestoreStatus, error) {
	f.called("RestoreStatus")
	return &fdb.RestoreStatus{}, nil
}

func (f *fake) AbortRestore(context.Context, string) error { f.called("AbortRestore"); return nil }

func (f *fake) TakeLock(context.Context, fdb.LockRequest) (fdb.GlobalLock, error) {
	f.called("TakeLock")
	return fdb.GlobalLock{}, nil
}

func (f *fake) ReleaseLock(context.Context, string) error { f.called("ReleaseLock"); return nil }

func (f *fake) UpdateLockDenyList(context.Context, []fdb.LockDenyEntry) error {
	f.called("UpdateLockDenyList")
	return nil
}
