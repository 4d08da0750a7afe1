package v1alpha1

import (
	"slices"
	"time"
)

// SetLastPolicyDecision records the last safety-policy decision on the
// Cluster's status.
func (mg *Cluster) SetLastPolicyDecision(d *PolicyDecision) {
	mg.Status.AtProvider.LastPolicyDecision = d
}

// GetLastPolicyDecision returns the last safety-policy decision the
// Cluster's status records; nil when none.
func (mg *Cluster) GetLastPolicyDecision() *PolicyDecision {
	return mg.Status.AtProvider.LastPolicyDecision
}

// SetLastPolicyDecision records the last safety-policy decision on the
// ProcessGroup's status.
func (mg *ProcessGroup) SetLastPolicyDecision(d *PolicyDecision) {
	mg.Status.AtProvider.LastPolicyDecision = d
}

// GetLastPolicyDecision returns the last safety-policy decision the
// ProcessGroup's status records; nil when none.
func (mg *ProcessGroup) GetLastPolicyDecision() *PolicyDecision {
	return mg.Status.AtProvider.LastPolicyDecision
}

// SetLastPolicyDecision records the last safety-policy decision on the
// Backup's status.
func (mg *Backup) SetLastPolicyDecision(d *PolicyDecision) {
	mg.Status.AtProvider.LastPolicyDecision = d
}

// GetLastPolicyDecision returns the last safety-policy decision the
// Backup's status records; nil when none.
func (mg *Backup) GetLastPolicyDecision() *PolicyDecision {
	return mg.Status.AtProvider.LastPolicyDecision
}

// SetLastPolicyDecision records the last safety-policy decision on the
// Restore's status.
func (mg *Restore) SetLastPolicyDecision(d *PolicyDecision) {
	mg.Status.AtProvider.LastPolicyDecision = d
}

// GetLastPolicyDecision returns the last safety-policy decision the
// Restore's status records; nil when none.
func (mg *Restore) GetLastPolicyDecision() *PolicyDecision {
	return mg.Status.AtProvider.LastPolicyDecision
}

// Zone is the fault domain the group's processes run in: the zone observed
// from its processes or its pod's node, else the zone its pod was placed
// in; "" when neither is known.
func (pg *ProcessGroup) Zone() string {
	if z := pg.Status.AtProvider.FaultDomain; z != "" {
		return z
	}
	return pg.Spec.ForProvider.FaultDomain
}

// ConditionSince is when the observed state first had condition t; false
// when it does not have it.
func (o *ProcessGroupObservation) ConditionSince(t ProcessGroupConditionType) (time.Time, bool) {
	for _, c := range o.ProcessGroupConditions {
		if c.Type == t {
			return c.Since.Time, true
		}
	}
	return time.Time{}, false
}

// ProcessClasses are the classes of process groups, in a fixed order.
var ProcessClasses = []ProcessClass{
	ProcessClassClusterController, ProcessClassCommitProxy, ProcessClassCoordinator, ProcessClassDataDistributor, ProcessClassGrvProxy,
	ProcessClassLog, ProcessClassRatekeeper, ProcessClassResolution, ProcessClassStateless, ProcessClassStorage, ProcessClassTransaction,
}

// ByClass returns the number of process groups wanted per class, every
// class included.
func (pc ProcessCounts) ByClass() map[ProcessClass]int {
	return map[ProcessClass]int{
		ProcessClassStorage: pc.Storage, ProcessClassLog: pc.Log, ProcessClassTransaction: pc.Transaction,
		ProcessClassStateless: pc.Stateless, ProcessClassClusterController: pc.ClusterController,
		ProcessClassCommitProxy: pc.CommitProxy, ProcessClassGrvProxy: pc.GrvProxy, ProcessClassResolution: pc.Resolution,
		ProcessClassRatekeeper: pc.Ratekeeper, ProcessClassDataDistributor: pc.DataDistributor, ProcessClassCoordinator: pc.Coordinator,
	}
}

// DrillFault is the fault a drill puts into process group id now: the
// drill the Cluster started last, while it has not ended and the spec
// still names it. False when none does.
func (mg *Cluster) DrillFault(id string) (DrillFault, bool) {
	d, spec := mg.Status.AtProvider.Drill, mg.Spec.ForProvider.Drill
	if d == nil || d.Ended || spec == nil || spec.Name != d.Name || !slices.Contains(d.ProcessGroups, id) {
		return "", false
	}
	return d.Fault, true
}
