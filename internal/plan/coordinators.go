// Package plan holds the pure decisions of the Cluster and ProcessGroup
// controllers: which coordinators to choose, whether the current ones are
// still valid, which IDs and zones new process groups get, and which groups
// to remove when a class shrinks. Every function is a function of the spec
// and the observed state only.
package plan

import (
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errTooFewCoordinatorZones = "cannot choose coordinators: %d needed in distinct zones, %d eligible zones"
	errTooFewCoordinatorHalls = "cannot choose coordinators: %d needed in distinct zones, at most %d in a data hall; found %d in %d data halls"
)

// coordinatorsPerDataHall is the most coordinators one data hall may hold
// in mode, 0 for no limit: three_data_hall spreads its nine over three
// halls, so that the loss of a hall and a zone more leaves a majority.
func coordinatorsPerDataHall(mode fdb.RedundancyMode) int {
	if mode == fdb.RedundancyThreeDataHall {
		return 3
	}
	return 0
}

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

// Process is what coordinator planning needs to know of a process. Before
// the database exists it comes from the pods; afterwards from the status.
type Process struct {
	Address fdb.ProcessAddress
	// DNSName is the name its pod has under the cluster's headless Service
	// (the dns_name locality); empty when it reports none.
	DNSName string
	Class   string
	Zone    string
	// DataHall is its data_hall locality, empty when it reports none.
	DataHall   string
	InstanceID string
	ProcessID  string
	Excluded   bool
}

// Processes returns the processes a status reports.
func Processes(s *fdb.Status) []Process {
	out := make([]Process, 0, len(s.Cluster.Processes))
	for _, p := range s.Cluster.Processes {
		out = append(out, Process{
			Address: fdb.ProcessAddress(p.Address), DNSName: p.Locality.DNSName, Class: p.ClassType, Zone: p.Locality.ZoneID, DataHall: p.Locality.DataHall,
			InstanceID: p.Locality.InstanceID, ProcessID: p.Locality.ProcessID, Excluded: p.Excluded,
		})
	}
	return out
}

// CoordinatorEligible reports whether processes of class may serve as
// coordinators.
func CoordinatorEligible(class string) bool {
	_, ok := coordinatorPriority(class)
	return ok
}

// CoverCoordinatorZones moves new groups of a coordinator-eligible class
// into zones no eligible process covers, while the covered zones are fewer
// than the coordinators mode needs: without it a class whose groups are
// fewer than the zones fills the same zones as the classes before it, and
// no coordinators can be chosen although the zones exist. picks are the
// zones AssignZones chose for the new groups; existing counts the class's
// groups per zone before them, eligible the groups of every eligible class
// per zone before them. A pick moves only from a zone another eligible
// group still covers, and only to a zone with fewer groups of the class,
// so the class stays spread; the last picks move first, the emptiest
// uncovered zone (then the first by name) gets one. The result is a copy.
func CoverCoordinatorZones(zones, picks []string, existing, eligible map[string]int, mode fdb.RedundancyMode) []string {
	out := slices.Clone(picks)
	count, cover := maps.Clone(existing), maps.Clone(eligible)
	if count == nil {
		count = map[string]int{}
	}
	if cover == nil {
		cover = map[string]int{}
	}
	for _, z := range out {
		count[z]++
		cover[z]++
	}
	sorted := slices.Sorted(slices.Values(zones))
	covered := 0
	for _, z := range sorted {
		if cover[z] > 0 {
			covered++
		}
	}
	for ; covered < CoordinatorCount(mode); covered++ {
		to := ""
		for _, z := range sorted {
			if cover[z] == 0 && (to == "" || count[z] < count[to]) {
				to = z
			}
		}
		from := -1
		for i := len(out) - 1; i >= 0 && to != ""; i-- {
			if z := out[i]; cover[z] > 1 && count[z] > count[to] {
				from = i
				break
			}
		}
		if from < 0 {
			return out
		}
		count[out[from]]--
		cover[out[from]]--
		out[from] = to
		count[to]++
		cover[to]++
	}
	return out
}

// candidate is a process that may serve as a coordinator.
type candidate struct {
	// address is the name a new connection string gives it; names are
	// all it may have in the current one (IP and DNS address).
	address  fdb.ProcessAddress
	names    []string
	zone     string
	dataHall string
	id       string
	priority int
}

// eligible returns the processes that may be coordinators: of an eligible
// class, reporting, not excluded, with a zone, and not in a group being
// removed; with dns, only those that report their DNS name, by which they
// are named.
func eligible(procs []Process, removing map[string]bool, dns bool) []candidate {
	var out []candidate
	for _, p := range procs {
		prio, ok := coordinatorPriority(p.Class)
		if !ok || p.Excluded || p.Zone == "" || p.Address == "" || removing[p.InstanceID] || dns && p.DNSName == "" {
			continue
		}
		c := candidate{address: p.Address, names: fdb.AddressNames(p.DNSName, string(p.Address)), zone: p.Zone, dataHall: p.DataHall, id: p.ProcessID, priority: prio}
		if dns {
			c.address = fdb.HostAddress(p.DNSName, string(p.Address))
		}
		out = append(out, c)
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
// zones, and with three_data_hall at most three in a data hall (a process
// that reports no data hall is in the empty one), logs before storage,
// skipping groups being removed, named by DNS name with dns and by IP
// address otherwise. It fails rather than put two coordinators in one zone
// or too many in one data hall.
func ChooseCoordinators(procs []Process, mode fdb.RedundancyMode, removing map[string]bool, dns bool) ([]fdb.ProcessAddress, error) {
	want, perHall := CoordinatorCount(mode), coordinatorsPerDataHall(mode)
	var chosen []fdb.ProcessAddress
	zones, halls := map[string]bool{}, map[string]int{}
	for _, c := range eligible(procs, removing, dns) {
		if zones[c.zone] || perHall > 0 && halls[c.dataHall] == perHall {
			continue
		}
		zones[c.zone] = true
		halls[c.dataHall]++
		chosen = append(chosen, c.address)
		if len(chosen) == want {
			return fdb.SortedAddresses(chosen), nil
		}
	}
	if perHall > 0 {
		return nil, errors.Errorf(errTooFewCoordinatorHalls, want, perHall, len(chosen), len(halls))
	}
	return nil, errors.Errorf(errTooFewCoordinatorZones, want, len(zones))
}

// CoordinatorProblem says why the current coordinators must change, or
// returns "" when they are fine: the right number, each a reachable,
// eligible, non-excluded process outside the groups being removed, at most
// one per zone and, with three_data_hall, at most three per data hall. A coordinator is found by either of its names; whether
// the names have the form the cluster wants is CoordinatorFormProblem's
// question. restarting maps the DNS names of pods restarted on purpose
// (recreated under maintenance) to their zone: a coordinator named by one
// of them is away only until its pod is back under the same name, so it
// counts as present in that zone.
func CoordinatorProblem(procs []Process, current []fdb.ProcessAddress, mode fdb.RedundancyMode, removing map[string]bool, restarting map[string]string) string {
	if want := CoordinatorCount(mode); len(current) != want {
		return "the cluster has " + itoa(len(current)) + " coordinators and needs " + itoa(want)
	}
	ok := map[fdb.ProcessAddress]candidate{}
	for _, c := range eligible(procs, removing, false) {
		for _, n := range c.names {
			ok[fdb.ProcessAddress(n)] = c
		}
	}
	perHall := coordinatorsPerDataHall(mode)
	zones, halls := map[string]bool{}, map[string]int{}
	for _, a := range current {
		c, found := ok[a]
		restarted := false
		if zone, away := restarting[a.Host()]; !found && away && a.IsHostname() {
			c, found, restarted = candidate{zone: zone}, true, true
		}
		if !found {
			return "coordinator " + string(a) + " is missing, excluded, being removed or not eligible"
		}
		if zones[c.zone] {
			return "two coordinators share zone " + c.zone
		}
		zones[c.zone] = true
		if restarted {
			continue // its data hall shows once it is back
		}
		if halls[c.dataHall]++; perHall > 0 && halls[c.dataHall] > perHall {
			return "more than " + itoa(perHall) + " coordinators in data hall " + strconv.Quote(c.dataHall)
		}
	}
	return ""
}

// CoordinatorFormProblem says why the current coordinators must be named
// anew, or returns "": with dns every one must be named by DNS name, without
// it by IP address.
func CoordinatorFormProblem(current []fdb.ProcessAddress, dns bool) string {
	for _, a := range current {
		switch {
		case dns && !a.IsHostname():
			return "coordinator " + string(a) + " is named by IP address and the cluster file uses DNS names"
		case !dns && a.IsHostname():
			return "coordinator " + string(a) + " is named by DNS name and the cluster file uses IP addresses"
		}
	}
	return ""
}
