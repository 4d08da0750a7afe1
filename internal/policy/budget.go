package policy

import "slices"

// IgnoreMissingProcessesSeconds is how long a process group may miss its
// processes before it stops holding back the exclusion budget of its class
// (and simply stops counting as valid), as in the FoundationDB operator.
const IgnoreMissingProcessesSeconds = 300

// DesiredFaultTolerance is how many fault domains a redundancy mode is meant
// to survive: single 0, double 1, triple and three_data_hall 2. An unknown
// mode gets 0, the smallest exclusion budget.
func DesiredFaultTolerance(redundancyMode string) int64 {
	switch redundancyMode {
	case "double":
		return 1
	case "triple", "three_data_hall":
		return 2
	default:
		return 0
	}
}

// ExclusionBudget is how many more process groups of each class may be
// excluded now, computed as the FoundationDB operator does:
//
//	max(0, valid + desiredFaultTolerance - desired[class] - ongoing)
//
// valid counts the class's groups whose processes the status of this
// reconcile shows (ProcessGroup.Reporting), that are not recorded missing
// and not removed already (removing and fully excluded); ongoing counts the
// groups being removed whose exclusion has not finished. While any group of
// the class has missed its processes for less than
// IgnoreMissingProcessesSeconds, or misses them with no record since when,
// the budget is 0: the replacement may not be up yet. Every class with a
// desired count or a group has an entry.
func ExclusionBudget(desired map[string]int64, desiredFaultTolerance int64, groups []ProcessGroup) map[string]int64 {
	tallies := make(classTallies, 0, len(desired))
	for class := range desired {
		tallies = append(tallies, classTally{class: class})
	}
	// Groups of a class mostly come one after another: the tally of the
	// previous group's class saves a search for each of them.
	var t *classTally
	for i := range groups {
		g := &groups[i]
		if t == nil || g.Class != t.class {
			t = tallies.of(g.Class)
		}
		if g.Removing && g.Excluded && !g.FullyExcluded {
			t.ongoing++
		}
		if g.Removing && g.FullyExcluded {
			continue
		}
		// A group is valid only when this reconcile's status shows its
		// processes and it is not recorded missing. One the status does not
		// show, with no record since when, may have lost them a moment ago:
		// missing evidence freezes the class as a fresh loss does.
		if age, missing := g.conditionAge(ConditionMissingProcesses); missing || !g.Reporting {
			t.frozen = t.frozen || !missing || age < IgnoreMissingProcessesSeconds
			continue
		}
		t.valid++
	}
	budget := make(map[string]int64, len(tallies))
	for _, t := range tallies {
		if t.frozen {
			budget[t.class] = 0
			continue
		}
		budget[t.class] = max(0, t.valid+desiredFaultTolerance-desired[t.class]-t.ongoing)
	}
	return budget
}

// HeldByMissing lists the classes whose exclusion budget is 0 only
// because groups of theirs miss their processes: with every such group
// that is not being removed reporting again, it would be above 0. Such a
// class's exclusions wait until those groups come back or are replaced.
func HeldByMissing(desired map[string]int64, desiredFaultTolerance int64, groups []ProcessGroup) map[string]bool {
	back := make([]ProcessGroup, len(groups))
	for i, g := range groups {
		back[i] = g
		if !g.Removing {
			back[i].Reporting = true
			back[i].Conditions = slices.DeleteFunc(slices.Clone(g.Conditions), func(c Condition) bool { return c.Type == ConditionMissingProcesses })
		}
	}
	now, then := ExclusionBudget(desired, desiredFaultTolerance, groups), ExclusionBudget(desired, desiredFaultTolerance, back)
	held := map[string]bool{}
	for class, budget := range now {
		if budget == 0 && then[class] > 0 {
			held[class] = true
		}
	}
	return held
}

// A classTally counts the process groups of a class for its exclusion
// budget.
type classTally struct {
	class          string
	valid, ongoing int64
	frozen         bool
}

// classTallies are the tallies of a cluster's classes, which are few: a
// search through them is cheaper than a map.
type classTallies []classTally

// of returns the tally of class, added when there is none yet. It stays
// valid until the next tally is added.
func (ts *classTallies) of(class string) *classTally {
	for i := range *ts {
		if (*ts)[i].class == class {
			return &(*ts)[i]
		}
	}
	*ts = append(*ts, classTally{class: class})
	return &(*ts)[len(*ts)-1]
}

// conditionAge returns how long the group has had a condition, if it has it.
func (g *ProcessGroup) conditionAge(condition string) (int64, bool) {
	for i := range g.Conditions {
		if c := &g.Conditions[i]; c.Type == condition {
			return c.AgeSeconds, true
		}
	}
	return 0, false
}
