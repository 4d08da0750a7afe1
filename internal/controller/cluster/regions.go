package cluster

import (
	"fmt"
	"strconv"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Event reasons of the region steps.
const (
	reasonRegions        = "ConfiguredRegions"
	reasonFailover       = "FailedOver"
	reasonForcedRecovery = "ForcedRecovery"
)

// specRegions are the spec's regions in FoundationDB's shape.
func specRegions(cr *v1alpha1.Cluster) []fdb.Region {
	var out []fdb.Region
	for _, r := range cr.Spec.ForProvider.DatabaseConfiguration.Regions {
		region := fdb.Region{SatelliteRedundancyMode: r.SatelliteRedundancyMode}
		if r.SatelliteLogs != nil {
			region.SatelliteLogs = *r.SatelliteLogs
		}
		for _, dc := range r.DataCenters {
			d := fdb.RegionDataCenter{ID: dc.ID, Priority: dc.Priority}
			if dc.Satellite {
				d.Satellite = 1
			}
			region.DataCenters = append(region.DataCenters, d)
		}
		out = append(out, region)
	}
	return out
}

// regionsStep takes the database's region configuration one step toward
// the spec's (plan.NextRegionChange: regions with one usable region, then
// usable_regions, then the priorities), gated as ConfigureDatabase; a
// step that moves the primary is a planned failover, gated as
// FailoverRegion with what the destination's status says of it.
// usable_regions changes alone, with no regions in the command.
func regionsStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	want := specRegions(cr)
	if len(want) == 0 || !o.configured() || !o.available() {
		return nil
	}
	running := o.status.Cluster.Configuration.DatabaseConfiguration
	c := plan.NextRegionChange(running, want, cr.Spec.ForProvider.DatabaseConfiguration.UsableRegions, o.status.Cluster.ActivePrimaryDC)
	if c == nil {
		return nil
	}
	cfg := fdb.DatabaseConfiguration{Regions: c.Regions, UsableRegions: c.UsableRegions}
	if c.UsableRegions != max(running.UsableRegions, 1) {
		cfg.Regions = nil
	}
	if remote := otherMainDC(c.Regions, o.status.Cluster.ActivePrimaryDC); c.UsableRegions > max(running.UsableRegions, 1) && !canHoldData(cr, o.status, remote) {
		return wait("waiting for the storage processes of data center %s to join before it holds a copy of the data (usable_regions %d)", remote, c.UsableRegions)
	}
	s := &clusterStep{
		Step: step.Step{Reason: reasonRegions, Message: "configured the regions: " + c.Why,
			Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: c.Why}},
		Kind: kindConfigure, Configuration: cfg,
	}
	if c.To != "" {
		s.Reason, s.Message = reasonFailover, "failed over: "+c.Why
		s.Action = &policy.Action{Type: apiv1alpha1.ActionFailoverRegion, Targets: []string{c.To}, Reason: c.Why,
			Details: failoverDetails(cr, o, c.From, c.To, false)}
	}
	return s
}

// otherMainDC is the main data center of the region whose main data
// center is not primary.
func otherMainDC(regions []fdb.Region, primary string) string {
	for _, r := range regions {
		if dc, ok := r.Main(); ok && dc.ID != primary {
			return dc.ID
		}
	}
	return ""
}

// canHoldData reports whether the status shows storage processes of data
// center dc in as many zones as the redundancy mode keeps replicas.
func canHoldData(cr *v1alpha1.Cluster, s *fdb.Status, dc string) bool {
	replicas, err := fdb.RedundancyMode(cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode).StorageReplicas()
	if err != nil {
		return false
	}
	zones := map[string]bool{}
	for _, p := range s.Cluster.Processes {
		if p.Locality.DCID == dc && p.ClassType == string(v1alpha1.ProcessClassStorage) && !p.Excluded {
			zones[p.Locality.ZoneID] = true
		}
	}
	return len(zones) >= replicas
}

// forcedFailoverStep recovers the database in the data center the spec
// makes the primary when the database is unavailable and none of the
// primary's processes reports — the data center is lost, not merely
// recovering, as during a planned failover — (fdb.Client.ForceRecovery,
// force_recovery_with_data_loss): it gives up what the destination lacks,
// so it is gated as FailoverRegion, forced, with the data center lag last
// recorded. Without a coordinator quorum nothing can recover.
func forcedFailoverStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	to := plan.MainDataCenter(specRegions(cr))
	from := cr.Status.AtProvider.ActivePrimaryDC
	s := o.status
	if to == "" || from == "" || to == from || s == nil || !o.created() || s.Client.DatabaseStatus.Available || !s.Client.Coordinators.QuorumReachable {
		return nil
	}
	destination := false
	for _, p := range s.Cluster.Processes {
		if p.Locality.DCID == from {
			return nil // the primary's data center runs: it recovers on its own
		}
		destination = destination || p.Locality.DCID == to
	}
	if !destination {
		return wait("the database is unavailable in %s and %s, which the spec makes the primary, has no process in it to recover on", from, to)
	}
	why := fmt.Sprintf("the database is unavailable in %s and the spec makes %s the primary", from, to)
	return &clusterStep{
		Step: step.Step{Reason: reasonForcedRecovery, Message: "forced a recovery in " + to + ": " + why,
			Action: &policy.Action{Type: apiv1alpha1.ActionFailoverRegion, Targets: []string{to}, Reason: why, Details: failoverDetails(cr, o, from, to, true)}},
		Kind: kindForceRecovery, DataCenter: to,
	}
}

// failoverDetails are what a FailoverRegion decision sees: the lag of the
// destination (this reconcile's status for a planned failover, the last
// recorded for a forced one), whether it holds every shard at full
// replication, and the Cluster's acknowledgement of a forced one.
func failoverDetails(cr *v1alpha1.Cluster, o *observation, from, to string, forced bool) map[string]any {
	d := map[string]any{
		policy.DetailFromDataCenter:             from,
		policy.DetailToDataCenter:               to,
		policy.DetailForced:                     forced,
		policy.DetailDestinationFullyReplicated: false,
		policy.DetailForcedAcknowledged:         cr.GetAnnotations()[policy.AnnotationAllowForcedFailover] == to,
	}
	switch lag := cr.Status.AtProvider.DataCenterLag; {
	case !forced && o.status.Cluster.DatacenterLag != nil:
		d[policy.DetailDataCenterLagSeconds] = o.status.Cluster.DatacenterLag.Seconds
	case forced && lag != nil:
		if seconds, err := strconv.ParseFloat(lag.Seconds, 64); err == nil {
			d[policy.DetailDataCenterLagSeconds] = seconds
		}
	}
	for _, t := range o.status.Cluster.Data.TeamTrackers {
		if !t.Primary {
			d[policy.DetailDestinationFullyReplicated] = t.State.Healthy
		}
	}
	return d
}
