package fdb

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegionsFromSchema parses cluster.configuration.regions and
// cluster.datacenter_lag in the shapes of the 7.3 status schema (its enums
// taken at their first value).
func TestRegionsFromSchema(t *testing.T) {
	raw, err := os.ReadFile("testdata/real/schema/status_schema_7.3.79.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Cluster struct {
			Configuration struct {
				Regions []map[string]any `json:"regions"`
			} `json:"configuration"`
			DatacenterLag json.RawMessage `json:"datacenter_lag"`
		} `json:"cluster"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	regions := schema.Cluster.Configuration.Regions
	for _, r := range regions {
		for k, v := range r {
			if e, ok := v.(map[string]any); ok {
				r[k] = e["$enum"].([]any)[0]
			}
		}
	}
	doc, err := json.Marshal(map[string]any{"cluster": map[string]any{
		"configuration": map[string]any{"regions": regions}, "datacenter_lag": schema.Cluster.DatacenterLag,
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseStatus(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []Region{{
		DataCenters:             []RegionDataCenter{{ID: "mr", Priority: 1, Satellite: 1, SatelliteLogs: 2}},
		SatelliteRedundancyMode: "one_satellite_single",
		SatelliteLogs:           2,
	}}
	if diff := cmp.Diff(want, s.Cluster.Configuration.Regions); diff != "" {
		t.Errorf("regions: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(&DatacenterLag{Seconds: 1, Versions: 1000000}, s.Cluster.DatacenterLag); diff != "" {
		t.Errorf("datacenter_lag: -want, +got:\n%s", diff)
	}
	if _, ok := want[0].Main(); ok {
		t.Error("Main() of a region of satellites alone found a main data center")
	}
}

func TestRegionMain(t *testing.T) {
	r := Region{DataCenters: []RegionDataCenter{{ID: "sat", Satellite: 1}, {ID: "main", Priority: 1}}}
	if dc, ok := r.Main(); !ok || dc.ID != "main" {
		t.Errorf("Main() = %+v, %t; want the data center that is no satellite", dc, ok)
	}
}
