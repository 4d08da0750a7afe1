package sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Recovery phases, in order; phaseNeverCreated precedes "configure new".
const (
	phaseNeverCreated = iota - 1
	phaseReading
	phaseLocking
	phaseRecruiting
	phaseInitializing
	phaseAcceptingCommits
	phaseAllLogsRecruited
	phaseFullyRecovered
)

// phases names each recovery phase and how many ticks it lasts at least.
var phases = [...]struct {
	name  string
	ticks time.Duration
}{
	phaseReading:          {fdb.RecoveryReadingCoordinatedState, 1},
	phaseLocking:          {fdb.RecoveryLockingCoordinatedState, 1},
	phaseRecruiting:       {fdb.RecoveryRecruitingTransactionServers, 1},
	phaseInitializing:     {fdb.RecoveryInitializingTransactionServers, 1},
	phaseAcceptingCommits: {fdb.RecoveryAcceptingCommits, 2},
	phaseAllLogsRecruited: {fdb.RecoveryAllLogsRecruited, 3},
	phaseFullyRecovered:   {fdb.RecoveryFullyRecovered, 0},
}

// Role counts used when the configuration leaves them at zero.
const (
	defaultLogs          = 3
	defaultCommitProxies = 2
	defaultGrvProxies    = 1
	defaultResolvers     = 1
)

// recovery is the state of the transaction system's recovery.
type recovery struct {
	phase       int
	enteredAt   time.Time // when phase was entered
	startedAt   time.Time // when the latest recovery started
	generations int       // active log generations
	epoch       int64     // number of recoveries started, names role IDs
	oldLogs     []string  // logs of older generations still needed
}

// roleAssignment names the processes serving each transaction-system role.
type roleAssignment struct {
	clusterController string
	master            string
	dataDistributor   string
	ratekeeper        string
	commitProxies     []string
	grvProxies        []string
	resolvers         []string
	logs              []string
}

// each visits every (role, process) pair of the transaction system,
// cluster controller included.
func (r roleAssignment) each(visit func(role, id string)) {
	for _, one := range []struct{ role, id string }{
		{fdb.RoleClusterControl, r.clusterController},
		{fdb.RoleMaster, r.master},
		{fdb.RoleDataDistributor, r.dataDistributor},
		{fdb.RoleRatekeeper, r.ratekeeper},
	} {
		if one.id != "" {
			visit(one.role, one.id)
		}
	}
	for _, many := range []struct {
		role string
		ids  []string
	}{
		{fdb.RoleCommitProxy, r.commitProxies},
		{fdb.RoleGrvProxy, r.grvProxies},
		{fdb.RoleResolver, r.resolvers},
		{fdb.RoleLog, r.logs},
	} {
		for _, id := range many.ids {
			visit(many.role, id)
		}
	}
}

// holds reports whether process id serves any transaction-system role.
func (r roleAssignment) holds(id string) bool {
	found := false
	r.each(func(_, holder string) { found = found || holder == id })
	return found
}

// startFirstRecovery starts the recovery that creates the database.
func (s *Sim) startFirstRecovery() {
	s.created = true
	s.recoveries++
	s.rec = recovery{phase: phaseReading, enteredAt: s.now, startedAt: s.now, generations: 1, epoch: 1}
}

// triggerRecovery starts a new recovery of the transaction system. A
// recovery interrupted before it accepted commits adds no generation.
func (s *Sim) triggerRecovery() {
	if !s.created {
		return
	}
	s.recoveries++
	if s.rec.phase >= phaseAcceptingCommits {
		s.rec.generations++
		old := append(slices.Clone(s.rec.oldLogs), s.roles.logs...)
		slices.Sort(old)
		s.rec.oldLogs = slices.Compact(old)
	}
	s.rec.phase = phaseReading
	s.rec.enteredAt = s.now
	s.rec.startedAt = s.now
	s.rec.epoch++
}

// canLeave reports whether the recovery may leave phase: the coordinated
// state needs a coordinator quorum and recruitment needs enough processes.
func (s *Sim) canLeave(phase int) bool {
	switch phase {
	case phaseReading, phaseLocking:
		return s.quorumReachable()
	case phaseRecruiting:
		_, ok := s.recruit()
		return ok
	case phaseFullyRecovered:
		return false
	}
	return true
}

// recoveryEvent returns when the recovery next changes phase.
func (s *Sim) recoveryEvent() (time.Time, bool) {
	if !s.created || !s.canLeave(s.rec.phase) {
		return time.Time{}, false
	}
	return s.rec.enteredAt.Add(phases[s.rec.phase].ticks * tick), true
}

// stepRecovery moves the recovery to its next phase when due.
func (s *Sim) stepRecovery() {
	for s.created && !s.now.Before(s.rec.enteredAt.Add(phases[s.rec.phase].ticks*tick)) && s.canLeave(s.rec.phase) {
		if s.rec.phase == phaseRecruiting {
			s.roles, _ = s.recruit()
			if !s.placed {
				s.placeData()
			}
		}
		s.rec.phase++
		s.rec.enteredAt = s.now
		if s.rec.phase == phaseFullyRecovered {
			s.rec.generations = 1
			s.rec.oldLogs = nil
		}
	}
}

// checkTransactionSystem elects a cluster controller when the current one
// is gone and starts a recovery when a recruited role is lost.
func (s *Sim) checkTransactionSystem() {
	lost := !s.eligible(s.roles.clusterController)
	if lost {
		s.roles.clusterController = ""
		if order := s.rank(clusterControllerFitness); len(order) > 0 {
			s.roles.clusterController = order[0].id
		}
	}
	if !s.created || s.rec.phase < phaseInitializing {
		return
	}
	s.roles.each(func(_, id string) {
		p := s.procs[id]
		lost = lost || p == nil || !p.up
	})
	if lost {
		s.triggerRecovery()
	}
}

// eligible reports whether process id may serve a role.
func (s *Sim) eligible(id string) bool {
	p, ok := s.procs[id]
	return ok && p.up && !p.excluded
}

// rank returns the up, non-excluded processes ordered by fitness, then ID.
func (s *Sim) rank(fitness func(p *process) int) []*process {
	var out []*process
	for _, p := range s.upProcesses() {
		if !p.excluded {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b *process) int { return cmp.Compare(fitness(a), fitness(b)) })
	return out
}

func logFitness(p *process) int {
	switch p.class {
	case ClassLog, ClassTransaction:
		return 0
	case ClassUnset:
		return 1
	case ClassStorage:
		return 3
	}
	return 2
}

func statelessFitness(p *process) int {
	switch p.class {
	case ClassLog, ClassTransaction:
		return 2
	case ClassUnset:
		return 1
	case ClassStorage:
		return 3
	}
	return 0
}

func clusterControllerFitness(p *process) int {
	if p.class == ClassClusterController {
		return 0
	}
	return statelessFitness(p) + 1
}

// recruit chooses the transaction system; ok is false when the live
// processes cannot satisfy the log replication policy, or cannot hold the
// first copy of the data.
func (s *Sim) recruit() (roleAssignment, bool) {
	logReplicas, err := s.config.RedundancyMode.LogReplicas()
	if err != nil {
		return roleAssignment{}, false
	}
	logs := spread(s.rank(logFitness), max(cmp.Or(s.config.Logs, defaultLogs), logReplicas))
	if zones(logs) < logReplicas {
		return roleAssignment{}, false
	}
	if !s.placed && len(s.storageTargets()) < s.storageReplicas() {
		return roleAssignment{}, false
	}
	stateless := s.rank(statelessFitness)
	if len(stateless) == 0 {
		return roleAssignment{}, false
	}
	// Use the best fit processes only, preferring those without a log.
	fit := func(p *process) int { return 2*statelessFitness(p) + boolInt(slices.Contains(logs, p)) }
	slices.SortStableFunc(stateless, func(a, b *process) int { return cmp.Compare(fit(a), fit(b)) })
	stateless = slices.DeleteFunc(stateless, func(p *process) bool { return fit(p) > fit(stateless[0]) })
	n := 0
	next := func(count int) []string {
		ids := make([]string, count)
		for i := range ids {
			ids[i] = stateless[n%len(stateless)].id
			n++
		}
		return ids
	}
	r := roleAssignment{clusterController: s.roles.clusterController}
	r.master = next(1)[0]
	r.dataDistributor = next(1)[0]
	r.ratekeeper = next(1)[0]
	r.commitProxies = next(cmp.Or(s.config.CommitProxies, defaultCommitProxies))
	r.grvProxies = next(cmp.Or(s.config.GrvProxies, defaultGrvProxies))
	r.resolvers = next(cmp.Or(s.config.Resolvers, defaultResolvers))
	for _, p := range logs {
		r.logs = append(r.logs, p.id)
	}
	slices.Sort(r.logs)
	return r, true
}

// spread picks n processes from candidates in order, one per zone first,
// then filling up from the remaining ones.
func spread(candidates []*process, n int) []*process {
	var out []*process
	used := map[string]bool{}
	for _, p := range candidates {
		if len(out) < n && !used[p.zone] {
			out = append(out, p)
			used[p.zone] = true
		}
	}
	for _, p := range candidates {
		if len(out) < n && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// zones counts the distinct zones of ps.
func zones(ps []*process) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.zone] = true
	}
	return len(seen)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
