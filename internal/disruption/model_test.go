package disruption

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// This file models the Kubernetes world the Cluster and ProcessGroup
// controllers run in: an API server holding the Cluster and the pods,
// informer caches that lag it, reconciles that interleave, and pods whose
// processes stop reporting on their own, some until they are recreated. It
// drives the real Next and Allows and checks that the groups never disrupt
// two fault domains at once (deleting a pod that does not run disrupts
// nothing more), and that every pod ends up running the latest spec.

// podState is the phase of a group's pod on the API server.
type podState int

const (
	podGone podState = iota
	podStarting
	podRunning
	// podLeftBehind runs but its processes do not report, and will not
	// until the pod is recreated (an upgrade's processes left behind on
	// the old version): it wants a disruption whatever its spec.
	podLeftBehind
)

// pod is one incarnation of a group's pod.
type pod struct {
	uid        int64
	generation int64 // the Cluster generation its spec was built from
	state      podState
}

// cluster is the Cluster object.
type cluster struct {
	version    int64  // metadata.resourceVersion: changes with every write
	generation int64  // metadata.generation
	grant      *Grant // status; never mutated, only replaced
}

// world is the content of the API server at one instant.
type world struct {
	cluster cluster
	pods    []pod // indexed like modelGroups
}

// wants reports whether the pod wants a disruption under a Cluster of
// generation gen: it exists and its spec drifted, or it was left behind.
func (p pod) wants(gen int64) bool {
	return p.state == podLeftBehind || p.state != podGone && p.generation != gen
}

// clone returns a copy of w that shares nothing mutable with it.
func (w world) clone() world {
	w.pods = append([]pod(nil), w.pods...)
	return w
}

// modelGroup is a process group of the model.
type modelGroup struct {
	id, zone string
}

// modelGroups are 5 zones of 3 groups each and 2 groups without a zone.
func modelGroups() []modelGroup {
	var groups []modelGroup
	for z := range 5 {
		for g := range 3 {
			groups = append(groups, modelGroup{id: fmt.Sprintf("storage-%d", 3*z+g+1), zone: fmt.Sprintf("zone-%d", z+1)})
		}
	}
	return append(groups, modelGroup{id: "log-1"}, modelGroup{id: "log-2"})
}

// groupBehaviour is how a group reconcile decides to delete its drifted pod.
type groupBehaviour int

const (
	// grantLive is this package's design: the group reads the grant live
	// and deletes only the pod incarnation it saw.
	grantLive groupBehaviour = iota
	// grantCached trusts the grant in the group's cached Cluster and
	// deletes whatever pod is there.
	grantCached
	// zoneFreeCached is the check this package replaces: no grant; the
	// group goes when its cached pods show every other domain running and
	// no domain that sorts first drifted.
	zoneFreeCached
)

// variant is the controllers' behaviour under test.
type variant struct {
	groups groupBehaviour
	// blindStatusWrite writes the Cluster's status without the
	// resourceVersion precondition an update carries.
	blindStatusWrite bool
}

// caches are one reconciler's informers: the history indexes its Cluster
// and its pod informers last showed. They lag independently.
type caches struct {
	clusterAt, podsAt int
}

// Model parameters.
const (
	maxCacheLag       = 20 // events a cache may lag the API server
	specChangePercent = 2  // chance of a spec change per event while the spec changes
	crashPermille     = 5  // chance per thousand events, while the spec changes, that a running pod's processes stop reporting
	clusterPercent    = 25 // chance of a Cluster reconcile per event
	groupPercent      = 45 // chance of a group reconcile per event; the rest are kubelet steps
	changingEvents    = 2000
	settleBound       = 3000 // events the world may take to settle after the spec stops changing
)

// model is the world's history and the controllers' caches of it.
type model struct {
	rng       *rand.Rand
	groups    []modelGroup
	variant   variant
	history   []world  // the last entry is the live API server
	clusterRc caches   // the Cluster reconciler's
	groupRc   []caches // each group reconciler's
	deleted   []bool   // the group deleted its pod and it is not Running again
	lastUID   int64
}

// newModel returns a settled world: every pod Running at generation 1.
func newModel(seed uint64, v variant) *model {
	groups := modelGroups()
	m := &model{
		rng:     rand.New(rand.NewPCG(seed, 0)),
		groups:  groups,
		variant: v,
		groupRc: make([]caches, len(groups)),
		deleted: make([]bool, len(groups)),
	}
	start := world{cluster: cluster{generation: 1}, pods: make([]pod, len(groups))}
	for i := range start.pods {
		start.pods[i] = pod{uid: m.newUID(), generation: 1, state: podRunning}
	}
	m.history = []world{start}
	return m
}

// newUID returns the UID of a new pod incarnation.
func (m *model) newUID() int64 {
	m.lastUID++
	return m.lastUID
}

// live is the API server's current content.
func (m *model) live() *world {
	return &m.history[len(m.history)-1]
}

// cached moves an informer to a past world that lags the live one by a
// random number of events, never older than what the informer showed
// before, and returns that world.
func (m *model) cached(at *int) world {
	oldest := max(*at, len(m.history)-1-maxCacheLag)
	*at = oldest + m.rng.IntN(len(m.history)-oldest)
	return m.history[*at]
}

// read returns what a reconciler's informers show now.
func (m *model) read(c *caches) (cluster, []pod) {
	return m.cached(&c.clusterAt).cluster, m.cached(&c.podsAt).pods
}

// step runs one random event; the spec changes only while changing.
func (m *model) step(changing bool) {
	m.history = append(m.history, m.live().clone())
	switch r := m.rng.IntN(100); {
	case changing && r < specChangePercent:
		m.live().cluster.generation++
		m.live().cluster.version++
	case changing && m.rng.IntN(1000) < crashPermille:
		m.crash(m.rng.IntN(len(m.groups)))
	case r < clusterPercent:
		m.reconcileCluster()
	case r < clusterPercent+groupPercent:
		m.reconcileGroup(m.rng.IntN(len(m.groups)))
	default:
		m.runKubelet(m.rng.IntN(len(m.groups)))
	}
}

// reconcileCluster computes the grant from the Cluster reconciler's
// informers and writes it to the API server when it changed. The write
// fails when the Cluster changed since the informer showed it, unless the
// variant writes blindly.
func (m *model) reconcileCluster() {
	c, pods := m.read(&m.clusterRc)
	members := make([]Member, len(m.groups))
	for i, g := range m.groups {
		members[i] = Member{
			Group:     g.id,
			Zone:      g.zone,
			Wants:     pods[i].wants(c.generation),
			Disrupted: pods[i].state != podRunning,
		}
	}
	grant, _ := Next(c.grant, members, c.generation)
	live := &m.live().cluster
	if !sameGrant(grant, c.grant) && (m.variant.blindStatusWrite || live.version == c.version) {
		live.grant = grant
		live.version++
	}
}

// sameGrant reports whether a and b are the same grant or both none.
func sameGrant(a, b *Grant) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// reconcileGroup acts for group i from its informers: it recreates its
// missing pod (the create fails when a pod exists), or deletes its drifted
// pod when it may.
func (m *model) reconcileGroup(i int) {
	c, pods := m.read(&m.groupRc[i])
	mine, live := pods[i], m.live()
	switch {
	case mine.state == podGone && live.pods[i].state == podGone:
		live.pods[i] = pod{uid: m.newUID(), generation: c.generation, state: podStarting}
	case mine.wants(c.generation) && m.mayDelete(i, c, pods):
		// Deleting a pod that does not run (its processes stopped
		// reporting) disrupts no domain that was not disrupted already.
		m.deleted[i] = live.pods[i].state == podRunning
		live.pods[i] = pod{}
	}
}

// mayDelete reports whether group i, whose informers show c and pods, may
// delete its drifted pod now.
func (m *model) mayDelete(i int, c cluster, pods []pod) bool {
	live := m.live()
	member := Member{Group: m.groups[i].id, Zone: m.groups[i].zone}
	switch m.variant.groups {
	case grantLive:
		member.Disrupted = live.pods[i].state != podRunning
		return live.pods[i].uid == pods[i].uid && Allows(live.cluster.grant, live.cluster.generation, c.generation, member)
	case grantCached:
		member.Disrupted = pods[i].state != podRunning
		return Allows(c.grant, c.generation, c.generation, member)
	}
	return m.zoneFree(i, c, pods)
}

// zoneFree is the check this package replaces, over DomainOf's domains:
// every pod of another domain is running, and no other domain that sorts
// first has a drifted pod.
func (m *model) zoneFree(i int, c cluster, pods []pod) bool {
	mine := DomainOf(m.groups[i].zone, m.groups[i].id)
	for j, g := range m.groups {
		switch theirs := DomainOf(g.zone, g.id); {
		case theirs == mine:
		case pods[j].state != podRunning:
			return false
		case pods[j].generation != c.generation && theirs < mine:
			return false
		}
	}
	return true
}

// crash stops group i's running pod's processes: it is disrupted, not by
// a group, until the kubelet runs it again or, for one left behind, until
// it is recreated.
func (m *model) crash(i int) {
	if p := &m.live().pods[i]; p.state == podRunning {
		p.state = podStarting
		if m.rng.IntN(2) == 0 {
			p.state = podLeftBehind
		}
	}
}

// runKubelet starts group i's pod when it is starting.
func (m *model) runKubelet(i int) {
	if p := &m.live().pods[i]; p.state == podStarting {
		p.state = podRunning
		m.deleted[i] = false
	}
}

// disruptedDomains returns the fault domains with a pod a group deleted
// that is not Running again.
func (m *model) disruptedDomains() map[string]bool {
	domains := map[string]bool{}
	for i, g := range m.groups {
		if m.deleted[i] {
			domains[DomainOf(g.zone, g.id)] = true
		}
	}
	return domains
}

// settled reports whether every pod runs the latest spec.
func (m *model) settled() bool {
	live := m.live()
	for _, p := range live.pods {
		if p.state != podRunning || p.generation != live.cluster.generation {
			return false
		}
	}
	return true
}

// outcome is what one run of the model found.
type outcome struct {
	violation string // when two domains were first disrupted at once, or ""
	settled   bool   // every pod ran the latest spec within settleBound events after the spec stopped changing
}

// run runs the model for one seed: events while the spec changes, then
// events until the world settles or the bound passes.
func run(seed uint64, v variant) outcome {
	m := newModel(seed, v)
	for event := range changingEvents + settleBound {
		changing := event < changingEvents
		if !changing && m.settled() {
			return outcome{settled: true}
		}
		m.step(changing)
		if d := m.disruptedDomains(); len(d) > 1 {
			return outcome{violation: fmt.Sprintf("seed %d, event %d: domains %v disrupted at once", seed, event, d)}
		}
	}
	return outcome{}
}

func TestModel(t *testing.T) {
	const seeds = 200
	cases := map[string]struct {
		reason        string
		variant       variant
		wantViolation bool
	}{
		"Design": {
			reason:  "The Cluster grants one domain at a time and a group deletes its pod only under a grant it reads live.",
			variant: variant{groups: grantLive},
		},
		"GroupsTrustCachedGrant": {
			reason: "A group that judges from its cache whether its pod serves nothing deletes, under a grant for disrupted groups only, " +
				"a pod that runs again: the group must see its own pod live.",
			variant:       variant{groups: grantCached},
			wantViolation: true,
		},
		"BlindStatusWrite": {
			reason: "A grant moves only once its domain is done and is for disrupted groups only while another domain is disrupted, so even " +
				"written without its resourceVersion from a cache that lags the Cluster's own last write it disrupts no second domain: " +
				"the pods the Cluster sees recompute the same domain, or a grant for disrupted groups only.",
			variant: variant{groups: grantLive, blindStatusWrite: true},
		},
		"ZoneFreeFromCache": {
			reason:        "Groups that judge from their own stale caches whether their domain may go disrupt two domains at once.",
			variant:       variant{groups: zoneFreeCached},
			wantViolation: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var violations []string
			for seed := range uint64(seeds) {
				o := run(seed, tc.variant)
				if o.violation != "" {
					violations = append(violations, o.violation)
					continue
				}
				if !tc.wantViolation && !o.settled {
					t.Errorf("\n%s\nseed %d: pods not all running the latest spec %d events after the spec stopped changing", tc.reason, seed, settleBound)
				}
			}
			switch {
			case tc.wantViolation && len(violations) == 0:
				t.Errorf("\n%s\nno seed of %d disrupted two domains at once", tc.reason, seeds)
			case !tc.wantViolation && len(violations) > 0:
				t.Errorf("\n%s\n%d of %d seeds disrupted two domains at once, first %s", tc.reason, len(violations), seeds, violations[0])
			}
			t.Logf("%d of %d seeds disrupted two domains at once", len(violations), seeds)
		})
	}
}
