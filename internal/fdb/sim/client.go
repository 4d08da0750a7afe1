package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errConfigure               = "cannot configure database"
	errExclude                 = "cannot exclude processes"
	errInclude                 = "cannot include processes"
	errKill                    = "cannot kill processes"
	errChangeCoordinators      = "cannot change coordinators"
	errSetConnectionString     = "cannot set connection string"
	errSetMovementRate         = "cannot set movement rate"
	errPartition               = "cannot partition coordinator"
	reasonInvalidTarget        = "invalid target"
	reasonNotCoordinator       = "not a coordinator"
	reasonUnknownStorageEngine = "unknown storage engine"
	reasonNoCoordinators       = "no coordinators given"
	reasonDuplicate            = "duplicate address"
	reasonUnreachable          = "no reachable process listens on"
	reasonKillLocality         = "kill needs IP:port addresses, not"
	reasonStateLost            = "the coordinated state is lost"
	reasonMigrationType        = "storage_migration_type is none of disabled, gradual and aggressive:"
	reasonWiggle               = "perpetual_storage_wiggle is neither 0 nor 1:"
	reasonWiggleLocality       = "perpetual_storage_wiggle_locality is neither <locality_key>:<locality_value> nor 0:"
)

// migrationTypes are the storage_migration_type values configure takes.
var migrationTypes = []string{fdb.StorageMigrationDisabled, fdb.StorageMigrationGradual, fdb.StorageMigrationAggressive}

// defaultStorageEngine is the engine `configure new` sets when it names
// none.
const defaultStorageEngine = "ssd-2"

// connectionIDChars are the characters of a generated connection string ID.
const connectionIDChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

const connectionIDLength = 8

// Configure implements fdb.Client. Zero fields of cfg keep their current
// value. A change of an existing configuration causes a recovery.
func (s *Sim) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	if err := s.begin(ctx, OpConfigure); err != nil {
		return errors.Wrap(err, errConfigure)
	}
	defer s.mu.Unlock()
	args, _ := json.Marshal(cfg) // a pointer field prints as its address with %v
	s.took(OpConfigure, string(args), fmt.Sprintf("new=%v", newDatabase))
	if !s.quorumReachable() || (!newDatabase && !s.available()) {
		return errors.Wrap(fdb.ErrUnavailable, errConfigure)
	}
	if newDatabase && s.created {
		return errors.Wrap(fdb.ErrAlreadyExists, errConfigure)
	}
	next, err := merge(s.config, cfg, s.protocol)
	if err == nil {
		err = s.validateRegions(s.config, next)
	}
	if err == nil && !newDatabase {
		err = checkStorageMigration(s.config, next)
	}
	if err != nil {
		return errors.Wrap(err, errConfigure)
	}
	if newDatabase {
		s.config, s.configuredAt = next, s.now
		s.startFirstRecovery()
	} else if !reflect.DeepEqual(next, s.config) {
		s.config, s.configuredAt = next, s.now
		s.triggerRecovery()
	}
	s.evaluate()
	return nil
}

// checkStorageMigration refuses next, a change of cur, that changes the
// storage engine while its storage_migration_type is disabled, as
// changeConfig does for a `configure` that is neither `configure new` nor
// FORCE (fdbclient/GenericManagementAPI.actor.h at 7.1.67,
// fdbclient/include/fdbclient/GenericManagementAPI.actor.h at 7.3.63). next
// is cur with every token of the command applied, so a command that also
// sets another migration type passes. Only the storage engine counts: the
// log engine that 7.1's names pair with it does not.
func checkStorageMigration(cur, next fdb.DatabaseConfiguration) error {
	if storeType(next.StorageEngine) != storeType(cur.StorageEngine) && next.StorageMigrationType == fdb.StorageMigrationDisabled {
		return fdb.ErrStorageMigrationDisabled
	}
	return nil
}

// Configuration returns the database's configuration as the cluster keeps
// it, zero before `configure new`: the ground truth a test or harness
// compares with what a client did, whether or not a status can read it
// now. Every field is set: the storage engine as the release the cluster
// speaks reports it, storage_migration_type, perpetual_storage_wiggle and
// its locality at their defaults (disabled, 0, "0") unless configured.
func (s *Sim) Configuration() fdb.DatabaseConfiguration {
	s.lock()
	defer s.mu.Unlock()
	return s.configuration()
}

// configuration is a copy of the database's configuration with its storage
// engine named as the release the cluster speaks names it, which the
// caller may keep: it shares nothing with the simulator.
func (s *Sim) configuration() fdb.DatabaseConfiguration {
	cfg := s.config
	if !s.created {
		return cfg
	}
	cfg.StorageEngine = s.reportedEngine(cfg.StorageEngine)
	if cfg.PerpetualStorageWiggleEngine != fdb.WiggleEngineNone {
		cfg.PerpetualStorageWiggleEngine = s.reportedEngine(cfg.PerpetualStorageWiggleEngine)
	}
	cfg.PerpetualStorageWiggle = ptr(*cfg.PerpetualStorageWiggle)
	cfg.Regions = slices.Clone(cfg.Regions)
	return cfg
}

// merge overlays the non-zero fields of cfg on cur and validates the result
// for a cluster that speaks protocol (major.minor): its storage engine is
// kept under the name that release reports for it, so that configuring
// the same engine again under another keyword changes nothing.
func merge(cur, cfg fdb.DatabaseConfiguration, protocol string) (fdb.DatabaseConfiguration, error) {
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	if cfg.RedundancyMode != "" {
		cur.RedundancyMode = cfg.RedundancyMode
	}
	if cfg.StorageEngine != "" {
		cur.StorageEngine = cfg.StorageEngine
	}
	set(&cur.UsableRegions, cfg.UsableRegions)
	set(&cur.Logs, cfg.Logs)
	set(&cur.CommitProxies, cfg.CommitProxies)
	set(&cur.GrvProxies, cfg.GrvProxies)
	set(&cur.Resolvers, cfg.Resolvers)
	set(&cur.LogRouters, cfg.LogRouters)
	set(&cur.RemoteLogs, cfg.RemoteLogs)
	if _, err := cur.RedundancyMode.StorageReplicas(); err != nil {
		return cur, err
	}
	engine, ok := engineName(cmp.Or(cur.StorageEngine, defaultStorageEngine), protocol)
	if !ok {
		return cur, errors.Errorf("%s %q", reasonUnknownStorageEngine, cur.StorageEngine)
	}
	cur.StorageEngine = engine
	cur.UsableRegions = max(cur.UsableRegions, 1)
	if len(cfg.Regions) > 0 {
		cur.Regions = byPriority(cfg.Regions)
	}
	return cur, mergeStorageMigration(&cur, cfg, protocol)
}

// mergeStorageMigration overlays the storage migration settings cfg sets on
// cur, defaults those never set as DatabaseConfiguration::resetInternal does
// (storage_migration_type disabled, perpetual_storage_wiggle 0, its
// locality "0", its engine none; fdbclient/DatabaseConfiguration.cpp at
// 7.1.67 and 7.3.63), keeps an engine under the name the release reports
// (KeyValueStoreType::fromString and toString, the same for
// perpetual_storage_wiggle_engine as for storage_engine),
// and refuses the values configForToken refuses
// (fdbclient/ManagementAPI.actor.cpp, same tags) for a cluster that speaks
// protocol.
func mergeStorageMigration(cur *fdb.DatabaseConfiguration, cfg fdb.DatabaseConfiguration, protocol string) error {
	cur.StorageMigrationType = cmp.Or(cfg.StorageMigrationType, cur.StorageMigrationType, fdb.StorageMigrationDisabled)
	cur.PerpetualStorageWiggleLocality = cmp.Or(cfg.PerpetualStorageWiggleLocality, cur.PerpetualStorageWiggleLocality, wiggleEverywhere)
	switch {
	case cfg.PerpetualStorageWiggle != nil:
		cur.PerpetualStorageWiggle = ptr(*cfg.PerpetualStorageWiggle)
	case cur.PerpetualStorageWiggle == nil:
		cur.PerpetualStorageWiggle = ptr(0)
	}
	if !slices.Contains(migrationTypes, cur.StorageMigrationType) {
		return errors.Errorf("%s %q", reasonMigrationType, cur.StorageMigrationType)
	}
	if w := *cur.PerpetualStorageWiggle; w != 0 && w != 1 {
		return errors.Errorf("%s %d", reasonWiggle, w)
	}
	if _, ok := wiggleLocalities(cur.PerpetualStorageWiggleLocality, protocol); !ok {
		return errors.Errorf("%s %q", reasonWiggleLocality, cur.PerpetualStorageWiggleLocality)
	}
	cur.PerpetualStorageWiggleEngine = cmp.Or(cfg.PerpetualStorageWiggleEngine, cur.PerpetualStorageWiggleEngine, fdb.WiggleEngineNone)
	if e := cur.PerpetualStorageWiggleEngine; e != fdb.WiggleEngineNone {
		name, ok := engineName(e, protocol)
		if !ok {
			return errors.Errorf("%s %q", reasonUnknownStorageEngine, e)
		}
		cur.PerpetualStorageWiggleEngine = name
	}
	return nil
}

// engineName is the storage_engine the status of a cluster that speaks
// protocol (major.minor) reports for an engine configured as keyword, or
// reported under that name by an earlier release (fdb.ReportedStorageEngine);
// ok is false when the release does not take it or is unknown.
func engineName(keyword, protocol string) (string, bool) {
	v, err := fdb.ParseVersion(protocol + ".0")
	if err != nil {
		return "", false
	}
	return fdb.ReportedStorageEngine(keyword, v)
}

// reportedEngine is the name the status reports for the configured engine
// now: the release the cluster speaks may have renamed it since it was
// configured (memory-2 in 7.1 is memory in 7.3).
func (s *Sim) reportedEngine(engine string) string {
	if name, ok := engineName(engine, s.protocol); ok {
		return name
	}
	return engine
}

// validateTargets checks that every target is an IP, IP:port or a
// locality selector with a known key.
func validateTargets(targets []fdb.ProcessAddress) error {
	for _, t := range targets {
		if key, value, ok := t.Locality(); ok {
			if _, known := (fdb.Locality{}).Get(key); !known || value == "" {
				return errors.Errorf("%s %q", reasonInvalidTarget, t)
			}
			continue
		}
		host, port, err := net.SplitHostPort(string(t))
		if err != nil {
			host, port = string(t), "0"
		}
		if _, perr := strconv.ParseUint(port, 10, 16); net.ParseIP(host) == nil || perr != nil {
			return errors.Errorf("%s %q", reasonInvalidTarget, t)
		}
	}
	return nil
}

// Exclude implements fdb.Client. Excluding a process that serves the
// transaction system causes a recovery that recruits elsewhere.
func (s *Sim) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := validateTargets(targets); err != nil {
		return errors.Wrap(err, errExclude)
	}
	if err := s.beginAvailable(ctx, OpExclude, errExclude); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.tookOn(OpExclude, targets)
	s.exclusions = fdb.SortedAddresses(append(slices.Clone(s.exclusions), targets...))
	s.applyExclusions(func(p *process) bool { return s.roles.holds(p.id) })
	return nil
}

// Include implements fdb.Client. Returning a process of a transaction class
// to service causes a recovery that may recruit it.
func (s *Sim) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := validateTargets(targets); err != nil {
		return errors.Wrap(err, errInclude)
	}
	if err := s.beginAvailable(ctx, OpInclude, errInclude); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.tookOn(OpInclude, targets)
	s.exclusions = slices.DeleteFunc(s.exclusions, func(t fdb.ProcessAddress) bool { return slices.Contains(targets, t) })
	s.applyExclusions(func(p *process) bool { return p.up && !p.storageClass() })
	return nil
}

// applyExclusions recomputes which processes are excluded and recovers
// when a process whose exclusion changed satisfies recovers.
func (s *Sim) applyExclusions(recovers func(p *process) bool) {
	recover := false
	for _, id := range s.procIDs {
		p := s.procs[id]
		if excluded := s.isExcluded(p); excluded != p.excluded {
			p.excluded = excluded
			recover = recover || recovers(p)
		}
	}
	if recover {
		s.triggerRecovery()
	}
	s.evaluate()
}

// Kill implements fdb.Client: the processes restart at once with their
// group's current version and command line (a version the pod has not
// staged does not start). Like fdbcli's kill it knows processes by IP:port
// only (killTarget): a DNS name is not found. Killing a process of the
// transaction system causes one recovery per call. A kill injected with
// PartialKillNext restarts only half of them and fails.
func (s *Sim) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := s.begin(ctx, OpKill); err != nil {
		return errors.Wrap(err, errKill)
	}
	defer s.mu.Unlock()
	s.tookOn(OpKill, targets)
	if !s.quorumReachable() {
		return errors.Wrap(fdb.ErrUnavailable, errKill)
	}
	var victims []*process
	for _, t := range targets {
		if _, _, ok := t.Locality(); ok {
			return errors.Errorf("%s: %s %q", errKill, reasonKillLocality, t)
		}
		p, ok := s.killTarget(t)
		if !ok {
			return errors.Wrapf(fdb.ErrNotFound, "%s: %s %s", errKill, reasonUnreachable, t)
		}
		victims = append(victims, p)
	}
	restarted, err := s.partialKill(victims)
	recover := false
	for _, p := range restarted {
		recover = recover || s.roles.holds(p.id)
		s.restart(p, s.groups[p.group])
	}
	if recover {
		s.triggerRecovery()
	}
	s.evaluate()
	return errors.Wrap(err, errKill)
}

// killTarget is the up process kill target t names: fdbcli knows a
// process by the IP:port of each address it listens on, without ":tls"
// (addInterfacesFromKVs, fdbcli/Util.actor.cpp at 7.1.67 and 7.3.63),
// and fdb.Client's Kill drops the suffix of a target before it asks
// (fdbcli.Client does so), so either spelling of a TLS address names its
// process; a DNS name names none.
func (s *Sim) killTarget(t fdb.ProcessAddress) (*process, bool) {
	hostPort := strings.TrimSuffix(string(t), tlsSuffix)
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.up && slices.ContainsFunc(p.listeners, func(l listener) bool { return l.hostPort == hostPort }) {
			return p, true
		}
	}
	return nil, false
}

// ChangeCoordinators implements fdb.Client. Each address, IP:port or DNS
// name and port, must resolve to an up process (processAt), a different
// one for each. The connection string keeps the addresses as given and the
// description; the ID changes and a recovery follows. Once the coordinated
// state is lost (CoordinatorStateLost) it fails with ErrUnavailable.
func (s *Sim) ChangeCoordinators(ctx context.Context, addrs []fdb.ProcessAddress) (string, error) {
	if err := s.beginAvailable(ctx, OpCoordinators, errChangeCoordinators); err != nil {
		return "", err
	}
	defer s.mu.Unlock()
	s.tookOn(OpCoordinators, addrs)
	sorted := fdb.SortedAddresses(addrs)
	switch {
	case s.stateLost:
		return "", errors.Wrapf(fdb.ErrUnavailable, "%s: %s", errChangeCoordinators, reasonStateLost)
	case len(addrs) == 0:
		return "", errors.New(errChangeCoordinators + ": " + reasonNoCoordinators)
	case len(sorted) != len(addrs):
		return "", errors.Errorf("%s: %s in %v", errChangeCoordinators, reasonDuplicate, addrs)
	}
	named := map[string]fdb.ProcessAddress{} // process ID: the address naming it
	for _, a := range sorted {
		p, ok := s.processAt(a)
		if !ok {
			return "", errors.Errorf("%s: %s %s", errChangeCoordinators, reasonUnreachable, a)
		}
		if other, dup := named[p.id]; dup {
			return "", errors.Errorf("%s: %s: %s and %s both name process %s", errChangeCoordinators, reasonDuplicate, other, a, p.id)
		}
		named[p.id] = a
	}
	if slices.Equal(sorted, fdb.SortedAddresses(s.conn.Coordinators)) {
		return s.conn.String(), nil
	}
	id := make([]byte, connectionIDLength)
	for i := range id {
		id[i] = connectionIDChars[s.rng.IntN(len(connectionIDChars))]
	}
	s.forwarded = append(s.forwarded, s.conn)
	s.conn = fdb.ConnectionString{Description: s.conn.Description, ID: string(id), Coordinators: sorted}
	s.coordinatorsLost = nil
	s.triggerRecovery()
	s.evaluate()
	return s.conn.String(), nil
}

// SetConnectionString seeds the coordinators, as the provider does when it
// writes the first cluster file. Later changes go through
// ChangeCoordinators.
func (s *Sim) SetConnectionString(cs string) error {
	parsed, err := fdb.ParseConnectionString(cs)
	if err != nil {
		return errors.Wrap(err, errSetConnectionString)
	}
	s.lock()
	defer s.mu.Unlock()
	s.conn = parsed
	s.coordinatorsLost = nil
	for _, id := range s.procIDs {
		// The first cluster file comes before the processes run: what
		// they hold follows it.
		s.procs[id].clusterFile = ""
	}
	s.evaluate()
	return nil
}

// ConnectionString returns the current connection string, empty before
// SetConnectionString.
func (s *Sim) ConnectionString() string {
	s.lock()
	defer s.mu.Unlock()
	if len(s.conn.Coordinators) == 0 {
		return ""
	}
	return s.conn.String()
}

// Created reports whether "configure new" created the database.
func (s *Sim) Created() bool {
	s.lock()
	defer s.mu.Unlock()
	return s.created
}

// Reaches reports whether a client holding the cluster file cs reaches this
// database: cs names the current coordinators, or it named earlier ones of
// which one still runs and forwards the client to the current ones, as
// FoundationDB's coordinators do after a coordinator change.
func (s *Sim) Reaches(cs string) bool {
	parsed, err := fdb.ParseConnectionString(cs)
	if err != nil {
		return false
	}
	s.lock()
	defer s.mu.Unlock()
	if len(s.conn.Coordinators) > 0 && parsed.String() == s.conn.String() {
		return true
	}
	for _, old := range s.forwarded {
		if old.String() != parsed.String() {
			continue
		}
		for _, a := range old.Coordinators {
			if _, up := s.processAt(a); up {
				return true
			}
		}
	}
	return false
}

// SetMovementRate sets the data movement rate in bytes per second; a low
// rate models slow data movement.
func (s *Sim) SetMovementRate(bytesPerSecond int64) error {
	if bytesPerSecond <= 0 {
		return errors.Errorf("%s: rate %d is not positive", errSetMovementRate, bytesPerSecond)
	}
	s.lock()
	defer s.mu.Unlock()
	s.moveRate = bytesPerSecond
	return nil
}

// PartitionCoordinator makes a coordinator unreachable for d.
func (s *Sim) PartitionCoordinator(addr fdb.ProcessAddress, d time.Duration) error {
	s.lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.conn.Coordinators, addr) {
		return errors.Errorf("%s: %s is %s", errPartition, addr, reasonNotCoordinator)
	}
	s.partitions[addr] = s.after(d)
	s.evaluate()
	return nil
}

// Recoveries returns how many recoveries started, the one creating the
// database included.
func (s *Sim) Recoveries() int {
	s.lock()
	defer s.mu.Unlock()
	return s.recoveries
}

// quorum returns the majority of n coordinators.
func quorum(n int) int { return n/2 + 1 }

func (s *Sim) coordinatorReachable(a fdb.ProcessAddress) bool {
	if _, cut := s.partitions[a]; cut {
		return false
	}
	_, ok := s.listening[string(a)]
	return ok
}

func (s *Sim) reachableCoordinators() int {
	n := 0
	for _, c := range s.conn.Coordinators {
		if s.coordinatorReachable(c) {
			n++
		}
	}
	return n
}

func (s *Sim) quorumReachable() bool {
	n := len(s.conn.Coordinators)
	return n > 0 && s.reachableCoordinators() >= quorum(n)
}

func (s *Sim) isCoordinator(p *process) bool {
	return len(s.servedCoordinators(p)) > 0
}

// servedCoordinators returns the coordinators of the connection string,
// in its address form and sorted, that p serves: those naming one of p's
// names, so a coordinator named by DNS name stays on its process when the
// pod's IP changes.
func (s *Sim) servedCoordinators(p *process) []fdb.ProcessAddress {
	var out []fdb.ProcessAddress
	names := p.names()
	for _, c := range s.conn.Coordinators {
		if slices.Contains(names, string(c)) {
			out = append(out, c)
		}
	}
	return fdb.SortedAddresses(out)
}
