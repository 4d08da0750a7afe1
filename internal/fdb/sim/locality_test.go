package sim_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestCommandLineLocalities: a process reports the zoneid, machineid, dcid
// and data_hall localities its command line sets, an empty value included,
// once it (re)started with that command line; without them, its group's
// Zone, and no data center or data hall.
func TestCommandLineLocalities(t *testing.T) {
	type localities struct {
		Zone, Machine, FaultDomain, DataCenter, DataHall string
	}
	cases := map[string]struct {
		flags string
		want  localities
	}{
		"None":        {want: localities{Zone: "storage-1", Machine: "storage-1", FaultDomain: "storage-1"}},
		"ZoneOnly":    {flags: " --locality_zoneid=zone-9", want: localities{Zone: "zone-9", Machine: "zone-9", FaultDomain: "zone-9"}},
		"Both":        {flags: " --locality_zoneid=zone-9 --locality_machineid=node-3", want: localities{Zone: "zone-9", Machine: "node-3", FaultDomain: "zone-9"}},
		"EmptyZone":   {flags: " --locality_zoneid= --locality_machineid=node-3", want: localities{Machine: "node-3"}},
		"LastOneWins": {flags: " --locality_zoneid=zone-8 --locality_zoneid=zone-9", want: localities{Zone: "zone-9", Machine: "zone-9", FaultDomain: "zone-9"}},
		"DataCenterAndHall": {flags: " --locality_zoneid=zone-9 --locality_dcid=dc1 --locality_data_hall=hall-a",
			want: localities{Zone: "zone-9", Machine: "zone-9", FaultDomain: "zone-9", DataCenter: "dc1", DataHall: "hall-a"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 5})
			c.Create(t, fdb.RedundancyTriple)
			groups := slices.Clone(c.Groups)
			groups[0].CommandLine += tc.flags
			c.SetGroups(t, groups)
			must(t, c.Sim.Kill(context.Background(), []fdb.ProcessAddress{c.Address(t, "storage-1")}))
			c.Clock.Step(time.Minute)
			p := c.Status(t).Cluster.Processes["storage-1"]
			got := localities{Zone: p.Locality.ZoneID, Machine: p.Locality.MachineID, FaultDomain: p.FaultDomain, DataCenter: p.Locality.DCID, DataHall: p.Locality.DataHall}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("localities of storage-1 (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoseZoneFollowsCommandLine: a zone is lost with the groups whose
// command line puts them in it, whatever their Zone says.
func TestLoseZoneFollowsCommandLine(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 5})
	groups := slices.Clone(c.Groups)
	groups[0].Zone, groups[0].CommandLine = "zone-x", groups[0].CommandLine+" --locality_zoneid=zone-y"
	c.SetGroups(t, groups)
	c.Create(t, fdb.RedundancyTriple)
	type result struct {
		ErrX     bool
		Reported bool
	}
	errX := c.Sim.LoseZone("zone-x", time.Minute) != nil
	must(t, c.Sim.LoseZone("zone-y", time.Minute))
	_, reported := c.Status(t).Cluster.Processes["storage-1"]
	if diff := cmp.Diff(result{ErrX: true}, result{ErrX: errX, Reported: reported}); diff != "" {
		t.Errorf("losing zone-x, then zone-y (-want +got):\n%s", diff)
	}
}

// TestZonesFromCommandLines creates a double-replicated database on
// groups whose command lines set their zones: in distinct zones it
// recovers; all in the empty zone (pods whose zone variable is empty) it
// cannot recruit logs in distinct zones and never becomes available.
func TestZonesFromCommandLines(t *testing.T) {
	cases := map[string]struct {
		zone          func(n int) string
		wantAvailable bool
	}{
		"DistinctZones": {zone: func(n int) string { return fmt.Sprintf("zone-%d", n) }, wantAvailable: true},
		"EmptyZones":    {zone: func(int) string { return "" }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			groups := fdbtest.Triple.Groups()
			for i := range groups {
				groups[i].CommandLine += " --locality_zoneid=" + tc.zone(i)
			}
			clk := clocktesting.NewFakeClock(fdbtest.Start)
			c := &fdbtest.Cluster{Clock: clk, Sim: sim.New(clk, sim.Options{Seed: 5})}
			c.SetGroups(t, groups)
			cs := fdb.ConnectionString{Description: "test", ID: "initial", Coordinators: []fdb.ProcessAddress{c.Address(t, "log-1"), c.Address(t, "log-2"), c.Address(t, "log-3")}}
			must(t, c.Sim.SetConnectionString(cs.String()))
			must(t, c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble}, true))
			c.Clock.Step(time.Minute)
			st := c.Status(t)
			got := st.Client.DatabaseStatus.Available && st.Cluster.RecoveryState.Name == fdb.RecoveryFullyRecovered
			if diff := cmp.Diff(tc.wantAvailable, got); diff != "" {
				t.Errorf("available and fully recovered a minute after configure new (-want +got):\n%s\nrecovery state %+v", diff, st.Cluster.RecoveryState)
			}
		})
	}
}
