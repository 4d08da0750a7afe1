package cadence

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Freshness bounds the age of a database status that a reconcile may take
// from another's read (statuscache, connector.Connector.StatusAge): the cadence at which the resource is
// reconciled, so that a status is read at most once per pass over a
// database's resources, and never older than the provider's own last
// change to it (every step marks the database changed).
type Freshness struct {
	// Active bounds the status of a resource that converges: not Ready or
	// not up to date, being deleted, or whose spec changed since it was
	// last synced. It is the active poll: a reconcile wave of a database
	// that changes reads its status once.
	Active time.Duration
	// Settled bounds the status of any other resource: its poll interval
	// (Settled, or the resource's crossplane.io/poll-interval annotation,
	// raised to MinPoll as crossplane-runtime does) and the poll's jitter
	// (JitterPercentage of it). A drift of the database shows within two
	// poll intervals.
	Settled          time.Duration
	MinPoll          time.Duration
	JitterPercentage uint
}

// Of returns how old a status mg's reconcile may take.
func (f Freshness) Of(mg resource.Managed) time.Duration {
	synced := mg.GetCondition(xpv2.TypeSynced)
	if mg.GetDeletionTimestamp() != nil || synced.ObservedGeneration != mg.GetGeneration() || !Settled(mg) {
		return f.Active
	}
	interval := f.Settled
	if d, ok := meta.GetPollInterval(mg); ok {
		interval = max(d, f.MinPoll)
	}
	return interval + interval*time.Duration(f.JitterPercentage)/100
}
