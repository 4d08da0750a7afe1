// Package plan holds the pure decisions of the Cluster and ProcessGroup
// controllers: which coordinators to choose, whether the current ones are
// still valid, which IDs and zones new process groups get, and which groups
// to remove when a class shrinks. Every function is a function of the spec
// and the observed state only.
package plan

import (
	"sort"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const errTooFewCoordinatorZones = "cannot choose coordinators: %d needed in distinct zones, %d eligible zones"

// CoordinatorCount is the number of coordinators a redundancy mode needs:
// 2R−1 for replication factor R (single 1, double 3, triple 5) and 9 for
// three_data_hall.
func CoordinatorCount(mode fdb.RedundancyMode) int {
	switch mode {
	case fdb.RedundancySingle:
		return 1
	case fdb.RedundancyTriple:
		return 5
	case fdb.RedundancyThreeDataHall:
		return 9
	default:
		return 3
	}
}

// coordinatorPriority ranks eligible classes: logs first (they are bounced
// together during upgrades, not zone by zone), then storage. Other classes
// are not eligible.
func coordinatorPriority(class string) (int, bool) {
	switch class {
	case "log", "transaction":
		return 1, true
	case "storage":
		return 0, true
	}
	return 0, false
}

// candidate is a process that may serve as a coordinator.
type candidate struct {
	address  fdb.ProcessAddress
	zone     string
	id       string
	priority int
}

// eligible returns the processes that may be coordinators: of an eligible
// class, reporting, not excluded, with a zone, and not in a group being
// removed.
func eligible(s *fdb.Status, removing map[string]bool) []candidate {
	var out []candidate
	for _, p := range s.Cluster.Processes {
		prio, ok := coordinatorPriority(p.ClassType)
		if !ok || p.Excluded || p.Locality.ZoneID == "" || p.Address == "" || removing[p.Locality.InstanceID] {
			continue
		}
		out = append(out, candidate{address: fdb.ProcessAddress(p.Address), zone: p.Locality.ZoneID, id: p.Locality.ProcessID, priority: prio})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].priority != out[j].priority {
			return out[i].priority > out[j].priority
		}
		return out[i].id < out[j].id
	})
	return out
}

// ChooseCoordinators picks CoordinatorCount(mode) processes in distinct
// zones, logs before storage, skipping groups being removed. It fails
// rather than put two coordinators in one zone.
func ChooseCoordinators(s *fdb.Status, mode fdb.RedundancyMode, removing map[string]bool) ([]fdb.ProcessAddress, error) {
	want := CoordinatorCount(mode)
	var chosen []fdb.ProcessAddress
	zones := map[string]bool{}
	for _, c := range eligible(s, removing) {
		if zones[c.zone] {
			continue
		}
		zones[c.zone] = true
		chosen = append(chosen, c.address)
		if len(chosen) == want {
			return fdb.SortedAddresses(chosen), nil
		}
	}
	return nil, errors.Errorf(errTooFewCoordinatorZones, want, len(zones))
}

// CoordinatorProblem says why the current coordinators must change, or
// returns "" when they are fine: the right number, each a reachable,
// eligible, non-excluded process outside the groups being removed, at most
// one per zone.
func CoordinatorProblem(s *fdb.Status, current []fdb.ProcessAddress, mode fdb.RedundancyMode, removing map[string]bool) string {
	if want := CoordinatorCount(mode); len(current) != want {
		return "the cluster has " + itoa(len(current)) + " coordinators and needs " + itoa(want)
	}
	ok := map[fdb.ProcessAddress]candidate{}
	for _, c := range eligible(s, removing) {
		ok[c.address] = c
	}
	zones := map[string]bool{}
	for _, a := range current {
		c, found := ok[a]
		if !found {
			return "coordinator " + string(a) + " is missing, excluded, being removed or not eligible"
		}
		if zones[c.zone] {
			return "two coordinators share zone " + c.zone
		}
		zones[c.zone] = true
	}
	return ""
}
