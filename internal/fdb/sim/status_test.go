package sim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

func TestStatusJSONRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 4, Logs: 3, Stateless: 1, StorageProcessesPerPod: 2}, sim.Options{Seed: 9})
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.SetBackupAgents(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b", SnapshotPeriodSeconds: 10}); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1"), "10.2.0.1:4501"}); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(5 * time.Second)
	b, err := c.Sim.StatusJSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := fdb.ParseStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Status(t), parsed); diff != "" {
		t.Errorf("parsed status JSON (-want +got):\n%s", diff)
	}
	var storage2 []string
	for _, p := range fdb.ProcessesByInstance(parsed)["storage-2"] {
		storage2 = append(storage2, p.Locality.ProcessID+"@"+p.Address)
	}
	if diff := cmp.Diff([]string{"storage-2-1@10.1.0.3:4501", "storage-2-2@10.1.0.3:4503"}, storage2); diff != "" {
		t.Errorf("processes of a two-process pod (-want +got):\n%s", diff)
	}
}

// TestCoordinatorZoneFailures: status counts the zones whose loss leaves a
// quorum of coordinators as FoundationDB's faultToleranceStatusFetcher does
// (fdbserver/Status.actor.cpp, 7.3.63): (coordinators-1)/2 may fail, zone by
// zone from the fullest, and a coordinator no worker serves sits in the
// zone "" without counting as lost already.
func TestCoordinatorZoneFailures(t *testing.T) {
	cases := map[string]struct {
		zones map[string]string // group -> zone; others have their own
		lose  string            // a coordinator's group to take down
		mode  fdb.RedundancyMode
		want  int
	}{
		"three coordinators in distinct zones": {mode: fdb.RedundancyDouble, want: 1},
		"two of three coordinators share a zone": {
			zones: map[string]string{"stateless-1": "zone-x", "stateless-2": "zone-x"}, mode: fdb.RedundancyDouble, want: 0,
		},
		// Four of five left keep a quorum only without one more, yet
		// status counts the lost one's zone "" as one zone of five.
		"one of five coordinators down": {lose: "stateless-1", mode: fdb.RedundancyTriple, want: 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tp := fdbtest.Topology{Storage: 5, Logs: 4, Stateless: 5}
			groups := tp.Groups()
			for i := range groups {
				if z, ok := tc.zones[groups[i].ID]; ok {
					groups[i].Zone = z
				}
			}
			clk := clocktesting.NewFakeClock(fdbtest.Start)
			c := &fdbtest.Cluster{Clock: clk, Sim: sim.New(clk, sim.Options{Seed: 3})}
			c.SetGroups(t, groups)
			cs := fdb.ConnectionString{Description: "test", ID: "initial"}
			for n := 1; n <= 5; n++ {
				if n <= 3 || tc.mode == fdb.RedundancyTriple {
					cs.Coordinators = append(cs.Coordinators, c.Address(t, fmt.Sprintf("stateless-%d", n)))
				}
			}
			if err := c.Sim.SetConnectionString(cs.String()); err != nil {
				t.Fatal(err)
			}
			c.Create(t, tc.mode)
			if tc.lose != "" {
				if err := c.Sim.LosePod(tc.lose, sim.Forever); err != nil {
					t.Fatal(err)
				}
				c.WaitFor(t, time.Minute, func(s *fdb.Status) bool { return s.Client.DatabaseStatus.Healthy })
			}
			if got := c.Status(t).Cluster.FaultTolerance.MaxZoneFailuresWithoutLosingAvailability; got != tc.want {
				t.Errorf("max_zone_failures_without_losing_availability = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestStatusOfAnUnavailableDatabase: while the database cannot serve the
// cluster controller's read of its configuration, the status holds no
// configuration, exclusion, excluded flag or maintenance, and says so;
// they return with the database.
func TestStatusOfAnUnavailableDatabase(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 3})
	c.Create(t, fdb.RedundancyTriple)
	ctx := context.Background()
	excluded := addressOf(c, "storage-1")
	if err := c.Sim.Exclude(ctx, []fdb.ProcessAddress{excluded}); err != nil {
		t.Fatal(err)
	}
	zone := c.Status(t).Cluster.Processes["storage-2"].Locality.ZoneID
	if err := c.Sim.SetMaintenance(ctx, zone, 600); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	type view struct {
		Available, ConfigurationRead, MaintenanceRead bool
		Exclusions                                    []fdb.ProcessAddress
		ExcludedFlags                                 int
		Maintenance                                   string
		Unreadable                                    bool
	}
	observe := func() view {
		s := c.Status(t)
		v := view{Available: s.Client.DatabaseStatus.Available, ConfigurationRead: s.ConfigurationRead(), MaintenanceRead: s.MaintenanceRead(),
			Exclusions: fdb.Exclusions(s), Maintenance: s.Cluster.MaintenanceZone}
		for _, p := range s.Cluster.Processes {
			if p.Excluded {
				v.ExcludedFlags++
			}
		}
		for _, m := range s.Cluster.Messages {
			v.Unreadable = v.Unreadable || m.Name == fdb.MessageUnreadableConfiguration
		}
		return v
	}
	readable := view{Available: true, ConfigurationRead: true, MaintenanceRead: true, Exclusions: []fdb.ProcessAddress{excluded}, ExcludedFlags: 1, Maintenance: zone}
	if diff := cmp.Diff(readable, observe()); diff != "" {
		t.Errorf("available (-want +got):\n%s", diff)
	}
	if err := c.Sim.Kill(ctx, []fdb.ProcessAddress{addressOf(c, holderOf(t, c, fdb.RoleMaster))}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(view{Unreadable: true}, observe()); diff != "" {
		t.Errorf("recovering (-want +got):\n%s", diff)
	}
	c.WaitFor(t, time.Minute, func(s *fdb.Status) bool { return s.Client.DatabaseStatus.Available })
	if diff := cmp.Diff(readable, observe()); diff != "" {
		t.Errorf("recovered (-want +got):\n%s", diff)
	}
}
