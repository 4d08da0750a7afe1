// Package fdbtest holds test support for fdb.Client implementations: a
// simulated cluster with a fake clock and standard topologies, and the
// contract suite (RunContract) every implementation must pass.
package fdbtest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// Version is the FoundationDB version topologies run by default.
const Version = "7.1.27"

// Start is the time the fake clocks start at.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Topology describes a cluster layout by class.
type Topology struct {
	Storage   int
	Logs      int
	Stateless int
	// StorageProcessesPerPod is the processes per storage pod (1 when zero).
	StorageProcessesPerPod int
	// Zones spreads the n-th group of each class over zone-1..zone-Zones;
	// every group has its own zone when zero.
	Zones int
	// StorageZones, when set, spreads the storage groups over
	// zone-1..zone-StorageZones instead, whatever Zones says.
	StorageZones int
	// Version defaults to Version.
	Version string
}

// Triple is a layout with room to replace a storage and a log group in a
// triple-replicated database: every group in its own zone.
var Triple = Topology{Storage: 5, Logs: 4, Stateless: 2}

// Group returns the n-th (from 1) process group of class: ID <class>-<n>,
// IP 10.<class index>.<n/250>.<n%250+1>.
func (tp Topology) Group(class string, n int) sim.ProcessGroup {
	octet := map[string]int{sim.ClassStorage: 1, sim.ClassLog: 2, sim.ClassStateless: 3}[class]
	g := sim.ProcessGroup{
		ID:          fmt.Sprintf("%s-%d", class, n),
		Class:       class,
		IP:          fmt.Sprintf("10.%d.%d.%d", octet, n/250, n%250+1),
		Version:     tp.Version,
		CommandLine: "fdbserver --class=" + class,
	}
	if g.Version == "" {
		g.Version = Version
	}
	if class == sim.ClassStorage {
		g.ProcessesPerPod = tp.StorageProcessesPerPod
	}
	zones := tp.Zones
	if class == sim.ClassStorage && tp.StorageZones > 0 {
		zones = tp.StorageZones
	}
	if zones > 0 {
		g.Zone = fmt.Sprintf("zone-%d", (n-1)%zones+1)
	}
	return g
}

// Groups returns every process group of the layout.
func (tp Topology) Groups() []sim.ProcessGroup {
	var out []sim.ProcessGroup
	for _, c := range []struct {
		class string
		count int
	}{{sim.ClassStorage, tp.Storage}, {sim.ClassLog, tp.Logs}, {sim.ClassStateless, tp.Stateless}} {
		for n := 1; n <= c.count; n++ {
			out = append(out, tp.Group(c.class, n))
		}
	}
	return out
}

// Cluster is a simulated cluster driven by a fake clock.
type Cluster struct {
	Clock  *clocktesting.FakeClock
	Sim    *sim.Sim
	Groups []sim.ProcessGroup
}

// NewCluster returns a new simulator with the groups of tp; see Attach.
func NewCluster(t testing.TB, tp Topology, opts sim.Options) *Cluster {
	t.Helper()
	clk := clocktesting.NewFakeClock(Start)
	return Attach(t, clk, sim.New(clk, opts), tp)
}

// Attach starts the groups of tp on s, whose clock is clk, with the first
// process of up to three log groups as coordinators. The database is not
// created yet.
func Attach(t testing.TB, clk *clocktesting.FakeClock, s *sim.Sim, tp Topology) *Cluster {
	t.Helper()
	c := &Cluster{Clock: clk, Sim: s}
	c.SetGroups(t, tp.Groups())
	cs := fdb.ConnectionString{Description: "test", ID: "initial"}
	for n := 1; n <= min(tp.Logs, 3); n++ {
		cs.Coordinators = append(cs.Coordinators, fdb.ProcessAddress(tp.Group(sim.ClassLog, n).IP+":4501"))
	}
	if err := c.Sim.SetConnectionString(cs.String()); err != nil {
		t.Fatal(err)
	}
	return c
}

// SetGroups replaces the cluster's process groups.
func (c *Cluster) SetGroups(t testing.TB, groups []sim.ProcessGroup) {
	t.Helper()
	c.Groups = groups
	if err := c.Sim.SetProcessGroups(groups); err != nil {
		t.Fatal(err)
	}
}

// RemoveGroups removes the groups ids: their pods and volumes are deleted.
func (c *Cluster) RemoveGroups(t testing.TB, ids ...string) {
	t.Helper()
	c.SetGroups(t, slices.DeleteFunc(slices.Clone(c.Groups), func(g sim.ProcessGroup) bool { return slices.Contains(ids, g.ID) }))
}

// Address returns the address of the first process of group id.
func (c *Cluster) Address(t testing.TB, id string) fdb.ProcessAddress {
	t.Helper()
	for _, g := range c.Groups {
		if g.ID == id {
			return fdb.ProcessAddress(g.IP + ":4501")
		}
	}
	t.Fatalf("no process group %q", id)
	return ""
}

// Create configures a new database and waits until it is fully recovered.
func (c *Cluster) Create(t testing.TB, mode fdb.RedundancyMode) {
	t.Helper()
	if err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: mode}, true); err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, func(s *fdb.Status) bool {
		return s.Cluster.RecoveryState.Name == fdb.RecoveryFullyRecovered && s.Client.DatabaseStatus.Healthy
	})
}

// Status reads the simulator's status.
func (c *Cluster) Status(t testing.TB) *fdb.Status {
	t.Helper()
	s, err := c.Sim.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Configuration waits until a status holds the database's configuration
// (an unavailable database's does not; see fdb.Status.ConfigurationRead)
// and returns it.
func (c *Cluster) Configuration(t testing.TB) fdb.Configuration {
	t.Helper()
	c.WaitFor(t, time.Minute, (*fdb.Status).ConfigurationRead)
	return c.Status(t).Cluster.Configuration
}

// NotFullyExcluded returns the targets, sorted, that are not safe to
// remove yet: those that select no process of s, and those that select a
// process not reported excluded or still serving a role (holding data
// included).
func NotFullyExcluded(s *fdb.Status, targets []fdb.ProcessAddress) []fdb.ProcessAddress {
	var out []fdb.ProcessAddress
	for _, t := range fdb.SortedAddresses(targets) {
		if !fullyExcluded(s, t) {
			out = append(out, t)
		}
	}
	return out
}

// fullyExcluded reports whether t selects at least one process of s and
// every process it selects is excluded and serves no role.
func fullyExcluded(s *fdb.Status, t fdb.ProcessAddress) bool {
	selected := false
	for _, p := range s.Cluster.Processes {
		if !t.Matches(p) {
			continue
		}
		if !p.Excluded || len(p.Roles) > 0 {
			return false
		}
		selected = true
	}
	return selected
}

// WaitFor steps the clock a second at a time until done holds, failing the
// test after limit.
func (c *Cluster) WaitFor(t testing.TB, limit time.Duration, done func(s *fdb.Status) bool) {
	t.Helper()
	for waited := time.Duration(0); !done(c.Status(t)); waited += time.Second {
		if waited >= limit {
			t.Fatalf("condition not reached within %s", limit)
		}
		c.Clock.Step(time.Second)
	}
}

// DataCentersServing returns the data centers (dcid) of the processes of
// s that serve role, each once, sorted.
func DataCentersServing(s *fdb.Status, role string) []string {
	var out []string
	for _, p := range s.Cluster.Processes {
		if p.HasRole(role) && !slices.Contains(out, p.Locality.DCID) {
			out = append(out, p.Locality.DCID)
		}
	}
	slices.Sort(out)
	return out
}
