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

// phases names each recovery phase, describes it as the cluster
// controller does in recovery_state.description (RecoveryStatus in
// fdbserver/Status.actor.cpp, 7.1 and 7.3) and says how many ticks it lasts
// at least.
var phases = [...]struct {
	name, description string
	ticks             time.Duration
}{
	phaseReading: {fdb.RecoveryReadingCoordinatedState,
		"Requesting information from coordination servers. Verify that a majority of coordination server processes are active.", 1},
	phaseLocking: {fdb.RecoveryLockingCoordinatedState,
		"Locking coordination state. Verify that a majority of coordination server processes are active.", 1},
	phaseRecruiting:       {fdb.RecoveryRecruitingTransactionServers, "Recruiting new transaction servers.", 1},
	phaseInitializing:     {fdb.RecoveryInitializingTransactionServers, "Initializing new transaction servers and recovering transaction logs.", 1},
	phaseAcceptingCommits: {fdb.RecoveryAcceptingCommits, "Accepting commits.", 2},
	phaseAllLogsRecruited: {fdb.RecoveryAllLogsRecruited, "Accepting commits. All logs recruited.", 3},
	phaseFullyRecovered:   {fdb.RecoveryFullyRecovered, "Recovery complete.", 0},
}

// neverCreatedDescription describes configuration_never_created.
const neverCreatedDescription = "The coordinator(s) have no record of this database. Either the coordinator addresses are incorrect, " +
	"the coordination state on those machines is missing, or no database has been created."

// Role counts used when the configuration leaves them at zero.
const (
	defaultLogs          = 3
	defaultCommitProxies = 2
	defaultGrvProxies    = 1
	defaultResolvers     = 1
)

// recovery is the state of the transaction system's recovery.
type recovery struct {
	phase     int
	enteredAt time.Time // when phase was entered
	// availableAt is when the latest recovery made the database available
	// (accepting commits); zero until it has. The cluster controller's
	// ClusterRecoveryAvailable event, which a new recovery clears
	// (fdbserver/ClusterRecovery.actor.cpp and ClusterController.actor.cpp,
	// 7.3.63).
	availableAt time.Time
	epoch       int64 // number of recoveries started, names role IDs
	// gens are the log generations whose data is still needed, oldest
	// first. A generation joins when its recovery accepts commits (it is
	// then the current one, the last) and stays until a later recovery is
	// fully recovered.
	gens []*logGeneration
}

// logGeneration is the set of transaction logs one recovery recruited.
type logGeneration struct {
	epoch int64
	logs  []string // process IDs, sorted
	// satellites are the satellite logs of the generation, sorted; each
	// commit reached satelliteReplicas of them.
	satellites        []string
	satelliteReplicas int
	lost              []string // logs and satellite logs whose volume was destroyed while needed, sorted
	// zones are the zones (zoneid) of its logs and satellite logs when
	// recruited, by process ID: each mutation has its replicas on logs of
	// distinct zones.
	zones map[string]string
	// end is the last version committed on the generation, set once a
	// recovery retires it.
	end int64
	// dataLost is set once so many logs are lost that some mutations of
	// the generation no longer exist anywhere (unreadable).
	dataLost bool
}

// unreadable counts the zones of the logs among ids that cannot be read:
// down or wiped.
func (s *Sim) unreadable(g *logGeneration, ids []string) int {
	return g.zonesOf(ids, func(id string) bool {
		p := s.procs[id]
		return p == nil || !p.up || slices.Contains(g.lost, id)
	})
}

// wiped counts the zones of the logs among ids whose volume was destroyed.
func wiped(g *logGeneration, ids []string) int {
	return g.zonesOf(ids, func(id string) bool { return slices.Contains(g.lost, id) })
}

// zonesOf counts the distinct zones of the logs among ids that match;
// a log whose zone is unknown counts as a zone of its own.
func (g *logGeneration) zonesOf(ids []string, match func(id string) bool) int {
	zones := map[string]bool{}
	for _, id := range ids {
		if match(id) {
			zones[cmp.Or(g.zones[id], "log "+id)] = true
		}
	}
	return len(zones)
}

// readable reports whether every mutation of g has a copy that can be
// read, when unavailable counts the zones of the logs that cannot be. Each
// mutation's replicas are on logs in as many distinct zones as the
// replication factor (fdbclient/DatabaseConfiguration.cpp: the log policy
// is PolicyAcross(tLogReplicationFactor, "zoneid", PolicyOne), 7.3.79), so
// one is lost only once logs of that many zones are: fewer zones than the
// log replication factor of its logs, or than the satellite replication of
// its satellite logs, keep a copy of each; or the remote region applied
// them all.
func (s *Sim) readable(g *logGeneration, unavailable func(g *logGeneration, ids []string) int) bool {
	return unavailable(g, g.logs) < s.logReplicas() ||
		len(g.satellites) > 0 && unavailable(g, g.satellites) < g.satelliteReplicas ||
		s.config.UsableRegions > 1 && g.end > 0 && s.remoteVersion >= g.end
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
	// primary is the main data center they run in ("" without regions);
	// satelliteLogs run in its region's satellites, remoteLogs and
	// logRouters in the other region's main data center.
	primary       string
	satelliteLogs []string
	remoteLogs    []string
	logRouters    []string
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
		{fdb.RoleLog, r.satelliteLogs},
		{fdb.RoleLog, r.remoteLogs},
		{fdb.RoleLogRouter, r.logRouters},
	} {
		for _, id := range many.ids {
			visit(many.role, id)
		}
	}
}

// holdsLog reports whether process id serves a log of the current
// generation: primary, satellite or remote.
func (r roleAssignment) holdsLog(id string) bool {
	return slices.Contains(r.logs, id) || slices.Contains(r.satelliteLogs, id) || slices.Contains(r.remoteLogs, id)
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
	s.rec = recovery{phase: phaseReading, enteredAt: s.now, epoch: 1}
}

// triggerRecovery starts a new recovery of the transaction system. The
// generation that accepted commits so far stays needed until the new one
// is fully recovered; a recovery interrupted before it accepted commits
// adds no generation.
func (s *Sim) triggerRecovery() {
	if !s.created {
		return
	}
	s.recoveries++
	s.rec.phase = phaseReading
	s.rec.enteredAt = s.now
	s.rec.availableAt = time.Time{}
	s.rec.epoch++
	if n := len(s.rec.gens); n > 0 && s.rec.gens[n-1].end == 0 {
		s.rec.gens[n-1].end = s.committed
	}
}

// canLeave reports whether the recovery may leave phase: the coordinated
// state needs a coordinator quorum (and to exist), recruitment needs
// enough processes and the end of the recovery needs the data of the
// retired log generations to be readable.
func (s *Sim) canLeave(phase int) bool {
	switch phase {
	case phaseReading, phaseLocking:
		return s.quorumReachable() && !s.stateLost
	case phaseRecruiting:
		_, ok := s.recruit()
		return ok
	case phaseAllLogsRecruited:
		return s.oldGenerationsReadable()
	case phaseFullyRecovered:
		return false
	}
	return true
}

// retiredGenerations returns the needed generations other than the current
// one: all of them until the current recovery accepts commits.
func (s *Sim) retiredGenerations() []*logGeneration {
	if s.rec.phase >= phaseAcceptingCommits && len(s.rec.gens) > 0 {
		return s.rec.gens[:len(s.rec.gens)-1]
	}
	return s.rec.gens
}

// activeGenerations is recovery_state.active_generations: the retired
// generations still needed plus the current one.
func (s *Sim) activeGenerations() int {
	return len(s.retiredGenerations()) + 1
}

// oldGenerationsReadable reports whether the storage servers can consume
// what the retired generations hold: every such generation is readable
// with the logs that are down or wiped, so each mutation has a replica
// left to read. A generation whose data is lost
// cannot hold the recovery up any more: the simulator carries on as if it
// had been forced past it.
func (s *Sim) oldGenerationsReadable() bool {
	for _, g := range s.retiredGenerations() {
		if !g.dataLost && !s.readable(g, s.unreadable) {
			return false
		}
	}
	return true
}

// logReplicas returns the configured log replication factor.
func (s *Sim) logReplicas() int {
	n, err := s.config.RedundancyMode.LogReplicas()
	if err != nil {
		return 1
	}
	return n
}

// recoveryEvent returns when the recovery next changes phase.
func (s *Sim) recoveryEvent() (time.Time, bool) {
	if s.created && s.rec.phase == phaseFullyRecovered && s.now.Before(s.rec.enteredAt.Add(betterLogsDelay)) {
		return s.rec.enteredAt.Add(betterLogsDelay), true
	}
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
			s.movePrimary(s.roles.primary)
			if !s.placed {
				s.placeData()
			}
		}
		s.rec.phase++
		s.rec.enteredAt = s.now
		switch s.rec.phase {
		case phaseAcceptingCommits:
			s.rec.availableAt = s.now
			_, satelliteReplicas := s.satellitesOf(s.primary)
			s.rec.gens = append(s.rec.gens, &logGeneration{epoch: s.rec.epoch, logs: slices.Clone(s.roles.logs),
				satellites: slices.Clone(s.roles.satelliteLogs), satelliteReplicas: satelliteReplicas, zones: s.zonesOfLogs()})
			s.writeCoordinatedState()
		case phaseFullyRecovered:
			s.rec.gens = s.rec.gens[len(s.rec.gens)-1:]
		}
	}
}

// zonesOfLogs are the zones of the current logs and satellite logs, by
// process ID.
func (s *Sim) zonesOfLogs() map[string]string {
	out := map[string]string{}
	for _, id := range slices.Concat(s.roles.logs, s.roles.satelliteLogs) {
		if p := s.procs[id]; p != nil {
			out[id] = p.zone
		}
	}
	return out
}

// writeCoordinatedState is the recovery's write of the new core state
// before it accepts commits: FoundationDB sends it to every coordinator and
// waits for a quorum, so each coordinator it reaches holds the state again,
// one whose disk was lost included.
func (s *Sim) writeCoordinatedState() {
	s.coordinatorsLost = slices.DeleteFunc(s.coordinatorsLost, s.coordinatorReachable)
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
	if lost || s.betterLogsExist() || s.betterPrimaryExists() {
		s.triggerRecovery()
	}
}

// betterLogsDelay is how long the database stays fully recovered before
// the cluster controller re-recruits logs onto better-fit processes.
const betterLogsDelay = time.Minute

// betterLogsExist reports whether, betterLogsDelay after the database was
// fully recovered, its transaction logs could sit on better-fit processes
// than they do (a log on a stateless process recruited while log processes
// were missing, and log processes are back), or the remote region, which
// had none when the database recovered (its data center was down), can
// have its log routers again: FoundationDB's cluster controller then
// starts a recovery to recruit them, which also frees the worse-fit
// processes of the log data they kept. Without it a remote region back
// from an outage would never catch up.
func (s *Sim) betterLogsExist() bool {
	if s.rec.phase != phaseFullyRecovered || s.now.Before(s.rec.enteredAt.Add(betterLogsDelay)) {
		return false
	}
	now, ok := s.recruit()
	return ok && (s.worstLogFitness(now.logs) < s.worstLogFitness(s.roles.logs) || len(s.roles.logRouters) == 0 && len(now.logRouters) > 0)
}

// worstLogFitness is the worst log fitness among processes ids.
func (s *Sim) worstLogFitness(ids []string) int {
	worst := 0
	for _, id := range ids {
		if p := s.procs[id]; p != nil {
			worst = max(worst, logFitness(p))
		}
	}
	return worst
}

// eligible reports whether process id may serve a role.
func (s *Sim) eligible(id string) bool {
	p, ok := s.procs[id]
	return ok && p.up && !p.excluded
}

// rank returns the up, non-excluded processes ordered by fitness, then ID,
// without those the role is never assigned to.
func (s *Sim) rank(fitness func(p *process) int) []*process {
	var out []*process
	for _, p := range s.upProcesses() {
		if !p.excluded && fitness(p) < neverAssign {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b *process) int { return cmp.Compare(fitness(a), fitness(b)) })
	return out
}

// logFitness is how well p fits a transaction log (fitness, roleLog):
// stateless and the other role classes never take one.
func logFitness(p *process) int { return fitness(roleLog, p.class) }

// clusterControllerFitness is how well p fits the cluster controller.
func clusterControllerFitness(p *process) int { return fitness(roleClusterController, p.class) }

// recruit chooses the transaction system in the primary data center
// (choosePrimary), with satellite logs in its region's satellites and, with
// usable_regions 2, remote logs and log routers in the other region; ok is
// false when the primary cannot recruit it.
func (s *Sim) recruit() (roleAssignment, bool) {
	dc := s.choosePrimary()
	r, ok := s.recruitIn(dc)
	if !ok || !s.multiRegion() {
		return r, ok
	}
	if satellites, replicas := s.satellitesOf(dc); replicas > 0 {
		var candidates []*process
		for _, p := range s.rank(logFitness) {
			if slices.Contains(satellites, p.dataCenter) {
				candidates = append(candidates, p)
			}
		}
		// Without enough satellite logs the database falls back to
		// committing in the primary alone.
		if logs := spread(candidates, max(s.satelliteLogsOf(dc), replicas)); zones(logs) >= replicas {
			r.satelliteLogs = ids(logs)
		}
	}
	if remote := s.otherDC(dc); s.config.UsableRegions > 1 && remote != "" {
		var candidates []*process
		for _, p := range s.rank(logFitness) {
			if inDC(p, remote) {
				candidates = append(candidates, p)
			}
		}
		n := cmp.Or(s.config.RemoteLogs, cmp.Or(s.config.Logs, defaultLogs))
		r.remoteLogs = ids(spread(candidates, n))
		r.logRouters = ids(spread(candidates, cmp.Or(s.config.LogRouters, n)))
	}
	return r, true
}

// satelliteLogsOf is the number of satellite logs the region of main data
// center dc asks for (0 when it leaves it to the mode).
func (s *Sim) satelliteLogsOf(dc string) int {
	r, _ := s.regionOf(dc)
	n := r.SatelliteLogs
	for _, d := range r.DataCenters {
		n = max(n, d.SatelliteLogs)
	}
	return n
}

// ids returns the sorted IDs of ps.
func ids(ps []*process) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.id
	}
	slices.Sort(out)
	return out
}

// recruitIn chooses a transaction system among the processes of data
// center dc ("" is every one); ok is false when they cannot satisfy the log
// replication policy, or the data centers that hold data cannot hold the
// first copy of it.
func (s *Sim) recruitIn(dc string) (roleAssignment, bool) {
	logReplicas, err := s.config.RedundancyMode.LogReplicas()
	if err != nil {
		return roleAssignment{}, false
	}
	logs := s.chooseLogs(s.logCandidates(dc), max(cmp.Or(s.config.Logs, defaultLogs), logReplicas))
	if !s.logPolicyMet(logs, logReplicas) {
		return roleAssignment{}, false
	}
	if !s.placed {
		for _, d := range s.dataDCsWith(dc) {
			if s.slots(s.storageTargetsIn(d)) < s.storageReplicas() {
				return roleAssignment{}, false
			}
		}
	}
	candidates := slices.DeleteFunc(s.upProcesses(), func(p *process) bool { return p.excluded || !inDC(p, dc) })
	// Each role goes to the process that fits it best, fewest roles of
	// this recruitment first (a log counts), then by ID, as the cluster
	// controller's getWorkerForRoleInDatacenter picks by fitness, then use
	// (fdbserver/include/fdbserver/ClusterController.actor.h, 7.3.79).
	used := map[string]int{}
	for _, l := range logs {
		used[l.id]++
	}
	var short bool
	next := func(ro role, count int) []string {
		out := make([]string, count)
		for i := range out {
			best := -1
			for j, p := range candidates {
				f := fitness(ro, p.class)
				if f >= neverAssign {
					continue
				}
				if b := best; b < 0 || f < fitness(ro, candidates[b].class) || f == fitness(ro, candidates[b].class) && used[p.id] < used[candidates[b].id] {
					best = j
				}
			}
			if best < 0 {
				short = true
				return nil
			}
			out[i] = candidates[best].id
			used[out[i]]++
		}
		return out
	}
	r := roleAssignment{clusterController: s.roles.clusterController, primary: dc}
	master := next(roleMaster, 1)
	dd := next(roleDataDistributor, 1)
	rk := next(roleRatekeeper, 1)
	r.commitProxies = next(roleCommitProxy, cmp.Or(s.config.CommitProxies, defaultCommitProxies))
	r.grvProxies = next(roleGrvProxy, cmp.Or(s.config.GrvProxies, defaultGrvProxies))
	r.resolvers = next(roleResolver, cmp.Or(s.config.Resolvers, defaultResolvers))
	if short {
		return roleAssignment{}, false
	}
	r.master, r.dataDistributor, r.ratekeeper = master[0], dd[0], rk[0]
	r.logs = ids(logs)
	return r, true
}

// logCandidates are the processes of data center dc ranked by log
// fitness.
func (s *Sim) logCandidates(dc string) []*process {
	return slices.DeleteFunc(s.rank(logFitness), func(p *process) bool { return !inDC(p, dc) })
}

// chooseLogs picks n logs from candidates in order, spread over zones; with
// three_data_hall two in distinct zones of each of the first two data
// halls that have them first, as its log policy wants (two halls, two
// zones in each; zone names count within their hall).
func (s *Sim) chooseLogs(candidates []*process, n int) []*process {
	if s.config.RedundancyMode != fdb.RedundancyThreeDataHall {
		return spread(candidates, n)
	}
	var halls []string
	byHall := map[string][]*process{}
	for _, p := range candidates {
		if _, seen := byHall[p.dataHall]; !seen {
			halls = append(halls, p.dataHall)
		}
		byHall[p.dataHall] = append(byHall[p.dataHall], p)
	}
	var out []*process
	for _, h := range halls {
		if pair := distinctZones(byHall[h], 2); len(pair) == 2 && len(out) < 4 {
			out = append(out, pair...)
		}
	}
	for _, p := range candidates {
		if len(out) < n && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// logPolicyMet reports whether logs satisfy the log replication policy: as
// many zones as replicas; with three_data_hall two zones in each of two
// data halls.
func (s *Sim) logPolicyMet(logs []*process, replicas int) bool {
	if s.config.RedundancyMode != fdb.RedundancyThreeDataHall {
		return zones(logs) >= replicas
	}
	zonesIn := map[string]map[string]bool{}
	for _, p := range logs {
		if zonesIn[p.dataHall] == nil {
			zonesIn[p.dataHall] = map[string]bool{}
		}
		zonesIn[p.dataHall][p.zone] = true
	}
	halls := 0
	for _, z := range zonesIn {
		if len(z) >= 2 {
			halls++
		}
	}
	return halls >= 2
}

// distinctZones picks up to n processes from candidates in order, each in
// a zone none of the others uses.
func distinctZones(candidates []*process, n int) []*process {
	var out []*process
	used := map[string]bool{}
	for _, p := range candidates {
		if len(out) < n && !used[p.zone] {
			out = append(out, p)
			used[p.zone] = true
		}
	}
	return out
}

// spread picks n processes from candidates in order, one per zone first,
// then filling up from the remaining ones: logs may share a zone once the
// replication policy is met.
func spread(candidates []*process, n int) []*process {
	out := distinctZones(candidates, n)
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
