package sim_test

import (
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestProcessGroupsOfOwners: two owners (the Clusters of two data centers)
// report their pods to one database, which runs the processes of both; one
// owner's report leaves the other's processes alone; an ID both report is
// refused.
func TestProcessGroupsOfOwners(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1})
	c.Create(t, fdb.RedundancyTriple)
	before := len(c.Status(t).Cluster.Processes)
	remote := []sim.ProcessGroup{
		{ID: "dc3-storage-1", Class: sim.ClassStorage, Zone: "dc3-z1", IP: "10.9.0.1", Version: fdbtest.Version},
		{ID: "dc3-storage-2", Class: sim.ClassStorage, Zone: "dc3-z2", IP: "10.9.0.2", Version: fdbtest.Version},
	}
	if err := c.Sim.SetProcessGroupsOf("dc3", remote); err != nil {
		t.Fatal(err)
	}
	if got := len(c.Status(t).Cluster.Processes); got != before+2 {
		t.Errorf("%d processes with the second owner's two, want %d", got, before+2)
	}
	// The first owner reports again, as every reconcile of its Cluster
	// does: the second owner's processes stay.
	c.SetGroups(t, c.Groups)
	if got := len(c.Status(t).Cluster.Processes); got != before+2 {
		t.Errorf("%d processes after the first owner reported again, want %d", got, before+2)
	}
	clash := append(remote, sim.ProcessGroup{ID: c.Groups[0].ID, Class: sim.ClassStorage, Zone: "dc3-z3", IP: "10.9.0.3", Version: fdbtest.Version})
	if err := c.Sim.SetProcessGroupsOf("dc3", clash); err == nil || !strings.Contains(err.Error(), "duplicate ID") {
		t.Errorf("an ID both owners report = %v, want it refused as a duplicate", err)
	}
	if got := len(c.Status(t).Cluster.Processes); got != before+2 {
		t.Errorf("%d processes after a refused report, want %d: nothing changes", got, before+2)
	}
}
