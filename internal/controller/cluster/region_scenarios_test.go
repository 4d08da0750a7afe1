package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// regionCluster is the Cluster of data center dc of a database of two
// usable regions.
func regionCluster(ns, dc string, counts v1alpha1.ProcessCounts, regions []v1alpha1.Region) *v1alpha1.Cluster {
	cr := tripleCluster(ns)
	cr.Spec.ForProvider.DataCenter = dc
	cr.Spec.ForProvider.ProcessCounts = counts
	cr.Spec.ForProvider.DatabaseConfiguration = v1alpha1.DatabaseConfiguration{
		RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 2, Regions: regions,
	}
	return cr
}

// mainAndJoiners creates the first Cluster, waits until it made the
// database, then the others with its connection string as their seed.
func mainAndJoiners(t testing.TB, first *v1alpha1.Cluster, others ...*v1alpha1.Cluster) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, first.Spec.ForProvider.DataCenter+" made the database", func() (bool, string) {
		get(t, first)
		return first.Status.AtProvider.Configured && first.Status.AtProvider.ConnectionString != "", fmt.Sprintf("%+v", first.Status.AtProvider)
	})
	for _, cr := range others {
		cr.Spec.ForProvider.SeedConnectionString = first.Status.AtProvider.ConnectionString
		if err := env.Client.Create(ctx, cr); err != nil {
			t.Fatal(err)
		}
	}
}

// notUpToDate reads the Clusters and says why those that are not up to
// date are not, each by its data center or hall.
func notUpToDate(t testing.TB, all ...*v1alpha1.Cluster) []string {
	var why []string
	for _, cr := range all {
		get(t, cr)
		if c := cr.GetCondition(xpv2.TypeUpToDate); c.Status != corev1.ConditionTrue {
			why = append(why, cr.Spec.ForProvider.DataCenter+cr.Spec.ForProvider.DataHall+": "+c.Message)
		}
	}
	return why
}

// regionsSettled waits until every Cluster is up to date and the database of
// two usable regions, primary the primary, is healthy with the remote
// within a second.
func regionsSettled(t testing.TB, db *sim.Sim, primary string, all ...*v1alpha1.Cluster) {
	t.Helper()
	eventually(t, 240*time.Second, "two usable regions, "+primary+" the primary", func() (bool, string) {
		st, err := db.Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		why := notUpToDate(t, all...)
		for _, cr := range all {
			if l := cr.Status.AtProvider.DataCenterLag; l == nil || l.Seconds != "0" && l.Seconds != "1" {
				why = append(why, fmt.Sprintf("%s recorded the lag %+v", cr.Spec.ForProvider.DataCenter, l))
			}
		}
		c := st.Cluster
		ok := len(why) == 0 && c.ActivePrimaryDC == primary && c.Configuration.UsableRegions == 2 && st.Client.DatabaseStatus.Healthy &&
			c.DatacenterLag != nil && c.DatacenterLag.Seconds <= 1
		return ok, fmt.Sprintf("primary %q, usable %d, healthy %t, lag %+v, regions %+v; not up to date: %v",
			c.ActivePrimaryDC, c.Configuration.UsableRegions, st.Client.DatabaseStatus.Healthy, c.DatacenterLag, c.Configuration.Regions, why)
	})
}

// regionPair is dc1 (satellite dc1s, one_satellite_double) and dc2 at the
// priorities given.
func regionPair(dc1, dc2 int) []v1alpha1.Region {
	return []v1alpha1.Region{
		{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc1", Priority: dc1}, {ID: "dc1s", Priority: 1, Satellite: true}}, SatelliteRedundancyMode: "one_satellite_double"},
		{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc2", Priority: dc2}}},
	}
}

// TestTwoRegionDatabase: three Clusters make one database — dc1 makes it,
// its satellite dc1s and the remote dc2 join by its connection string, each
// recording every cluster file it writes in the same reconcile —
// and bring it to two usable regions with satellite logs; the database
// fails over to dc2 and back when the Clusters' priorities say so, each a
// gated FailoverRegion, and reports how many recoveries each took.
func TestTwoRegionDatabase(t *testing.T) {
	start(t)
	h.Flow(true)
	ctx := context.Background()
	dc1 := regionCluster(namespace(t, "regions-dc1"), "dc1", v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}, regionPair(1, 0))
	dc1s := regionCluster(namespace(t, "regions-dc1s"), "dc1s", v1alpha1.ProcessCounts{Log: 3}, regionPair(1, 0))
	dc2 := regionCluster(namespace(t, "regions-dc2"), "dc2", v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}, regionPair(1, 0))
	all := []*v1alpha1.Cluster{dc1, dc1s, dc2}
	var stops []func() []write
	for _, cr := range all {
		stops = append(stops, clusterFileWrites(t, cr))
	}
	mainAndJoiners(t, dc1, dc1s, dc2)
	db := h.Sim(t, dc1)
	regionsSettled(t, db, "dc1", all...)
	for i, stop := range stops {
		recordsEachClusterFile(t, all[i].Spec.ForProvider.DataCenter, stop())
	}
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [][]string{fdbtest.DataCentersServing(st, fdb.RoleStorage), fdbtest.DataCentersServing(st, fdb.RoleLog), fdbtest.DataCentersServing(st, fdb.RoleLogRouter)},
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
		regionsSettled(t, db, move.to, all...)
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

// TestForcedFailover: the primary x1 has no satellite, so losing it leaves
// the last mutations on its logs alone; the database waits. The Clusters'
// priorities then make a2 the primary: the forced failover that takes is
// denied, saying what may be lost, until the Cluster acknowledges it, then
// recovers the database in a2 — and the simulator names the commits lost.
func TestForcedFailover(t *testing.T) {
	start(t)
	h.Flow(true)
	ctx := context.Background()
	regions := func(x1, a2 int) []v1alpha1.Region {
		return []v1alpha1.Region{
			{DataCenters: []v1alpha1.RegionDataCenter{{ID: "x1", Priority: x1}}},
			{DataCenters: []v1alpha1.RegionDataCenter{{ID: "a2", Priority: a2}, {ID: "a2s", Priority: 1, Satellite: true}}, SatelliteRedundancyMode: "one_satellite_double"},
		}
	}
	counts := v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}
	x1 := regionCluster(namespace(t, "forced-x1"), "x1", counts, regions(1, 0))
	a2 := regionCluster(namespace(t, "forced-a2"), "a2", counts, regions(1, 0))
	a2s := regionCluster(namespace(t, "forced-a2s"), "a2s", v1alpha1.ProcessCounts{Log: 3}, regions(1, 0))
	all := []*v1alpha1.Cluster{x1, a2, a2s}
	for _, cr := range all {
		cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = 30 * 24 * 3600 // no replacement of the lost data center's groups
	}
	mainAndJoiners(t, x1, a2, a2s)
	db := h.Sim(t, x1)
	regionsSettled(t, db, "x1", all...)
	if err := db.LoseDataCenter("x1", sim.Forever); err != nil {
		t.Fatal(err)
	}
	for _, cr := range all {
		update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.DatabaseConfiguration.Regions = regions(0, 1) })
	}
	const rule = "fdb-failover/forced-acknowledged"
	eventually(t, 120*time.Second, "a forced failover to a2 denied without the acknowledgement", func() (bool, string) {
		get(t, a2)
		d, c := a2.Status.AtProvider.LastPolicyDecision, a2.GetCondition(gate.TypePolicyAllowed)
		return d != nil && d.Action == "FailoverRegion" && d.Result == "Denied" && d.Rule == rule,
			fmt.Sprintf("decision %+v; PolicyAllowed %q; events %v", d, c.Message, events(t, a2))
	})
	if st, err := db.Status(ctx); err != nil || st.Client.DatabaseStatus.Available {
		t.Fatalf("the database recovered without the acknowledgement (%v)", err)
	}
	if c := a2.GetCondition(gate.TypePolicyAllowed); !strings.Contains(c.Message, "gives up the commits it lacks (it trailed the primary by 1s when this Cluster last saw)") {
		t.Errorf("the denial says %q, want what may be lost", c.Message)
	}
	update(t, a2, func(cr *v1alpha1.Cluster) {
		cr.SetAnnotations(map[string]string{policy.AnnotationAllowForcedFailover: "a2"})
	})
	eventually(t, 120*time.Second, "the database available in a2", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		return st.Client.DatabaseStatus.Available && st.Cluster.ActivePrimaryDC == "a2", fmt.Sprintf("available %t in %q", st.Client.DatabaseStatus.Available, st.Cluster.ActivePrimaryDC)
	})
	h.WaitEvents(t, a2, "ForcedRecovery: forced a recovery in a2")
	v := db.Check()
	if len(v) != 1 || v[0].Kind != sim.CommitsLost {
		t.Errorf("the simulator reports %v, want the commits the forced failover gave up", v)
	}
}

// TestThreeDataHallDatabase: three Clusters, one per data hall (hall1
// makes the database, the others join it), run a three_data_hall database:
// it becomes available once the three halls report, every shard has a
// replica in each hall, and the coordinators move from hall1's three to
// nine, three in each hall and one in each zone.
func TestThreeDataHallDatabase(t *testing.T) {
	start(t)
	h.Flow(true)
	ctx := context.Background()
	var halls []*v1alpha1.Cluster
	for _, hall := range []string{"hall1", "hall2", "hall3"} {
		cr := tripleCluster(namespace(t, "three-halls-"+hall))
		cr.Spec.ForProvider.DataHall = hall
		cr.Spec.ForProvider.DatabaseConfiguration = v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyThreeDataHall, StorageEngine: "ssd-2"}
		cr.Spec.ForProvider.ProcessCounts = v1alpha1.ProcessCounts{Storage: 2, Log: 3, Stateless: 1}
		halls = append(halls, cr)
	}
	mainAndJoiners(t, halls[0], halls[1:]...)
	db := h.Sim(t, halls[0])
	eventually(t, 180*time.Second, "the three halls' Clusters up to date with nine coordinators", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		why := notUpToDate(t, halls...)
		cs, _ := fdb.ParseConnectionString(st.Cluster.ConnectionString)
		hallsSeen := map[string]int{}
		for _, p := range st.Cluster.Processes {
			hallsSeen[p.Locality.DataHall+"/"+p.ClassType]++
		}
		return len(why) == 0 && st.Client.DatabaseStatus.Healthy && len(cs.Coordinators) == 9,
			fmt.Sprintf("healthy %t (recovery %s, data %s), %d coordinators, processes %v; not up to date: %v", st.Client.DatabaseStatus.Healthy,
				st.Cluster.RecoveryState.Name, st.Cluster.Data.State.Name, len(cs.Coordinators), hallsSeen, why)
	})
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	perHall, zones := map[string]int{}, map[string]bool{}
	for _, p := range st.Cluster.Processes {
		if p.HasRole(fdb.RoleCoordinator) {
			perHall[p.Locality.DataHall]++
			key := p.Locality.DataHall + "/" + p.Locality.ZoneID
			if zones[key] {
				t.Errorf("two coordinators in zone %s", key)
			}
			zones[key] = true
		}
	}
	if perHall["hall1"] != 3 || perHall["hall2"] != 3 || perHall["hall3"] != 3 {
		t.Errorf("coordinators by data hall %v, want three in each", perHall)
	}
	if n := st.Cluster.Data.State.MinReplicasRemaining; n != 3 {
		t.Errorf("fewest replicas of a shard %d, want 3, one in each hall", n)
	}
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}

// drillFile is a file of the two-region drill, examples/regions.
func drillFile(name string) string { return filepath.Join(testenv.Root(), "examples", "regions", name) }

// drillClusters reads the Clusters of the drill's file name into namespace
// ns.
func drillClusters(t testing.TB, ns, name string) []*v1alpha1.Cluster {
	t.Helper()
	objs, err := manifest.Read([]string{drillFile(name)}, "Cluster")
	if err != nil {
		t.Fatal(err)
	}
	var out []*v1alpha1.Cluster
	for _, o := range objs {
		cr := &v1alpha1.Cluster{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, cr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cr.SetNamespace(ns)
		out = append(out, cr)
	}
	return out
}

// TestRegionDrill runs the two-region drill of docs/REGIONS.md with its
// files, as a user of `make run` does: dc1.yaml makes the database,
// joiners.yaml's Clusters join it with dc1's connection string as their
// seed, and the database reaches two usable regions with dc1 the primary;
// failover-to-dc2.yaml, applied to every Cluster, moves the primary to dc2
// and failback-to-dc1.yaml back.
func TestRegionDrill(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "drill")
	first := drillClusters(t, ns, "dc1.yaml")
	joiners := drillClusters(t, ns, "joiners.yaml")
	if len(first) != 1 || len(joiners) != 2 {
		t.Fatalf("dc1.yaml has %d Clusters, joiners.yaml %d; want 1 and 2", len(first), len(joiners))
	}
	mainAndJoiners(t, first[0], joiners...)
	all := append(first, joiners...)
	db := h.Sim(t, first[0])
	regionsSettled(t, db, "dc1", all...)
	for _, move := range []struct{ file, to string }{{"failover-to-dc2.yaml", "dc2"}, {"failback-to-dc1.yaml", "dc1"}} {
		y, err := os.ReadFile(drillFile(move.file))
		if err != nil {
			t.Fatal(err)
		}
		patch, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatalf("%s: %v", move.file, err)
		}
		for _, cr := range all {
			if err := env.Client.Patch(context.Background(), cr, client.RawPatch(types.MergePatchType, patch)); err != nil {
				t.Fatalf("%s on %s: %v", move.file, cr.GetName(), err)
			}
		}
		regionsSettled(t, db, move.to, all...)
	}
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}
