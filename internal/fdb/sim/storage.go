package sim

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Storage servers and storage engine migration. Every process that may
// hold data runs a storage server, recruited with the storage engine
// configured at that moment and stamped with its creation time
// (StorageMetadataType, fdbclient/FDBTypes.h at 7.1.67,
// fdbclient/include/fdbclient/FDBTypes.h at 7.3.63). A server keeps both
// while its process restarts; it is removed once it holds no data and its
// process may hold none (excluded, wiggled, of another class), and its disk
// goes with it. A server whose engine is not the configured one is
// wrong-configured: the perpetual wiggle (wiggle.go) replaces it with
// storage_migration_type gradual, removeWrongStoreType with aggressive.

// removeStoreEngineDelay is DD_REMOVE_STORE_ENGINE_DELAY: how long data
// distribution waits, with the configuration it started with, before it
// marks the servers of the wrong engine for removal
// (fdbserver/DDTeamCollection.actor.cpp removeWrongStoreType,
// fdbclient/ServerKnobs.cpp at 7.1.67 and 7.3.63).
const removeStoreEngineDelay = 60 * time.Second

// storeTypeRelease is the release whose storage_engine names the storage
// engine alone, the store type storage servers and changeConfig compare:
// 7.1 names it together with the log engine, so memory-1 and memory-2 are
// one store type (DatabaseConfiguration::toJSON,
// fdbclient/DatabaseConfiguration.cpp at 7.1.67 and 7.3.63).
const storeTypeRelease = "7.3"

// storeType is the storage engine an engine names, as storage servers and
// changeConfig compare them: by its 7.3 name.
func storeType(engine string) string {
	name, _ := engineName(engine, storeTypeRelease)
	return name
}

// storageServer is one storage server a process runs.
type storageServer struct {
	// id is its role ID in the status.
	id string
	// engine is the storage engine it was recruited with, as the
	// configuration named it then.
	engine  string
	created time.Time
	// shards are, on a server marked for removal by an aggressive
	// migration, the shards whose replica on its process it still holds:
	// those not yet copied to the process's new server.
	shards []int
}

// StorageServer is one storage server of the simulated cluster as a test
// sees it: the ground truth of what the status reports in the storage
// roles' storage_metadata, which 7.1 writes without the engine.
type StorageServer struct {
	// ProcessID is the process that runs it (see SetProcessGroups).
	ProcessID string
	// ID is its role ID in the status.
	ID string
	// Engine is its storage engine as cluster.configuration.storage_engine
	// names engines on the release the cluster speaks.
	Engine  string
	Created time.Time
	// Retiring is set on a server an aggressive migration replaces: its
	// data moves to the new server of the same process, then it is
	// removed.
	Retiring bool
	// Wiggled is set while the perpetual wiggle moves the server's data
	// away to replace it.
	Wiggled bool
}

// StorageServers returns the storage servers of the cluster, by process
// ID, the older of a process's two first.
func (s *Sim) StorageServers() []StorageServer {
	s.lock()
	defer s.mu.Unlock()
	var out []StorageServer
	for _, id := range s.procIDs {
		p := s.procs[id]
		for _, srv := range p.storageServers() {
			out = append(out, StorageServer{
				ProcessID: id, ID: srv.id, Engine: s.reportedEngine(srv.engine), Created: srv.created,
				Retiring: srv == p.retiring, Wiggled: p.wiggled,
			})
		}
	}
	return out
}

// storageServers returns the servers p runs, the retiring one first.
func (p *process) storageServers() []*storageServer {
	var out []*storageServer
	for _, srv := range []*storageServer{p.retiring, p.storage} {
		if srv != nil {
			out = append(out, srv)
		}
	}
	return out
}

// wanted reports whether data distribution wants a storage server on p:
// it is up, of a storage class, in a data center that holds data, neither
// excluded nor wiggled.
func (s *Sim) wanted(p *process) bool {
	_, held := s.dataDCOf(p)
	return s.placed && p.up && p.storageClass() && held && !p.drains()
}

// wrongEngine reports whether srv runs neither the configured storage
// engine nor the wiggle's (isCorrectStoreType of either: the servers
// removeWrongStoreType takes, fdbserver/DDTeamCollection.actor.cpp at
// 7.3.63).
func (s *Sim) wrongEngine(srv *storageServer) bool {
	t := storeType(srv.engine)
	return t != storeType(s.config.StorageEngine) && (!s.wiggleEngineSet() || t != storeType(s.config.PerpetualStorageWiggleEngine))
}

// wrongConfigured reports whether srv runs another engine than the
// wiggle's, when one is set, else the configured one: what its storage
// metadata's wrong_configured says and the wiggle takes first
// (updateStorageMetadata, DDTeamCollection.actor.cpp at 7.3.63).
func (s *Sim) wrongConfigured(srv *storageServer) bool {
	want := s.config.StorageEngine
	if s.wiggleEngineSet() {
		want = s.config.PerpetualStorageWiggleEngine
	}
	return storeType(srv.engine) != storeType(want)
}

// wiggleEngineSet reports whether perpetual_storage_wiggle_engine names an
// engine (KeyValueStoreType::isValid).
func (s *Sim) wiggleEngineSet() bool {
	e := s.config.PerpetualStorageWiggleEngine
	return e != "" && e != fdb.WiggleEngineNone
}

// engineFor is the engine a new storage server on p is recruited with: the
// wiggle's under storage_migration_type gradual when p is of the wiggle's
// locality, else the configured one (initializeStorage,
// DDTeamCollection.actor.cpp at 7.3.63).
func (s *Sim) engineFor(p *process) string {
	if s.config.StorageMigrationType == fdb.StorageMigrationGradual && s.wiggleEngineSet() && s.wiggleMatches(p) {
		return s.config.PerpetualStorageWiggleEngine
	}
	return s.config.StorageEngine
}

// recruitStorage gives p a new storage server (engineFor).
func (s *Sim) recruitStorage(p *process) {
	s.servers++
	p.storage = &storageServer{id: roleID(fdb.RoleStorage, p.id, s.servers), engine: s.engineFor(p), created: s.now}
}

// settleStorageServers removes the storage servers that hold no data and
// are not wanted, and recruits one on every process that wants one and
// has none. A retiring server goes once its data is copied.
func (s *Sim) settleStorageServers() {
	current, retiring := s.serverBytes()
	for _, id := range s.procIDs {
		p := s.procs[id]
		if p.retiring != nil && retiring[id] == 0 {
			p.retiring = nil
		}
		if p.storage != nil && p.up && !s.wanted(p) && current[id] == 0 {
			p.storage = nil
		}
		if p.storage == nil && s.wanted(p) {
			s.recruitStorage(p)
		}
	}
}

// dropStorageServers removes the storage servers of the processes ids,
// whose disks are gone.
func (s *Sim) dropStorageServers(ids []string) {
	for _, id := range ids {
		p := s.procs[id]
		p.storage, p.retiring = nil, nil
	}
}

// serverBytes returns the bytes each process holds on its current server
// and on its retiring one.
func (s *Sim) serverBytes() (current, retiring map[string]int64) {
	current, retiring = map[string]int64{}, map[string]int64{}
	for _, sh := range s.shards {
		for _, id := range sh.replicas {
			if s.onRetiring(sh, s.procs[id]) {
				retiring[id] += sh.size
			} else {
				current[id] += sh.size
			}
		}
	}
	return current, retiring
}

// onRetiring reports whether p's replica of sh is still on its retiring
// server.
func (s *Sim) onRetiring(sh *shard, p *process) bool {
	return p.retiring != nil && slices.Contains(p.retiring.shards, sh.id) && slices.Contains(sh.replicas, p.id)
}

// removeWrongStoreTypes marks, under storage_migration_type aggressive,
// every storage server of the wrong engine for removal at once, once
// removeStoreEngineDelay has passed since the configuration changed and
// while the database is healthy (removeWrongStoreType). A process gets a
// new server beside the marked one (at most two a process,
// initializeStorage), to which its data moves (see pickCopy). A process
// that still runs a marked server is left until that one is gone. It
// reports whether it marked any.
func (s *Sim) removeWrongStoreTypes() bool {
	if s.config.StorageMigrationType != fdb.StorageMigrationAggressive || s.now.Before(s.configuredAt.Add(removeStoreEngineDelay)) {
		return false
	}
	var wrong []*process
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.storage != nil && p.retiring == nil && s.wrongEngine(p.storage) {
			wrong = append(wrong, p)
		}
	}
	if len(wrong) == 0 || !s.ddHealthy() {
		return false
	}
	for _, p := range wrong {
		p.retiring, p.storage = p.storage, nil
		for _, sh := range s.shards {
			if slices.Contains(sh.replicas, p.id) {
				p.retiring.shards = append(p.retiring.shards, sh.id)
			}
		}
	}
	return true
}

// aggressiveEvent is when removeWrongStoreTypes may act next: when the
// delay after the last configuration change ends.
func (s *Sim) aggressiveEvent() (time.Time, bool) {
	at := s.configuredAt.Add(removeStoreEngineDelay)
	return at, s.config.StorageMigrationType == fdb.StorageMigrationAggressive && at.After(s.now)
}

// release records that sh landed on p's current server: a copy from its
// retiring server is done, or a stale entry of a shard that left p and
// came back is dropped.
func (p *process) release(sh *shard) {
	if p.retiring != nil {
		p.retiring.shards = slices.DeleteFunc(p.retiring.shards, func(id int) bool { return id == sh.id })
	}
}

// storageMetadata is the storage_metadata of srv's role: its creation time
// and, from 7.2 on, its engine (Status.actor.cpp at 7.1.67 writes only the
// creation time; StorageMetadataType::toJSON at 7.3.63 adds the engine).
func (s *Sim) storageMetadata(srv *storageServer) *fdb.StorageMetadata {
	md := &fdb.StorageMetadata{CreatedTimeTimestamp: float64(srv.created.Unix())}
	if protocolAtLeast(s.protocol, 7, 2) {
		md.StorageEngine = s.reportedEngine(srv.engine)
	}
	return md
}

// wiggleEverywhere is the perpetual_storage_wiggle_locality that matches
// every process.
const wiggleEverywhere = "0"

// wiggleLocalityPattern is what 7.3.18 and later take for
// perpetual_storage_wiggle_locality besides "0": <key>:<value> pairs
// separated by ';' (wiggleLocalityValidation,
// fdbclient/include/fdbclient/FDBTypes.h at 7.3.63).
var wiggleLocalityPattern = regexp.MustCompile(`^\w+:[\w\-.]+(;\w+:[\w\-.]+)*$`)

// wiggleLocalities parses a perpetual_storage_wiggle_locality for a
// cluster that speaks protocol into its key:value pairs, none for "0"; ok
// is false when the release refuses it. 7.1 takes one pair split at the
// first ':' with both sides non-empty (isValidPerpetualStorageWiggleLocality,
// fdbclient/FDBTypes.h at 7.1.67); 7.3 takes wiggleLocalityPattern
// (ParsePerpetualStorageWiggleLocality, fdbclient/FDBTypes.cpp at 7.3.63).
func wiggleLocalities(locality, protocol string) (pairs [][2]string, ok bool) {
	if locality == wiggleEverywhere {
		return nil, true
	}
	list := []string{locality}
	if protocolAtLeast(protocol, 7, 3) {
		if !wiggleLocalityPattern.MatchString(locality) {
			return nil, false
		}
		list = strings.Split(locality, ";")
	}
	for _, kv := range list {
		key, value, _ := strings.Cut(kv, ":")
		if key == "" || value == "" {
			return nil, false
		}
		pairs = append(pairs, [2]string{key, value})
	}
	return pairs, true
}

// wiggleMatches reports whether p is a process the configured
// perpetual_storage_wiggle_locality lets the wiggle take: one of its pairs
// names a locality of p (localityMatchInList).
func (s *Sim) wiggleMatches(p *process) bool {
	pairs, _ := wiggleLocalities(s.config.PerpetualStorageWiggleLocality, s.protocol)
	locality := p.view().Locality
	return len(pairs) == 0 || slices.ContainsFunc(pairs, func(kv [2]string) bool {
		v, known := locality.Get(kv[0])
		return known && v == kv[1]
	})
}

// wiggleOrder orders storage servers as the wiggle takes them: from 7.2 on the
// wrong-configured first (StorageMetadataType::operator<, 7.3.63), then
// the oldest (7.1.67 orders by creation time alone), then by process.
func (s *Sim) wiggleOrder(a, b *process) int {
	if protocolAtLeast(s.protocol, 7, 2) {
		if wa, wb := s.wrongConfigured(a.storage), s.wrongConfigured(b.storage); wa != wb {
			return cmp.Compare(boolInt(wb), boolInt(wa))
		}
	}
	return cmp.Or(a.storage.created.Compare(b.storage.created), cmp.Compare(a.id, b.id))
}
