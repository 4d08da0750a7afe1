package toolcost

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOf(t *testing.T) {
	ms := time.Millisecond
	start := Cost{Wall: 70 * ms, ToolCPU: 45 * ms}
	cases := map[string]struct {
		op        Op
		processes int
		wantStart Cost
		wantRun   Cost
	}{
		"StatusOfNoProcess": {op: OpStatus, wantStart: start, wantRun: Cost{Wall: 10 * ms, ControllerCPU: ms}},
		// The quickstart's 11 process groups, one process each.
		"StatusOfQuickstart": {op: OpStatus, processes: 11, wantStart: start,
			wantRun: Cost{Wall: 21 * ms, ToolCPU: 2200 * time.Microsecond, ControllerCPU: 6500 * time.Microsecond}},
		"StatusOfThousandProcesses": {op: OpStatus, processes: 1000, wantStart: start,
			wantRun: Cost{Wall: 1010 * ms, ToolCPU: 200 * ms, ControllerCPU: 501 * ms}},
		"ProcessesDoNotMatterElsewhere": {op: OpExclude, processes: 1000, wantStart: start, wantRun: Cost{Wall: 20 * ms}},
		"KillSleepsFiveSeconds":         {op: OpKill, wantStart: start, wantRun: Cost{Wall: 5020 * ms}},
		"Coordinators":                  {op: OpCoordinators, wantStart: start, wantRun: Cost{Wall: 2 * time.Second}},
		"BackupStatusIsAToolRun":        {op: OpBackupStatus, wantStart: start, wantRun: Cost{Wall: 20 * ms}},
		"RestoreStart":                  {op: OpRestoreStart, wantStart: start, wantRun: Cost{Wall: 500 * ms}},
		"LockIsATransactionNoToolRun":   {op: OpTakeLock, wantRun: Cost{Wall: 10 * ms}},
		"DenyListIsATransaction":        {op: OpLockDenyList, processes: 1000, wantRun: Cost{Wall: 10 * ms}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			gotStart, gotRun := Of(tc.op, tc.processes)
			if diff := cmp.Diff(tc.wantStart, gotStart); diff != "" {
				t.Errorf("Of(%s, %d): start: -want, +got:\n%s", tc.op, tc.processes, diff)
			}
			if diff := cmp.Diff(tc.wantRun, gotRun); diff != "" {
				t.Errorf("Of(%s, %d): run: -want, +got:\n%s", tc.op, tc.processes, diff)
			}
		})
	}
}

// TestStatusGrowsWithProcesses: each process in the status adds to its
// wall time and to both CPU figures; nothing else grows.
func TestStatusGrowsWithProcesses(t *testing.T) {
	prev := Cost{}
	for _, n := range []int{0, 1, 10, 100, 1000} {
		start, run := Of(OpStatus, n)
		if diff := cmp.Diff(invocation, start); diff != "" {
			t.Errorf("Of(status, %d): the start grows with the processes: -want, +got:\n%s", n, diff)
		}
		if n > 0 && (run.Wall <= prev.Wall || run.ToolCPU <= prev.ToolCPU || run.ControllerCPU <= prev.ControllerCPU) {
			t.Errorf("Of(status, %d) = %+v, not above %+v", n, run, prev)
		}
		prev = run
	}
}
