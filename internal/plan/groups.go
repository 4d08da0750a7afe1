package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Group is what planning needs to know of an existing process group.
type Group struct {
	ID          string
	Class       string
	Zone        string
	Coordinator bool
}

// GroupNumber returns the number at the end of a process group ID
// (<class>-<n>), or 0 when there is none.
func GroupNumber(id string) int {
	i := strings.LastIndex(id, "-")
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return 0
	}
	return n
}

// NewGroupIDs returns n new IDs <prefix><class>-<k> with the smallest k not
// taken by an existing group nor still named in an exclusion (a locality
// exclusion of a removed group would exclude a new group that reused its
// ID). prefix is "" for a Cluster alone on its database, <dataCenter>- for
// one of several, whose IDs must not collide.
func NewGroupIDs(prefix, class string, n int, taken map[string]bool) []string {
	var out []string
	for k := 1; len(out) < n; k++ {
		id := fmt.Sprintf("%s%s-%d", prefix, class, k)
		if !taken[id] {
			out = append(out, id)
		}
	}
	return out
}

// OwnsGroupID reports whether id is a process group ID of the Cluster whose
// IDs start with prefix (NewGroupIDs): <prefix><class>-<k>, the class one
// word without a dash. Several Clusters share a database's exclusion list;
// each acts only on its own groups' entries — a Cluster with the prefix
// "dc1-" owns "dc1-storage-2", not "dc1s-log-1" nor "dc1-b-storage-1" (the
// IDs of data centers dc1s and dc1-b).
func OwnsGroupID(prefix, id string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	i := strings.LastIndex(rest, "-")
	if !ok || i <= 0 || strings.Contains(rest[:i], "-") {
		return false
	}
	n, err := strconv.Atoi(rest[i+1:])
	return err == nil && n > 0
}

// AssignZones returns a zone for each of n new groups of a class, filling
// the zones with the fewest groups of that class first so the class stays
// spread across fault domains. existing counts the class's groups per zone;
// vacated are the zones of its groups being removed or replaced. Among
// zones with equally few groups a vacated one comes first, so that a
// replacement takes over its predecessor's zone (which may be the only one
// a coordinator can move to), then by zone name.
func AssignZones(zones []string, existing map[string]int, vacated []string, n int) []string {
	if len(zones) == 0 {
		return make([]string, n)
	}
	count := map[string]int{}
	for _, z := range zones {
		count[z] = existing[z]
	}
	left := map[string]int{} // vacated places not yet taken over, per zone
	for _, z := range vacated {
		left[z]++
	}
	sorted := append([]string(nil), zones...)
	sort.Strings(sorted)
	better := func(z, best string) bool {
		if count[z] != count[best] {
			return count[z] < count[best]
		}
		return left[z] > 0 && left[best] == 0
	}
	out := make([]string, 0, n)
	for range n {
		best := sorted[0]
		for _, z := range sorted[1:] {
			if better(z, best) {
				best = z
			}
		}
		count[best]++
		left[best]--
		out = append(out, best)
	}
	return out
}

// ChooseRemovals picks n groups to remove so the remaining groups stay
// spread across zones: each pick comes from the zone with the most
// remaining groups, preferring groups that are not coordinators (fewer
// coordinator changes), then the highest ID number.
func ChooseRemovals(groups []Group, n int) []string {
	remaining := append([]Group(nil), groups...)
	var out []string
	for ; n > 0 && len(remaining) > 0; n-- {
		perZone := map[string]int{}
		for _, g := range remaining {
			perZone[g.Zone]++
		}
		sort.Slice(remaining, func(i, j int) bool {
			a, b := remaining[i], remaining[j]
			if perZone[a.Zone] != perZone[b.Zone] {
				return perZone[a.Zone] > perZone[b.Zone]
			}
			if a.Coordinator != b.Coordinator {
				return !a.Coordinator
			}
			if GroupNumber(a.ID) != GroupNumber(b.ID) {
				return GroupNumber(a.ID) > GroupNumber(b.ID)
			}
			return a.ID > b.ID
		})
		out = append(out, remaining[0].ID)
		remaining = remaining[1:]
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
