package chaos

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestFaultsOwnUntilReplaced: the simulator's findings about a volume the
// harness destroyed are the fault's until the step after its group was
// first seen with a volume of its own again; then they are the provider's.
func TestFaultsOwnUntilReplaced(t *testing.T) {
	finding := sim.Violation{Kind: sim.RemovedHeldData, Detail: "group storage-1's volume held a replica of shards [3] below full replication (1 of 2 replicas left)"}
	cases := map[string]struct {
		step, replacedAt int
		id               string
		want             bool
	}{
		"NotReplacedYet":          {step: 40, id: "storage-1", want: true},
		"ReplacedThisStep":        {step: 40, replacedAt: 40, id: "storage-1", want: true},
		"ReplacedTheStepBefore":   {step: 41, replacedAt: 40, id: "storage-1", want: true},
		"ReplacedTwoStepsBefore":  {step: 42, replacedAt: 40, id: "storage-1", want: false},
		"AnotherGroupsDiskIsLost": {step: 40, id: "storage-2", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &run{step: tc.step}
			r.checks.lost = map[string][]*lostDisk{"db#0": {{id: tc.id, uid: "claim-1", replacedAt: tc.replacedAt}}}
			if diff := cmp.Diff(tc.want, r.faultsOwn("db#0", finding)); diff != "" {
				t.Errorf("faultsOwn (-want +got):\n%s", diff)
			}
		})
	}
}
