// Package cadence decides in which order and how often the managed kinds'
// controllers reconcile, so that new work never waits behind re-checks and
// drift polls. Each controller runs controller-runtime's priority queue:
// new objects, spec changes and watch events come at the queue's default,
// Work; a reconcile whose resource still converges requeues to check it
// again at Converge; one that ends settled at Poll, the priority the queue
// gives an initial listing and a resync. Two budgets, each shared by every
// managed kind's controller, admit the re-checks of converging resources
// and the drift polls of settled ones at their own rates; Work never waits
// for either.
package cadence

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

const (
	// Work is the priority the queue gives new objects, changes and
	// events.
	Work = 0
	// Converge is the priority of the re-check of a resource that
	// converges: not yet Ready or up to date, being deleted, or waiting on
	// a step. Most of what it waits for arrives as events (its pods, its
	// groups); the re-check sees what does not (the database's status, the
	// time a policy waits for).
	Converge = (Work + Poll) / 2
	// Poll is the priority of a drift poll of a settled resource: the
	// priority the queue gives the initial listing and resyncs.
	Poll = handler.LowPriority
)

// Settled reports whether mg is Ready and its last Observe found it up to
// date (the UpToDate condition the external clients set): it has nothing
// to do until something changes. A resource being deleted is not Ready
// (crossplane-runtime marks it Deleting), nor one waiting on a step (not
// up to date).
func Settled(mg resource.Managed) bool {
	return mg.GetCondition(xpv2.TypeReady).Reason == xpv2.ReasonAvailable && mg.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue
}
