// Package disruption decides which fault domain may disrupt its pods.
//
// Pods of process groups must sometimes be deleted and recreated, for
// example when their spec drifted after a Cluster spec change. Only one
// fault domain may be disrupted at a time. The Cluster's reconcile, which
// sees every process group, holds at most one Grant in its status and moves
// it from domain to domain with Next; a process group disrupts its pod only
// when Allows says the grant, read fresh from the API server, names its
// domain. Every function is pure: a function of its arguments only.
package disruption

import (
	"fmt"
	"sort"
	"strings"
)

// Maintenance of a planned restart: how long the Cluster puts the zone
// whose pods it recreates under FoundationDB's maintenance, and how little
// of it may remain before the Cluster sets it again. A group recreates its
// pod only while at least MaintenanceRenewSeconds remain, so that the pod
// has that long to come back before the maintenance could run out: one
// that ran out while a pod was down lets data distribution re-replicate
// the zone's data, and lets another Cluster of the database put its own
// zone under maintenance beside the one still down (chaos seed 17 of the
// three-data-hall workload: a pod deleted with 30 s left).
const (
	MaintenanceSeconds      = 600
	MaintenanceRenewSeconds = 300
)

// ownDomainPrefix starts the domain of a group whose zone is unknown.
const ownDomainPrefix = "group/"

// DomainOf is the fault domain of a group: its zone, or, when the zone is
// unknown (""), a domain of the group's own ("group/<id>").
func DomainOf(zone, groupID string) string {
	if zone == "" {
		return ownDomainPrefix + groupID
	}
	return zone
}

// IsZone reports whether a domain is a zone, not a group's own domain.
func IsZone(domain string) bool { return !strings.HasPrefix(domain, ownDomainPrefix) }

// A Member is one process group as the Cluster observed it in one
// reconcile, or as the group observed itself (Allows).
type Member struct {
	Group     string // process group ID
	Zone      string // "" when unknown
	Wants     bool   // needs a disruption: its pod's spec drifted
	Disrupted bool   // its pod is missing, not running or terminating, or its processes do not report
	// Volatile means the group has no volume: what its processes keep
	// (a transaction log recruited onto one) lives only as long as its pod.
	Volatile bool
	// Removing means the group is being removed: down, it is lost, not
	// restarting, and its data must heal elsewhere.
	Removing bool
}

// Domain is the fault domain of m (DomainOf).
func (m Member) Domain() string { return DomainOf(m.Zone, m.Group) }

// A Grant lets the groups of one fault domain disrupt their pods.
type Grant struct {
	Domain     string
	Generation int64 // the Cluster's metadata.generation the grant was made under
	// VolatileFirst lets only the domain's volatile members disrupt their
	// pods, while one of them still wants a disruption: a volatile pod is
	// deleted while the other pods of its domain run, so that no recovery
	// their restart causes recruits a transaction log onto it just before
	// it goes, taking the log's data with it.
	VolatileFirst bool
	// DisruptedOnly is set while another domain than Domain is disrupted:
	// a member that still serves must wait for it to recover, but one that
	// serves nothing may be recreated to come back, in any domain (an
	// upgrade's processes left behind on the old version in two zones:
	// chaos seed 1519 of the upgrade workload). Recreating it disrupts no
	// domain that was not disrupted already, so the grant stays with
	// Domain, whose groups may have acted on it before it was set.
	DisruptedOnly bool
}

// domainState is what Next needs to know of one fault domain.
type domainState struct {
	wants          bool // some member wants a disruption
	disrupted      bool // some member is disrupted
	disruptedWants bool // some disrupted member wants a disruption
	volatileWants  bool // some volatile member wants a disruption
}

// Next returns the grant the Cluster should hold after this reconcile and,
// when it holds none while some member wants a disruption, why (a sentence
// naming the domains, for a status message).
//
//  1. Members are grouped into fault domains with Member.Domain.
//  2. A domain's grant is DisruptedOnly while another domain is disrupted:
//     only disrupted members may disrupt their pods then. A domain can
//     progress when a member its grant would let go wants a disruption.
//  3. A current grant whose domain still has a member that wants a
//     disruption or is disrupted is kept, its Generation moved to
//     generation: a spec change mid-roll keeps the same domain going, and a
//     domain whose pods come back keeps its grant (and its zone's
//     maintenance) until they do. It moves on only once its domain is done:
//     a group that read it just before a move could still act on it, and a
//     done domain's groups have nothing to act on.
//  4. Otherwise (no grant, or its domain is done, so the grant is revoked)
//     the lowest-sorting domain that can progress is granted:
//     with no domain disrupted, any that wants a disruption; with one, that
//     domain if it wants one; with two or more, any of them whose disrupted
//     member wants one. When none can, the result names the disrupted
//     domains it waits for, or is (nil, "") when no member wants a
//     disruption.
//  5. A grant that is not DisruptedOnly is VolatileFirst while a volatile
//     member of its domain wants a disruption.
//  6. The result depends on the members, not on their order.
func Next(current *Grant, members []Member, generation int64) (*Grant, string) {
	domains := domainStates(members)
	disrupted := domainsWhere(domains, func(_ string, d domainState) bool { return d.disrupted })
	disruptedOnly := func(domain string) bool {
		return len(disrupted) > 1 || len(disrupted) == 1 && disrupted[0] != domain
	}
	progresses := func(domain string) bool {
		d := domains[domain]
		return disruptedOnly(domain) && d.disruptedWants || !disruptedOnly(domain) && d.wants
	}
	grant := func(domain string) *Grant {
		only := disruptedOnly(domain)
		return &Grant{Domain: domain, Generation: generation, VolatileFirst: !only && domains[domain].volatileWants, DisruptedOnly: only}
	}
	if current != nil {
		if d := domains[current.Domain]; d.wants || d.disrupted {
			return grant(current.Domain), ""
		}
	}
	if candidates := domainsWhere(domains, func(name string, _ domainState) bool { return progresses(name) }); len(candidates) > 0 {
		return grant(candidates[0]), ""
	}
	switch {
	case len(domainsWhere(domains, func(_ string, d domainState) bool { return d.wants })) == 0:
		return nil, ""
	case len(disrupted) > 1:
		return nil, fmt.Sprintf("waiting for fault domains %s to recover before disrupting another", strings.Join(disrupted, ", "))
	}
	return nil, fmt.Sprintf("waiting for fault domain %s to recover before disrupting another", disrupted[0])
}

// domainStates groups members into their fault domains.
func domainStates(members []Member) map[string]domainState {
	domains := map[string]domainState{}
	for _, m := range members {
		key := m.Domain()
		d := domains[key]
		d.wants = d.wants || m.Wants
		d.disrupted = d.disrupted || m.Disrupted
		d.disruptedWants = d.disruptedWants || m.Disrupted && m.Wants
		d.volatileWants = d.volatileWants || m.Volatile && m.Wants
		domains[key] = d
	}
	return domains
}

// domainsWhere returns the sorted names of the domains for which keep holds.
func domainsWhere(domains map[string]domainState, keep func(string, domainState) bool) []string {
	var names []string
	for name, d := range domains {
		if keep(name, d) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Allows reports whether group m may disrupt its pod under grant g, read
// fresh from the API server together with the Cluster's generation gen,
// when the group planned against a Cluster of generation planned. A grant
// made under an older generation, or a plan made against one, allows
// nothing: the Cluster has not yet seen the current spec, or the group has
// not. A DisruptedOnly grant allows every disrupted group, of any domain,
// and nothing else; m.Disrupted is what the group itself observed, false
// without evidence that it serves nothing. Otherwise the grant allows its
// own domain's groups, only the volatile ones while it is VolatileFirst.
// Wants is not consulted.
func Allows(g *Grant, gen, planned int64, m Member) bool {
	switch {
	case g == nil || g.Generation != gen || gen != planned:
		return false
	case g.DisruptedOnly:
		return m.Disrupted
	}
	return g.Domain == m.Domain() && (m.Volatile || !g.VolatileFirst)
}
