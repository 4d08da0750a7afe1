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
	errTooFewCoordinatorDCs   = "cannot choose coordinators: %d needed in distinct zones, at most %d in a data center; found %d in %d data centers"
)

// CoordinatorRules say how many coordinators a database needs and how they
// spread: one per zone always, and at most PerDataHall in a data hall and
// PerDataCenter in a data center (0: no limit).
type CoordinatorRules struct {
	Count         int
	PerDataHall   int
	PerDataCenter int
	// Classes are the classes whose processes may be chosen, each with its
	// priority, the higher chosen first (a Cluster's coordinatorSelection);
	// nil is every class CoordinatorEligible names, logs first.
	Classes map[string]int
}

// priority is the rank of class among the classes the rules choose from,
// and whether they choose from it at all.
func (r CoordinatorRules) priority(class string) (int, bool) {
	if !CoordinatorEligible(class) {
		return 0, false
	}
	if r.Classes == nil {
		return coordinatorPriority(class)
	}
	p, ok := r.Classes[class]
	return p, ok
}

// RulesFor returns the coordinator rules of a database of redundancy mode
// whose regions hold data in dataCenters data centers (usable_regions 2;
// 1 or 0 for a database of one region): 2R−1 coordinators for replication
// factor R (single 1, double 3, triple 5); nine for three_data_hall, at
// most three per data hall, so that the loss of a hall and a zone more
// leaves a majority; nine across several data centers, at most
// ceil(9 / data centers) in each, so that the loss of a data center leaves
// a majority.
func RulesFor(mode fdb.RedundancyMode, dataCenters int) CoordinatorRules {
	switch {
	case dataCenters > 1:
		return CoordinatorRules{Count: 9, PerDataCenter: (9 + dataCenters - 1) / dataCenters}
	case mode == fdb.RedundancySingle:
		return CoordinatorRules{Count: 1}
	case mode == fdb.RedundancyTriple:
		return CoordinatorRules{Count: 5}
	case mode == fdb.RedundancyThreeDataHall:
		return CoordinatorRules{Count: 9, PerDataHall: 3}
	default:
		return CoordinatorRules{Count: 3}
	}
}

// coordinatorPriority ranks eligible classes: coordinator-class processes
// first, which serve nothing else (`coordinators auto` puts them first:
// apple/foundationdb fdbclient/ManagementAPI.actor.cpp,
// AutoQuorumChange::addDesiredWorkers, 7.3.79), then logs (they are
// bounced together during upgrades, not zone by zone), then storage. Other
// classes are not eligible: their pods have no volume for the coordinated
// state.
func coordinatorPriority(class string) (int, bool) {
	switch class {
	case "coordinator":
		return 2, true
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
	// DataHall is its data_hall locality, empty when it reports none;
	// DataCenter its dcid locality.
	DataHall   string
	DataCenter string
	InstanceID string
	ProcessID  string
	Excluded   bool
	// Listens are the addresses it listens on, primary first, as its
	// command line says (fdb.ListenAddresses); empty when only Address is
	// known.
	Listens []string
}

// Names returns the addresses a coordinator on p may be named by in a
// connection string: the addresses it listens on (Listens, else Address)
// and, with a DNS name, the same at its DNS name.
func (p Process) Names() []string { return fdb.AddressNames(p.DNSName, p.listens()...) }

// listens are the addresses p listens on: Listens, else its Address.
func (p Process) listens() []string {
	if len(p.Listens) > 0 {
		return p.Listens
	}
	return []string{string(p.Address)}
}

// listening is the address of the kind tls (a TLS one or a plain-text one)
// p listens on; false when it listens on none of that kind.
func (p Process) listening(tls bool) (fdb.ProcessAddress, bool) {
	for _, a := range p.listens() {
		if fdb.ProcessAddress(a).TLS() == tls {
			return fdb.ProcessAddress(a), true
		}
	}
	return "", false
}

// Form is how a connection string names its coordinators: by DNS name or
// IP address, and by TLS or plain-text address.
type Form struct {
	DNS, TLS bool
}

// Processes returns the processes a status reports.
func Processes(s *fdb.Status) []Process {
	out := make([]Process, 0, len(s.Cluster.Processes))
	for _, p := range s.Cluster.Processes {
		out = append(out, Process{
			Address: fdb.ProcessAddress(p.Address), DNSName: p.Locality.DNSName, Class: p.ClassType, Zone: p.Locality.ZoneID, DataHall: p.Locality.DataHall, DataCenter: p.Locality.DCID,
			InstanceID: p.Locality.InstanceID, ProcessID: p.Locality.ProcessID, Excluded: p.Excluded,
			Listens: fdb.ListenAddresses(p.CommandLine, p.Address),
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
// than the coordinators the rules need: without it a class whose groups are
// fewer than the zones fills the same zones as the classes before it, and
// no coordinators can be chosen although the zones exist. picks are the
// zones AssignZones chose for the new groups; existing counts the class's
// groups per zone before them, eligible the groups of every eligible class
// per zone before them. A pick moves only from a zone another eligible
// group still covers, and only to a zone with fewer groups of the class,
// so the class stays spread; the last picks move first, the emptiest
// uncovered zone (then the first by name) gets one. The result is a copy.
func CoverCoordinatorZones(zones, picks []string, existing, eligible map[string]int, rules CoordinatorRules) []string {
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
	for ; covered < rules.Count; covered++ {
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
	address    fdb.ProcessAddress
	names      []string
	zone       string
	dataHall   string
	dataCenter string
	id         string
	// instance is its process group's ID.
	instance string
	priority int
}

// eligible returns the processes that may be coordinators in form: of a
// class the rules choose from (by its priority, then process ID), reporting, not excluded, with a zone, not in a group
// being removed, and listening on an address of the form's kind (TLS or
// plain text), by which they are named; with form.DNS, only those that
// report their DNS name, which then names them.
func eligible(procs []Process, rules CoordinatorRules, removing map[string]bool, form Form) []candidate {
	var out []candidate
	for _, p := range procs {
		prio, ok := rules.priority(p.Class)
		address, listening := p.listening(form.TLS)
		if !ok || p.Excluded || p.Zone == "" || !listening || removing[p.InstanceID] || form.DNS && p.DNSName == "" {
			continue
		}
		zone := p.Zone
		if p.DataCenter != "" || p.DataHall != "" {
			zone = p.DataCenter + "/" + p.DataHall + "/" + p.Zone // zone names may repeat across data centers and halls
		}
		c := candidate{address: address, names: p.Names(), zone: zone, dataHall: p.DataHall, dataCenter: p.DataCenter,
			id: p.ProcessID, instance: p.InstanceID, priority: prio}
		if form.DNS {
			c.address = fdb.HostAddress(p.DNSName, string(address))
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

// ChooseCoordinators picks rules.Count processes in distinct zones, at most
// rules.PerDataHall in a data hall and rules.PerDataCenter in a data
// center (a process that reports none is in the empty one), logs before
// storage, skipping groups being removed, named in form: by DNS name or
// IP address, by TLS or plain-text address. It fails rather than put two coordinators in one
// zone or too many in one data hall or data center.
func ChooseCoordinators(procs []Process, rules CoordinatorRules, removing map[string]bool, form Form) ([]fdb.ProcessAddress, error) {
	return choose(eligible(procs, rules, removing, form), rules)
}

// ChooseCoordinatorsAnew picks coordinators to replace current, some of
// which may run in the groups blank (by instance ID), whose disks hold no
// coordinated state: as ChooseCoordinators does, skipping the groups being
// removed and those blank. When no valid set avoids the blank groups, it
// picks a valid set that differs from current all the same, moving the
// first current coordinator not blank that can move last in line: a
// coordinator change writes the state to every coordinator it names, the
// blank ones among them. It fails when the only valid set is current.
func ChooseCoordinatorsAnew(procs []Process, current []fdb.ProcessAddress, rules CoordinatorRules, removing, blank map[string]bool, form Form) ([]fdb.ProcessAddress, error) {
	avoid := maps.Clone(removing)
	if avoid == nil {
		avoid = map[string]bool{}
	}
	maps.Copy(avoid, blank)
	chosen, err := ChooseCoordinators(procs, rules, avoid, form)
	if err == nil || len(blank) == 0 {
		return chosen, err
	}
	candidates, now := eligible(procs, rules, removing, form), fdb.SortedAddresses(slices.Clone(current))
	for _, a := range now {
		i := slices.IndexFunc(candidates, func(c candidate) bool { return slices.Contains(c.names, string(a)) })
		if i < 0 || blank[candidates[i].instance] {
			continue
		}
		last := append(slices.Delete(slices.Clone(candidates), i, i+1), candidates[i])
		if again, aerr := choose(last, rules); aerr == nil && !slices.Equal(again, now) {
			return again, nil
		}
	}
	return nil, err
}

// choose picks rules.Count of candidates, in their order, in distinct
// zones and within the rules' limits per data hall and data center.
func choose(candidates []candidate, rules CoordinatorRules) ([]fdb.ProcessAddress, error) {
	var chosen []fdb.ProcessAddress
	zones, halls, dcs := map[string]bool{}, map[string]int{}, map[string]int{}
	for _, c := range candidates {
		if zones[c.zone] || over(rules.PerDataHall, halls[c.dataHall]+1) || over(rules.PerDataCenter, dcs[c.dataCenter]+1) {
			continue
		}
		zones[c.zone] = true
		halls[c.dataHall]++
		dcs[c.dataCenter]++
		chosen = append(chosen, c.address)
		if len(chosen) == rules.Count {
			return fdb.SortedAddresses(chosen), nil
		}
	}
	switch {
	case rules.PerDataCenter > 0:
		return nil, errors.Errorf(errTooFewCoordinatorDCs, rules.Count, rules.PerDataCenter, len(chosen), len(dcs))
	case rules.PerDataHall > 0:
		return nil, errors.Errorf(errTooFewCoordinatorHalls, rules.Count, rules.PerDataHall, len(chosen), len(halls))
	}
	return nil, errors.Errorf(errTooFewCoordinatorZones, rules.Count, len(zones))
}

// over reports whether n exceeds limit, 0 being no limit.
func over(limit, n int) bool { return limit > 0 && n > limit }

// CoordinatorProblem says why the current coordinators must change, or
// returns "" when they are fine: the right number, each a reachable,
// eligible, non-excluded process outside the groups being removed, at most
// one per zone, and no more in a data hall or data center than the rules
// allow. A coordinator is found by either of its names; whether the names
// have the form the cluster wants is CoordinatorFormProblem's question.
// restarting maps the DNS names of pods restarted on purpose (recreated
// under maintenance) to their zone: a coordinator named by one of them is
// away only until its pod is back under the same name, so it counts as
// present in that zone.
func CoordinatorProblem(procs []Process, current []fdb.ProcessAddress, rules CoordinatorRules, removing map[string]bool, restarting map[string]string) string {
	if len(current) != rules.Count {
		return "the cluster has " + itoa(len(current)) + " coordinators and needs " + itoa(rules.Count)
	}
	ok := map[fdb.ProcessAddress]candidate{}
	for _, c := range slices.Concat(eligible(procs, rules, removing, Form{}), eligible(procs, rules, removing, Form{TLS: true})) {
		for _, n := range c.names {
			ok[fdb.ProcessAddress(n)] = c
		}
	}
	zones, halls, dcs := map[string]bool{}, map[string]int{}, map[string]int{}
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
			continue // its data hall and data center show once it is back
		}
		if halls[c.dataHall]++; over(rules.PerDataHall, halls[c.dataHall]) {
			return "more than " + itoa(rules.PerDataHall) + " coordinators in data hall " + strconv.Quote(c.dataHall)
		}
		if dcs[c.dataCenter]++; over(rules.PerDataCenter, dcs[c.dataCenter]) {
			return "more than " + itoa(rules.PerDataCenter) + " coordinators in data center " + strconv.Quote(c.dataCenter)
		}
	}
	return ""
}

// StatelessCoordinatorProblem says which current coordinator runs in one
// of the groups blank (by instance ID), whose disk may hold no
// coordinated state, or returns "". A coordinator is found by either of its names.
func StatelessCoordinatorProblem(procs []Process, current []fdb.ProcessAddress, blank map[string]bool) string {
	for _, a := range current {
		for _, p := range procs {
			if blank[p.InstanceID] && slices.Contains(p.Names(), string(a)) {
				return "coordinator " + string(a) + " may hold no coordinated state: its volume was made after the coordinator change that named it"
			}
		}
	}
	return ""
}

// CoordinatorFormProblem says why the current coordinators must be named
// anew, or returns "": with form.DNS every one must be named by DNS name,
// without it by IP address; with form.TLS by a TLS address, without it by
// a plain-text one. A change of kind waits until every reporting process
// of a coordinator-eligible class listens on an address of the new kind
// (procs): until then a new set could not be chosen from all of them, and
// the restart that gives them their listeners is under way.
func CoordinatorFormProblem(procs []Process, current []fdb.ProcessAddress, form Form) string {
	for _, a := range current {
		switch {
		case form.DNS && !a.IsHostname():
			return "coordinator " + string(a) + " is named by IP address and the cluster file uses DNS names"
		case !form.DNS && a.IsHostname():
			return "coordinator " + string(a) + " is named by DNS name and the cluster file uses IP addresses"
		}
	}
	if !everyEligibleListens(procs, form.TLS) {
		return ""
	}
	for _, a := range current {
		switch {
		case form.TLS && !a.TLS():
			return "coordinator " + string(a) + " is a plain-text address and the database moves to TLS"
		case !form.TLS && a.TLS():
			return "coordinator " + string(a) + " is a TLS address and the database moves to plain text"
		}
	}
	return ""
}

// everyEligibleListens reports whether every process of a
// coordinator-eligible class among procs listens on an address of the
// kind tls (a TLS one or a plain-text one).
func everyEligibleListens(procs []Process, tls bool) bool {
	for _, p := range procs {
		if _, ok := p.listening(tls); CoordinatorEligible(p.Class) && !ok {
			return false
		}
	}
	return true
}

// ListenedKind is the kind of address (TLS when true) new coordinators are
// named by, for a database that wants kind want: want once every
// coordinator-eligible process listens on an address of that kind; while
// some do not (the restart that gives them their new listeners has not
// reached them) and every one still listens on the other kind, the other
// kind. A coordinator change needed meanwhile (a coordinator's group
// removed, say) must not wait for that restart, which comes after it.
func ListenedKind(procs []Process, want bool) bool {
	if !everyEligibleListens(procs, want) && everyEligibleListens(procs, !want) {
		return !want
	}
	return want
}
