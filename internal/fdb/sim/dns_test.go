package sim_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// dnsDomain follows a group ID in its pod's DNS name.
const dnsDomain = ".db.ns.svc.cluster.local"

// dnsAddress is the first process of group id named by its pod's DNS name.
func dnsAddress(id string) fdb.ProcessAddress {
	return fdb.HostAddress(id+dnsDomain, "10.0.0.1:4501")
}

// dnsAddresses returns dnsAddress of each of ids.
func dnsAddresses(ids ...string) []fdb.ProcessAddress {
	var out []fdb.ProcessAddress
	for _, id := range ids {
		out = append(out, dnsAddress(id))
	}
	return out
}

// withDNSNames returns groups whose pods have a DNS name, <id>.db.ns...,
// which their command lines report as the dns_name locality.
func withDNSNames(groups []sim.ProcessGroup) []sim.ProcessGroup {
	out := slices.Clone(groups)
	for i := range out {
		out[i].DNSName = out[i].ID + dnsDomain
		out[i].CommandLine += " --locality_dns_name=" + out[i].DNSName
	}
	return out
}

// newDNSCluster is a created triple cluster whose pods have DNS names. Its
// coordinators are coordinators, or the first process of log-1..3 by IP
// when none are given.
func newDNSCluster(t *testing.T, coordinators ...fdb.ProcessAddress) *fdbtest.Cluster {
	t.Helper()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 5})
	c.SetGroups(t, withDNSNames(c.Groups))
	if len(coordinators) > 0 {
		cs := fdb.ConnectionString{Description: "test", ID: "initial", Coordinators: coordinators}
		must(t, c.Sim.SetConnectionString(cs.String()))
	}
	c.Create(t, fdb.RedundancyTriple)
	return c
}

// recreatePods gives the pods of groups ids new IPs, keeping their volumes
// (and DNS names); viaStop stops them for 30 s first, as a pod deleted and
// created again.
func recreatePods(t *testing.T, c *fdbtest.Cluster, viaStop bool, ids ...string) {
	t.Helper()
	moved := slices.Clone(c.Groups)
	for i := range moved {
		if slices.Contains(ids, moved[i].ID) {
			moved[i].IP = fmt.Sprintf("10.9.0.%d", i+1)
		}
	}
	if viaStop {
		for _, id := range ids {
			stop(t, c, id)
		}
		c.Clock.Step(30 * time.Second)
	}
	c.SetGroups(t, moved)
}

// coordinatorProcesses returns the IDs of the processes that report the
// coordinator role, sorted.
func coordinatorProcesses(s *fdb.Status) []string {
	var out []string
	for id, p := range s.Cluster.Processes {
		if p.HasRole(fdb.RoleCoordinator) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// TestDNSCoordinatorSurvivesNewIP recreates coordinators' pods on new IPs:
// a coordinator named by DNS name follows its pod, one named by IP is lost.
func TestDNSCoordinatorSurvivesNewIP(t *testing.T) {
	type view struct {
		Reachable    map[fdb.ProcessAddress]bool
		Quorum       bool
		Coordinators []string
		Violations   []sim.ViolationKind
	}
	byDNS := dnsAddresses("log-1", "log-2", "log-3")
	byIP := []fdb.ProcessAddress{"10.2.0.2:4501", "10.2.0.3:4501", "10.2.0.4:4501"}
	allReachable := map[fdb.ProcessAddress]bool{byDNS[0]: true, byDNS[1]: true, byDNS[2]: true}
	cases := map[string]struct {
		coordinators []fdb.ProcessAddress
		viaStop      bool
		moved        []string
		want         view
	}{
		"ByDNSNameOneMoved": {
			coordinators: byDNS, moved: []string{"log-1"},
			want: view{Reachable: allReachable, Quorum: true, Coordinators: []string{"log-1", "log-2", "log-3"}},
		},
		"ByDNSNameTwoMoved": {
			coordinators: byDNS, moved: []string{"log-1", "log-2"},
			want: view{Reachable: allReachable, Quorum: true, Coordinators: []string{"log-1", "log-2", "log-3"}},
		},
		"ByDNSNameRecreated": {
			coordinators: byDNS, viaStop: true, moved: []string{"log-1"},
			want: view{Reachable: allReachable, Quorum: true, Coordinators: []string{"log-1", "log-2", "log-3"}},
		},
		"ByIPOneMoved": {
			coordinators: byIP, moved: []string{"log-1"},
			want: view{
				Reachable: map[fdb.ProcessAddress]bool{byIP[0]: false, byIP[1]: true, byIP[2]: true}, Quorum: true,
				Coordinators: []string{"log-2", "log-3"},
			},
		},
		"ByIPTwoMoved": {
			coordinators: byIP, moved: []string{"log-1", "log-2"},
			want: view{
				Reachable: map[fdb.ProcessAddress]bool{byIP[0]: false, byIP[1]: false, byIP[2]: true},
				// Without a quorum the status lists no processes.
				Violations: []sim.ViolationKind{sim.CoordinatorQuorumLoss},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newDNSCluster(t, tc.coordinators...)
			recreatePods(t, c, tc.viaStop, tc.moved...)
			c.Clock.Step(time.Minute)
			s := c.Status(t)
			got := view{Reachable: map[fdb.ProcessAddress]bool{}, Quorum: s.Client.Coordinators.QuorumReachable,
				Coordinators: coordinatorProcesses(s), Violations: kinds(c.Sim.Check())}
			for _, co := range s.Client.Coordinators.Coordinators {
				got.Reachable[co.Address] = co.Reachable
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("a minute after recreating %v on new IPs (-want +got):\n%s", tc.moved, diff)
			}
		})
	}
}

// TestOldDNSClusterFileIsForwarded: a cluster file naming former
// coordinators by DNS name still reaches the database after their pods
// moved to new IPs; one naming them by IP does not.
func TestOldDNSClusterFileIsForwarded(t *testing.T) {
	cases := map[string]struct {
		coordinators []fdb.ProcessAddress
		want         bool
	}{
		"ByDNSName": {coordinators: dnsAddresses("log-1", "log-2", "log-3"), want: true},
		"ByIP":      {coordinators: []fdb.ProcessAddress{"10.2.0.2:4501", "10.2.0.3:4501", "10.2.0.4:4501"}, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newDNSCluster(t, tc.coordinators...)
			old := c.Sim.ConnectionString()
			_, err := c.Sim.ChangeCoordinators(context.Background(), dnsAddresses("stateless-1", "stateless-2", "log-4"))
			must(t, err)
			recreatePods(t, c, false, "log-1", "log-2", "log-3")
			if got := c.Sim.Reaches(old); got != tc.want {
				t.Errorf("Reaches(%q) = %t after the old coordinators' pods moved, want %t", old, got, tc.want)
			}
		})
	}
}

// TestDNSNameLocality: a process reports the dns_name locality its command
// line sets, once it (re)started with that command line.
func TestDNSNameLocality(t *testing.T) {
	const name = "storage-1" + dnsDomain
	cases := map[string]struct {
		edit func(g *sim.ProcessGroup)
		kill bool
		want string
	}{
		"FlagAddedWithoutRestart": {
			edit: func(g *sim.ProcessGroup) { g.CommandLine += " --locality_dns_name=" + name },
		},
		"FlagAddedThenKilled": {
			edit: func(g *sim.ProcessGroup) { g.CommandLine += " --locality_dns_name=" + name },
			kill: true,
			want: name,
		},
		"NewPodWithDNSName": {
			// A new DNS name is a new pod: its processes restart.
			edit: func(g *sim.ProcessGroup) {
				g.DNSName, g.CommandLine = name, g.CommandLine+" --locality_dns_name="+name
			},
			want: name,
		},
		"DNSNameWithoutFlag": {
			edit: func(g *sim.ProcessGroup) { g.DNSName = name },
			kill: true,
		},
		"PerProcessCommandLine": {
			edit: func(g *sim.ProcessGroup) {
				g.CommandLines = []string{"fdbserver --locality_dns_name=" + name + " --class=storage"}
			},
			kill: true,
			want: name,
		},
	}
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 5})
			c.Create(t, fdb.RedundancyTriple)
			groups := slices.Clone(c.Groups)
			tc.edit(&groups[0])
			c.SetGroups(t, groups)
			if tc.kill {
				must(t, c.Sim.Kill(context.Background(), []fdb.ProcessAddress{c.Address(t, "storage-1")}))
			}
			c.Clock.Step(time.Minute)
			if diff := cmp.Diff(tc.want, c.Status(t).Cluster.Processes["storage-1"].Locality.DNSName); diff != "" {
				t.Errorf("dns_name locality of storage-1 (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChangeCoordinatorsToDNSNames: coordinators named by DNS name must
// each resolve to a different up process; the connection string and the
// status name them as given.
func TestChangeCoordinatorsToDNSNames(t *testing.T) {
	type view struct {
		Err          string
		Coordinators []fdb.CoordinatorStatus
		Connection   string
		Roles        []string
	}
	initial := []fdb.CoordinatorStatus{
		{Address: "10.2.0.2:4501", Reachable: true}, {Address: "10.2.0.3:4501", Reachable: true}, {Address: "10.2.0.4:4501", Reachable: true},
	}
	initialRoles := []string{"log-1", "log-2", "log-3"}
	cases := map[string]struct {
		stopped string
		addrs   []fdb.ProcessAddress
		want    view
	}{
		"DNSNames": {
			addrs: dnsAddresses("stateless-1", "log-4", "log-1"),
			want: view{
				Coordinators: []fdb.CoordinatorStatus{
					{Address: dnsAddress("log-1"), Reachable: true}, {Address: dnsAddress("log-4"), Reachable: true},
					{Address: dnsAddress("stateless-1"), Reachable: true},
				},
				Roles: []string{"log-1", "log-4", "stateless-1"},
			},
		},
		"DNSNamesAndIP": {
			addrs: []fdb.ProcessAddress{dnsAddress("log-4"), "10.2.0.2:4501", dnsAddress("stateless-1")},
			want: view{
				Coordinators: []fdb.CoordinatorStatus{
					{Address: "10.2.0.2:4501", Reachable: true}, {Address: dnsAddress("log-4"), Reachable: true},
					{Address: dnsAddress("stateless-1"), Reachable: true},
				},
				Roles: []string{"log-1", "log-4", "stateless-1"},
			},
		},
		"UnknownDNSName": {
			addrs: dnsAddresses("log-9", "log-4", "log-1"),
			want: view{
				Err:          "cannot change coordinators: no reachable process listens on log-9.db.ns.svc.cluster.local:4501",
				Coordinators: initial, Roles: initialRoles,
			},
		},
		"StoppedPod": {
			stopped: "log-4",
			addrs:   dnsAddresses("stateless-1", "log-4", "log-1"),
			want: view{
				Err:          "cannot change coordinators: no reachable process listens on log-4.db.ns.svc.cluster.local:4501",
				Coordinators: initial, Roles: initialRoles,
			},
		},
		"PortWithoutProcess": {
			addrs: []fdb.ProcessAddress{dnsAddress("stateless-1"), dnsAddress("log-4"), "log-1" + dnsDomain + ":4503"},
			want: view{
				Err:          "cannot change coordinators: no reachable process listens on log-1.db.ns.svc.cluster.local:4503",
				Coordinators: initial, Roles: initialRoles,
			},
		},
		"SameProcessTwice": {
			addrs: []fdb.ProcessAddress{dnsAddress("stateless-1"), dnsAddress("log-1"), "10.2.0.2:4501"},
			want: view{
				Err:          "cannot change coordinators: duplicate address: 10.2.0.2:4501 and log-1.db.ns.svc.cluster.local:4501 both name process log-1",
				Coordinators: initial, Roles: initialRoles,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newDNSCluster(t)
			if tc.stopped != "" {
				stop(t, c, tc.stopped)
			}
			got := view{}
			returned, err := c.Sim.ChangeCoordinators(context.Background(), tc.addrs)
			if err != nil {
				got.Err = err.Error()
			}
			c.Clock.Step(time.Minute)
			s := c.Status(t)
			got.Coordinators, got.Roles = s.Client.Coordinators.Coordinators, coordinatorProcesses(s)
			want := tc.want
			want.Connection = c.Sim.ConnectionString()
			if err == nil {
				want.Connection = returned
			}
			got.Connection = s.Cluster.ConnectionString
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after changing coordinators to %v (-want +got):\n%s", tc.addrs, diff)
			}
			cs, perr := fdb.ParseConnectionString(got.Connection)
			must(t, perr)
			var listed []fdb.ProcessAddress
			for _, co := range want.Coordinators {
				listed = append(listed, co.Address)
			}
			if diff := cmp.Diff(listed, cs.Coordinators); diff != "" {
				t.Errorf("coordinators of the connection string (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKillKnowsNoDNSNames: like fdbcli's kill, Kill finds processes by
// IP:port only.
func TestKillKnowsNoDNSNames(t *testing.T) {
	c := newDNSCluster(t, dnsAddresses("log-1", "log-2", "log-3")...)
	err := c.Sim.Kill(context.Background(), []fdb.ProcessAddress{dnsAddress("log-1")})
	if !errors.Is(err, fdb.ErrNotFound) {
		t.Errorf("Kill by DNS name: got %v, want ErrNotFound", err)
	}
}

// TestDNSCoordinatorVolumes: the volume of a coordinator named by DNS name
// holds its coordinated state whatever IP its pod had: deleting it is a
// RemovedCoordinator, losing a quorum of such disks CoordinatorStateLost.
func TestDNSCoordinatorVolumes(t *testing.T) {
	removed := func(id string) string {
		return "RemovedCoordinator: group " + id + "'s volume held the coordinated state of coordinators [" +
			string(dnsAddress(id)) + "] of the current connection string"
	}
	stateLost := "CoordinatorStateLost: coordinators [" + string(dnsAddress("stateless-1")) + " " + string(dnsAddress("stateless-2")) +
		"] lost their disks: 1 of 3 keep the coordinated state, a quorum needs 2"
	cases := map[string]struct {
		run  func(t *testing.T, c *fdbtest.Cluster)
		want []string
	}{
		"RemoveGroup": {
			run:  func(t *testing.T, c *fdbtest.Cluster) { c.RemoveGroups(t, "stateless-1") },
			want: []string{removed("stateless-1")},
		},
		"RemoveGroupAfterNewIP": {
			run: func(t *testing.T, c *fdbtest.Cluster) {
				recreatePods(t, c, false, "stateless-1")
				c.Clock.Step(time.Minute)
				c.RemoveGroups(t, "stateless-1")
			},
			want: []string{removed("stateless-1")},
		},
		"RemoveStoppedGroup": {
			// The stopped pod has no DNS name any more; its volume still
			// holds the coordinated state.
			run: func(t *testing.T, c *fdbtest.Cluster) {
				stop(t, c, "stateless-1")
				c.Clock.Step(time.Minute)
				c.RemoveGroups(t, "stateless-1")
			},
			want: []string{removed("stateless-1")},
		},
		"RemoveOtherGroup": {
			run: func(t *testing.T, c *fdbtest.Cluster) { c.RemoveGroups(t, "stateless-3") },
		},
		"OneDiskLost": {
			run: func(t *testing.T, c *fdbtest.Cluster) { must(t, c.Sim.LoseDisk("stateless-1")) },
		},
		"TwoDisksLost": {
			run: func(t *testing.T, c *fdbtest.Cluster) {
				must(t, c.Sim.LoseDisk("stateless-1"))
				must(t, c.Sim.LoseDisk("stateless-2"))
			},
			want: []string{stateLost},
		},
		"TwoDisksLostWithARecoveryBetween": {
			// The recovery writes the coordinated state to every
			// coordinator it reaches: stateless-1's is whole again.
			run: func(t *testing.T, c *fdbtest.Cluster) {
				must(t, c.Sim.LoseDisk("stateless-1"))
				c.Clock.Step(time.Minute)
				must(t, c.Sim.Recover())
				c.Clock.Step(time.Minute)
				must(t, c.Sim.LoseDisk("stateless-2"))
			},
		},
		"TwoDisksLostAfterNewIPs": {
			run: func(t *testing.T, c *fdbtest.Cluster) {
				recreatePods(t, c, false, "stateless-1", "stateless-2")
				c.Clock.Step(time.Minute)
				must(t, c.Sim.LoseDisk("stateless-1"))
				must(t, c.Sim.LoseDisk("stateless-2"))
			},
			want: []string{stateLost},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCoordinatorVolumeCluster(t)
			tc.run(t, c)
			c.Clock.Step(time.Minute)
			if diff := cmp.Diff(tc.want, violations(c)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// newCoordinatorVolumeCluster is a triple-redundant database whose
// coordinators, log-4, stateless-1 and stateless-2, are named by DNS name.
func newCoordinatorVolumeCluster(t *testing.T) *fdbtest.Cluster {
	t.Helper()
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 5, Logs: 4, Stateless: 3}, sim.Options{Seed: 5})
	c.SetGroups(t, withDNSNames(c.Groups))
	cs := fdb.ConnectionString{Description: "test", ID: "initial", Coordinators: dnsAddresses("log-4", "stateless-1", "stateless-2")}
	must(t, c.Sim.SetConnectionString(cs.String()))
	c.Create(t, fdb.RedundancyTriple)
	return c
}

// TestStatelessCoordinators: a coordinator whose disk was lost holds no
// coordinated state until a recovery that reaches it, or a coordinator
// change, writes it again.
func TestStatelessCoordinators(t *testing.T) {
	cases := map[string]struct {
		run  func(t *testing.T, c *fdbtest.Cluster)
		want []fdb.ProcessAddress
	}{
		"None": {
			run: func(*testing.T, *fdbtest.Cluster) {},
		},
		"DiskLost": {
			run:  func(t *testing.T, c *fdbtest.Cluster) { must(t, c.Sim.LoseDisk("stateless-1")) },
			want: dnsAddresses("stateless-1"),
		},
		"DiskLostThenRecovery": {
			run: func(t *testing.T, c *fdbtest.Cluster) {
				must(t, c.Sim.LoseDisk("stateless-1"))
				c.Clock.Step(time.Minute)
				must(t, c.Sim.Recover())
			},
		},
		"DiskLostThenCoordinatorChange": {
			run: func(t *testing.T, c *fdbtest.Cluster) {
				must(t, c.Sim.LoseDisk("stateless-1"))
				c.Clock.Step(time.Minute)
				_, err := c.Sim.ChangeCoordinators(context.Background(), dnsAddresses("log-3", "log-4", "stateless-2"))
				must(t, err)
			},
		},
		"DiskLostWhileStoppedThenRecovery": {
			// The recovery cannot reach the stopped coordinator.
			run: func(t *testing.T, c *fdbtest.Cluster) {
				must(t, c.Sim.LoseDisk("stateless-1"))
				stop(t, c, "stateless-1")
				c.Clock.Step(time.Minute)
				must(t, c.Sim.Recover())
			},
			want: dnsAddresses("stateless-1"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCoordinatorVolumeCluster(t)
			tc.run(t, c)
			c.Clock.Step(time.Minute)
			if diff := cmp.Diff(tc.want, c.Sim.StatelessCoordinators(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("StatelessCoordinators() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProcessGroupDNSNames: two running pods cannot share a DNS name, and
// a DNS name must be one.
func TestProcessGroupDNSNames(t *testing.T) {
	group := func(id, ip, dnsName string) sim.ProcessGroup {
		return sim.ProcessGroup{ID: id, IP: ip, DNSName: dnsName, Version: fdbtest.Version}
	}
	cases := map[string]struct {
		groups []sim.ProcessGroup
		want   string
	}{
		"Distinct": {groups: []sim.ProcessGroup{group("a", "10.0.0.1", "a.db"), group("b", "10.0.0.2", "b.db"), group("c", "10.0.0.3", "")}},
		"SharedByRunningPods": {
			groups: []sim.ProcessGroup{group("a", "10.0.0.1", "a.db"), group("b", "10.0.0.2", "a.db")},
			want:   `cannot set process groups: groups "a" and "b" share DNS name a.db`,
		},
		"SharedWithStoppedPod": {
			groups: []sim.ProcessGroup{group("a", "10.0.0.1", "a.db"), {ID: "b", DNSName: "a.db", Stopped: true}},
		},
		"IP": {
			groups: []sim.ProcessGroup{group("a", "10.0.0.1", "10.0.0.1")},
			want:   `cannot set process groups: process group "a": invalid DNS name "10.0.0.1"`,
		},
		"WithPort": {
			groups: []sim.ProcessGroup{group("a", "10.0.0.1", "a.db:4501")},
			want:   `cannot set process groups: process group "a": invalid DNS name "a.db:4501"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := sim.New(clocktesting.NewFakeClock(fdbtest.Start), sim.Options{Seed: 5})
			got := ""
			if err := s.SetProcessGroups(tc.groups); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SetProcessGroups error (-want +got):\n%s", diff)
			}
		})
	}
}
