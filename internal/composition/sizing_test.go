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
		Warning bool
		Err     string
	}
	cases := map[string]struct {
		requested string
		zones     int
		want      result
	}{
		"AutoFiveZones":     {"auto", 5, result{Mode: v1alpha1.RedundancyTriple}},
		"AutoSevenZones":    {"", 7, result{Mode: v1alpha1.RedundancyTriple}},
		"AutoFourZones":     {"auto", 4, result{Mode: v1alpha1.RedundancyDouble}},
		"AutoOneZone":       {"auto", 1, result{Mode: v1alpha1.RedundancySingle}},
		"AutoNoZoneLabel":   {"auto", 0, result{Err: "cannot choose redundancy: no node has a zone label"}},
		"AutoNoNodes":       {"auto", -1, result{Err: "cannot choose redundancy: no nodes are visible; set spec.redundancy"}},
		"TripleEnoughZones": {"triple", 5, result{Mode: v1alpha1.RedundancyTriple}},
		"TripleTooFewZones": {"triple", 3, result{Mode: v1alpha1.RedundancyTriple, Warning: true}},
		"DoubleNoNodes":     {"double", -1, result{Mode: v1alpha1.RedundancyDouble}},
		"Unknown":           {"quadruple", 9, result{Err: `cannot use redundancy "quadruple": want auto, single, double or triple`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mode, warning, err := composition.ChooseRedundancy(tc.requested, tc.zones)
			got := result{Mode: mode, Warning: warning != ""}
			if err != nil {
				got.Err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ChooseRedundancy(%q, %d) (-want +got):\n%s", tc.requested, tc.zones, diff)
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
