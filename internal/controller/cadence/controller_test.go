package cadence

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrlcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// request names a resource of namespace ns.
func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// TestWorkBeforeBudgetedRequests runs a controller-runtime controller with
// one worker at a controller's cadence, with budgets of two re-checks and
// two polls a second: 40 requests at Converge or Poll hold or await tokens
// for 20 s when a request of new work arrives, which must be served at
// once.
func TestWorkBeforeBudgetedRequests(t *testing.T) {
	for name, priority := range map[string]int{"Converge": Converge, "Poll": Poll} {
		t.Run(name, func(t *testing.T) {
			workBefore(t, priority)
		})
	}
}

// workBefore adds 40 requests at priority, then one at Work, and checks that
// the work is served before all but the requests whose tokens came due.
func workBefore(t *testing.T, priority int) {
	const waiting = 40
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	c := New("cadence-test", NewBudget(2, 1, clock.RealClock{}), NewBudget(2, 1, clock.RealClock{}))
	served := make(chan string, 2*waiting)
	inner := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		served <- req.Name
		return reconcile.Result{RequeueAfter: time.Hour}, nil
	})
	queues := make(chan priorityqueue.PriorityQueue[reconcile.Request], 1)
	ctrl, err := ctrlcontroller.NewUnmanaged("cadence-test", c.Options(ctrlcontroller.Options{
		Reconciler: c.Reconciler(inner), MaxConcurrentReconciles: 1, SkipNameValidation: ptr.To(true),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.Watch(source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		queues <- q.(priorityqueue.PriorityQueue[reconcile.Request])
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	go func() { _ = ctrl.Start(ctx) }()

	q := <-queues
	for i := range waiting {
		q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(priority)}, request(fmt.Sprintf("waiting-%d", i)))
	}
	// The first request takes the one token; the others hold later ones.
	if got := <-served; got != "waiting-0" {
		t.Fatalf("first served: want waiting-0, got %s", got)
	}
	time.Sleep(100 * time.Millisecond)
	added := time.Now()
	q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(Work)}, request("work"))
	timeout := time.After(2 * time.Second)
	var before []string
	for {
		select {
		case name := <-served:
			if name != "work" {
				before = append(before, name)
				continue
			}
			if waited := time.Since(added); waited > time.Second {
				t.Errorf("work waited %s behind budgeted requests", waited)
			}
			if len(before) > 2 {
				t.Errorf("%d budgeted requests were served before the work, want at most 2 (the tokens due meanwhile): %v", len(before), before)
			}
			return
		case <-timeout:
			t.Fatalf("work not served within 2 s while %d requests await tokens (served meanwhile: %v)", waiting, before)
		}
	}
}

func TestReconcilerPriority(t *testing.T) {
	settled := func(mg resource.Managed) {
		mg.SetConditions(xpv2.Available(), xpv2.ObserveMatched())
	}
	cases := map[string]struct {
		reason string
		// hook, when set, is the state of the resource the hook sees.
		hook func(resource.Managed)
		want *int
	}{
		"Converging": {
			reason: "A reconcile whose hook found the resource converging requeues at Converge.",
			hook:   func(mg resource.Managed) { mg.SetConditions(xpv2.Creating()) },
			want:   ptr.To(Converge),
		},
		"Waiting": {
			reason: "A Ready resource waiting on a step (not up to date) requeues at Converge.",
			hook:   func(mg resource.Managed) { mg.SetConditions(xpv2.Available(), xpv2.UpdateRestricted()) },
			want:   ptr.To(Converge),
		},
		"Settled": {
			reason: "A reconcile whose hook found the resource settled requeues at Poll.",
			hook:   settled,
			want:   ptr.To(Poll),
		},
		"NoDecision": {
			reason: "A reconcile that returned before the hook decided keeps the request's priority.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := New("cadence-test", nil, nil)
			hook := c.Hook(func(resource.Managed, time.Duration) time.Duration { return time.Minute })
			r := c.Reconciler(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
				if tc.hook == nil {
					return reconcile.Result{}, nil
				}
				mg := &fake.Managed{}
				mg.SetNamespace(req.Namespace)
				mg.SetName(req.Name)
				tc.hook(mg)
				return reconcile.Result{RequeueAfter: hook(mg, time.Minute)}, nil
			}))
			res, err := r.Reconcile(context.Background(), request("r"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Priority); diff != "" {
				t.Errorf("\n%s\nReconcile(...).Priority: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
