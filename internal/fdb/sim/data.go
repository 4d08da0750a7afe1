package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// shard is a key range and where its replicas live.
type shard struct {
	id       int
	size     int64
	replicas []string // process IDs, sorted
	lost     bool     // every replica was destroyed; stays lost
}

// move copies one shard to one destination process: to a process that
// lacks a replica, or from a process's retiring storage server to its
// current one (see storage.go).
type move struct {
	shard     *shard
	dest      string
	remaining int64
}

// replicas classifies the replicas of a shard.
type replicas struct {
	good    []string // up, not excluded nor wiggled, storage class
	live    []string // up, good or not
	waiting []string // down for less than the failure detection time
	bad     []string // excluded, wiggled, of the wrong class, or failed
	// wiggled are the bad replicas that would be good but for the
	// perpetual wiggle.
	wiggled []string
}

// storageReplicas returns the configured replication factor.
func (s *Sim) storageReplicas() int {
	n, err := s.config.RedundancyMode.StorageReplicas()
	if err != nil {
		return 1
	}
	return n
}

// storageTargets returns the processes data may move to, sorted: up,
// neither excluded nor wiggled, of a storage class, in a data center that
// holds data.
func (s *Sim) storageTargets() []*process {
	var out []*process
	for _, p := range s.upProcesses() {
		if _, held := s.dataDCOf(p); held && !p.drains() && p.storageClass() {
			out = append(out, p)
		}
	}
	return out
}

// storageTargetsIn returns the processes of data center dc data may move
// to, sorted.
func (s *Sim) storageTargetsIn(dc string) []*process {
	var out []*process
	for _, p := range s.upProcesses() {
		if inDC(p, dc) && !p.drains() && p.storageClass() {
			out = append(out, p)
		}
	}
	return out
}

// in returns the processes of ids that run in data center dc.
func (s *Sim) in(ids []string, dc string) []*process {
	var out []*process
	for _, id := range ids {
		if p := s.procs[id]; inDC(p, dc) {
			out = append(out, p)
		}
	}
	return out
}

// placeData creates the shards of a new database on random teams, in each
// data center that holds data one in as many distinct zones (data halls,
// with three_data_hall) as the replication factor asks for.
func (s *Sim) placeData() {
	n := s.opts.Shards
	if n <= 0 {
		n = minShards + s.rng.IntN(shardSpread)
	}
	total := s.opts.TotalKVBytes
	if total <= 0 {
		total = int64(1+s.rng.IntN(maxSeededGiB)) * gib
	}
	weights := make([]int64, n)
	var sum int64
	for i := range weights {
		weights[i] = 1 + s.rng.Int64N(100)
		sum += weights[i]
	}
	targets := s.storageTargets()
	left := total
	for i, w := range weights {
		size := total * w / sum
		if i == n-1 {
			size = left
		}
		left -= size
		shuffled := make([]*process, len(targets))
		for j, k := range s.rng.Perm(len(targets)) {
			shuffled[j] = targets[k]
		}
		var team []*process
		for _, dc := range s.dataDCs() {
			team = append(team, s.distinctSlots(slices.DeleteFunc(slices.Clone(shuffled), func(p *process) bool { return !inDC(p, dc) }), s.storageReplicas())...)
		}
		s.shards = append(s.shards, &shard{id: i, size: size, replicas: ids(team)})
	}
	s.placed = true
}

// classify sorts the replicas of sh by health. A replica whose process is
// down waits for it to return for the failure detection time, and as long
// as its zone is under maintenance. A replica outside the data centers
// that hold data is bad.
func (s *Sim) classify(sh *shard) replicas {
	var r replicas
	for _, id := range sh.replicas {
		p := s.procs[id]
		_, held := s.dataDCOf(p)
		switch {
		case p.up && !p.excluded && p.storageClass() && held:
			r.live = append(r.live, id)
			if p.wiggled {
				r.bad, r.wiggled = append(r.bad, id), append(r.wiggled, id)
			} else {
				r.good = append(r.good, id)
			}
		case p.up:
			r.bad = append(r.bad, id)
			r.live = append(r.live, id)
		case !held || s.now.Sub(p.downSince) >= s.opts.FailureDetection && !s.underMaintenance(p.zone):
			r.bad = append(r.bad, id)
		default:
			r.waiting = append(r.waiting, id)
		}
	}
	return r
}

// missing returns how many replicas a shard must gain, over the data
// centers that hold data (deficitIn).
func (s *Sim) missing(r replicas) int {
	n := 0
	for _, dc := range s.dataDCs() {
		n += max(s.deficitIn(r, dc), 0)
	}
	return n
}

// liveSlotsIn counts the slots of the live replicas in data center dc.
func (s *Sim) liveSlotsIn(r replicas, dc string) int {
	return s.slots(s.in(r.live, dc))
}

// degraded reports whether a data center that holds data lacks live
// replicas of a shard in as many slots as the replication factor.
func (s *Sim) degraded(r replicas) bool {
	return slices.ContainsFunc(s.dataDCs(), func(dc string) bool { return s.liveSlotsIn(r, dc) < s.storageReplicas() })
}

// deficitIn returns how many replicas a shard must gain in data center dc:
// good replicas count once per slot (zone, or data hall), as a team of real
// FoundationDB spans distinct ones; a replica waiting for its process
// counts.
func (s *Sim) deficitIn(r replicas, dc string) int {
	return s.storageReplicas() - s.slots(s.in(r.good, dc)) - len(s.in(r.waiting, dc))
}

// normalize drops replicas that are no longer needed once the good ones
// span as many zones as the replication factor in each data center that
// holds data: the bad ones (but the live excluded ones while exclusions are
// stalled), and, when no replica is waiting for its process to return, the
// good ones beyond the most zone-diverse team of each.
func (s *Sim) normalize(sh *shard) {
	r := s.classify(sh)
	rf := s.storageReplicas()
	for _, dc := range s.dataDCs() {
		if s.slots(s.in(r.good, dc)) < rf {
			return
		}
	}
	drop := slices.Clone(r.bad)
	if s.faults.exclusionsStalled {
		drop = slices.DeleteFunc(drop, func(id string) bool { p := s.procs[id]; return p.up && p.excluded })
	}
	if len(r.waiting) == 0 {
		var keep []*process
		for _, dc := range s.dataDCs() {
			keep = append(keep, s.distinctSlots(s.in(r.good, dc), rf)...)
		}
		for _, id := range r.good {
			if !slices.Contains(keep, s.procs[id]) {
				drop = append(drop, id)
			}
		}
	}
	sh.replicas = slices.DeleteFunc(sh.replicas, func(id string) bool { return slices.Contains(drop, id) })
}

// keptSlots returns the slots of the replicas of sh that stay: the good
// ones and those waiting for their process to return. A new replica must
// go elsewhere.
func (s *Sim) keptSlots(sh *shard) map[string]bool {
	r := s.classify(sh)
	used := map[string]bool{}
	for _, id := range append(r.good, r.waiting...) {
		used[s.slot(s.procs[id])] = true
	}
	return used
}

// short reports whether a new replica on p would fill a gap: p's data
// center holds data and the shard lacks replicas there.
func (s *Sim) short(r replicas, p *process) bool {
	dc, held := s.dataDCOf(p)
	return held && s.deficitIn(r, dc) > 0
}

// distributeData applies data distribution decisions that take no time and
// cancels a move that no longer makes sense.
func (s *Sim) distributeData() {
	if !s.placed {
		return
	}
	for _, sh := range s.shards {
		if !sh.lost {
			s.normalize(sh)
		}
	}
	if m := s.move; m != nil && !s.moveValid(m) {
		s.move = nil
	}
	if s.move == nil && s.available() {
		s.move = s.pickMove()
	}
}

// moveValid reports whether m still makes sense: its shard exists and
// either m copies its destination's replica from the retiring storage
// server to the current one, which still wants data, or the shard lacks a
// replica the destination may hold and has a live source.
func (s *Sim) moveValid(m *move) bool {
	dest, ok := s.procs[m.dest]
	switch {
	case !ok || m.shard.lost:
		return false
	case s.onRetiring(m.shard, dest):
		return s.wanted(dest)
	}
	r := s.classify(m.shard)
	return dest.up && !dest.drains() && !slices.Contains(m.shard.replicas, m.dest) &&
		!s.keptSlots(m.shard)[s.slot(dest)] && s.short(r, dest) && len(r.live) > 0
}

// pickMove chooses the next copy: a missing replica first (pickReplica),
// then a replica to take off a retiring storage server (pickCopy), as data
// distribution moves the data of unhealthy teams before that of teams with
// an undesired server.
func (s *Sim) pickMove() *move {
	if m := s.pickReplica(); m != nil {
		return m
	}
	return s.pickCopy()
}

// pickCopy chooses the copy of a replica from a retiring storage server to
// the current server of its process: the first shard of the first process
// that still wants data.
func (s *Sim) pickCopy() *move {
	for _, id := range s.procIDs {
		p := s.procs[id]
		if p.retiring == nil || !s.wanted(p) {
			continue
		}
		for _, sh := range s.shards {
			if s.onRetiring(sh, p) {
				return &move{shard: sh, dest: id, remaining: sh.size}
			}
		}
	}
	return nil
}

// pickReplica chooses the shard with the fewest good replicas that has a
// live source and a destination, to the least loaded storage process in a
// zone none of the shard's kept replicas uses, in a data center where it
// lacks replicas. A shard without such a destination stays
// under-replicated: replicas never double up in a zone.
func (s *Sim) pickReplica() *move {
	type candidate struct {
		sh   *shard
		good int
	}
	var cands []candidate
	for _, sh := range s.shards {
		if sh.lost {
			continue
		}
		if r := s.classify(sh); s.missing(r) > 0 && len(r.live) > 0 {
			cands = append(cands, candidate{sh, len(r.good)})
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(a.good, b.good) })
	if len(cands) == 0 {
		return nil
	}
	load := s.storedBytes()
	targets := s.storageTargets()
	for _, c := range cands {
		used, r := s.keptSlots(c.sh), s.classify(c.sh)
		var dest *process
		for _, p := range targets {
			if slices.Contains(c.sh.replicas, p.id) || used[s.slot(p)] || !s.short(r, p) {
				continue
			}
			if dest == nil || load[p.id] < load[dest.id] {
				dest = p
			}
		}
		if dest != nil {
			return &move{shard: c.sh, dest: dest.id, remaining: c.sh.size}
		}
	}
	return nil
}

// moveData spends budget bytes of data movement, completing moves in order.
func (s *Sim) moveData(budget int64) {
	for budget > 0 {
		if s.move == nil {
			if s.move = s.pickMove(); s.move == nil {
				return
			}
		}
		if budget < s.move.remaining {
			s.move.remaining -= budget
			return
		}
		budget -= s.move.remaining
		s.land(s.move)
		s.move = nil
	}
}

// land completes m: the shard's replica is on the destination's current
// storage server.
func (s *Sim) land(m *move) {
	sh, dest := m.shard, s.procs[m.dest]
	if !slices.Contains(sh.replicas, dest.id) {
		sh.replicas = append(sh.replicas, dest.id)
		slices.Sort(sh.replicas)
	}
	dest.release(sh)
	s.normalize(sh)
}

// moveEvent is when the move in flight completes at the current rate,
// while the database moves data: what follows from a completed move (a
// storage server emptied, a wiggle done) happens then, however seldom the
// model is polled.
func (s *Sim) moveEvent() (time.Time, bool) {
	if s.move == nil || !s.available() {
		return time.Time{}, false
	}
	ticks := (s.move.remaining + s.moveRate - 1) / s.moveRate
	return s.now.Add(time.Duration(ticks) * tick), true
}

// dropReplicas destroys the replicas on the processes selected by gone and
// records one violation for the shards that lost their last replica.
func (s *Sim) dropReplicas(gone func(id string) bool, reason string) {
	var lost []int
	var bytes int64
	destroyed := map[string]bool{}
	for _, sh := range s.shards {
		if sh.lost {
			continue
		}
		had := len(sh.replicas)
		sh.replicas = slices.DeleteFunc(sh.replicas, func(id string) bool {
			destroyed[id] = destroyed[id] || gone(id)
			return gone(id)
		})
		if had > 0 && len(sh.replicas) == 0 {
			sh.lost = true
			lost = append(lost, sh.id)
			bytes += sh.size
		}
	}
	if len(lost) > 0 {
		var on []string
		for id, d := range destroyed {
			if d {
				on = append(on, id)
			}
		}
		slices.Sort(on)
		s.violate(DataLoss, fmt.Sprintf("shards %v (%d bytes) lost their last replica: %s %v", lost, bytes, reason, on))
	}
}

// storedBytes returns the bytes each process holds.
func (s *Sim) storedBytes() map[string]int64 {
	out := map[string]int64{}
	for _, sh := range s.shards {
		for _, id := range sh.replicas {
			out[id] += sh.size
		}
	}
	return out
}

// totalKV returns the bytes of data that still exist.
func (s *Sim) totalKV() int64 {
	var n int64
	for _, sh := range s.shards {
		if !sh.lost {
			n += sh.size
		}
	}
	return n
}
