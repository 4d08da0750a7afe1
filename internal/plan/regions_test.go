package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// regionPair is dc1 (satellite dc1s) and dc2 at the priorities given.
func regionPair(dc1, dc1s, dc2 int) []fdb.Region {
	return []fdb.Region{
		{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: dc1}, {ID: "dc1s", Priority: dc1s, Satellite: 1}}, SatelliteRedundancyMode: "one_satellite_double"},
		{DataCenters: []fdb.RegionDataCenter{{ID: "dc2", Priority: dc2}}},
	}
}

func TestNextRegionChange(t *testing.T) {
	cases := map[string]struct {
		reason     string
		running    fdb.DatabaseConfiguration
		want       []fdb.Region
		wantUsable int
		primary    string
		next       *RegionChange
	}{
		"NoRegions": {
			reason:  "A Cluster without regions changes none.",
			running: fdb.DatabaseConfiguration{UsableRegions: 1},
		},
		"BringUp": {
			reason:     "Regions come first, with one usable region and every other region at -1.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 1},
			want:       regionPair(1, 1, 0),
			wantUsable: 2,
			next:       &RegionChange{Regions: regionPair(1, 1, -1), UsableRegions: 1, Why: "configure the regions with one usable region, dc1 the primary"},
		},
		"SecondUsableRegion": {
			reason:     "With one region that may be primary, usable_regions changes alone.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 1, Regions: regionPair(1, 1, -1)},
			want:       regionPair(1, 1, 0),
			wantUsable: 2,
			primary:    "dc1",
			next:       &RegionChange{Regions: regionPair(1, 1, -1), UsableRegions: 2, Why: "usable_regions 1 to 2"},
		},
		"PrioritiesLast": {
			reason:     "Once both regions hold data, the priorities wanted; the primary stays.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 2, Regions: regionPair(1, 1, -1)},
			want:       regionPair(1, 1, 0),
			wantUsable: 2,
			primary:    "dc1",
			next:       &RegionChange{Regions: regionPair(1, 1, 0), UsableRegions: 2, Why: "the regions the spec asks for"},
		},
		"Converged": {
			reason:     "Regions reported in another order (FoundationDB lists them by priority) are the same.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 2, Regions: []fdb.Region{regionPair(0, 1, 1)[1], regionPair(0, 1, 1)[0]}},
			want:       regionPair(0, 1, 1),
			wantUsable: 2,
			primary:    "dc2",
		},
		"PlannedFailover": {
			reason:     "Priorities that name another primary move it: a failover.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 2, Regions: regionPair(1, 1, 0)},
			want:       regionPair(0, 1, 1),
			wantUsable: 2,
			primary:    "dc1",
			next:       &RegionChange{Regions: regionPair(0, 1, 1), UsableRegions: 2, Why: "move the primary from dc1 to dc2", From: "dc1", To: "dc2"},
		},
		"DropARegionPrioritiesFirst": {
			reason:     "Before usable_regions drops, only the primary's region may keep a priority of 0 or more.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 2, Regions: regionPair(1, 1, 0)},
			want:       regionPair(1, 1, 0),
			wantUsable: 1,
			primary:    "dc1",
			next:       &RegionChange{Regions: regionPair(1, 1, -1), UsableRegions: 2, Why: "give only dc1's region a priority of 0 or more before usable_regions changes"},
		},
		"AfterAForcedRecovery": {
			reason:     "A forced recovery left one usable region and every other data center at -1: the second region comes back before the priorities.",
			running:    fdb.DatabaseConfiguration{UsableRegions: 1, Regions: regionPair(-1, -1, 1)},
			want:       regionPair(0, 1, 1),
			wantUsable: 2,
			primary:    "dc2",
			next:       &RegionChange{Regions: regionPair(-1, -1, 1), UsableRegions: 2, Why: "usable_regions 1 to 2"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.next, NextRegionChange(tc.running, tc.want, tc.wantUsable, tc.primary)); diff != "" {
				t.Errorf("\n%s\nNextRegionChange(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCoordinatorsAcrossDataCenters: zone names repeat across data
// centers (each Kubernetes cluster labels its own): a zone is one of its
// data center, and nine coordinators spread three to a data center.
func TestCoordinatorsAcrossDataCenters(t *testing.T) {
	var procs []Process
	for _, dc := range []string{"dc1", "dc1s", "dc2"} {
		for n, zone := range []string{"zone-a", "zone-b", "zone-c"} {
			procs = append(procs, Process{Address: fdb.ProcessAddress(dc + "-" + zone + ":4501"), Class: "log", Zone: zone, DataCenter: dc,
				InstanceID: dc + "-log-" + itoa(n+1), ProcessID: dc + "-log-" + itoa(n+1)})
		}
	}
	got, err := ChooseCoordinators(procs, RulesFor(fdb.RedundancyDouble, 3), nil, Form{})
	if err != nil || len(got) != 9 {
		t.Errorf("ChooseCoordinators(...) = %v, %v; want nine", got, err)
	}
}
