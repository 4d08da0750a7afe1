package cluster

import (
	"fmt"
	"testing"
)

// BenchmarkPlan measures planning one reconcile of a converged cluster of
// n storage groups (every step considered, none taken): the in-process work
// of a Cluster reconcile besides reading the world.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			cr, obs := converged(n)
			if s := next(cr, obs); s != nil {
				b.Fatalf("a converged cluster plans %q", s.Message)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				next(cr, obs)
			}
		})
	}
}
