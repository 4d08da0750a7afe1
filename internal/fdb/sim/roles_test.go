package sim_test

import (
	"context"
	"slices"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestRoleClasses: a process of a role's own class takes that role, and a
// coordinator-class process takes none (fdbrpc/Locality.cpp,
// machineClassFitness, 7.3.79).
func TestRoleClasses(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 5})
	groups := slices.Clone(c.Groups)
	for i := range groups {
		switch groups[i].ID {
		case "stateless-1":
			groups[i].Class = sim.ClassCommitProxy
		case "stateless-2":
			groups[i].Class = sim.ClassCoordinator
		}
	}
	c.SetGroups(t, groups)
	must(t, c.Sim.Kill(context.Background(), []fdb.ProcessAddress{c.Address(t, "stateless-1"), c.Address(t, "stateless-2")}))
	c.Create(t, fdb.RedundancyDouble)
	roles := map[string][]string{}
	for id, p := range c.Status(t).Cluster.Processes {
		for _, r := range p.Roles {
			if r.Role != fdb.RoleCoordinator {
				roles[id] = append(roles[id], r.Role)
			}
		}
	}
	if got := roles["stateless-2"]; len(got) != 0 {
		t.Errorf("the coordinator-class process serves %v, want nothing", got)
	}
	for id, rs := range roles {
		if slices.Contains(rs, fdb.RoleCommitProxy) != (id == "stateless-1") {
			t.Errorf("%s serves %v: the commit proxies belong on stateless-1 (commit_proxy class) alone", id, rs)
		}
	}
}
