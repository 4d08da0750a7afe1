package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// addressOf returns the address of the first process of a group.
func addressOf(c *fdbtest.Cluster, id string) fdb.ProcessAddress {
	for _, g := range c.Groups {
		if g.ID == id {
			return fdb.ProcessAddress(g.IP + ":4501")
		}
	}
	panic("no group " + id)
}

// holderOf returns the process group serving role.
func holderOf(t *testing.T, c *fdbtest.Cluster, role string) string {
	t.Helper()
	for _, p := range c.Status(t).Cluster.Processes {
		if p.HasRole(role) {
			return p.Locality.InstanceID
		}
	}
	t.Fatalf("nobody serves %s", role)
	return ""
}

func TestRecoveryCounting(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		op   func(t *testing.T, c *fdbtest.Cluster) error
		want int
	}{
		"KillStorage": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.Kill(ctx, []fdb.ProcessAddress{addressOf(c, "storage-1")})
			},
			want: 0,
		},
		"KillLog": {
			op: func(t *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.Kill(ctx, []fdb.ProcessAddress{addressOf(c, holderOf(t, c, fdb.RoleLog))})
			},
			want: 1,
		},
		"KillEverythingInOneBatch": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				var all []fdb.ProcessAddress
				for _, g := range c.Groups {
					all = append(all, addressOf(c, g.ID))
				}
				return c.Sim.Kill(ctx, all)
			},
			want: 1,
		},
		"KillTwice": {
			op: func(t *testing.T, c *fdbtest.Cluster) error {
				master := []fdb.ProcessAddress{addressOf(c, holderOf(t, c, fdb.RoleMaster))}
				if err := c.Sim.Kill(ctx, master); err != nil {
					return err
				}
				c.Clock.Step(time.Second)
				return c.Sim.Kill(ctx, master)
			},
			want: 2,
		},
		"ExcludeStorage": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")})
			},
			want: 0,
		},
		"ExcludeLogHolder": {
			op: func(t *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget(holderOf(t, c, fdb.RoleLog))})
			},
			want: 1,
		},
		"ExcludeAndIncludeSpareLog": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				spare := []fdb.ProcessAddress{fdb.InstanceTarget("log-4")}
				if err := c.Sim.Exclude(ctx, spare); err != nil {
					return err
				}
				return c.Sim.Include(ctx, spare)
			},
			want: 1,
		},
		"ChangeCoordinators": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				_, err := c.Sim.ChangeCoordinators(ctx, []fdb.ProcessAddress{addressOf(c, "storage-1"), addressOf(c, "storage-2"), addressOf(c, "storage-3")})
				return err
			},
			want: 1,
		},
		"ConfigureChange": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.Configure(ctx, fdb.DatabaseConfiguration{Resolvers: 2}, false)
			},
			want: 1,
		},
		"ConfigureUnchanged": {
			op: func(_ *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.Configure(ctx, fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple}, false)
			},
			want: 0,
		},
		"CrashMaster": {
			op: func(t *testing.T, c *fdbtest.Cluster) error {
				// The master's pod runs one process, named after its group.
				return c.Sim.CrashProcess(holderOf(t, c, fdb.RoleMaster), time.Minute)
			},
			want: 1,
		},
		"LoseLogPod": {
			op: func(t *testing.T, c *fdbtest.Cluster) error {
				return c.Sim.LosePod(holderOf(t, c, fdb.RoleLog), time.Minute)
			},
			want: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 3})
			c.Create(t, fdb.RedundancyTriple)
			if got := c.Sim.Recoveries(); got != 1 {
				t.Fatalf("recoveries after configure new: %d, want 1", got)
			}
			if err := tc.op(t, c); err != nil {
				t.Fatal(err)
			}
			if got := c.Sim.Recoveries() - 1; got != tc.want {
				t.Errorf("recoveries caused: %d, want %d", got, tc.want)
			}
			c.Clock.Step(time.Minute)
			rs := c.Status(t).Cluster.RecoveryState
			if rs.Name != fdb.RecoveryFullyRecovered || rs.ActiveGenerations != 1 {
				t.Errorf("a minute later: recovery state %q with %d generations, want %q with 1", rs.Name, rs.ActiveGenerations, fdb.RecoveryFullyRecovered)
			}
		})
	}
}

func TestRecoveryProgression(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 3})
	c.Create(t, fdb.RedundancyTriple)
	c.Clock.Step(time.Hour)
	if err := c.Sim.Kill(context.Background(), []fdb.ProcessAddress{addressOf(c, holderOf(t, c, fdb.RoleMaster))}); err != nil {
		t.Fatal(err)
	}
	type observation struct {
		Name        string
		Generations int
		Since       *float64
		Available   bool
	}
	var got []observation
	for range 10 {
		s := c.Status(t)
		rs := s.Cluster.RecoveryState
		got = append(got, observation{rs.Name, rs.ActiveGenerations, rs.SecondsSinceLastRecovered, s.Client.DatabaseStatus.Available})
		c.Clock.Step(time.Second)
	}
	// seconds_since_last_recovered is left out until the recovery accepts
	// commits (no read version), then counts from then.
	secs := func(v float64) *float64 { return &v }
	want := []observation{
		{fdb.RecoveryReadingCoordinatedState, 2, nil, false},
		{fdb.RecoveryLockingCoordinatedState, 2, nil, false},
		{fdb.RecoveryRecruitingTransactionServers, 2, nil, false},
		{fdb.RecoveryInitializingTransactionServers, 2, nil, false},
		{fdb.RecoveryAcceptingCommits, 2, secs(0), true},
		{fdb.RecoveryAcceptingCommits, 2, secs(1), true},
		{fdb.RecoveryAllLogsRecruited, 2, secs(2), true},
		{fdb.RecoveryAllLogsRecruited, 2, secs(3), true},
		{fdb.RecoveryAllLogsRecruited, 2, secs(4), true},
		{fdb.RecoveryFullyRecovered, 1, secs(5), true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recovery progression (-want +got):\n%s", diff)
	}
}

func TestRecoveryWaitsForFaultDomains(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 4, Logs: 3, Stateless: 1, Zones: 2}, sim.Options{Seed: 3})
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple}, true); err != nil {
		t.Fatal(err)
	}
	type observation struct {
		Recovery  string
		Available bool
	}
	observe := func() observation {
		s := c.Status(t)
		return observation{s.Cluster.RecoveryState.Name, s.Client.DatabaseStatus.Available}
	}
	c.Clock.Step(time.Minute)
	if diff := cmp.Diff(observation{fdb.RecoveryRecruitingTransactionServers, false}, observe()); diff != "" {
		t.Errorf("with two zones (-want +got):\n%s", diff)
	}
	c.SetGroups(t, append(c.Groups, fdbtest.Triple.Group(sim.ClassStorage, 9)))
	c.Clock.Step(time.Minute)
	if diff := cmp.Diff(observation{fdb.RecoveryFullyRecovered, true}, observe()); diff != "" {
		t.Errorf("with a third zone (-want +got):\n%s", diff)
	}
}
