package sim_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// dataCenter returns the groups of data center dc, the n-th of which has
// IP 10.<octet>.<class>.<n>: storage, logs and stateless groups, each in
// its own zone-<n> (zone names repeat across data centers, as two
// Kubernetes clusters' zone labels may).
func dataCenter(dc string, octet, storage, logs, stateless int) []sim.ProcessGroup {
	var out []sim.ProcessGroup
	for c, class := range []struct {
		name  string
		count int
	}{{sim.ClassStorage, storage}, {sim.ClassLog, logs}, {sim.ClassStateless, stateless}} {
		for n := 1; n <= class.count; n++ {
			out = append(out, sim.ProcessGroup{
				ID:          fmt.Sprintf("%s-%s-%d", dc, class.name, n),
				Class:       class.name,
				IP:          fmt.Sprintf("10.%d.%d.%d", octet, c+1, n),
				Zone:        fmt.Sprintf("zone-%d", n),
				Version:     fdbtest.Version,
				CommandLine: "fdbserver --class=" + class.name + " --locality_dcid=" + dc,
			})
		}
	}
	return out
}

// twoRegions is a primary data center dc1 with its satellite dc1s and a
// remote one, dc2, without satellites; coordinators on the logs of all
// three, each in a zone of its own.
func twoRegions(t *testing.T, seed uint64) *fdbtest.Cluster {
	t.Helper()
	clk := clocktesting.NewFakeClock(fdbtest.Start)
	c := &fdbtest.Cluster{Clock: clk, Sim: sim.New(clk, sim.Options{Seed: seed, Shards: 24, TotalKVBytes: 1 << 30})}
	groups := slices.Concat(dataCenter("dc1", 1, 4, 4, 2), dataCenter("dc1s", 2, 0, 3, 0), dataCenter("dc2", 3, 4, 4, 2))
	c.SetGroups(t, groups)
	cs := fdb.ConnectionString{Description: "test", ID: "initial",
		Coordinators: []fdb.ProcessAddress{"10.1.2.1:4501", "10.2.2.2:4501", "10.3.2.3:4501"}}
	if err := c.Sim.SetConnectionString(cs.String()); err != nil {
		t.Fatal(err)
	}
	return c
}

// regions is dc1 (with satellite dc1s) and dc2 at the priorities given.
func regions(dc1, dc2 int) []fdb.Region {
	return []fdb.Region{
		{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: dc1}, {ID: "dc1s", Priority: 1, Satellite: 1}},
			SatelliteRedundancyMode: "one_satellite_double", SatelliteLogs: 2},
		{DataCenters: []fdb.RegionDataCenter{{ID: "dc2", Priority: dc2}}},
	}
}

func configure(t *testing.T, c *fdbtest.Cluster, cfg fdb.DatabaseConfiguration) {
	t.Helper()
	if err := c.Sim.Configure(context.Background(), cfg, false); err != nil {
		t.Fatal(err)
	}
}

func healthy(s *fdb.Status) bool {
	return s.Cluster.RecoveryState.Name == fdb.RecoveryFullyRecovered && s.Client.DatabaseStatus.Healthy
}

// TestTwoRegions brings a two-region database up as FoundationDB's
// documentation and the operator do — regions with the remote at priority
// -1 and one usable region, then two usable regions, then the remote's
// priority — fails over and back by priority, and loses each primary data
// center: with a satellite the database fails over at once and loses
// nothing; without, it waits for the data center rather than lose the
// mutations the remote lacks.
func TestTwoRegions(t *testing.T) {
	c := twoRegions(t, 7)
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, Regions: regions(1, -1)}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	st := c.Status(t)
	if got, want := [][]string{fdbtest.DataCentersServing(st, fdb.RoleStorage), fdbtest.DataCentersServing(st, fdb.RoleLog), fdbtest.DataCentersServing(st, fdb.RoleLogRouter), {st.Cluster.ActivePrimaryDC}},
		[][]string{{"dc1"}, {"dc1", "dc1s"}, nil, {"dc1"}}; !slicesEqual(got, want) {
		t.Errorf("one usable region: storage, logs, routers, primary in %v, want %v", got, want)
	}

	configure(t, c, fdb.DatabaseConfiguration{UsableRegions: 2})
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool { return healthy(s) && s.Cluster.DatacenterLag.Seconds <= 1 })
	st = c.Status(t)
	if got, want := [][]string{fdbtest.DataCentersServing(st, fdb.RoleStorage), fdbtest.DataCentersServing(st, fdb.RoleLog), fdbtest.DataCentersServing(st, fdb.RoleLogRouter)},
		[][]string{{"dc1", "dc2"}, {"dc1", "dc1s", "dc2"}, {"dc2"}}; !slicesEqual(got, want) {
		t.Errorf("two usable regions: storage, logs, routers in %v, want %v", got, want)
	}
	if tt := st.Cluster.Data.TeamTrackers; len(tt) != 2 || tt[1].Primary || !tt[1].State.Healthy || tt[1].State.MinReplicasRemaining != 2 {
		t.Errorf("team trackers %+v, want the remote region's healthy with two replicas", tt)
	}
	if l := st.Cluster.Logs[0]; l.SatelliteLogReplicationFactor == nil || *l.SatelliteLogReplicationFactor != 2 || *l.SatelliteLogFaultTolerance != 1 ||
		l.RemoteLogReplicationFactor == nil || *l.RemoteLogReplicationFactor != 2 || *l.RemoteLogFaultTolerance != 1 {
		t.Errorf("current log generation %+v, want satellite and remote logs replicated twice with one fault tolerated", l)
	}
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{UsableRegions: 1, Regions: regions(1, 0)}, false); err == nil ||
		!strings.Contains(err.Error(), "usable_regions and region priorities cannot change together") {
		t.Errorf("changing usable_regions and priorities together: %v", err)
	}
	configure(t, c, fdb.DatabaseConfiguration{Regions: regions(1, 0)})
	c.WaitFor(t, time.Minute, healthy)

	// Planned failover: the remote gets the higher priority.
	before := c.Sim.Recoveries()
	configure(t, c, fdb.DatabaseConfiguration{Regions: regions(0, 1)})
	c.WaitFor(t, 5*time.Minute, func(s *fdb.Status) bool { return healthy(s) && s.Cluster.ActivePrimaryDC == "dc2" })
	t.Logf("planned failover to dc2: %d recoveries", c.Sim.Recoveries()-before)
	if n := c.Sim.Recoveries() - before; n < 1 || n > 2 {
		t.Errorf("planned failover took %d recoveries, want 1 or 2", n)
	}

	// dc2 has no satellite: losing it leaves mutations only on its logs.
	// The database waits for it rather than recover without them.
	if err := c.Sim.LoseDataCenter("dc2", 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(5 * time.Minute)
	if st := c.Status(t); st.Client.DatabaseStatus.Available || st.Cluster.ActivePrimaryDC != "dc2" {
		t.Errorf("dc2 lost without a satellite: available %t, primary %q; want unavailable in dc2", st.Client.DatabaseStatus.Available, st.Cluster.ActivePrimaryDC)
	}
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool { return healthy(s) && s.Cluster.DatacenterLag.Seconds <= 1 })

	// Failback, then lose dc1: its satellite holds every mutation, the
	// database fails over to dc2 at once.
	configure(t, c, fdb.DatabaseConfiguration{Regions: regions(1, 0)})
	c.WaitFor(t, 5*time.Minute, func(s *fdb.Status) bool {
		return healthy(s) && s.Cluster.ActivePrimaryDC == "dc1" && s.Cluster.DatacenterLag.Seconds <= 1
	})
	if err := c.Sim.LoseDataCenter("dc1", sim.Forever); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, 2*time.Minute, func(s *fdb.Status) bool {
		return s.Client.DatabaseStatus.Available && s.Cluster.ActivePrimaryDC == "dc2"
	})
	if v := c.Sim.Check(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

// TestRemoteRegionBackFromAnOutage: the remote region's data center goes
// down and comes back; the cluster controller recruits its log routers
// again, and it catches up (chaos seed 223: a remote data center cut off
// for 90 s trailed the primary for good, and a failover to it was denied
// until the run gave up).
func TestRemoteRegionBackFromAnOutage(t *testing.T) {
	c := twoRegions(t, 7)
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, Regions: regions(1, -1)}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	configure(t, c, fdb.DatabaseConfiguration{UsableRegions: 2})
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool { return healthy(s) && s.Cluster.DatacenterLag.Seconds <= 1 })
	if err := c.Sim.LoseDataCenter("dc2", 90*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	if st := c.Status(t); fdbtest.DataCentersServing(st, fdb.RoleLogRouter) != nil {
		t.Errorf("dc2 down: log routers in %v, want none", fdbtest.DataCentersServing(st, fdb.RoleLogRouter))
	}
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool {
		return healthy(s) && s.Cluster.DatacenterLag.Seconds <= 1 && slicesEqual([][]string{fdbtest.DataCentersServing(s, fdb.RoleLogRouter)}, [][]string{{"dc2"}})
	})
	if v := c.Sim.Check(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

// TestRegionRules: configure refuses what FoundationDB's refuses.
func TestRegionRules(t *testing.T) {
	three := append(regions(1, 0), fdb.Region{DataCenters: []fdb.RegionDataCenter{{ID: "dc3", Priority: 0}}})
	noMain := []fdb.Region{{DataCenters: []fdb.RegionDataCenter{{ID: "dc1s", Priority: 1, Satellite: 1}}}}
	twice := []fdb.Region{{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: 1}}}, {DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: 0}}}}
	badMode := regions(1, 0)
	badMode[0].SatelliteRedundancyMode = "three_satellites"
	cases := map[string]struct {
		cfg  fdb.DatabaseConfiguration
		want string
	}{
		"ThreeRegions":         {fdb.DatabaseConfiguration{Regions: three}, "at most two regions"},
		"NoMainDataCenter":     {fdb.DatabaseConfiguration{Regions: noMain}, "exactly one main data center"},
		"DataCenterTwice":      {fdb.DatabaseConfiguration{Regions: twice}, "data center in two regions"},
		"UnknownSatelliteMode": {fdb.DatabaseConfiguration{Regions: badMode}, "unknown satellite_redundancy_mode"},
		"TwoUsableOneRegion":   {fdb.DatabaseConfiguration{UsableRegions: 2}, "usable_regions above the number of regions"},
		"TwoPrimaries":         {fdb.DatabaseConfiguration{UsableRegions: 2, Regions: regions(1, 0)}, "only one region may have a priority of 0 or more"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := twoRegions(t, 1)
			if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble}, true); err != nil {
				t.Fatal(err)
			}
			c.WaitFor(t, time.Minute, healthy)
			if err := c.Sim.Configure(context.Background(), tc.cfg, false); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Configure(%+v) = %v, want an error saying %q", tc.cfg, err, tc.want)
			}
		})
	}
}

func slicesEqual(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// TestForceRecovery: losing the primary with its satellite leaves
// mutations the remote lacks; the database waits, and a forced recovery in
// the remote brings it back and loses them, as CommitsLost says.
func TestForceRecovery(t *testing.T) {
	c := twoRegions(t, 3)
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, Regions: regions(1, -1)}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	configure(t, c, fdb.DatabaseConfiguration{UsableRegions: 2})
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool { return healthy(s) && s.Cluster.DatacenterLag.Seconds <= 1 })
	configure(t, c, fdb.DatabaseConfiguration{Regions: regions(1, 0)})
	c.WaitFor(t, time.Minute, healthy)
	losePrimary(t, c)
	if v := c.Sim.Check(); len(v) != 0 {
		t.Errorf("violations before the forced recovery: %v", v)
	}
	if err := c.Sim.ForceRecovery(context.Background(), "dc1s"); err == nil || !strings.Contains(err.Error(), "not the main data center") {
		t.Errorf("ForceRecovery in a satellite = %v", err)
	}
	if err := c.Sim.ForceRecovery(context.Background(), "dc2"); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, func(s *fdb.Status) bool {
		return s.Client.DatabaseStatus.Available && s.Cluster.ActivePrimaryDC == "dc2"
	})
	cfg := c.Status(t).Cluster.Configuration
	if got := [][]string{{strconv.Itoa(cfg.UsableRegions)}, priorityList(cfg.Regions)}; !slicesEqual(got, [][]string{{"1"}, {"dc1=-1", "dc1s=-1", "dc2=1"}}) {
		t.Errorf("after the forced recovery usable_regions and priorities are %v, want 1 and dc2 alone positive", got)
	}
	if err := c.Sim.ForceRecovery(context.Background(), "dc1"); err != nil {
		t.Errorf("ForceRecovery of a recovered database = %v, want nothing done", err)
	}
	if st := c.Status(t); st.Cluster.ActivePrimaryDC != "dc2" {
		t.Errorf("ForceRecovery of a recovered database moved the primary to %s", st.Cluster.ActivePrimaryDC)
	}
	v := c.Sim.Check()
	if len(v) != 1 || v[0].Kind != sim.CommitsLost {
		t.Errorf("violations after the forced recovery: %v, want one CommitsLost", v)
	}
}

// priorityList lists each data center's priority as <id>=<priority>, sorted.
func priorityList(regions []fdb.Region) []string {
	var out []string
	for _, r := range regions {
		for _, dc := range r.DataCenters {
			out = append(out, dc.ID+"="+strconv.Itoa(dc.Priority))
		}
	}
	slices.Sort(out)
	return out
}

// losePrimary moves the coordinators to dc2 and loses dc1 with its
// satellite for good: the database cannot recover on its own.
func losePrimary(t *testing.T, c *fdbtest.Cluster) {
	t.Helper()
	if _, err := c.Sim.ChangeCoordinators(context.Background(), []fdb.ProcessAddress{"10.3.2.1:4501", "10.3.2.2:4501", "10.3.2.3:4501"}); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	for _, dc := range []string{"dc1", "dc1s"} {
		if err := c.Sim.LoseDataCenter(dc, sim.Forever); err != nil {
			t.Fatal(err)
		}
	}
	c.Clock.Step(5 * time.Minute)
	if st := c.Status(t); st.Client.DatabaseStatus.Available {
		t.Fatalf("dc1 and its satellite lost: the database recovered in %s on its own", st.Cluster.ActivePrimaryDC)
	}
}

// TestForceRecoveryWithoutData: with one usable region the remote holds
// no data, and the simulator refuses to recover there (FoundationDB would,
// with every key lost).
func TestForceRecoveryWithoutData(t *testing.T) {
	c := twoRegions(t, 5)
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, Regions: regions(1, -1)}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	losePrimary(t, c)
	if err := c.Sim.ForceRecovery(context.Background(), "dc2"); err == nil || !strings.Contains(err.Error(), "holds no data") {
		t.Errorf("ForceRecovery in a data center without data = %v", err)
	}
}

// TestThreeDataHalls: with three_data_hall each shard has a replica in
// each of three data halls and the four logs are two in each of two halls
// (zone names count within their hall), so losing a whole hall loses no
// data and the database recovers without it.
func TestThreeDataHalls(t *testing.T) {
	clk := clocktesting.NewFakeClock(fdbtest.Start)
	c := &fdbtest.Cluster{Clock: clk, Sim: sim.New(clk, sim.Options{Seed: 11, Shards: 30, TotalKVBytes: 1 << 30})}
	var groups []sim.ProcessGroup
	var coordinators []fdb.ProcessAddress
	for h := 1; h <= 3; h++ {
		for c, class := range []string{sim.ClassStorage, sim.ClassLog, sim.ClassStateless} {
			for n := 1; n <= 2; n++ {
				g := sim.ProcessGroup{
					ID:          fmt.Sprintf("hall%d-%s-%d", h, class, n),
					Class:       class,
					IP:          fmt.Sprintf("10.%d.%d.%d", h, c+1, n),
					Zone:        fmt.Sprintf("zone-%d", n), // zone names repeat across halls: they count within their hall
					Version:     fdbtest.Version,
					CommandLine: fmt.Sprintf("fdbserver --class=%s --locality_data_hall=hall%d", class, h),
				}
				groups = append(groups, g)
				if class == sim.ClassLog {
					coordinators = append(coordinators, fdb.ProcessAddress(g.IP+":4501"))
				}
			}
		}
	}
	c.SetGroups(t, groups)
	if err := c.Sim.SetConnectionString(fdb.ConnectionString{Description: "test", ID: "initial", Coordinators: coordinators}.String()); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyThreeDataHall}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	st := c.Status(t)
	logHalls := map[string]int{}
	for _, p := range st.Cluster.Processes {
		if p.HasRole(fdb.RoleLog) {
			logHalls[p.Locality.DataHall]++
		}
	}
	if len(logHalls) < 2 || max(logHalls["hall1"], logHalls["hall2"], logHalls["hall3"]) > 2 {
		t.Errorf("logs by data hall %v, want at least two halls and at most two logs in each", logHalls)
	}
	for _, g := range groups {
		if strings.HasPrefix(g.ID, "hall2-") {
			if err := c.Sim.LosePod(g.ID, sim.Forever); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := c.Status(t).Cluster.Data.State.MinReplicasRemaining; n != 2 {
		t.Errorf("a data hall lost: a shard has %d replicas left, want 2", n)
	}
	c.WaitFor(t, 5*time.Minute, func(s *fdb.Status) bool { return s.Client.DatabaseStatus.Available })
	if v := c.Sim.Check(); len(v) != 0 {
		t.Errorf("violations after losing a data hall: %v", v)
	}
}

// TestRemoteRegionCountsInFaultTolerance: with two usable regions the
// database's fault tolerance is the lesser of both regions' (each holds a
// full copy), so a zone lost in the remote region lowers it, and the
// policies that gate disruption on it (fdb-fault-tolerance) hold steps in
// the primary until the remote heals.
func TestRemoteRegionCountsInFaultTolerance(t *testing.T) {
	c := twoRegions(t, 9)
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, Regions: regions(1, -1)}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, healthy)
	configure(t, c, fdb.DatabaseConfiguration{UsableRegions: 2})
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool { return healthy(s) && s.Cluster.DatacenterLag.Seconds <= 1 })
	if ft := c.Status(t).Cluster.FaultTolerance.MaxZoneFailuresWithoutLosingData; ft != 1 {
		t.Fatalf("both regions healthy: fault tolerance %d, want 1", ft)
	}
	if err := c.Sim.LosePod("dc2-storage-1", sim.Forever); err != nil {
		t.Fatal(err)
	}
	if ft := c.Status(t).Cluster.FaultTolerance.MaxZoneFailuresWithoutLosingData; ft != 0 {
		t.Errorf("a storage pod of the remote region lost: fault tolerance %d, want 0", ft)
	}
}
