package policy

import (
	"slices"
	"time"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Unrecorded are the input fields no status records: a decision on the
// recorded facts (Recorded) sees them zero, or, for a group, as its
// provider's decisions do without a status (holding data, not drained).
var Unrecorded = []string{
	"cluster.dataMovement.inFlightBytes", "cluster.dataMovement.inQueueBytes", "cluster.dataMovement.state",
	"cluster.dataMovement.minReplicasRemaining", "processGroups[].reporting", "processGroups[].fullyExcluded",
	"processGroups[].holdsData", "processGroups[].drain",
}

// Recorded is the input for action a on Cluster cr from the facts the
// provider recorded in the Cluster's and its groups' status, for a
// decision made away from the database (kubectl foundationdb explain): the
// health the Cluster's last reconcile recorded stands for the status it
// read, the groups' exclusion and roles for what that status said of them,
// and the time since the last recovery is counted from the recorded
// recovery to now. The fields of Unrecorded stay as a decision without a
// status has them. Observed is what the Cluster recorded: whether its last
// reconcile read a status.
func Recorded(cr *fdbv1alpha1.Cluster, groups []fdbv1alpha1.ProcessGroup, now time.Time, a Action) (Input, error) {
	in, err := NewInput(cr, groups, nil, now, a)
	if err != nil {
		return Input{}, err
	}
	at := cr.Status.AtProvider
	h := at.Health
	c := &in.Cluster
	in.Observed = h.RecoveryState != ""
	c.RunningVersion = at.RunningVersion
	c.Available, c.Healthy, c.RecoveryState = h.Available, h.Healthy, h.RecoveryState
	c.ActiveGenerations, c.FaultTolerance = int64(h.ActiveGenerations), int64(h.FaultTolerance)
	c.DataMovement.Healthy = h.FullReplication
	c.SecondsSinceLastRecovery = -1
	if h.LastRecoveryTime != nil {
		c.SecondsSinceLastRecovery = int64(now.Sub(h.LastRecoveryTime.Time) / time.Second)
	}
	c.Coordinators = at.Coordinators
	for i := range in.ProcessGroups {
		g, rec := &in.ProcessGroups[i], groups[i].Status.AtProvider
		g.Excluded, g.Roles = rec.Excluded, rec.Roles
		names := fdb.AddressNames(rec.DNSName, rec.Addresses...)
		g.Coordinator = slices.Contains(rec.Roles, fdb.RoleCoordinator) ||
			slices.ContainsFunc(names, func(a string) bool { return slices.Contains(c.Coordinators, a) })
	}
	return in, nil
}
