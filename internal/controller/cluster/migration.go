package cluster

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// migrationConfiguration is want, the configuration of the spec, with what
// changing the storage engine of a running database needs: FoundationDB
// refuses an engine change while storage_migration_type is disabled (its
// default), so unless the spec names a migration type the change asks for
// gradual, in the same command; gradual makes progress only through the
// perpetual wiggle, which is turned on with it unless the spec says
// otherwise. running is the configuration the database runs.
func migrationConfiguration(want, running fdb.DatabaseConfiguration, method v1alpha1.StorageMigrationMethod) fdb.DatabaseConfiguration {
	if want.StorageMigrationType == "" && cmp.Or(running.StorageMigrationType, fdb.StorageMigrationDisabled) == fdb.StorageMigrationDisabled {
		want.StorageMigrationType = fdb.StorageMigrationGradual
	}
	if method != v1alpha1.StorageMigrationReplaceGroups && cmp.Or(want.StorageMigrationType, running.StorageMigrationType) == fdb.StorageMigrationGradual &&
		want.PerpetualStorageWiggle == nil && !wiggling(running) {
		on := 1
		want.PerpetualStorageWiggle = &on
	}
	return want
}

// wiggling reports whether configuration c runs the perpetual wiggle.
func wiggling(c fdb.DatabaseConfiguration) bool {
	return c.PerpetualStorageWiggle != nil && *c.PerpetualStorageWiggle > 0
}

// storageMigration is the progress of the storage servers' migration to
// the engine status s says the database is configured with (each
// process's migrationTarget), counted by
// process (an aggressive migration runs a server of each engine on a
// process until the old one is empty): nil once every storage server runs
// it, and when s does not say which engine each runs (FoundationDB 7.1
// writes no storage_engine in a server's metadata).
func storageMigration(s *fdb.Status) *v1alpha1.StorageMigrationObservation {
	if s == nil || !s.ConfigurationRead() {
		return nil
	}
	cfg := s.Cluster.Configuration.DatabaseConfiguration
	m := &v1alpha1.StorageMigrationObservation{Engine: cfg.StorageEngine}
	for _, p := range s.Cluster.Processes {
		want := migrationTarget(cfg, p)
		servers, migrated := 0, true
		for _, r := range p.Roles {
			if r.Role != fdb.RoleStorage {
				continue
			}
			if r.StorageMetadata == nil || r.StorageMetadata.StorageEngine == "" {
				return nil
			}
			servers++
			migrated = migrated && r.StorageMetadata.StorageEngine == want
		}
		if servers > 0 {
			m.Total++
			if migrated {
				m.Migrated++
			}
		}
	}
	if m.Migrated == m.Total {
		return nil
	}
	if w := s.Cluster.StorageWiggler; w != nil {
		m.Wiggling = slices.Sorted(slices.Values(w.WiggleServerAddresses))
	}
	return m
}

// migrationTarget is the engine the storage servers of process p migrate
// to under configuration c: perpetual_storage_wiggle_engine, under
// storage_migration_type gradual, for a process of the wiggle's locality
// ("0", or one of its <key>:<value> pairs separated by ';'); the storage
// engine otherwise. FoundationDB recruits so (initializeStorage,
// fdbserver/DDTeamCollection.actor.cpp at 7.3.63, localityMatchInList).
func migrationTarget(c fdb.DatabaseConfiguration, p fdb.Process) string {
	e, ok := wiggleEngine(c)
	if !ok {
		return c.StorageEngine
	}
	if c.PerpetualStorageWiggleLocality == "0" {
		return e
	}
	for pair := range strings.SplitSeq(c.PerpetualStorageWiggleLocality, ";") {
		key, value, _ := strings.Cut(pair, ":")
		if v, known := p.Locality.Get(key); known && v == value {
			return e
		}
	}
	return c.StorageEngine
}

// wiggleEngine is the perpetual_storage_wiggle_engine of configuration c
// when it applies: it names an engine, under storage_migration_type
// gradual.
func wiggleEngine(c fdb.DatabaseConfiguration) (string, bool) {
	e := c.PerpetualStorageWiggleEngine
	return e, c.StorageMigrationType == fdb.StorageMigrationGradual && e != "" && e != fdb.WiggleEngineNone
}

// storageMigrationStep waits while storage servers run another engine than
// the database is configured with: FoundationDB migrates them itself (the
// wiggle, or aggressive replacement), and the Cluster is not up to date
// until it has. A gradual migration without the wiggle makes no progress,
// which the wait says.
func storageMigrationStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	m := storageMigration(o.status)
	if m == nil {
		return nil
	}
	why := fmt.Sprintf("storage servers migrating to %s: %d of %d storage processes run only it", m.Engine, m.Migrated, m.Total)
	if cfg := o.status.Cluster.Configuration.DatabaseConfiguration; cfg.PerpetualStorageWiggleLocality != "" {
		if e, ok := wiggleEngine(cfg); ok {
			why = fmt.Sprintf("storage servers migrating to %s, those of wiggle locality %s to %s: %d of %d storage processes run only theirs",
				m.Engine, cfg.PerpetualStorageWiggleLocality, e, m.Migrated, m.Total)
		}
	}
	if len(m.Wiggling) > 0 {
		why += " (wiggling " + strings.Join(m.Wiggling, ", ") + ")"
	}
	running := o.status.Cluster.Configuration.DatabaseConfiguration
	if cr.Spec.ForProvider.StorageMigrationMethod != v1alpha1.StorageMigrationReplaceGroups &&
		cmp.Or(running.StorageMigrationType, fdb.StorageMigrationDisabled) == fdb.StorageMigrationGradual && !wiggling(running) {
		why += "; storage_migration_type gradual makes no progress while perpetual_storage_wiggle is 0"
	}
	return wait("%s", why)
}

// engineDrift says why storage group pg is to be replaced under
// storageMigrationMethod ReplaceGroups: the database is configured with the
// spec's storage engine, and a storage server of the group, as this
// reconcile's status reports it, runs another ("" when none does, or the
// status cannot say: 7.1 reports no server's engine). New storage servers
// are recruited with the configured engine (apple/foundationdb
// fdbserver/DDTeamCollection.actor.cpp, initializeStorage: the request's
// storeType is the configuration's), so the group's replacement migrates
// it.
func (o *observation) engineDrift(cr *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup) string {
	if cr.Spec.ForProvider.StorageMigrationMethod != v1alpha1.StorageMigrationReplaceGroups || pg.Spec.ForProvider.ProcessClass != v1alpha1.ProcessClassStorage ||
		o.status == nil || !o.status.ConfigurationRead() {
		return ""
	}
	configured := o.status.Cluster.Configuration.StorageEngine
	if !sameEngine(cr.Spec.ForProvider.DatabaseConfiguration.StorageEngine, configured, cr.Spec.ForProvider.Version) {
		return ""
	}
	for _, p := range o.processesOf(groupID(pg)) {
		for _, r := range p.Roles {
			if r.Role == fdb.RoleStorage && r.StorageMetadata != nil && r.StorageMetadata.StorageEngine != "" && r.StorageMetadata.StorageEngine != configured {
				return fmt.Sprintf("storage engine %s, the database is configured with %s", r.StorageMetadata.StorageEngine, configured)
			}
		}
	}
	return ""
}
