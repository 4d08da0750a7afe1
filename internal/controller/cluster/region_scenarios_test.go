package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// regionCluster is the Cluster of data center dc of a two-region database:
// dc1 with its satellite dc1s, and dc2, at the priorities given.
func regionCluster(ns, dc string, counts v1alpha1.ProcessCounts, dc1, dc2 int) *v1alpha1.Cluster {
	cr := tripleCluster(ns)
	cr.Spec.ForProvider.DataCenter = dc
	cr.Spec.ForProvider.ProcessCounts = counts
	cr.Spec.ForProvider.DatabaseConfiguration = v1alpha1.DatabaseConfiguration{
		RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 2, Regions: regionPair(dc1, dc2),
	}
	return cr
}

// regionPair is dc1 (satellite dc1s, one_satellite_double) and dc2 at the
// priorities given.
func regionPair(dc1, dc2 int) []v1alpha1.Region {
	return []v1alpha1.Region{
		{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc1", Priority: dc1}, {ID: "dc1s", Priority: 1, Satellite: true}}, SatelliteRedundancyMode: "one_satellite_double"},
		{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc2", Priority: dc2}}},
	}
}

// dataCentersWith lists the data centers of the processes of st that
// serve role, sorted.
func dataCentersWith(st *fdb.Status, role string) []string {
	var out []string
	for _, p := range st.Cluster.Processes {
		if p.HasRole(role) && !slices.Contains(out, p.Locality.DCID) {
			out = append(out, p.Locality.DCID)
		}
	}
	slices.Sort(out)
	return out
}

// TestTwoRegionDatabase: three Clusters make one database — dc1 makes it,
// its satellite dc1s and the remote dc2 join by its connection string —
// and bring it to two usable regions with satellite logs; the database
// fails over to dc2 and back when the Clusters' priorities say so, each a
// gated FailoverRegion, and reports how many recoveries each took.
func TestTwoRegionDatabase(t *testing.T) {
	start(t)
	h.Flow(true)
	ctx := context.Background()
	dc1 := regionCluster(namespace(t, "regions-dc1"), "dc1", v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}, 1, 0)
	if err := env.Client.Create(ctx, dc1); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "dc1 made the database", func() (bool, string) {
		get(t, dc1)
		return dc1.Status.AtProvider.Configured && dc1.Status.AtProvider.ConnectionString != "", fmt.Sprintf("%+v", dc1.Status.AtProvider)
	})
	seed := dc1.Status.AtProvider.ConnectionString
	dc1s := regionCluster(namespace(t, "regions-dc1s"), "dc1s", v1alpha1.ProcessCounts{Log: 3}, 1, 0)
	dc2 := regionCluster(namespace(t, "regions-dc2"), "dc2", v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}, 1, 0)
	for _, cr := range []*v1alpha1.Cluster{dc1s, dc2} {
		cr.Spec.ForProvider.SeedConnectionString = seed
		if err := env.Client.Create(ctx, cr); err != nil {
			t.Fatal(err)
		}
	}
	all := []*v1alpha1.Cluster{dc1, dc1s, dc2}
	db := h.Sim(t, dc1)
	settled := func(primary string) func() (bool, string) {
		return func() (bool, string) {
			st, err := db.Status(ctx)
			if err != nil {
				return false, err.Error()
			}
			var why []string
			for _, cr := range all {
				get(t, cr)
				if c := cr.GetCondition(xpv2.TypeUpToDate); c.Status != corev1.ConditionTrue {
					why = append(why, cr.Spec.ForProvider.DataCenter+": "+c.Message)
				}
			}
			c := st.Cluster
			ok := len(why) == 0 && c.ActivePrimaryDC == primary && c.Configuration.UsableRegions == 2 && st.Client.DatabaseStatus.Healthy &&
				c.DatacenterLag != nil && c.DatacenterLag.Seconds <= 1
			return ok, fmt.Sprintf("primary %q, usable %d, healthy %t, lag %+v, regions %+v; not up to date: %v",
				c.ActivePrimaryDC, c.Configuration.UsableRegions, st.Client.DatabaseStatus.Healthy, c.DatacenterLag, c.Configuration.Regions, why)
		}
	}
	eventually(t, 240*time.Second, "two usable regions, dc1 the primary", settled("dc1"))
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [][]string{dataCentersWith(st, fdb.RoleStorage), dataCentersWith(st, fdb.RoleLog), dataCentersWith(st, fdb.RoleLogRouter)},
		[][]string{{"dc1", "dc2"}, {"dc1", "dc1s", "dc2"}, {"dc2"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("storage, logs and routers in %v, want %v", got, want)
	}
	cs, err := fdb.ParseConnectionString(st.Cluster.ConnectionString)
	if err != nil {
		t.Fatal(err)
	}
	perDC := map[string]int{}
	for _, p := range st.Cluster.Processes {
		if p.HasRole(fdb.RoleCoordinator) {
			perDC[p.Locality.DCID]++
		}
	}
	if len(cs.Coordinators) != 9 || perDC["dc1"] != 3 || perDC["dc1s"] != 3 || perDC["dc2"] != 3 {
		t.Errorf("%d coordinators, %v by data center; want nine, three in each", len(cs.Coordinators), perDC)
	}

	for _, move := range []struct {
		to       string
		dc1, dc2 int
	}{{"dc2", 0, 1}, {"dc1", 1, 0}} {
		before := db.Recoveries()
		for _, cr := range all {
			update(t, cr, func(cr *v1alpha1.Cluster) {
				cr.Spec.ForProvider.DatabaseConfiguration.Regions = regionPair(move.dc1, move.dc2)
			})
		}
		eventually(t, 180*time.Second, "the primary in "+move.to, settled(move.to))
		t.Logf("failover to %s: %d recoveries", move.to, db.Recoveries()-before)
		failedOver := 0
		for _, cr := range all {
			failedOver += int(eventCount(t, cr, "FailedOver"))
		}
		if failedOver == 0 {
			t.Errorf("failover to %s: no Cluster recorded a FailedOver event", move.to)
		}
	}
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}
