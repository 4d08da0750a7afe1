package policy_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
)

// BenchmarkDecide measures one decision with the default policies, their
// programs cached, for clusters of growing size: an exclusion, whose rules
// read the cluster and the budget, and a removal, whose rules read the
// targeted process groups.
func BenchmarkDecide(b *testing.B) {
	ps, err := defaults.Policies()
	if err != nil {
		b.Fatal(err)
	}
	e, err := policy.NewEngine()
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range []v1alpha1.ActionType{v1alpha1.ActionExclude, v1alpha1.ActionRemoveProcessGroup} {
		for _, n := range []int{10, 100, 1000} {
			in := input(a, n)
			b.Run(fmt.Sprintf("%s/groups=%d", a, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if d := e.Decide(context.Background(), ps, in); !d.Allowed {
						b.Fatal(d.Message)
					}
				}
			})
		}
	}
}

// input is an allowed action on the first of n storage process groups.
func input(a v1alpha1.ActionType, n int) policy.Input {
	groups := make([]policy.ProcessGroup, n)
	for i := range groups {
		groups[i] = policy.ProcessGroup{
			ID: fmt.Sprintf("storage-%d", i), Class: "storage", Addresses: []string{fmt.Sprintf("10.0.%d.%d:4500", i/256, i%256)},
			Roles: []string{"storage"}, HoldsData: true, Conditions: []policy.Condition{{Type: "PodPending", AgeSeconds: 30}},
		}
	}
	groups[0] = policy.ProcessGroup{ID: "storage-0", Class: "storage", Excluded: true, Removing: true, FullyExcluded: true}
	return policy.Input{
		Action: policy.Action{Type: a, Targets: []string{"storage-0"}, ProcessClass: "storage"},
		Cluster: policy.Cluster{
			Available: true, ActiveGenerations: 1, SecondsSinceLastRecovery: 3600, RedundancyMode: "double",
			DesiredCounts: map[string]int64{"storage": int64(n - 1)}, DesiredFaultTolerance: 1,
		},
		ProcessGroups: groups,
	}
}
