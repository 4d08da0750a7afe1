package chaos

import (
	"context"
	"fmt"
	"strings"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// The three-data-hall workload: one database over three data halls, one
// Cluster each, under one provider instance. Each hall has four zones of
// its own, one stand-in node each, named by the hall's node label (a
// Cluster spreads its groups over the values of its fault-domain key, so
// a hall's groups stay on its nodes); a node fault takes one zone of one
// hall down.
var halls = []string{"hall1", "hall2", "hall3"}

var threeDataHalls = Workload{Name: "three-data-hall",
	Ops: []Op{
		bootstrapFirst("bootstrap the first data hall", halls[0], hallCluster),
		joinHalls(),
		rollout(),
	},
	Clusters:   map[string]int{halls[0]: 0, halls[1]: 0, halls[2]: 0},
	Zones:      hallZones(),
	NodeLabels: func(zone string) map[string]string { return map[string]string{hallZoneKey(hallOf(zone)): zone} },
}

// hallOf is the hall of one of hallZones' zones: what comes before its
// dash.
func hallOf(zone string) string {
	hall, _, _ := strings.Cut(zone, "-")
	return hall
}

// hallZones are the zones of the halls, four each: hall1-a … hall3-d.
func hallZones() []string {
	var zones []string
	for _, h := range halls {
		for _, z := range []string{"a", "b", "c", "d"} {
			zones = append(zones, h+"-"+z)
		}
	}
	return zones
}

// hallZoneKey is the node label whose values are hall's zones: only its
// nodes carry it.
func hallZoneKey(hall string) string { return "chaos.foundationdb.test/" + hall + "-zone" }

// hallCluster is the Cluster of data hall hall in the run's namespace: the
// run's Cluster's settings, three_data_hall redundancy, two storage, three
// log groups and a stateless one over the hall's zones, and the
// multi-region workload's short lock, so that a crashed provider's lock
// ends within a fault window.
func hallCluster(ns, hall string) *fdbv1alpha1.Cluster {
	c := cluster(ns)
	c.SetName(hall)
	p := &c.Spec.ForProvider
	p.DataHall = hall
	p.DatabaseConfiguration.RedundancyMode = fdbv1alpha1.RedundancyThreeDataHall
	p.ProcessCounts = fdbv1alpha1.ProcessCounts{Storage: 2, Log: 3, Stateless: 1}
	p.FaultDomain.Key = hallZoneKey(hall)
	p.Locks.DurationSeconds = regionLockSeconds
	return c
}

// joinHalls creates the second and third halls' Clusters under faults:
// the database recovers across the three halls, healthy, with three
// coordinators in each.
func joinHalls() Op {
	op := joinOthers(halls[0], halls[1:], hallCluster)
	op.Name, op.Faults, op.Converged = "join the second and third data halls", faults, both(clusterConverged, coordinatorsInEveryHall)
	return op
}

// coordinatorsInEveryHall: the database is healthy and each hall holds
// three of its coordinators, each reporting.
func coordinatorsInEveryHall(r *run) (bool, string) {
	db := r.used[halls[0]]
	if db == nil {
		return false, "the provider has not reached the database"
	}
	st, err := db.Status(context.Background())
	if err != nil {
		return false, err.Error()
	}
	perHall := map[string]int{}
	for _, p := range st.Cluster.Processes {
		if p.HasRole(fdb.RoleCoordinator) {
			perHall[p.Locality.DataHall]++
		}
	}
	ok := st.Client.DatabaseStatus.Healthy
	for _, h := range halls {
		ok = ok && perHall[h] == 3
	}
	return ok, fmt.Sprintf("healthy %t, coordinators reporting by hall %v", st.Client.DatabaseStatus.Healthy, perHall)
}
