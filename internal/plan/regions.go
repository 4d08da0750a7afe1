package plan

import (
	"cmp"
	"slices"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// RegionChange is the next legal change of a database's region
// configuration toward the one wanted.
type RegionChange struct {
	// Regions and UsableRegions to configure.
	Regions       []fdb.Region
	UsableRegions int
	// Why says what the change is for.
	Why string
	// From and To are the primary data center before and after, when the
	// change moves the primary (a failover); both "" otherwise.
	From, To string
}

// NextRegionChange returns the next change that takes the running
// configuration toward want (regions) and wantUsable, one that
// FoundationDB's configure accepts, or nil when there is none to make.
// primary is the data center the transaction system runs in now. The
// order is the one FoundationDB's documentation and the operator follow:
// first the regions, with one usable region and every region but the
// primary's at priority -1; then, while only one region may be primary,
// usable_regions; then the priorities wanted, which may move the primary
// (From, To). usable_regions and priorities never change in one step.
func NextRegionChange(running fdb.DatabaseConfiguration, want []fdb.Region, wantUsable int, primary string) *RegionChange {
	if len(want) == 0 {
		return nil
	}
	wantUsable = max(wantUsable, 1)
	usable := max(running.UsableRegions, 1)
	if len(running.Regions) == 0 {
		keep := cmp.Or(primary, MainDataCenter(want))
		return &RegionChange{Regions: onlyPrimary(want, keep), UsableRegions: 1, Why: "configure the regions with one usable region, " + keep + " the primary"}
	}
	if usable != wantUsable {
		if only := onlyPrimary(running.Regions, primary); !samePriorities(only, running.Regions) {
			return &RegionChange{Regions: only, UsableRegions: usable, Why: "give only " + primary + "'s region a priority of 0 or more before usable_regions changes"}
		}
		return &RegionChange{Regions: running.Regions, UsableRegions: wantUsable, Why: "usable_regions " + itoa(usable) + " to " + itoa(wantUsable)}
	}
	if slices.EqualFunc(canonical(running.Regions), canonical(want), sameRegion) {
		return nil
	}
	c := &RegionChange{Regions: want, UsableRegions: usable, Why: "the regions the spec asks for"}
	if to := MainDataCenter(want); primary != "" && to != primary {
		c.From, c.To, c.Why = primary, to, "move the primary from "+primary+" to "+to
	}
	return c
}

// MainDataCenter is the main data center of the region of highest
// priority (0 or more), the one FoundationDB makes the primary when it
// can; "" when none may be.
func MainDataCenter(regions []fdb.Region) string {
	best, at := "", -1
	for _, r := range regions {
		if dc, ok := r.Main(); ok && dc.Priority > at {
			best, at = dc.ID, dc.Priority
		}
	}
	return best
}

// onlyPrimary returns regions with every main data center but primary's
// at priority -1 (satellites keep theirs).
func onlyPrimary(regions []fdb.Region, primary string) []fdb.Region {
	out := make([]fdb.Region, len(regions))
	for i, r := range regions {
		r.DataCenters = slices.Clone(r.DataCenters)
		for j, dc := range r.DataCenters {
			if dc.Satellite != 1 && dc.ID != primary {
				r.DataCenters[j].Priority = -1
			}
		}
		out[i] = r
	}
	return out
}

// samePriorities reports whether a and b give every data center the same
// priority.
func samePriorities(a, b []fdb.Region) bool {
	return slices.EqualFunc(a, b, func(x, y fdb.Region) bool {
		return slices.EqualFunc(x.DataCenters, y.DataCenters, func(p, q fdb.RegionDataCenter) bool { return p.ID == q.ID && p.Priority == q.Priority })
	})
}

// canonical returns regions in one order whatever order they were given
// or reported in (FoundationDB lists them by priority): by main data
// center, each with its main data center first and its satellites by ID.
func canonical(regions []fdb.Region) []fdb.Region {
	return fdb.SortedRegions(regions, func(a, b fdb.RegionDataCenter) int { return cmp.Compare(a.ID, b.ID) })
}

// sameRegion reports whether two regions (canonical) are configured alike:
// the same data centers with the same priorities and roles, and
// the same satellite settings (0 and "" being FoundationDB's defaults).
func sameRegion(a, b fdb.Region) bool {
	return slices.Equal(a.DataCenters, b.DataCenters) && a.SatelliteRedundancyMode == b.SatelliteRedundancyMode && a.SatelliteLogs == b.SatelliteLogs
}
