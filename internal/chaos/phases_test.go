package chaos

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// TestPull: after a mutation taken clear of faults, the cycle of fault
// windows (20 faulty steps, 40 calm) moves on so that its next window
// opens in the drawn number of steps, never later than it would have.
func TestPull(t *testing.T) {
	const faulty, cycle = 20, 60
	cases := map[string]struct {
		at, spent, soon int
		// opens is how many calm steps come before the next window.
		opens int
	}{
		"EarlyInACalm":      {at: 0, spent: 25, soon: 3, opens: 3},
		"AtOnce":            {at: 7, spent: 40, soon: 0, opens: 0},
		"OpensSoonerAnyway": {at: 0, spent: 57, soon: 4, opens: 2},
		"LastCalmStep":      {at: 0, spent: 59, soon: 2, opens: 0},
		"LaterCycle":        {at: 13, spent: 150, soon: 1, opens: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			at := pull(tc.at, tc.spent, cycle, tc.soon)
			opens := 0
			for (at+tc.spent+1+opens)%cycle >= faulty {
				opens++
			}
			if opens != tc.opens {
				t.Errorf("pull(%d, %d, %d, %d) = %d: the window opens after %d calm steps, want %d", tc.at, tc.spent, cycle, tc.soon, at, opens, tc.opens)
			}
		})
	}
}

// TestTallyPhases: each fault lands in the third of its operation's steps,
// from the step after the operation began to the step it was first seen
// converged, that it struck in; each mutation in the third of the
// operation's mutations it was, counted under a fault when one was in
// force.
func TestTallyPhases(t *testing.T) {
	cases := map[string]struct {
		opStep, convergedAt, step int
		faultedAt                 []int
		taken                     []bool
		want                      Phases
	}{
		"EachThird":             {opStep: 100, convergedAt: 190, faultedAt: []int{101, 130, 131, 160, 161, 190}, want: Phases{Faults: [3]int{2, 2, 2}}},
		"NeverConverged":        {opStep: 0, step: 30, faultedAt: []int{29, 30}, want: Phases{Faults: [3]int{0, 0, 2}}},
		"ConvergedAtOnce":       {opStep: 10, convergedAt: 11, faultedAt: []int{11}, want: Phases{Faults: [3]int{1, 0, 0}}},
		"NoFault":               {opStep: 10, convergedAt: 50},
		"CrashAfterConvergence": {opStep: 0, convergedAt: 9, faultedAt: []int{12}, want: Phases{Faults: [3]int{0, 0, 1}}},
		"Mutations": {opStep: 0, convergedAt: 9, taken: []bool{true, false, false, true, true, true},
			want: Phases{Taken: [3]int{2, 2, 2}, UnderFault: [3]int{1, 1, 2}}},
		"OneMutation": {opStep: 0, convergedAt: 9, taken: []bool{true}, want: Phases{Taken: [3]int{1, 0, 0}, UnderFault: [3]int{1, 0, 0}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &run{opStep: tc.opStep, convergedAt: tc.convergedAt, step: tc.step, faultedAt: tc.faultedAt, opTaken: tc.taken, report: &Report{}}
			r.tallyPhases()
			if diff := cmp.Diff(tc.want, r.report.Phases); diff != "" {
				t.Errorf("Phases (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClockSkipsWhenIdle: the clock moves 1 to 5 seconds a step until
// every object had about one idle turn, then up to idleSkip, but never
// past the latest an active requeue may be served.
func TestClockSkipsWhenIdle(t *testing.T) {
	now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		idle int
		// dueAgo is how long ago a group's active requeue was due.
		dueAgo   *time.Duration
		min, max time.Duration
	}{
		"Busy":           {idle: 0, max: 5 * time.Second},
		"NotYetARound":   {idle: 2, max: 5 * time.Second},
		"IdleForARound":  {idle: 3, min: 6 * time.Second, max: idleSkip * time.Second},
		"RequeueDueSoon": {idle: 3, dueAgo: ptr.To(-time.Second), min: 6 * time.Second, max: idleSkip * time.Second},
		"RequeueLate":    {idle: 3, dueAgo: ptr.To(requeueSlack - 20*time.Second), min: 2 * time.Second, max: 20 * time.Second},
		"RequeueOverdue": {idle: 3, dueAgo: ptr.To(requeueSlack + time.Minute), max: time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var groups []client.Object
			for _, name := range []string{"db-storage-1", "db-storage-2", "db-log-1"} {
				groups = append(groups, &fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: name}})
			}
			r := &run{idle: tc.idle, ticks: stream(1, 3), report: &Report{}, hist: &history{snaps: []snapshot{{groupKind: groups}}},
				clock: clocktesting.NewFakeClock(now), due: map[target]requeue{}}
			if tc.dueAgo != nil {
				r.due[target{groupKind, client.ObjectKey{Name: "db-log-1"}}] = requeue{at: now.Add(-*tc.dueAgo), by: &instance{}}
			}
			longest := time.Duration(0)
			for range 200 {
				longest = max(longest, r.tickLength())
			}
			if longest < tc.min || longest > tc.max {
				t.Errorf("longest of 200 steps: %v, want between %v and %v", longest, tc.min, tc.max)
			}
		})
	}
}

// TestOverdue: the requeue served first is the one whose deadline plus
// requeueSlack comes first, of the objects there are, skipping those of a
// paused instance.
func TestOverdue(t *testing.T) {
	now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	running, paused := &instance{}, &instance{pausedUntil: now.Add(time.Minute)}
	cases := map[string]struct {
		due    map[string]requeue
		want   string
		wantBy time.Time
		ok     bool
	}{
		"None": {},
		"Earliest": {
			due:  map[string]requeue{"db-log-1": {at: now, by: running}, "db-storage-1": {at: now.Add(-time.Minute), by: running}},
			want: "db-storage-1", wantBy: now.Add(requeueSlack - time.Minute), ok: true,
		},
		"PausedWaits": {
			due:  map[string]requeue{"db-log-1": {at: now, by: running}, "db-storage-1": {at: now.Add(-time.Minute), by: paused}},
			want: "db-log-1", wantBy: now.Add(requeueSlack), ok: true,
		},
		"GoneObject": {
			due: map[string]requeue{"db-storage-9": {at: now, by: running}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var groups []client.Object
			for _, name := range []string{"db-storage-1", "db-log-1"} {
				groups = append(groups, &fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: name}})
			}
			r := &run{hist: &history{snaps: []snapshot{{groupKind: groups}}}, clock: clocktesting.NewFakeClock(now), due: map[target]requeue{}}
			for name, q := range tc.due {
				r.due[target{groupKind, client.ObjectKey{Name: name}}] = q
			}
			type pick struct {
				Name string
				By   time.Time
				OK   bool
			}
			got, by, ok := r.overdue()
			if diff := cmp.Diff(pick{tc.want, tc.wantBy, tc.ok}, pick{got.key.Name, by, ok}); diff != "" {
				t.Errorf("overdue() (-want +got):\n%s", diff)
			}
		})
	}
}
