package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// The perpetual storage wiggle (perpetual_storage_wiggle=1): data
// distribution takes one storage server at a time, excludes it for the
// wiggle, waits until its data moved away, removes it and includes its
// process again, where a new server with the configured engine is
// recruited; then it rests before the next. It runs one wiggler per team
// collection, that is per data center that holds data
// (fdbserver/DDTeamCollection.actor.cpp perpetualStorageWiggler,
// perpetualStorageWiggleIterator, perpetualStorageWiggleRest at 7.1.67 and
// 7.3.63). With storage_migration_type gradual it is how storage servers of
// another engine are replaced.

const (
	// perpetualWiggleDelay is PERPETUAL_WIGGLE_DELAY: the rest before
	// each wiggle, the first one included (waitPerpetualWiggleDelay).
	perpetualWiggleDelay = 60 * time.Second
	// wiggleMinAge is DD_STORAGE_WIGGLE_MIN_SS_AGE_SEC: from 7.2 on, a
	// server of the configured engine is wiggled once older than this
	// (StorageWiggler::necessary, fdbserver/DataDistribution.actor.cpp,
	// 7.3.63).
	wiggleMinAge = 35 * 24 * time.Hour
	// wigglePauseThreshold is DD_STORAGE_WIGGLE_PAUSE_THRESHOLD: a
	// wiggle pauses while as many relocations of unhealthy teams wait
	// (clusterHealthCheckForPerpetualWiggle).
	wigglePauseThreshold = 10
)

// The wiggle states 7.2 and later report (StorageWiggler::getWiggleStateStr,
// fdbserver/include/fdbserver/DataDistribution.actor.h, 7.3.63).
const (
	wiggleUnknown = "unknown"
	wiggleRunning = "running"
	wigglePaused  = "paused"
)

// The data distribution state while the wiggle's relocations are the most
// urgent: 7.3 names them (Status.actor.cpp, 7.3.63); 7.1 ranks
// PRIORITY_PERPETUAL_STORAGE_WIGGLE below PRIORITY_TEAM_HEALTHY and reports
// them as rebalancing (Status.actor.cpp, fdbclient/ServerKnobs.cpp, 7.1.67).
const (
	dataHealthyPerpetualWiggle = "healthy_perpetual_wiggle"
	dataHealthyRebalancing     = "healthy_rebalancing"
)

// wiggler is the perpetual wiggle of the storage servers of one data
// center.
type wiggler struct {
	// on is set while perpetual_storage_wiggle is 1.
	on bool
	// restUntil ends the rest before the next wiggle.
	restUntil time.Time
	// target is the process chosen to wiggle, "" between two wiggles.
	target string
	// started is when the wiggle of target last started.
	started time.Time
	// state is what 7.2 and later report.
	state string
	// The metrics the status reports (StorageWiggleMetrics,
	// fdbclient/include/fdbclient/StorageWiggleMetrics.actor.h, 7.3.63).
	finished, rounds        int
	roundStart, roundFinish time.Time
	// lastDuration is the last wiggle's: what smoothed_wiggle_seconds
	// shows, the smoother's total as the status reads it back from the
	// database (StorageWiggleMetrics::serialize resets the smoother to
	// it).
	lastDuration time.Duration
}

// wiggleOn reports whether perpetual_storage_wiggle is 1.
func (s *Sim) wiggleOn() bool {
	return s.created && *s.config.PerpetualStorageWiggle == 1
}

// wiggle advances the wiggler of every data center that holds data, and
// stops the others; it reports whether a process started or stopped
// draining or a storage server was removed.
func (s *Sim) wiggle() bool {
	dcs := s.dataDCs()
	if s.wiggleOn() {
		for _, dc := range dcs {
			if s.wigglers[dc] == nil {
				s.wigglers[dc] = &wiggler{state: wiggleUnknown}
			}
		}
	}
	changed := false
	for _, dc := range slices.Sorted(maps.Keys(s.wigglers)) {
		w := s.wigglers[dc]
		switch active := s.wiggleOn() && slices.Contains(dcs, dc); {
		case active && !w.on:
			w.on, w.restUntil = true, s.now.Add(perpetualWiggleDelay)
		case active:
			changed = s.stepWiggler(dc, w) || changed
		case w.on:
			changed = s.stopWiggler(w) || changed
		}
	}
	return changed
}

// stopWiggler stops w as `configure perpetual_storage_wiggle=0` does: its
// server is included again and its metrics are reset
// (StorageWiggler::resetStats), but for the smoother. It reports whether a
// process stopped draining.
func (s *Sim) stopWiggler(w *wiggler) bool {
	p := s.procs[w.target]
	*w = wiggler{state: w.state, lastDuration: w.lastDuration}
	if p == nil || !p.wiggled {
		return false
	}
	p.wiggled = false
	return true
}

// stepWiggler advances w, the wiggler of data center dc: after its rest it
// chooses the next server, unless the data center has too few to place
// the data elsewhere, and then drives that server's wiggle.
func (s *Sim) stepWiggler(dc string, w *wiggler) bool {
	switch {
	case w.target != "":
		return s.stepWiggle(dc, w)
	case s.now.Before(w.restUntil):
		return false
	case s.tooFewToWiggle(dc):
		w.restUntil, w.state = s.now.Add(perpetualWiggleDelay), wigglePaused
		return false
	}
	p, ok := s.nextToWiggle(dc)
	if !ok {
		return false
	}
	w.target = p.id
	return s.stepWiggle(dc, w)
}

// stepWiggle drives the wiggle of w's target. It starts while data
// distribution is healthy (waitUntilHealthy): the process is excluded for
// the wiggle, which the exclusion list does not show, and its data moves
// away. It pauses, the process included again, while the database is
// unavailable or too many shards lack replicas; it resumes once healthy.
// It is done once the process holds no data: its storage server is
// removed and the process takes a new one (settleStorageServers).
func (s *Sim) stepWiggle(dc string, w *wiggler) bool {
	p, ok := s.procs[w.target]
	switch {
	case !ok: // the process and its server are gone
		w.target, w.restUntil = "", s.now.Add(perpetualWiggleDelay)
		return false
	case p.wiggled && !s.holdsData(p):
		s.finishWiggle(dc, w, p)
	case p.wiggled && s.wigglePaused():
		p.wiggled, w.state = false, wigglePaused
	case !p.wiggled && s.ddHealthy():
		s.startWiggle(dc, w, p)
	default:
		return false
	}
	return true
}

// startWiggle excludes p for w's wiggle and starts a round when none is
// open (StorageWiggler::startWiggle). Another process of dc wiggled at the
// same time is a ConcurrentWiggles violation.
func (s *Sim) startWiggle(dc string, w *wiggler, p *process) {
	for _, id := range s.procIDs {
		if q := s.procs[id]; q.wiggled && inDC(q, dc) {
			s.violate(ConcurrentWiggles, fmt.Sprintf("processes %s and %s wiggled at once in data center %q", q.id, p.id, dc))
		}
	}
	p.wiggled, w.started, w.state = true, s.now, wiggleRunning
	if !w.roundFinish.Before(w.roundStart) {
		w.roundStart = s.now
	}
}

// finishWiggle removes the storage server of p, whose data moved away, and
// counts the wiggle and, when every server of the round is done, the round
// (StorageWiggler::finishWiggle); the next wiggle comes after a rest.
func (s *Sim) finishWiggle(dc string, w *wiggler, p *process) {
	p.wiggled, p.storage, p.retiring = false, nil, nil
	w.finished++
	w.lastDuration = s.now.Sub(w.started)
	if queue := s.wiggleQueue(dc); len(queue) == 0 || !queue[0].storage.created.Before(w.roundStart) {
		w.rounds++
		w.roundFinish = s.now
	}
	w.target, w.restUntil = "", s.now.Add(perpetualWiggleDelay)
}

// holdsData reports whether a shard has a replica on p.
func (s *Sim) holdsData(p *process) bool {
	return slices.ContainsFunc(s.shards, func(sh *shard) bool { return slices.Contains(sh.replicas, p.id) })
}

// wiggleQueue returns the processes of data center dc whose storage server
// the wiggle may take, in the order it takes them (wiggleOrder): those the
// configured locality matches, not excluded, up or down.
func (s *Sim) wiggleQueue(dc string) []*process {
	var out []*process
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.storage != nil && inDC(p, dc) && !p.excluded && s.wiggleMatches(p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, s.wiggleOrder)
	return out
}

// nextToWiggle returns the first process of the wiggle queue of dc when
// its server needs a wiggle (necessary).
func (s *Sim) nextToWiggle(dc string) (*process, bool) {
	queue := s.wiggleQueue(dc)
	if len(queue) == 0 || !s.necessary(queue[0].storage) {
		return nil, false
	}
	return queue[0], true
}

// necessary reports whether srv needs a wiggle: before 7.2 every server
// does, round after round; from 7.2 on a wrong-configured one
// (wrongConfigured), or one older than wiggleMinAge (getNextServerId with
// necessaryOnly, as no testing storage server is configured).
func (s *Sim) necessary(srv *storageServer) bool {
	return !protocolAtLeast(s.protocol, 7, 2) || s.wrongConfigured(srv) || s.now.Sub(srv.created) > wiggleMinAge
}

// tooFewToWiggle reports whether data center dc has no more storage
// servers than a team, or fewer machines: the wiggled server's data would
// have nowhere to go, and the wiggler rests again (perpetualStorageWiggleRest).
func (s *Sim) tooFewToWiggle(dc string) bool {
	servers, machines := 0, map[string]bool{}
	for _, id := range s.procIDs {
		if p := s.procs[id]; inDC(p, dc) && len(p.storageServers()) > 0 {
			servers += len(p.storageServers())
			machines[p.machine] = true
		}
	}
	return servers <= s.storageReplicas() || len(machines) < s.storageReplicas()
}

// ddHealthy reports whether data distribution is healthy enough to start
// a wiggle or remove servers of the wrong engine (waitUntilHealthy): the
// database is available and no shard lacks live replicas.
func (s *Sim) ddHealthy() bool {
	return s.available() && s.unhealthyShards() == 0
}

// wigglePaused reports whether a running wiggle pauses: the database is
// unavailable, or wigglePauseThreshold shards lack live replicas.
func (s *Sim) wigglePaused() bool {
	return !s.available() || s.unhealthyShards() >= wigglePauseThreshold
}

// unhealthyShards counts the shards lost or short of live replicas in a
// data center: those data distribution relocates as unhealthy teams. A
// wiggled or excluded replica is live.
func (s *Sim) unhealthyShards() int {
	n := 0
	for _, sh := range s.shards {
		if sh.lost || s.degraded(s.classify(sh)) {
			n++
		}
	}
	return n
}

// wiggleEvents are the times a wiggler next acts without a call: its rest
// ends, or, from 7.2 on, the oldest server it may take comes of age.
func (s *Sim) wiggleEvents() []time.Time {
	var out []time.Time
	for _, dc := range slices.Sorted(maps.Keys(s.wigglers)) {
		switch w := s.wigglers[dc]; {
		case !w.on || w.target != "":
		case s.now.Before(w.restUntil):
			out = append(out, w.restUntil)
		case protocolAtLeast(s.protocol, 7, 2):
			if queue := s.wiggleQueue(dc); len(queue) > 0 {
				out = append(out, queue[0].storage.created.Add(wiggleMinAge+tick))
			}
		}
	}
	return out
}

// wigglerStatus is cluster.storage_wiggler: written while
// perpetual_storage_wiggle is 1, with the primary's metrics and, with two
// data centers that hold data, the remote's, and the addresses of the
// servers chosen to wiggle (Status.actor.cpp at 7.1.67 and 7.3.63).
func (s *Sim) wigglerStatus() *fdb.StorageWiggler {
	if !s.wiggleOn() {
		return nil
	}
	out := &fdb.StorageWiggler{}
	for i, dc := range s.dataDCs() {
		w := s.wigglers[dc]
		if w == nil {
			w = &wiggler{state: wiggleUnknown}
		}
		m := &fdb.WiggleMetrics{FinishedWiggle: w.finished, FinishedRound: w.rounds, SmoothedWiggleSeconds: w.lastDuration.Seconds()}
		if protocolAtLeast(s.protocol, 7, 2) {
			m.State = w.state
		}
		if i == 0 {
			out.Primary = m
		} else {
			out.Remote = m
		}
		if p := s.procs[w.target]; p != nil {
			out.WiggleServerAddresses = append(out.WiggleServerAddresses, s.statusAddress(p))
		}
	}
	slices.Sort(out.WiggleServerAddresses)
	return out
}

// wiggleDataState is the data distribution state while the wiggle's
// relocations are the most urgent.
func (s *Sim) wiggleDataState() string {
	if protocolAtLeast(s.protocol, 7, 3) {
		return dataHealthyPerpetualWiggle
	}
	return dataHealthyRebalancing
}
