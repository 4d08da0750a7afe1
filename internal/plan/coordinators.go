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

// Process is what coordinator planning needs to know of a process. Before
// the database exists it comes from the pods; afterwards from the status.
type Process struct {
	Address fdb.ProcessAddress
	// DNSName is the name its pod has under the cluster's headless Service
	// (the dns_name locality); empty when it reports none.
	DNSName    string
	Class      string
	Zone       string
	InstanceID string
	ProcessID  string
	Excluded   bool
}

// Processes returns the processes a status reports.
func Processes(s *fdb.Status) []Process {
	out := make([]Process, 0, len(s.Cluster.Processes))
	for _, p := range s.Cluster.Processes {
		out = append(out, Process{
			Address: fdb.ProcessAddress(p.Address), DNSName: p.Locality.DNSName, Class: p.ClassType, Zone: p.Locality.ZoneID,
			InstanceID: p.Locality.InstanceID, ProcessID: p.Locality.ProcessID, Excluded: p.Excluded,
		})
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
		c := candidate{address: p.Address, names: fdb.AddressNames(p.DNSName, string(p.Address)), zone: p.Zone, id: p.ProcessID, priority: prio}
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
// zones, logs before storage, skipping groups being removed, named by DNS
// name with dns and by IP address otherwise. It fails rather than put two
// coordinators in one zone.
func ChooseCoordinators(procs []Process, mode fdb.RedundancyMode, removing map[string]bool, dns bool) ([]fdb.ProcessAddress, error) {
	want := CoordinatorCount(mode)
	var chosen []fdb.ProcessAddress
	zones := map[string]bool{}
	for _, c := range eligible(procs, removing, dns) {
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
// one per zone. A coordinator is found by either of its names; whether
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
	zones := map[string]bool{}
	for _, a := range current {
		c, found := ok[a]
		if zone, away := restarting[a.Host()]; !found && away && a.IsHostname() {
			c, found = candidate{zone: zone}, true
		}
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
