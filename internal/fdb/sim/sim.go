// Package sim is a deterministic simulator of one FoundationDB cluster that
// implements fdb.Client. It models process groups (pods) and their
// processes, role recruitment, recoveries and the log generations they
// leave, shards with zone-aware replica placement and data movement,
// storage servers and their engines, storage engine migration and the
// perpetual wiggle, exclusions, coordinators (named by IP or by DNS name)
// and their coordinated state, backups and restores, and injected faults
// of the processes and of the admin interface; it reports the state as
// `status json` and checks invariants, above all that nothing holding
// needed data is removed.
//
// Time comes from an injected clock and advances in whole virtual seconds
// (ticks): every call first catches the model up to the clock, jumping from
// one discrete event to the next and applying continuous progress (data
// movement, snapshot and restore progress) in closed form between them. All
// randomness comes from a seeded PCG source and every collection is visited
// in sorted order, so the same seed, inputs and clock readings produce
// byte-identical status, however often the model is polled in between.
//
// See docs/SIMULATOR.md for the model, its limits and how to drive it.
package sim

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// tick is the simulator's time resolution.
const tick = time.Second

// Forever is a fault duration that never ends.
const Forever = time.Duration(1<<63 - 1)

// Defaults for zero Options fields.
const (
	defaultMovementRate     = 64 << 20
	defaultAgentRate        = 32 << 20
	defaultRestoreBytes     = 1 << 30
	defaultFailureDetection = 60 * time.Second
	minShards               = 16
	shardSpread             = 48
	gib                     = 1 << 30
	maxSeededGiB            = 4
	versionsPerTick         = 1_000_000
)

// Options tune a simulator. The zero value is usable.
type Options struct {
	// Seed makes runs reproducible.
	Seed uint64
	// Shards is the number of shards created by "configure new"; seeded
	// between 16 and 63 when zero.
	Shards int
	// TotalKVBytes is the data size created by "configure new"; seeded
	// between 1 and 4 GiB when zero.
	TotalKVBytes int64
	// MovementRate is the cluster-wide data movement rate in bytes per
	// second (64 MiB/s when zero). SetMovementRate changes it later.
	MovementRate int64
	// FailureDetection is how long a storage process may be down before
	// data distribution re-replicates its data (60 s when zero; rounded up
	// to whole seconds).
	FailureDetection time.Duration
	// AgentRate is the bytes per second one backup agent writes or
	// restores (32 MiB/s when zero).
	AgentRate int64
	// RestoreBytes is the size of every restore (1 GiB when zero): the
	// simulator does not know the content of backup containers.
	RestoreBytes int64
	// RecordAdminCalls keeps every admin call the database takes in
	// (AdminCalls), for a harness that checks them; off, a long-running
	// simulator keeps none.
	RecordAdminCalls bool
}

// Sim simulates one FoundationDB cluster. It is safe for concurrent use.
type Sim struct {
	mu    sync.Mutex
	clock clock.PassiveClock
	rng   *rand.Rand
	opts  Options

	epoch time.Time // clock reading at creation
	now   time.Time // model time: epoch plus whole ticks

	groups map[string]ProcessGroup
	// owned are the groups each owner reported (SetProcessGroupsOf).
	owned   map[string][]ProcessGroup
	procs   map[string]*process
	procIDs []string // sorted keys of procs
	// upByAddress indexes the up processes by each of their names: IP
	// address and, when their pod has one, DNS address.
	upByAddress map[string]*process
	// listening indexes the processes that run and speak the cluster's
	// protocol, up or not, by the same names: they serve as coordinators
	// whether or not they joined the database.
	listening map[string]*process
	conn      fdb.ConnectionString
	// forwarded are the connection strings the coordinators had before:
	// a client holding one is forwarded to the current coordinators while
	// one of its coordinators still runs.
	forwarded []fdb.ConnectionString
	// abandoned are the connection strings given up for new coordinators
	// after their coordinated state was lost (see coordination.go): no
	// process or client reaches the database through one.
	abandoned []fdb.ConnectionString
	protocol  string // major.minor spoken by the cluster

	created    bool
	config     fdb.DatabaseConfiguration
	exclusions []fdb.ProcessAddress // sorted
	version    int64                // commit version

	rec        recovery
	roles      roleAssignment
	recoveries int
	// committed is the last version committed while the database was
	// available.
	committed int64
	// primary is the main data center the transaction system runs in (""
	// without regions); remoteVersion the version the other region's
	// storage has applied (usable_regions 2).
	primary       string
	remoteVersion int64

	shards     []*shard
	placed     bool
	move       *move
	moveRate   int64
	partitions map[fdb.ProcessAddress]time.Time

	clients map[string]client // connected applications by address

	// maintenanceZone is the fault domain under maintenance until
	// maintenanceUntil.
	maintenanceZone  string
	maintenanceUntil time.Time
	// globalLock is the global lock held, nil when none is; lockDenied
	// the deny list (see fdb.Grant).
	globalLock *fdb.GlobalLock
	lockDenied map[string]bool

	agents        int
	backupsPaused bool
	backups       map[string]*backup
	restores      map[string]*restore

	// coordinatorsLost are the coordinators of the connection string
	// whose disk was destroyed; stateLost is set once fewer than a quorum
	// keep the coordinated state, and stays.
	coordinatorsLost []fdb.ProcessAddress
	stateLost        bool

	faults faults
	// creds are the TLS credentials the processes loaded, shared by
	// content.
	creds loaded

	// configuredAt is when the configuration last changed: data
	// distribution starts over with it.
	configuredAt time.Time
	// servers counts the storage servers recruited, to name each anew.
	servers int
	// wigglers are the perpetual storage wiggles by data center ("" without
	// regions), one per data center that held data while the wiggle was on.
	wigglers map[string]*wiggler

	violations []Violation
	quorumLost bool
	// calls are the admin calls the database took in (AdminCalls).
	calls []AdminCall
}

// New returns a simulator whose time follows clk. Nothing runs until the
// caller adds process groups, a connection string and configures the
// database.
func New(clk clock.PassiveClock, opts Options) *Sim {
	if opts.MovementRate <= 0 {
		opts.MovementRate = defaultMovementRate
	}
	if opts.AgentRate <= 0 {
		opts.AgentRate = defaultAgentRate
	}
	if opts.RestoreBytes <= 0 {
		opts.RestoreBytes = defaultRestoreBytes
	}
	if opts.FailureDetection <= 0 {
		opts.FailureDetection = defaultFailureDetection
	}
	// Keep every event on a tick.
	opts.FailureDetection = (opts.FailureDetection + tick - 1) / tick * tick
	now := clk.Now()
	return &Sim{
		clock:       clk,
		rng:         rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		opts:        opts,
		epoch:       now,
		now:         now,
		groups:      map[string]ProcessGroup{},
		procs:       map[string]*process{},
		upByAddress: map[string]*process{},
		listening:   map[string]*process{},
		rec:         recovery{phase: phaseNeverCreated},
		moveRate:    opts.MovementRate,
		partitions:  map[fdb.ProcessAddress]time.Time{},
		backups:     map[string]*backup{},
		restores:    map[string]*restore{},
		faults:      faults{fail: map[Op]injected{}},
		creds:       loaded{},
		wigglers:    map[string]*wiggler{},
	}
}

// begin starts the admin operation op: it fails with ErrTimeout when ctx
// is done, otherwise locks the simulator and catches it up with the clock,
// then fails with the error injected for op (FailNext), if any. On success
// the caller must call s.mu.Unlock.
func (s *Sim) begin(ctx context.Context, op Op) error {
	if err := ctx.Err(); err != nil {
		return errors.Wrap(fdb.ErrTimeout, err.Error())
	}
	s.lock()
	if err := s.injectedFailure(op); err != nil {
		s.mu.Unlock()
		return err
	}
	return nil
}

// lock locks the simulator and catches it up with the clock, for driver
// methods that take no context. The caller must call s.mu.Unlock.
func (s *Sim) lock() {
	s.mu.Lock()
	s.advance()
}

// advance moves the model to the last whole tick not after the clock, one
// discrete event at a time.
func (s *Sim) advance() {
	elapsed := s.clock.Now().Sub(s.epoch)
	target := s.epoch.Add(elapsed - elapsed%tick)
	for s.now.Before(target) {
		next := target
		if e, ok := s.nextEvent(); ok && e.Before(next) {
			next = e
		}
		s.progress(int64(next.Sub(s.now) / tick))
		s.now = next
		s.evaluate()
	}
}

// after returns the tick-aligned time d after now, rounding up; Forever
// stays far in the future.
func (s *Sim) after(d time.Duration) time.Time {
	if d >= Forever-tick {
		return s.now.Add(Forever - Forever%tick)
	}
	ticks := (d + tick - 1) / tick
	return s.now.Add(ticks * tick)
}

// nextEvent returns the earliest time after now at which the model changes
// discretely; ok is false when nothing is scheduled.
func (s *Sim) nextEvent() (time.Time, bool) {
	var next time.Time
	consider := func(t time.Time) {
		if t.After(s.now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, id := range s.procIDs {
		p := s.procs[id]
		consider(p.downUntil)
		if p.running {
			consider(p.tls.nextLook)
		}
		if !p.up {
			consider(p.downSince.Add(s.opts.FailureDetection))
		}
	}
	for _, until := range s.partitions {
		consider(until)
	}
	if t, ok := s.recoveryEvent(); ok {
		consider(t)
	}
	for _, t := range s.backupEvents() {
		consider(t)
	}
	if t, ok := s.moveEvent(); ok {
		consider(t)
	}
	if t, ok := s.aggressiveEvent(); ok {
		consider(t)
	}
	for _, t := range s.wiggleEvents() {
		consider(t)
	}
	return next, !next.IsZero()
}

// progress applies ticks of continuous change between two events.
func (s *Sim) progress(ticks int64) {
	if ticks <= 0 || !s.created {
		return
	}
	s.version += ticks * versionsPerTick
	if s.available() {
		s.committed = s.version
		s.moveData(ticks * s.moveRate)
		s.progressBackups(ticks)
		s.progressRemote(ticks)
	}
}

// evaluate applies the discrete consequences of the current state: process
// restarts, expired faults, failures of the transaction system, recovery
// phases, data distribution decisions, storage server changes and
// invariant checks.
func (s *Sim) evaluate() {
	for addr, until := range s.partitions {
		if !until.After(s.now) {
			delete(s.partitions, addr)
		}
	}
	s.refreshProcesses()
	s.checkTransactionSystem()
	s.stepRecovery()
	s.distributeData()
	for s.migrateStorage() {
		s.distributeData()
	}
	s.completeBackups()
	s.checkQuorum()
}

// migrateStorage advances the perpetual wiggle and the aggressive storage
// migration, then settles the storage servers. It reports whether which
// processes hold or take data changed, for data distribution to act on it
// at once: what follows from a change then happens at the same time
// however often the model is polled.
func (s *Sim) migrateStorage() bool {
	if !s.placed {
		return false
	}
	changed := s.wiggle()
	changed = s.removeWrongStoreTypes() || changed
	s.settleStorageServers()
	return changed
}

// available reports whether the database accepts commits.
func (s *Sim) available() bool {
	return s.created && s.quorumReachable() && s.rec.phase >= phaseAcceptingCommits
}
