package composition_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/composition"
)

func TestChooseRedundancy(t *testing.T) {
	type result struct {
		Mode    v1alpha1.RedundancyMode
		Warning string
		Err     string
	}
	const (
		single = v1alpha1.RedundancySingle
		double = v1alpha1.RedundancyDouble
		triple = v1alpha1.RedundancyTriple
		tdh    = v1alpha1.RedundancyThreeDataHall
	)
	cases := map[string]struct {
		requested string
		zones     int
		running   v1alpha1.RedundancyMode
		want      result
	}{
		"AutoFiveZones":     {"auto", 5, "", result{Mode: triple}},
		"AutoSevenZones":    {"", 7, "", result{Mode: triple}},
		"AutoFourZones":     {"auto", 4, "", result{Mode: double}},
		"AutoOneZone":       {"auto", 1, "", result{Mode: single}},
		"AutoNoZoneLabel":   {"auto", 0, "", result{Err: "cannot choose redundancy: no node has a zone label"}},
		"AutoNoNodes":       {"auto", -1, "", result{Err: "cannot choose redundancy: no nodes are visible; set spec.redundancy"}},
		"TripleEnoughZones": {"triple", 5, "", result{Mode: triple}},
		"TripleTooFewZones": {"triple", 3, "", result{Mode: triple, Warning: "redundancy triple needs 5 zones and the nodes of this cluster span 3: the database will not become ready here"}},
		"DoubleNoNodes":     {"double", -1, "", result{Mode: double}},
		"Unknown":           {"quadruple", 9, "", result{Err: `cannot use redundancy "quadruple": want auto, single, double or triple`}},
		"AutoSameAsRunning": {"auto", 5, triple, result{Mode: triple}},
		"AutoRaisesDouble":  {"auto", 5, double, result{Mode: triple}},
		"AutoRaisesSingle":  {"auto", 3, single, result{Mode: double}},
		"AutoKeepsTriple": {"auto", 3, triple, result{Mode: triple,
			Warning: "redundancy auto: the nodes of this cluster span 3 zones, enough for double, but the database runs triple; keeping triple (set spec.redundancy to double to lower it)"}},
		"AutoKeepsTripleOverSingle": {"auto", 1, triple, result{Mode: triple,
			Warning: "redundancy auto: the nodes of this cluster span 1 zones, enough for single, but the database runs triple; keeping triple (set spec.redundancy to single to lower it)"}},
		"AutoKeepsDouble": {"auto", 2, double, result{Mode: double,
			Warning: "redundancy auto: the nodes of this cluster span 2 zones, enough for single, but the database runs double; keeping double (set spec.redundancy to single to lower it)"}},
		"AutoKeepsThreeDataHall": {"auto", 4, tdh, result{Mode: tdh,
			Warning: "redundancy auto: the nodes of this cluster span 4 zones, enough for double, but the database runs three_data_hall; keeping three_data_hall (set spec.redundancy to double to lower it)"}},
		"AutoThreeDataHallRanksWithTriple": {"auto", 5, tdh, result{Mode: triple}},
		"AutoIgnoresUnknownRunning":        {"auto", 3, "quadruple", result{Mode: double}},
		"AutoNoNodesWhileRunning":          {"auto", -1, triple, result{Err: "cannot choose redundancy: no nodes are visible; set spec.redundancy"}},
		"ExplicitLowerThanRunning":         {"double", 5, triple, result{Mode: double}},
		"ExplicitLowerOnFewZones":          {"single", 1, triple, result{Mode: single}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mode, warning, err := composition.ChooseRedundancy(tc.requested, tc.zones, tc.running)
			got := result{Mode: mode, Warning: warning}
			if err != nil {
				got.Err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ChooseRedundancy(%q, %d, %q) (-want +got):\n%s", tc.requested, tc.zones, tc.running, diff)
			}
		})
	}
}

func TestShapeOf(t *testing.T) {
	cases := map[string]struct {
		size        composition.Size
		wantStorage int
		wantErr     bool
	}{
		"Small":   {composition.SizeSmall, 3, false},
		"Medium":  {composition.SizeMedium, 6, false},
		"Large":   {composition.SizeLarge, 12, false},
		"Unknown": {"huge", 0, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sh, err := composition.ShapeOf(tc.size)
			if diff := cmp.Diff(tc.wantStorage, sh.Counts.Storage); diff != "" || (err != nil) != tc.wantErr {
				t.Errorf("ShapeOf(%q): storage (-want +got) %s, error %v", tc.size, diff, err)
			}
		})
	}
}
