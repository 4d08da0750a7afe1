package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// specRegionPair is dc1 (satellite dc1s) and dc2 at the priorities given,
// as a Cluster's spec says them.
func specRegionPair(dc1, dc2 int) []v1alpha1.Region {
	return []v1alpha1.Region{
		{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc1", Priority: dc1}, {ID: "dc1s", Priority: 1, Satellite: true}}, SatelliteRedundancyMode: "one_satellite_double"},
		{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc2", Priority: dc2}}},
	}
}

// fdbRegionPair is the same in FoundationDB's shape.
func fdbRegionPair(dc1, dc2 int) []fdb.Region {
	return []fdb.Region{
		{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: dc1}, {ID: "dc1s", Priority: 1, Satellite: 1}}, SatelliteRedundancyMode: "one_satellite_double"},
		{DataCenters: []fdb.RegionDataCenter{{ID: "dc2", Priority: dc2}}},
	}
}

// wantsRegions makes the spec ask for two usable regions at the priorities.
func wantsRegions(dc1, dc2 int) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.DataCenter = "dc1"
		cr.Spec.ForProvider.DatabaseConfiguration.Regions = specRegionPair(dc1, dc2)
		cr.Spec.ForProvider.DatabaseConfiguration.UsableRegions = 2
	}
}

// runsRegions makes the status report the regions, usable regions,
// primary, data center lag and the remote region's team tracker.
func runsRegions(regions []fdb.Region, usable int, primary string, lag float64, remoteHealthy bool) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		c := &o.status.Cluster
		c.Configuration.Regions, c.Configuration.UsableRegions, c.ActivePrimaryDC = regions, usable, primary
		c.DatacenterLag = &fdb.DatacenterLag{Seconds: lag, Versions: int64(lag * 1e6)}
		c.Data.TeamTrackers = []fdb.TeamTracker{{Primary: true, State: fdb.DataState{Healthy: true}}}
		if usable > 1 {
			c.Data.TeamTrackers = append(c.Data.TeamTrackers, fdb.TeamTracker{State: fdb.DataState{Healthy: remoteHealthy}})
		}
	}
}

func configured(o *observation) { o.configuredBefore = true }

func TestPlanRegions(t *testing.T) {
	failover := func(lag float64, healthy bool) *clusterStep {
		return &clusterStep{
			Step: step.Step{Reason: reasonFailover, Message: "failed over: move the primary from dc1 to dc2",
				Action: &policy.Action{Type: apiv1alpha1.ActionFailoverRegion, Targets: []string{"dc2"}, Reason: "move the primary from dc1 to dc2",
					Details: map[string]any{policy.DetailFromDataCenter: "dc1", policy.DetailToDataCenter: "dc2", policy.DetailForced: false,
						policy.DetailDataCenterLagSeconds: lag, policy.DetailDestinationFullyReplicated: healthy, policy.DetailForcedAcknowledged: false}}},
			Kind: kindConfigure, Configuration: fdb.DatabaseConfiguration{Regions: fdbRegionPair(0, 1), UsableRegions: 2},
		}
	}
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"NoRegions": {
			reason: "A Cluster without regions configures none.",
		},
		"BringUp": {
			reason: "Regions first, with one usable region and the other region at -1.",
			mutate: []mutation{wantsRegions(1, 0), runsRegions(nil, 1, "", 0, false)},
			want: &clusterStep{
				Step: step.Step{Reason: reasonRegions, Message: "configured the regions: configure the regions with one usable region, dc1 the primary",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configure the regions with one usable region, dc1 the primary"}},
				Kind: kindConfigure, Configuration: fdb.DatabaseConfiguration{Regions: fdbRegionPair(1, -1), UsableRegions: 1},
			},
		},
		"SecondRegionNotJoined": {
			reason: "usable_regions 2 waits until the other region's storage processes report.",
			mutate: []mutation{wantsRegions(1, 0), runsRegions(fdbRegionPair(1, -1), 1, "dc1", 0, false)},
			want:   waiting("waiting for the storage processes of data center dc2 to join before it holds a copy of the data (usable_regions 2)"),
		},
		"SecondUsableRegion": {
			reason: "usable_regions changes alone: no regions in the command.",
			mutate: []mutation{wantsRegions(1, 0), runsRegions(fdbRegionPair(1, -1), 1, "dc1", 0, false), inDataCenter("dc2", "storage-4", "storage-5")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonRegions, Message: "configured the regions: usable_regions 1 to 2",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "usable_regions 1 to 2"}},
				Kind: kindConfigure, Configuration: fdb.DatabaseConfiguration{UsableRegions: 2},
			},
		},
		"Converged": {
			reason: "The regions the spec asks for, running: nothing to do.",
			mutate: []mutation{wantsRegions(1, 0), runsRegions(fdbRegionPair(1, 0), 2, "dc1", 1, true)},
		},
		"PlannedFailover": {
			reason: "Priorities that name another primary are a failover, told the destination's lag and replication.",
			mutate: []mutation{wantsRegions(0, 1), runsRegions(fdbRegionPair(1, 0), 2, "dc1", 1, true)},
			want:   failover(1, true),
		},
		"FailoverToAReplicatingRegion": {
			reason: "The policy is told the destination is still replicating.",
			mutate: []mutation{wantsRegions(0, 1), runsRegions(fdbRegionPair(1, 0), 2, "dc1", 30, false)},
			want:   failover(30, false),
		},
		"NoneWhileUnavailable": {
			reason: "Nothing is configured while the database is unavailable.",
			mutate: []mutation{wantsRegions(0, 1), runsRegions(fdbRegionPair(1, 0), 2, "dc1", 1, true), unavailable()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, append([]mutation{func(_ *v1alpha1.Cluster, o *observation) { configured(o) }}, tc.mutate...)...)
			if diff := cmp.Diff(tc.want, regionsStep(cr, o)); diff != "" {
				t.Errorf("\n%s\nregionsStep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPlanForcedFailover(t *testing.T) {
	// lostPrimary is a database that lost dc1: unavailable (its status
	// without the configuration, which the Cluster recorded), its
	// coordinators reachable, dc1 the primary and a lag of 2 s last
	// recorded.
	lostPrimary := func(cr *v1alpha1.Cluster, o *observation) {
		configured(o)
		unavailable()(cr, o)
		o.status.Client.Coordinators.QuorumReachable = true
		cr.Status.AtProvider.ActivePrimaryDC = "dc1"
		cr.Status.AtProvider.DataCenterLag = &v1alpha1.DataCenterLagObservation{Seconds: "2"}
	}
	forced := func(acknowledged bool) *clusterStep {
		why := "the database is unavailable in dc1 and the spec makes dc2 the primary"
		return &clusterStep{
			Step: step.Step{Reason: reasonForcedRecovery, Message: "forced a recovery in dc2: " + why,
				Action: &policy.Action{Type: apiv1alpha1.ActionFailoverRegion, Targets: []string{"dc2"}, Reason: why,
					Details: map[string]any{policy.DetailFromDataCenter: "dc1", policy.DetailToDataCenter: "dc2", policy.DetailForced: true,
						policy.DetailDataCenterLagSeconds: 2.0, policy.DetailDestinationFullyReplicated: false, policy.DetailForcedAcknowledged: acknowledged}}},
			Kind: kindForceRecovery, DataCenter: "dc2",
		}
	}
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"SpecMovesThePrimary": {
			reason: "The spec makes dc2 the primary of a database unavailable in dc1: a forced failover, told the lag last seen.",
			mutate: []mutation{wantsRegions(0, 1), lostPrimary, inDataCenter("dc2", "storage-4")},
			want:   forced(false),
		},
		"DestinationDoesNotReport": {
			reason: "A destination none of whose processes reports has nothing to recover on: the Cluster waits and says so.",
			mutate: []mutation{wantsRegions(0, 1), lostPrimary},
			want:   waiting("the database is unavailable in dc1 and dc2, which the spec makes the primary, has no process in it to recover on"),
		},
		"Acknowledged": {
			reason: "The annotation naming dc2 acknowledges the loss.",
			mutate: []mutation{wantsRegions(0, 1), lostPrimary, inDataCenter("dc2", "storage-4"), func(cr *v1alpha1.Cluster, _ *observation) {
				cr.SetAnnotations(map[string]string{policy.AnnotationAllowForcedFailover: "dc2"})
			}},
			want: forced(true),
		},
		"SpecKeepsThePrimary": {
			reason: "A spec that keeps dc1 the primary waits for it.",
			mutate: []mutation{wantsRegions(1, 0), lostPrimary},
		},
		"Available": {
			reason: "An available database fails over as planned, not forced.",
			mutate: []mutation{wantsRegions(0, 1), lostPrimary, func(_ *v1alpha1.Cluster, o *observation) { o.status.Client.DatabaseStatus.Available = true }},
		},
		"PrimaryStillReports": {
			reason: "While a process of the primary's data center reports, the database is recovering (a planned failover), not lost.",
			mutate: []mutation{wantsRegions(0, 1), lostPrimary, inDataCenter("dc1", "storage-1")},
		},
		"NoQuorum": {
			reason: "Without a coordinator quorum nothing can recover.",
			mutate: []mutation{wantsRegions(0, 1), lostPrimary, func(_ *v1alpha1.Cluster, o *observation) { o.status.Client.Coordinators.QuorumReachable = false }},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			if diff := cmp.Diff(tc.want, forcedFailoverStep(cr, o)); diff != "" {
				t.Errorf("\n%s\nforcedFailoverStep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRegionFacts: the primary and the lag are recorded from an available
// status, kept from before when the status cannot say, and a steady lag
// keeps when it was first seen, so a steady database writes no new status.
func TestRegionFacts(t *testing.T) {
	before, now := metav1.NewTime(planNow.Add(-time.Hour)), metav1.NewTime(planNow)
	seen := &v1alpha1.DataCenterLagObservation{Seconds: "1", ObservedAt: before}
	cases := map[string]struct {
		mutate      []mutation
		previous    v1alpha1.ClusterObservation
		wantPrimary string
		wantLag     *v1alpha1.DataCenterLagObservation
	}{
		"OneUsableRegion":  {mutate: []mutation{runsRegions(fdbRegionPair(1, -1), 1, "dc1", 0, false)}, wantPrimary: "dc1"},
		"FirstLag":         {mutate: []mutation{runsRegions(fdbRegionPair(1, 0), 2, "dc1", 0.4, true)}, wantPrimary: "dc1", wantLag: &v1alpha1.DataCenterLagObservation{Seconds: "1", ObservedAt: now}},
		"SteadyLag":        {mutate: []mutation{runsRegions(fdbRegionPair(1, 0), 2, "dc1", 1, true)}, previous: v1alpha1.ClusterObservation{ActivePrimaryDC: "dc1", DataCenterLag: seen}, wantPrimary: "dc1", wantLag: seen},
		"LagGrew":          {mutate: []mutation{runsRegions(fdbRegionPair(1, 0), 2, "dc1", 7.2, true)}, previous: v1alpha1.ClusterObservation{DataCenterLag: seen}, wantPrimary: "dc1", wantLag: &v1alpha1.DataCenterLagObservation{Seconds: "8", ObservedAt: now}},
		"UnavailableKeeps": {mutate: []mutation{runsRegions(fdbRegionPair(1, 0), 2, "", 0, false), unavailable()}, previous: v1alpha1.ClusterObservation{ActivePrimaryDC: "dc1", DataCenterLag: seen}, wantPrimary: "dc1", wantLag: seen},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, o := observed(5, tc.mutate...)
			primary, lag := o.regionFacts(tc.previous, now)
			if diff := cmp.Diff(tc.wantLag, lag); diff != "" || primary != tc.wantPrimary {
				t.Errorf("regionFacts(...) = %q, want %q; lag -want, +got:\n%s", primary, tc.wantPrimary, diff)
			}
		})
	}
}

// TestPlanJoin: a Cluster with a seed connection string joins that
// database — its first cluster file is the seed, written again should its
// ConfigMap be lost before it recorded one — and never makes one, even
// while the seed's database says it was never configured.
func TestPlanJoin(t *testing.T) {
	const seed = "db:abcdefgh@10.9.0.1:4501,10.9.0.2:4501,10.9.0.3:4501"
	joins := func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.SeedConnectionString = seed }
	cr, o := observed(5, noDatabase(), joins)
	want := &clusterStep{Step: step.Step{Reason: reasonJoined, Message: "joined the database at " + seed}, Kind: kindWriteConfigMap, ConfigMap: configMapData(cr, o, seed)}
	if diff := cmp.Diff(want, firstCoordinatorsStep(cr, o)); diff != "" {
		t.Errorf("firstCoordinatorsStep(...): -want, +got:\n%s", diff)
	}
	// Its ConfigMap lost before it recorded the database it joined (it
	// crashed between the join and its status write), it joins again: an
	// empty cluster file would take its processes to no database.
	cr, o = observed(5, noDatabase(), joins, func(_ *v1alpha1.Cluster, o *observation) { o.configMap = nil })
	if diff := cmp.Diff(want, next(cr, o)); diff != "" {
		t.Errorf("next(...) without a ConfigMap: -want, +got:\n%s", diff)
	}
	cr, o = observed(5, joins, func(_ *v1alpha1.Cluster, o *observation) {
		o.status.Cluster.RecoveryState.Name = fdb.RecoveryConfigurationNeverCreated
	})
	if s := configureNewStep(cr, o); s != nil {
		t.Errorf("configureNewStep(...) = %+v, want nothing: a joining Cluster never makes its database", s)
	}
	cr, o = observed(5, noDatabase(), func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.SeedConnectionString = "not a connection string"
	})
	if s := firstCoordinatorsStep(cr, o); s == nil || !s.Waits() || !strings.Contains(s.Message, "spec.forProvider.seedConnectionString") {
		t.Errorf("firstCoordinatorsStep(...) with a bad seed = %+v, want a wait naming the field", s)
	}
}

// inDataCenter makes the groups' processes report data center dc.
func inDataCenter(dc string, ids ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			k, p := processOf(o, id)
			p.Locality.DCID = dc
			o.status.Cluster.Processes[k] = p
		}
	}
}

// TestDataCenterDown: a data center is down when none of the Cluster's
// groups has a process in the status; one reporting group keeps it up.
func TestDataCenterDown(t *testing.T) {
	_, o := observed(5, notReporting("storage-1", "storage-2", "storage-3", "storage-4", "storage-5"))
	if !o.dataCenterDown() {
		t.Error("no group reports: dataCenterDown() = false, want true")
	}
	_, o = observed(5, notReporting("storage-1", "storage-2", "storage-3", "storage-4"))
	if o.dataCenterDown() {
		t.Error("storage-5 reports: dataCenterDown() = true, want false")
	}
}
