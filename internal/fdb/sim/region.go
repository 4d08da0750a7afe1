package sim

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Regions. A database configured with regions (`configure regions=<JSON>`)
// runs its transaction system in its primary data center: the main data
// center of the region of highest priority (at least 0) that can recruit
// it. Each commit is made durable on the primary's logs and, when its
// region has satellites, on satellite logs too. With usable_regions 2 the
// other region's main data center keeps a full copy of the data as well:
// its log routers pull the mutations from the primary's logs, and its
// storage trails the primary's commits by the data center lag. Storage
// teams are formed in each data center that holds data, so every shard has
// a full team in each.
//
// Losing the primary's main data center moves the primary to the other
// region when that region may be primary, can recruit, and the mutations
// its storage lacks are still readable: on a satellite of the old primary,
// or because it is caught up. Otherwise the database stays unavailable
// until the data center returns, or until ForceRecovery recovers it in the
// other region and gives up the mutations that exist nowhere else
// (CommitsLost).
//
// Without regions there is one data center: every process, whatever dcid
// it reports.

const (
	errRegions             = "invalid regions"
	reasonTooManyRegions   = "at most two regions"
	reasonMainDataCenter   = "a region needs exactly one main data center"
	reasonDuplicateDC      = "data center in two regions"
	reasonSatelliteMode    = "unknown satellite_redundancy_mode"
	reasonUsableRegions    = "usable_regions above the number of regions"
	reasonUsableAndPrio    = "usable_regions and region priorities cannot change together"
	reasonUsableOnePrimary = "only one region may have a priority of 0 or more while usable_regions changes"
	reasonNotReplicated    = "the region that keeps the data is not fully replicated"
	reasonStorageOutside   = "a storage process runs in a data center no region names"

	errForceRecovery        = "cannot force a recovery"
	reasonNotMainDataCenter = "not the main data center of a region"
	reasonHoldsNoData       = "its storage holds no data (usable_regions 1)"
	reasonCannotRecruit     = "too few processes to recruit a transaction system in"
)

// satelliteModes are the satellite_redundancy_mode values: how many
// satellite logs receive each commit, in how many satellite data centers.
var satelliteModes = map[string]struct{ replicas, dataCenters int }{
	"one_satellite_single": {1, 1},
	"one_satellite_double": {2, 1},
	"one_satellite_triple": {3, 1},
	"two_satellite_safe":   {4, 2},
	"two_satellite_fast":   {4, 2},
}

// remoteLagTicks is how far the remote region's storage trails the
// primary's commits while its log routers keep up: the versions in
// flight between the regions.
const remoteLagTicks = 1

// catchUpFactor is how much faster than commits arrive the remote region
// applies the mutations it missed while cut off.
const catchUpFactor = 4

// multiRegion reports whether the database is configured with regions.
func (s *Sim) multiRegion() bool { return len(s.config.Regions) > 0 }

// mainDC returns the main data center of r, "" when it has none.
func mainDC(r fdb.Region) fdb.RegionDataCenter {
	dc, _ := r.Main()
	return dc
}

// regionOf returns the region whose main data center is dc.
func (s *Sim) regionOf(dc string) (fdb.Region, bool) {
	for _, r := range s.config.Regions {
		if mainDC(r).ID == dc {
			return r, true
		}
	}
	return fdb.Region{}, false
}

// otherDC returns the main data center of the region whose main data
// center is not dc, "" without one.
func (s *Sim) otherDC(dc string) string {
	for _, r := range s.config.Regions {
		if id := mainDC(r).ID; id != dc {
			return id
		}
	}
	return ""
}

// dataDCs returns the data centers each of which must hold a full team of
// every shard (dataDCsWith the current primary).
func (s *Sim) dataDCs() []string { return s.dataDCsWith(s.primary) }

// dataDCsWith returns the data centers that hold data with primary as the
// primary: "" (every process) without regions; primary, and with
// usable_regions 2 the other region's main data center too.
func (s *Sim) dataDCsWith(primary string) []string {
	if !s.multiRegion() {
		return []string{""}
	}
	out := []string{primary}
	if other := s.otherDC(primary); s.config.UsableRegions > 1 && other != "" {
		out = append(out, other)
	}
	return out
}

// movePrimary makes dc the primary data center. The region that was
// primary becomes the remote one: its storage has every mutation committed
// so far.
func (s *Sim) movePrimary(dc string) {
	if dc == s.primary {
		return
	}
	if s.primary != "" {
		s.remoteVersion = s.committed
	}
	s.primary = dc
}

// inDC reports whether p runs in data center dc ("" is every one).
func inDC(p *process, dc string) bool { return dc == "" || p.dataCenter == dc }

// dataDCOf returns the data center among dataDCs p holds data for; ok is
// false when p is in none (a satellite, a data center no longer used).
func (s *Sim) dataDCOf(p *process) (string, bool) {
	for _, dc := range s.dataDCs() {
		if inDC(p, dc) {
			return dc, true
		}
	}
	return "", false
}

// slot is the locality a team spreads over: the zone (in its data center,
// since zone names may repeat across data centers), or with
// three_data_hall the data hall.
func (s *Sim) slot(p *process) string {
	key := p.zone
	if s.config.RedundancyMode == fdb.RedundancyThreeDataHall {
		key = p.dataHall
	}
	if s.multiRegion() {
		return p.dataCenter + "/" + key
	}
	return key
}

// slots counts the distinct slots of ps.
func (s *Sim) slots(ps []*process) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[s.slot(p)] = true
	}
	return len(seen)
}

// distinctSlots picks up to n processes from candidates in order, each in
// a slot none of the others uses.
func (s *Sim) distinctSlots(candidates []*process, n int) []*process {
	var out []*process
	used := map[string]bool{}
	for _, p := range candidates {
		if len(out) < n && !used[s.slot(p)] {
			out = append(out, p)
			used[s.slot(p)] = true
		}
	}
	return out
}

// validateRegions checks the regions of next, a change from cur, as
// FoundationDB's configure does: two regions at most, each with one main
// data center, no data center in two; usable_regions and priorities do not
// change together, and while usable_regions changes only one region may
// be primary, which must hold a full copy when the other's is dropped;
// every storage process runs in a data center a region names.
func (s *Sim) validateRegions(cur, next fdb.DatabaseConfiguration) error {
	if len(next.Regions) > 2 {
		return errors.Errorf("%s: %s", errRegions, reasonTooManyRegions)
	}
	seen := map[string]bool{}
	for _, r := range next.Regions {
		mains := 0
		for _, dc := range r.DataCenters {
			if seen[dc.ID] {
				return errors.Errorf("%s: %s %q", errRegions, reasonDuplicateDC, dc.ID)
			}
			seen[dc.ID] = true
			if dc.Satellite != 1 {
				mains++
			}
		}
		if mains != 1 {
			return errors.Errorf("%s: %s", errRegions, reasonMainDataCenter)
		}
		if _, ok := satelliteModes[r.SatelliteRedundancyMode]; r.SatelliteRedundancyMode != "" && !ok {
			return errors.Errorf("%s: %s %q", errRegions, reasonSatelliteMode, r.SatelliteRedundancyMode)
		}
	}
	if next.UsableRegions > max(len(next.Regions), 1) {
		return errors.Errorf("%s: %s", errRegions, reasonUsableRegions)
	}
	if next.UsableRegions != cur.UsableRegions && s.created {
		if !slices.Equal(priorities(cur), priorities(next)) && len(cur.Regions) > 0 {
			return errors.Errorf("%s: %s", errRegions, reasonUsableAndPrio)
		}
		primaries := slices.DeleteFunc(slices.Clone(next.Regions), func(r fdb.Region) bool { return mainDC(r).Priority < 0 })
		if len(primaries) > 1 {
			return errors.Errorf("%s: %s", errRegions, reasonUsableOnePrimary)
		}
		if next.UsableRegions < cur.UsableRegions && len(primaries) == 1 && !s.fullyReplicatedIn(mainDC(primaries[0]).ID) {
			return errors.Errorf("%s: %s", errRegions, reasonNotReplicated)
		}
	}
	if len(next.Regions) > 0 {
		for _, p := range s.upProcesses() {
			if p.storageClass() && !seen[p.dataCenter] {
				return errors.Errorf("%s: %s: %s in %q", errRegions, reasonStorageOutside, p.id, p.dataCenter)
			}
		}
	}
	return nil
}

// byPriority returns regions as FoundationDB keeps and reports them: by
// the priority of their main data center, highest first, each with its
// main data center first and its satellites by priority, highest first.
func byPriority(regions []fdb.Region) []fdb.Region {
	return fdb.SortedRegions(regions, func(a, b fdb.RegionDataCenter) int { return cmp.Compare(b.Priority, a.Priority) })
}

// priorities lists the priority of each data center of cfg by ID.
func priorities(cfg fdb.DatabaseConfiguration) []string {
	var out []string
	for _, r := range cfg.Regions {
		for _, dc := range r.DataCenters {
			out = append(out, dc.ID+"="+strconv.Itoa(dc.Priority))
		}
	}
	slices.Sort(out)
	return out
}

// fullyReplicatedIn reports whether every shard has a full team of good
// replicas in data center dc.
func (s *Sim) fullyReplicatedIn(dc string) bool {
	for _, sh := range s.shards {
		if sh.lost || s.deficitIn(s.classify(sh), dc) > 0 {
			return false
		}
	}
	return true
}

// satellitesOf returns the satellite data centers of the region whose main
// data center is dc, sorted, and the mode's replicas; none without.
func (s *Sim) satellitesOf(dc string) ([]string, int) {
	r, ok := s.regionOf(dc)
	mode, known := satelliteModes[r.SatelliteRedundancyMode]
	if !ok || !known {
		return nil, 0
	}
	var out []string
	for _, d := range r.DataCenters {
		if d.Satellite == 1 {
			out = append(out, d.ID)
		}
	}
	slices.Sort(out)
	return out, mode.replicas
}

// primaryCandidates returns the main data centers that may hold the
// primary, best first: those of regions with a priority of 0 or more, by
// priority, then ID.
func (s *Sim) primaryCandidates() []string {
	var rs []fdb.RegionDataCenter
	for _, r := range s.config.Regions {
		if dc := mainDC(r); dc.Priority >= 0 {
			rs = append(rs, dc)
		}
	}
	slices.SortFunc(rs, func(a, b fdb.RegionDataCenter) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.ID, b.ID))
	})
	out := make([]string, len(rs))
	for i, dc := range rs {
		out[i] = dc.ID
	}
	return out
}

// mayMovePrimaryTo reports whether the primary may move to data center dc:
// before the data is placed anywhere may hold it; with usable_regions 2 a
// data center that holds data, once the mutations it lacks are readable
// (on the logs of the old primary or its satellites, or already applied);
// with one usable region only while the current primary runs, so that
// data distribution can copy the data over.
func (s *Sim) mayMovePrimaryTo(dc string) bool {
	switch {
	case !s.placed || dc == s.primary:
		return true
	case s.config.UsableRegions > 1:
		return s.oldGenerationsReadable()
	}
	return s.canRecruitIn(s.primary)
}

// canRecruitIn reports whether data center dc has the processes a
// transaction system needs: logs in as many zones as the log replication
// factor, and a stateless process.
func (s *Sim) canRecruitIn(dc string) bool {
	_, ok := s.recruitIn(dc)
	return ok
}

// choosePrimary returns the main data center to recruit the transaction
// system in: the best candidate that can recruit it and may take the
// primary; the current primary when none can ("" without regions).
func (s *Sim) choosePrimary() string {
	if !s.multiRegion() {
		return ""
	}
	for _, dc := range s.primaryCandidates() {
		if s.canRecruitIn(dc) && s.mayMovePrimaryTo(dc) {
			return dc
		}
	}
	return s.primary
}

// betterPrimaryExists reports whether, the database fully recovered, its
// transaction system belongs in another data center: a region of higher
// priority can take it (a planned failover), or the primary's region lost
// its priority.
func (s *Sim) betterPrimaryExists() bool {
	return s.multiRegion() && s.rec.phase == phaseFullyRecovered && s.choosePrimary() != s.primary
}

// remoteConnected reports whether the remote region receives the
// primary's mutations: usable_regions 2 and a log router runs.
func (s *Sim) remoteConnected() bool {
	return s.config.UsableRegions > 1 && len(s.roles.logRouters) > 0 && s.available()
}

// progressRemote lets the remote region's storage apply ticks of the
// primary's mutations: at catchUpFactor times the commit rate until it
// trails by the versions in flight.
func (s *Sim) progressRemote(ticks int64) {
	if !s.remoteConnected() {
		return
	}
	floor := s.committed - remoteLagTicks*versionsPerTick
	s.remoteVersion = max(s.remoteVersion, min(floor, s.remoteVersion+ticks*catchUpFactor*versionsPerTick))
}

// dataCenterLag is cluster.datacenter_lag: how far the remote region's
// storage trails; zero for one usable region.
func (s *Sim) dataCenterLag() *fdb.DatacenterLag {
	if s.config.UsableRegions < 2 {
		return &fdb.DatacenterLag{}
	}
	v := max(s.committed-s.remoteVersion, 0)
	return &fdb.DatacenterLag{Versions: v, Seconds: float64(v) / versionsPerTick}
}

// ForceRecovery implements fdb.Client as fdbcli's
// force_recovery_with_data_loss does: unless the database already
// recovered, it configures a positive priority for data center dc (the
// main data center of a region whose storage holds data), a negative one
// for every other and usable_regions 1, and recovers in dc. When the
// mutations dc's storage lacks are readable nowhere (the old primary and
// its satellites are down) they are given up: a CommitsLost violation
// names how many versions; the simulator does not model which keys they
// wrote.
func (s *Sim) ForceRecovery(ctx context.Context, dc string) error {
	if err := s.begin(ctx, OpForceRecovery); err != nil {
		return errors.Wrap(err, errForceRecovery)
	}
	defer s.mu.Unlock()
	s.took(OpForceRecovery, dc)
	if _, ok := s.regionOf(dc); !ok || !s.created {
		return errors.Errorf("%s: %s %q", errForceRecovery, reasonNotMainDataCenter, dc)
	}
	if !s.quorumReachable() || s.stateLost {
		return errors.Wrap(fdb.ErrUnavailable, errForceRecovery)
	}
	if s.available() {
		return nil
	}
	if !slices.Contains(s.dataDCs(), dc) {
		return errors.Errorf("%s: %s %q", errForceRecovery, reasonHoldsNoData, dc)
	}
	if !s.canRecruitIn(dc) {
		return errors.Errorf("%s: %s %q", errForceRecovery, reasonCannotRecruit, dc)
	}
	if dc != s.primary && !s.oldGenerationsReadable() && s.remoteVersion < s.committed {
		lost := s.committed - s.remoteVersion
		s.violate(CommitsLost, fmt.Sprintf("a forced recovery in %s gave up %d versions (%.0fs) of committed mutations only %s and its satellites held",
			dc, lost, float64(lost)/versionsPerTick, s.primary))
	}
	for _, g := range s.rec.gens {
		g.dataLost = true // forced past: the recovery waits for none of them
	}
	regions := slices.Clone(s.config.Regions)
	for i, r := range regions {
		r.DataCenters = slices.Clone(r.DataCenters)
		for j := range r.DataCenters {
			if r.DataCenters[j].ID == dc {
				r.DataCenters[j].Priority = 1
			} else {
				r.DataCenters[j].Priority = -1
			}
		}
		regions[i] = r
	}
	s.config.Regions, s.config.UsableRegions = byPriority(regions), 1
	s.movePrimary(dc)
	s.triggerRecovery()
	s.evaluate()
	return nil
}
