package fdb

import (
	"cmp"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const reasonUnknownRedundancyMode = "unknown redundancy mode"

// RedundancyMode is the database's replication policy.
type RedundancyMode string

// Redundancy modes the provider supports.
const (
	RedundancySingle        RedundancyMode = "single"
	RedundancyDouble        RedundancyMode = "double"
	RedundancyTriple        RedundancyMode = "triple"
	RedundancyThreeDataHall RedundancyMode = "three_data_hall"
)

// StorageReplicas returns how many copies of each shard the mode keeps.
func (m RedundancyMode) StorageReplicas() (int, error) {
	switch m {
	case RedundancySingle:
		return 1, nil
	case RedundancyDouble:
		return 2, nil
	case RedundancyTriple, RedundancyThreeDataHall:
		return 3, nil
	}
	return 0, errors.Errorf("%s %q", reasonUnknownRedundancyMode, m)
}

// LogReplicas returns how many log servers receive each commit.
func (m RedundancyMode) LogReplicas() (int, error) {
	if m == RedundancyThreeDataHall {
		return 4, nil
	}
	return m.StorageReplicas()
}

// DatabaseConfiguration is the configurable part of cluster.configuration;
// the JSON names are the status schema's and the configure keywords.
type DatabaseConfiguration struct {
	RedundancyMode RedundancyMode `json:"redundancy_mode,omitempty"`
	StorageEngine  string         `json:"storage_engine,omitempty"`
	UsableRegions  int            `json:"usable_regions,omitempty"`
	Logs           int            `json:"logs,omitempty"`
	CommitProxies  int            `json:"commit_proxies,omitempty"`
	GrvProxies     int            `json:"grv_proxies,omitempty"`
	Resolvers      int            `json:"resolvers,omitempty"`
	LogRouters     int            `json:"log_routers,omitempty"`
	RemoteLogs     int            `json:"remote_logs,omitempty"`
	// StorageMigrationType says whether and how a change of the storage
	// engine migrates the storage servers (StorageMigrationDisabled,
	// Gradual, Aggressive); "" leaves it as it is.
	StorageMigrationType string `json:"storage_migration_type,omitempty"`
	// PerpetualStorageWiggle is 1 while the perpetual storage wiggle runs
	// (one storage server at a time excluded, drained, recruited anew and
	// included), 0 when it is off; nil leaves it as it is.
	PerpetualStorageWiggle *int `json:"perpetual_storage_wiggle,omitempty"`
	// PerpetualStorageWiggleLocality limits the wiggle to the processes of
	// a locality, "<key>:<value>"; "0" wiggles every process, "" leaves it
	// as it is.
	PerpetualStorageWiggleLocality string `json:"perpetual_storage_wiggle_locality,omitempty"`
	// PerpetualStorageWiggleEngine is the storage engine the wiggle
	// recruits the servers of its locality with under
	// storage_migration_type gradual, whatever storage_engine says;
	// WiggleEngineNone for none, "" leaves it as it is. FoundationDB from
	// 7.1.38 reports it always, "none" when unset.
	PerpetualStorageWiggleEngine string `json:"perpetual_storage_wiggle_engine,omitempty"`
	// Regions of a multi-region database (`configure regions=<JSON>`):
	// each has one main data center and its satellites, the main data
	// center of the highest priority holds the primary.
	Regions []Region `json:"regions,omitempty"`
}

// A Region is one entry of cluster.configuration.regions, in the shape
// FoundationDB reports it (DatabaseConfiguration::getRegionJSON at 7.3):
// the main data center first, then the satellites, each with satellite 1.
type Region struct {
	DataCenters []RegionDataCenter `json:"datacenters"`
	// SatelliteRedundancyMode names how the satellites replicate the
	// logs, e.g. one_satellite_double; "" without satellite logs.
	SatelliteRedundancyMode string `json:"satellite_redundancy_mode,omitempty"`
	// SatelliteLogs is the desired number of satellite logs; 0 for
	// FoundationDB's default.
	SatelliteLogs int `json:"satellite_logs,omitempty"`
}

// A RegionDataCenter is one data center of a Region.
type RegionDataCenter struct {
	ID       string `json:"id"`
	Priority int    `json:"priority"`
	// Satellite is 1 for a satellite, absent (0) for the main data center.
	Satellite     int `json:"satellite,omitempty"`
	SatelliteLogs int `json:"satellite_logs,omitempty"`
}

// Main returns the region's main data center; ok is false when the region
// has none (FoundationDB rejects such a region).
func (r Region) Main() (RegionDataCenter, bool) {
	for _, dc := range r.DataCenters {
		if dc.Satellite != 1 {
			return dc, true
		}
	}
	return RegionDataCenter{}, false
}

// SortedRegions returns a copy of regions sorted by order: in each region
// its main data center first, then its satellites by order; the regions by
// their main data centers, by order.
func SortedRegions(regions []Region, order func(a, b RegionDataCenter) int) []Region {
	out := slices.Clone(regions)
	for i, r := range out {
		r.DataCenters = slices.Clone(r.DataCenters)
		slices.SortStableFunc(r.DataCenters, func(a, b RegionDataCenter) int { return cmp.Or(cmp.Compare(a.Satellite, b.Satellite), order(a, b)) })
		out[i] = r
	}
	slices.SortStableFunc(out, func(a, b Region) int {
		x, _ := a.Main()
		y, _ := b.Main()
		return order(x, y)
	})
	return out
}

// The storage_migration_type values (StorageMigrationType in
// fdbclient/FDBTypes.h, 7.1.67 and 7.3.63). A database configured without
// one reports disabled, which refuses any change of the storage engine but
// `configure new` and `configure FORCE` (changeConfig in
// fdbclient/GenericManagementAPI.actor.h); gradual migrates through the
// perpetual wiggle, one storage server at a time; aggressive marks every
// storage server of the old engine for removal at once.
const (
	StorageMigrationDisabled   = "disabled"
	StorageMigrationGradual    = "gradual"
	StorageMigrationAggressive = "aggressive"
)

// WiggleEngineNone is the perpetual_storage_wiggle_engine that names no
// engine: the wiggle recruits with storage_engine.
const WiggleEngineNone = "none"

// reportedEngines maps the storage engine keywords `configure` takes to the
// name cluster.configuration.storage_engine then reports, by major.minor.
// From fdbclient/ManagementAPI.actor.cpp configForToken (keywords) and
// DatabaseConfiguration::toJSON (names) at 7.1.67 and 7.3.79: 7.1 names the
// pair of log and storage engines ("memory-2"), 7.3 the storage engine
// alone ("memory"), and only 7.3 takes "ssd-redwood-1" and
// "ssd-sharded-rocksdb".
var reportedEngines = map[string]map[string]string{
	"7.1": {
		"ssd":                        "ssd-2",
		"ssd-1":                      "ssd-1",
		"ssd-2":                      "ssd-2",
		"ssd-redwood-1-experimental": "ssd-redwood-1-experimental",
		"ssd-rocksdb-v1":             "ssd-rocksdb-v1",
		"memory":                     "memory-2",
		"memory-2":                   "memory-2",
		"memory-1":                   "memory-1",
		"memory-radixtree-beta":      "memory-radixtree-beta",
	},
	"7.3": {
		"ssd":                        "ssd-2",
		"ssd-1":                      "ssd-1",
		"ssd-2":                      "ssd-2",
		"ssd-redwood-1":              "ssd-redwood-1",
		"ssd-redwood-1-experimental": "ssd-redwood-1",
		"ssd-rocksdb-v1":             "ssd-rocksdb-v1",
		"ssd-sharded-rocksdb":        "ssd-sharded-rocksdb",
		"memory":                     "memory",
		"memory-2":                   "memory",
		"memory-1":                   "memory",
		"memory-radixtree-beta":      "memory-radixtree-beta",
	},
}

// ReportedStorageEngine returns the storage_engine a database of version v
// reports after `configure <keyword>`, to compare a desired engine with the
// running one; ok is false when v's configure does not take the keyword (or
// v is a release the table does not know).
func ReportedStorageEngine(keyword string, v Version) (reported string, ok bool) {
	reported, ok = reportedEngines[v.MajorMinor()][keyword]
	return reported, ok
}
