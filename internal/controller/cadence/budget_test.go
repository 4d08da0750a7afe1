package cadence

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// call is one call to the budget, after stepping its clock.
type call struct {
	step       time.Duration
	controller string
	name       string
	release    bool
}

func TestBudgetAdmit(t *testing.T) {
	cases := map[string]struct {
		reason    string
		perSecond float64
		burst     int
		calls     []call
		// want is what each Admit returned; a Release returns nothing.
		want []time.Duration
	}{
		"BurstRunsAtOnce": {
			reason:    "Polls within the burst run at once.",
			perSecond: 1, burst: 2,
			calls: []call{{controller: "a", name: "1"}, {controller: "a", name: "2"}},
			want:  []time.Duration{0, 0},
		},
		"BeyondBurstWaitsInTurn": {
			reason:    "Polls beyond the burst each hold the next free token, one interval apart.",
			perSecond: 2, burst: 1,
			calls: []call{{controller: "a", name: "1"}, {controller: "a", name: "2"}, {controller: "a", name: "3"}},
			want:  []time.Duration{0, 500 * time.Millisecond, time.Second},
		},
		"HeldTokenWaitsItsTime": {
			reason:    "A poll that comes back before its token's time waits the rest, and takes no other token.",
			perSecond: 1, burst: 1,
			calls: []call{{controller: "a", name: "1"}, {controller: "a", name: "2"}, {step: 400 * time.Millisecond, controller: "a", name: "2"}},
			want:  []time.Duration{0, time.Second, 600 * time.Millisecond},
		},
		"HeldTokenRunsOnItsTime": {
			reason:    "A poll that comes back at its token's time runs with it: the next poll waits for the token after.",
			perSecond: 1, burst: 1,
			calls: []call{{controller: "a", name: "1"}, {controller: "a", name: "2"}, {step: time.Second, controller: "a", name: "2"}, {controller: "a", name: "3"}},
			want:  []time.Duration{0, time.Second, 0, time.Second},
		},
		"ControllersShareTheBudget": {
			reason:    "A request of the same name in another controller is another poll of the same budget, which holds it no token.",
			perSecond: 1, burst: 1,
			calls: []call{{controller: "a", name: "1"}, {controller: "b", name: "1"}, {controller: "a", name: "1"}},
			want:  []time.Duration{0, time.Second, 2 * time.Second},
		},
		"ReleaseGivesTheTokenBack": {
			reason:    "A poll served as work gives its held token back to the polls after it.",
			perSecond: 1, burst: 1,
			calls: []call{{controller: "a", name: "1"}, {controller: "a", name: "2"}, {controller: "a", name: "2", release: true}, {controller: "a", name: "3"}},
			want:  []time.Duration{0, time.Second, time.Second},
		},
		"ReleaseWithoutHoldIsNoOp": {
			reason:    "Work of a request that holds no token takes none and gives none back.",
			perSecond: 1, burst: 1,
			calls: []call{{controller: "a", name: "1", release: true}, {controller: "a", name: "2"}, {controller: "a", name: "3"}},
			want:  []time.Duration{0, time.Second},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			b := NewBudget(tc.perSecond, tc.burst, clk)
			var got []time.Duration
			for _, c := range tc.calls {
				clk.SetTime(clk.Now().Add(c.step))
				req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: c.name}}
				if c.release {
					b.Release(c.controller, req)
					continue
				}
				got = append(got, b.Admit(c.controller, req))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nAdmit(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
