package policy

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
// valid counts the class's groups that report their processes and are not
// removed already (removing and fully excluded); ongoing counts the groups
// being removed whose exclusion has not finished. While any group of the
// class has missed its processes for less than
// IgnoreMissingProcessesSeconds the budget is 0: the replacement may not be
// up yet. Every class with a desired count or a group has an entry.
func ExclusionBudget(desired map[string]int64, desiredFaultTolerance int64, groups []ProcessGroup) map[string]int64 {
	tallies := make(map[string]*classTally, len(desired))
	for class := range desired {
		tallies[class] = &classTally{}
	}
	// Groups of a class mostly come one after another: the tally of the
	// previous group's class saves a map lookup for each of them.
	var (
		t     *classTally
		class string
	)
	for i := range groups {
		g := &groups[i]
		if t == nil || g.Class != class {
			class = g.Class
			if t = tallies[class]; t == nil {
				t = &classTally{}
				tallies[class] = t
			}
		}
		if g.Removing && g.Excluded && !g.FullyExcluded {
			t.ongoing++
		}
		if g.Removing && g.FullyExcluded {
			continue
		}
		if age, missing := g.conditionAge(ConditionMissingProcesses); missing {
			t.frozen = t.frozen || age < IgnoreMissingProcessesSeconds
			continue
		}
		t.valid++
	}
	budget := make(map[string]int64, len(tallies))
	for class, t := range tallies {
		if t.frozen {
			budget[class] = 0
			continue
		}
		budget[class] = max(0, t.valid+desiredFaultTolerance-desired[class]-t.ongoing)
	}
	return budget
}

// A classTally counts the process groups of a class for its exclusion
// budget.
type classTally struct {
	valid, ongoing int64
	frozen         bool
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
