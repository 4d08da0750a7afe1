package disruption

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDomainOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		zone   string
		group  string
		want   string
	}{
		"Zone": {
			reason: "A group with a zone is in its zone's domain.",
			zone:   "zone-a",
			group:  "storage-1",
			want:   "zone-a",
		},
		"NoZone": {
			reason: "A group without a zone is a domain of its own.",
			group:  "log-1",
			want:   "group/log-1",
		},
		"OtherGroupNoZone": {
			reason: "Two groups without a zone are in different domains.",
			group:  "log-2",
			want:   "group/log-2",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DomainOf(tc.zone, tc.group)); diff != "" {
				t.Errorf("\n%s\nDomainOf(%q, %q): -want, +got:\n%s", tc.reason, tc.zone, tc.group, diff)
			}
		})
	}
}

func TestNext(t *testing.T) {
	type want struct {
		grant *Grant
		why   string
	}
	cases := map[string]struct {
		reason     string
		current    *Grant
		members    []Member
		generation int64
		want       want
	}{
		"NoMembers": {
			reason:     "Without members there is nothing to grant.",
			generation: 1,
		},
		"NoneWants": {
			reason: "When no member wants a disruption there is no grant and nothing to explain, even while a domain is disrupted.",
			members: []Member{
				{Group: "storage-1", Zone: "zone-a"},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true},
			},
			generation: 1,
		},
		"VolatileFirst": {
			reason: "A domain whose volatile member wants a disruption is granted for its volatile members first.",
			members: []Member{
				{Group: "log-1", Zone: "zone-a", Wants: true},
				{Group: "stateless-1", Zone: "zone-a", Wants: true, Volatile: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-a", Generation: 1, VolatileFirst: true}},
		},
		"VolatileDoneThenTheRest": {
			reason:  "Once the domain's volatile members want nothing more (even while one is still starting), the grant covers every member.",
			current: &Grant{Domain: "zone-a", Generation: 1, VolatileFirst: true},
			members: []Member{
				{Group: "log-1", Zone: "zone-a", Wants: true},
				{Group: "stateless-1", Zone: "zone-a", Disrupted: true, Volatile: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-a", Generation: 1}},
		},
		"LowestWantingDomain": {
			reason: "With no domain disrupted, the lowest-sorting domain with a member that wants a disruption is granted.",
			members: []Member{
				{Group: "storage-1", Zone: "zone-c", Wants: true},
				{Group: "storage-2", Zone: "zone-b", Wants: true},
				{Group: "storage-3", Zone: "zone-a"},
			},
			generation: 3,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 3}},
		},
		"KeepWhileWanting": {
			reason:  "A grant whose domain still has a member that wants a disruption is kept under the new generation.",
			current: &Grant{Domain: "zone-b", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Wants: true},
				{Group: "storage-2", Zone: "zone-b", Wants: true},
			},
			generation: 2,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 2}},
		},
		"KeepWhileDisrupted": {
			reason:  "A grant whose domain still has a disrupted member is kept, though no member of it wants a disruption.",
			current: &Grant{Domain: "zone-b", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Wants: true},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 1}},
		},
		"KeepWhileAnotherDomainDisrupted": {
			reason:  "A grant whose domain still wants a disruption is kept while another domain is disrupted, for its disrupted members only: its serving ones wait.",
			current: &Grant{Domain: "zone-b", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Disrupted: true},
				{Group: "storage-2", Zone: "zone-b", Wants: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 1, DisruptedOnly: true}},
		},
		"KeepComingBackWhileAnotherDomainDisrupted": {
			reason:  "A grant whose domain's pods come back is kept while another domain is disrupted, for its disrupted members only.",
			current: &Grant{Domain: "zone-b", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Disrupted: true},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true},
				{Group: "storage-3", Zone: "zone-b", Wants: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 1, DisruptedOnly: true}},
		},
		"RevokeAndGrantNext": {
			reason:  "A grant whose domain is done is revoked and the next domain is granted.",
			current: &Grant{Domain: "zone-a", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a"},
				{Group: "storage-2", Zone: "zone-b", Wants: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 1}},
		},
		"RevokeWhenAllDone": {
			reason:  "A grant whose domain is done is revoked; with nobody else wanting there is no grant.",
			current: &Grant{Domain: "zone-a", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a"},
				{Group: "storage-2", Zone: "zone-b"},
			},
			generation: 1,
		},
		"RevokeWhenDomainGone": {
			reason:  "A grant whose domain has no members left is revoked.",
			current: &Grant{Domain: "zone-z", Generation: 1},
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Wants: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-a", Generation: 1}},
		},
		"TwoDomainsDisrupted": {
			reason: "While two domains are disrupted and none of their disrupted members wants a disruption, no grant is made, and why names them.",
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Wants: true},
				{Group: "storage-2", Zone: "zone-c", Disrupted: true},
				{Group: "storage-3", Zone: "zone-b", Disrupted: true},
				{Group: "storage-4", Zone: "zone-b", Wants: true},
			},
			generation: 1,
			want:       want{why: "waiting for fault domains zone-b, zone-c to recover before disrupting another"},
		},
		"LeftBehindInTwoDomains": {
			reason: "While two domains are disrupted, the lowest whose disrupted member wants a disruption is granted for its disrupted members only (an upgrade's processes left behind in two zones, chaos seed 1519).",
			members: []Member{
				{Group: "storage-1", Zone: "zone-a"},
				{Group: "log-2", Zone: "zone-b", Wants: true},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true, Wants: true},
				{Group: "log-3", Zone: "zone-c", Disrupted: true, Wants: true},
				{Group: "storage-3", Zone: "zone-c", Disrupted: true, Wants: true},
			},
			generation: 3,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 3, DisruptedOnly: true}},
		},
		"DisruptedOnlyIsNotVolatileFirst": {
			reason: "A grant for disrupted members only is not VolatileFirst: the pods it lets go serve nothing a log could be recruited onto.",
			members: []Member{
				{Group: "stateless-1", Zone: "zone-b", Wants: true, Volatile: true},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true, Wants: true},
				{Group: "storage-3", Zone: "zone-c", Disrupted: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 1, DisruptedOnly: true}},
		},
		"OneDisruptedDomainWants": {
			reason: "The only disrupted domain is granted when one of its members wants a disruption, though another domain sorts first.",
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Wants: true},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true},
				{Group: "storage-3", Zone: "zone-b", Wants: true},
			},
			generation: 4,
			want:       want{grant: &Grant{Domain: "zone-b", Generation: 4}},
		},
		"OneDisruptedDomainDoesNotWant": {
			reason: "While the only disrupted domain wants no disruption, no grant is made until it recovers.",
			members: []Member{
				{Group: "storage-1", Zone: "zone-a", Wants: true},
				{Group: "storage-2", Zone: "zone-b", Disrupted: true},
			},
			generation: 1,
			want:       want{why: "waiting for fault domain zone-b to recover before disrupting another"},
		},
		"ZonelessGroupDone": {
			reason:  "Groups without a zone are domains of their own: one that is done loses the grant to another that wants one.",
			current: &Grant{Domain: "group/log-1", Generation: 1},
			members: []Member{
				{Group: "log-1"},
				{Group: "log-2", Wants: true},
			},
			generation: 1,
			want:       want{grant: &Grant{Domain: "group/log-2", Generation: 1}},
		},
		"ZonelessGroupsDisrupted": {
			reason: "Two disrupted groups without a zone are two disrupted domains.",
			members: []Member{
				{Group: "log-1", Disrupted: true},
				{Group: "log-2", Disrupted: true},
				{Group: "storage-1", Zone: "zone-a", Wants: true},
			},
			generation: 1,
			want:       want{why: "waiting for fault domains group/log-1, group/log-2 to recover before disrupting another"},
		},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, members := range orders(rng, tc.members) {
				grant, why := Next(tc.current, members, tc.generation)
				if diff := cmp.Diff(tc.want, want{grant: grant, why: why}, cmp.AllowUnexported(want{})); diff != "" {
					t.Errorf("\n%s\nNext(%v, %v, %d): -want, +got:\n%s", tc.reason, tc.current, members, tc.generation, diff)
				}
			}
		})
	}
}

// orders returns members in their order, reversed, and in a few seeded
// random orders.
func orders(rng *rand.Rand, members []Member) [][]Member {
	reversed := slices.Clone(members)
	slices.Reverse(reversed)
	out := [][]Member{members, reversed}
	for range 3 {
		shuffled := slices.Clone(members)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		out = append(out, shuffled)
	}
	return out
}

func TestAllows(t *testing.T) {
	cases := map[string]struct {
		reason  string
		grant   *Grant
		gen     int64
		planned int64
		member  Member
		want    bool
	}{
		"NoGrant": {
			reason:  "Without a grant nothing is allowed.",
			gen:     1,
			planned: 1,
			member:  Member{Group: "storage-1", Zone: "zone-a"},
		},
		"OtherDomain": {
			reason:  "A grant allows only its own domain.",
			grant:   &Grant{Domain: "zone-b", Generation: 1},
			gen:     1,
			planned: 1,
			member:  Member{Group: "storage-1", Zone: "zone-a"},
		},
		"GrantFromOlderGeneration": {
			reason:  "A grant made before the latest spec change allows nothing until the Cluster renews it.",
			grant:   &Grant{Domain: "zone-a", Generation: 1},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-1", Zone: "zone-a"},
		},
		"PlannedAgainstOlderGeneration": {
			reason:  "A group that planned against an older Cluster may not act on a current grant.",
			grant:   &Grant{Domain: "zone-a", Generation: 2},
			gen:     2,
			planned: 1,
			member:  Member{Group: "storage-1", Zone: "zone-a"},
		},
		"Granted": {
			reason:  "A current grant for the group's domain, planned against the current Cluster, allows the disruption.",
			grant:   &Grant{Domain: "zone-a", Generation: 2},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-1", Zone: "zone-a"},
			want:    true,
		},
		"VolatileFirstHoldsTheOthers": {
			reason:  "While the grant is for the domain's volatile groups first, a group with a volume waits.",
			grant:   &Grant{Domain: "zone-a", Generation: 2, VolatileFirst: true},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-1", Zone: "zone-a"},
		},
		"VolatileFirstAllowsVolatile": {
			reason:  "While the grant is for the domain's volatile groups first, a volatile group may go.",
			grant:   &Grant{Domain: "zone-a", Generation: 2, VolatileFirst: true},
			gen:     2,
			planned: 2,
			member:  Member{Group: "stateless-1", Zone: "zone-a", Volatile: true},
			want:    true,
		},
		"DisruptedOnlyHoldsTheServing": {
			reason:  "While the grant is for the domain's disrupted groups only, a group that serves waits.",
			grant:   &Grant{Domain: "zone-a", Generation: 2, DisruptedOnly: true},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-1", Zone: "zone-a", Wants: true},
		},
		"DisruptedOnlyAllowsDisrupted": {
			reason:  "While the grant is for the domain's disrupted groups only, a disrupted group may go.",
			grant:   &Grant{Domain: "zone-a", Generation: 2, DisruptedOnly: true},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-1", Zone: "zone-a", Disrupted: true},
			want:    true,
		},
		"DisruptedOnlyAllowsAnotherDomain": {
			reason:  "A grant for disrupted groups only allows them in every domain: recreating a pod that serves nothing disrupts no domain not disrupted already.",
			grant:   &Grant{Domain: "zone-a", Generation: 2, DisruptedOnly: true},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-3", Zone: "zone-c", Disrupted: true},
			want:    true,
		},
		"DisruptedOnlyOfOlderGeneration": {
			reason:  "A grant for disrupted groups only, made before the latest spec change, allows nothing.",
			grant:   &Grant{Domain: "zone-a", Generation: 1, DisruptedOnly: true},
			gen:     2,
			planned: 2,
			member:  Member{Group: "storage-3", Zone: "zone-c", Disrupted: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Allows(tc.grant, tc.gen, tc.planned, tc.member)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nAllows(%v, %d, %d, %+v): -want, +got:\n%s", tc.reason, tc.grant, tc.gen, tc.planned, tc.member, diff)
			}
		})
	}
}

func BenchmarkNext(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			members := benchmarkMembers(n)
			current := &Grant{Domain: "zone-1", Generation: 1}
			for b.Loop() {
				Next(current, members, 2)
			}
		})
	}
}

// benchmarkMembers returns n members over 5 zones, one in ten without a
// zone, a third of them wanting a disruption and none disrupted, so Next
// revokes the grant of the done zone-1 and chooses another domain.
func benchmarkMembers(n int) []Member {
	members := make([]Member, n)
	for i := range members {
		members[i] = Member{Group: fmt.Sprintf("storage-%d", i+1), Wants: i%3 == 0 && i%5 != 0}
		if i%10 != 9 {
			members[i].Zone = fmt.Sprintf("zone-%d", i%5+1)
		}
	}
	return members
}
