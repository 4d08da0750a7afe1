package fdb

import "github.com/crossplane/crossplane-runtime/v2/pkg/errors"

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
	RedundancyMode       RedundancyMode `json:"redundancy_mode,omitempty"`
	StorageEngine        string         `json:"storage_engine,omitempty"`
	UsableRegions        int            `json:"usable_regions,omitempty"`
	Logs                 int            `json:"logs,omitempty"`
	CommitProxies        int            `json:"commit_proxies,omitempty"`
	GrvProxies           int            `json:"grv_proxies,omitempty"`
	Resolvers            int            `json:"resolvers,omitempty"`
	LogRouters           int            `json:"log_routers,omitempty"`
	RemoteLogs           int            `json:"remote_logs,omitempty"`
	StorageMigrationType string         `json:"storage_migration_type,omitempty"`
}
