package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestOneRegion: the simulator models one region, and says so instead of
// accepting a configuration it would not honour.
func TestOneRegion(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1})
	c.Create(t, fdb.RedundancyTriple)
	for name, cfg := range map[string]fdb.DatabaseConfiguration{
		"UsableRegions": {UsableRegions: 2},
		"Regions":       {Regions: []fdb.Region{{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: 1}}}}},
	} {
		if err := c.Sim.Configure(context.Background(), cfg, false); err == nil || !strings.Contains(err.Error(), "the simulator models a single region") {
			t.Errorf("%s: Configure = %v, want the simulator's single region named", name, err)
		}
	}
}
