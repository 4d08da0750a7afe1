package cluster_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// failoverRuns counts BenchmarkFailover's runs.
var failoverRuns int

// BenchmarkFailover measures a planned failover of TestTwoRegionDatabase's
// database (dc1 with its satellite dc1s, the remote dc2; 15 process
// groups) to dc2 and the failback to dc1, each from the database settled:
// the Clusters' priorities change, and it is done once every Cluster is up
// to date with the new primary and the remote trails by a second at most.
// It reports the recoveries and virtual seconds of each and, as ns/op, the
// wall time of both (at 1000 virtual seconds per wall second).
func BenchmarkFailover(b *testing.B) {
	start(b)
	h.Flow(true)
	failoverRuns++ // the benchmark runs more than once: each run its own database
	ns := func(dc string) string { return namespace(b, fmt.Sprintf("bench-failover-%d-%s", failoverRuns, dc)) }
	dc1 := regionCluster(ns("dc1"), "dc1", v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}, regionPair(1, 0))
	dc1s := regionCluster(ns("dc1s"), "dc1s", v1alpha1.ProcessCounts{Log: 3}, regionPair(1, 0))
	dc2 := regionCluster(ns("dc2"), "dc2", v1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1}, regionPair(1, 0))
	mainAndJoiners(b, dc1, dc1s, dc2)
	all := []*v1alpha1.Cluster{dc1, dc1s, dc2}
	db := h.Sim(b, dc1)
	regionsSettled(b, db, "dc1", all...)
	moves := []struct {
		name, to string
		dc1, dc2 int
	}{{"failover", "dc2", 0, 1}, {"failback", "dc1", 1, 0}}
	recoveries, virtual := make([]int, len(moves)), make([]time.Duration, len(moves))
	b.ResetTimer()
	for range b.N {
		for i, m := range moves {
			before, began := db.Recoveries(), h.Clock.Now()
			for _, cr := range all {
				update(b, cr, func(cr *v1alpha1.Cluster) {
					cr.Spec.ForProvider.DatabaseConfiguration.Regions = regionPair(m.dc1, m.dc2)
				})
			}
			regionsSettled(b, db, m.to, all...)
			recoveries[i] += db.Recoveries() - before
			virtual[i] += h.Clock.Now().Sub(began)
		}
	}
	b.StopTimer()
	for i, m := range moves {
		b.ReportMetric(float64(recoveries[i])/float64(b.N), m.name+"-recoveries/op")
		b.ReportMetric(virtual[i].Seconds()/float64(b.N), m.name+"-virtual-s/op")
	}
	if v := db.Check(); len(v) != 0 {
		b.Errorf("the simulator reports %v", v)
	}
}
