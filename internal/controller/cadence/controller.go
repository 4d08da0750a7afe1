package cadence

import (
	"context"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrlcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A Controller is the cadence of one managed kind's controller. Its queue
// records the priority of each request it hands out; its reconciler reads
// it, lets a Converge- or Poll-priority request run only with a token of
// its budget, and requeues each request at the priority its poll-interval
// hook decided.
// Requests of one controller are never reconciled concurrently, so each
// record is written and read by one reconcile at a time.
type Controller struct {
	name string
	// converging admits the re-checks of converging resources, polls the
	// drift polls of settled ones.
	converging, polls *Budget

	// taken is the priority at which the queue handed out each request
	// being reconciled.
	taken sync.Map
	// settled is whether the poll-interval hook found each resource being
	// reconciled settled.
	settled sync.Map
}

// New returns the cadence of the controller named name, whose re-checks
// of converging resources take tokens of converging and whose drift polls
// take tokens of polls; either is not budgeted when its budget is nil.
func New(name string, converging, polls *Budget) *Controller {
	return &Controller{name: name, converging: converging, polls: polls}
}

// Options returns o with controller-runtime's priority queue, which records
// the priority of each request it hands out.
func (c *Controller) Options(o ctrlcontroller.Options) ctrlcontroller.Options {
	o.UsePriorityQueue = ptr.To(true)
	o.NewQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return &queue{PriorityQueue: priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = rl }), taken: &c.taken}
	}
	return o
}

// queue records the priority of each request it hands out.
type queue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	taken *sync.Map
}

// GetWithPriority hands out the next request and records its priority.
func (q *queue) GetWithPriority() (reconcile.Request, int, bool) {
	req, p, shutdown := q.PriorityQueue.GetWithPriority()
	if !shutdown {
		q.taken.Store(req, p)
	}
	return req, p, shutdown
}

// Hook returns h, recording whether it found each resource settled.
func (c *Controller) Hook(h managed.PollIntervalHook) managed.PollIntervalHook {
	return func(mg resource.Managed, pollInterval time.Duration) time.Duration {
		c.settled.Store(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}}, Settled(mg))
		return h(mg, pollInterval)
	}
}

// Reconciler returns r behind the budgets: a request handed out at Poll
// priority runs with a token of the poll budget, one handed out at Converge
// with a token of the converging budget, or is requeued at its priority for
// when its token is free, without holding a worker; any other runs at once
// and gives back a token it held. The request is requeued at Converge or
// Poll as the hook found its resource converging or settled; at its own
// priority when r returned before the hook decided (an error, a requeue
// after a write).
func (c *Controller) Reconciler(r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		p, ok := c.taken.LoadAndDelete(req)
		priority := Work
		if ok {
			priority = p.(int)
		}
		budget := c.budgetOf(priority)
		for _, b := range []*Budget{c.converging, c.polls} {
			if b != nil && b != budget {
				b.Release(c.name, req)
			}
		}
		if budget != nil {
			if d := budget.Admit(c.name, req); d > 0 {
				return reconcile.Result{RequeueAfter: d, Priority: ptr.To(priority)}, nil
			}
		}
		res, err := r.Reconcile(ctx, req)
		if s, ok := c.settled.LoadAndDelete(req); ok {
			res.Priority = ptr.To(Converge)
			if s.(bool) {
				res.Priority = ptr.To(Poll)
			}
		}
		return res, err
	})
}

// budgetOf is the budget a request handed out at priority runs on: the
// poll budget at Poll and below, the converging budget up to Converge,
// none above.
func (c *Controller) budgetOf(priority int) *Budget {
	switch {
	case priority <= Poll:
		return c.polls
	case priority <= Converge:
		return c.converging
	}
	return nil
}
