package chaos

import (
	"testing"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// TestServedNothing: the disruption check lets the provider delete a pod
// outside the grant's domain only under a grant for disrupted groups only,
// and only a pod none of whose processes the database listed before the
// step (chaos seeds 14, 17 and 53 on ac429d6 and 8a81b22).
func TestServedNothing(t *testing.T) {
	status := func(procs ...fdb.Process) *database {
		s := &fdb.Status{}
		s.Cluster.RecoveryState.ActiveGenerations = 1
		s.Cluster.Processes = map[string]fdb.Process{}
		for _, p := range procs {
			s.Cluster.Processes[p.Locality.ProcessID] = p
		}
		return &database{status: s}
	}
	other := fdb.Process{Address: "10.0.0.2:4501", Locality: fdb.Locality{InstanceID: "log-2", ProcessID: "log-2"}}
	mine := fdb.Process{Address: "10.0.0.3:4501", Locality: fdb.Locality{InstanceID: "log-3", ProcessID: "log-3"}}
	only := &fdbv1alpha1.DisruptionGrant{Domain: "zone-a", Generation: 2, DisruptedOnly: true}
	cases := map[string]struct {
		grant *fdbv1alpha1.DisruptionGrant
		db    *database
		want  bool
	}{
		"NotReporting":         {only, status(other), true},
		"Reporting":            {only, status(other, mine), false},
		"GrantForTheWholeZone": {&fdbv1alpha1.DisruptionGrant{Domain: "zone-a", Generation: 2}, status(other), false},
		"NoGrant":              {nil, status(other), false},
		"NoStatus":             {only, &database{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := servedNothing(tc.grant, tc.db, "log-3", "10.0.0.3"); got != tc.want {
				t.Errorf("servedNothing(...) = %v, want %v", got, tc.want)
			}
		})
	}
}
