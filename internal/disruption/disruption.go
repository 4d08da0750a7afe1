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

// A Member is one process group as the Cluster observed it in one reconcile.
type Member struct {
	Group     string // process group ID
	Zone      string // "" when unknown
	Wants     bool   // needs a disruption: its pod's spec drifted
	Disrupted bool   // its pod is missing, not running or terminating, or its processes do not report
	// Volatile means the group has no volume: what its processes keep
	// (a transaction log recruited onto one) lives only as long as its pod.
	Volatile bool
}

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
}

// domainState is what Next needs to know of one fault domain.
type domainState struct {
	wants         bool // some member wants a disruption
	disrupted     bool // some member is disrupted
	volatileWants bool // some volatile member wants a disruption
}

// Next returns the grant the Cluster should hold after this reconcile and,
// when it holds none while some member wants a disruption, why (a sentence
// naming the domains, for a status message).
//
//  1. Members are grouped into fault domains with DomainOf.
//  2. A current grant whose domain still has a member that wants a
//     disruption or is disrupted is kept, its Generation moved to
//     generation: a spec change mid-roll keeps the same domain going.
//  3. Otherwise (no grant, or its domain is done, so the grant is revoked)
//     a new grant is chosen. When two or more domains have disrupted
//     members there is none, until they recover. When exactly one domain is
//     disrupted it is granted if one of its members wants a disruption,
//     otherwise there is none until it recovers. When no domain is
//     disrupted, the lowest-sorting domain with a member that wants a
//     disruption is granted. When no member wants one, the result is
//     (nil, "").
//  4. A grant is VolatileFirst while a volatile member of its domain
//     wants a disruption.
//  5. The result depends on the members, not on their order.
func Next(current *Grant, members []Member, generation int64) (*Grant, string) {
	domains := domainStates(members)
	grant := func(domain string) *Grant {
		return &Grant{Domain: domain, Generation: generation, VolatileFirst: domains[domain].volatileWants}
	}
	if current != nil {
		if d := domains[current.Domain]; d.wants || d.disrupted {
			return grant(current.Domain), ""
		}
	}
	wanting := domainsWhere(domains, func(d domainState) bool { return d.wants })
	if len(wanting) == 0 {
		return nil, ""
	}
	disrupted := domainsWhere(domains, func(d domainState) bool { return d.disrupted })
	switch {
	case len(disrupted) > 1:
		return nil, fmt.Sprintf("waiting for fault domains %s to recover before disrupting another", strings.Join(disrupted, ", "))
	case len(disrupted) == 1 && !domains[disrupted[0]].wants:
		return nil, fmt.Sprintf("waiting for fault domain %s to recover before disrupting another", disrupted[0])
	case len(disrupted) == 1:
		return grant(disrupted[0]), ""
	}
	return grant(wanting[0]), ""
}

// domainStates groups members into their fault domains.
func domainStates(members []Member) map[string]domainState {
	domains := map[string]domainState{}
	for _, m := range members {
		key := DomainOf(m.Zone, m.Group)
		d := domains[key]
		d.wants = d.wants || m.Wants
		d.disrupted = d.disrupted || m.Disrupted
		d.volatileWants = d.volatileWants || (m.Volatile && m.Wants)
		domains[key] = d
	}
	return domains
}

// domainsWhere returns the sorted names of the domains for which keep holds.
func domainsWhere(domains map[string]domainState, keep func(domainState) bool) []string {
	var names []string
	for name, d := range domains {
		if keep(d) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Allows reports whether a group of domain, volatile or not, may disrupt
// its pod under grant g, read fresh from the API server together with the
// Cluster's generation gen, when the group planned against a Cluster of
// generation planned. A grant made under an older generation, or a plan
// made against one, allows nothing: the Cluster has not yet seen the
// current spec, or the group has not. A VolatileFirst grant allows only
// volatile groups.
func Allows(g *Grant, gen, planned int64, domain string, volatile bool) bool {
	return g != nil && g.Domain == domain && g.Generation == gen && gen == planned && (volatile || !g.VolatileFirst)
}
