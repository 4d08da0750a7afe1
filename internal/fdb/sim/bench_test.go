package sim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// BenchmarkSimStatus measures Status on a created triple database whose
// processes are mostly storage: 10, 100 and 1000 processes in total.
func BenchmarkSimStatus(b *testing.B) {
	for _, processes := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("processes=%d", processes), func(b *testing.B) {
			tp := fdbtest.Topology{Storage: processes - 6, Logs: 4, Stateless: 2}
			c := fdbtest.NewCluster(b, tp, sim.Options{Seed: 1})
			c.Create(b, fdb.RedundancyTriple)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Sim.Status(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
