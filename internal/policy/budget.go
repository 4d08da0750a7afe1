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
	classes := map[string]bool{}
	for class := range desired {
		classes[class] = true
	}
	valid := map[string]int64{}
	ongoing := map[string]int64{}
	frozen := map[string]bool{}
	for _, g := range groups {
		classes[g.Class] = true
		if g.Removing && g.Excluded && !g.FullyExcluded {
			ongoing[g.Class]++
		}
		if g.Removing && g.FullyExcluded {
			continue
		}
		if age, missing := g.conditionAge(ConditionMissingProcesses); missing {
			frozen[g.Class] = frozen[g.Class] || age < IgnoreMissingProcessesSeconds
			continue
		}
		valid[g.Class]++
	}
	budget := make(map[string]int64, len(classes))
	for class := range classes {
		if frozen[class] {
			budget[class] = 0
			continue
		}
		budget[class] = max(0, valid[class]+desiredFaultTolerance-desired[class]-ongoing[class])
	}
	return budget
}

// conditionAge returns how long the group has had a condition, if it has it.
func (g ProcessGroup) conditionAge(condition string) (int64, bool) {
	for _, c := range g.Conditions {
		if c.Type == condition {
			return c.AgeSeconds, true
		}
	}
	return 0, false
}
