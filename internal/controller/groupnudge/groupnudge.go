// Package groupnudge wakes the ProcessGroups whose processes changed in a
// database status. A settled ProcessGroup whose pod, claim and node are
// watched is polled rarely (--watched-poll): what happens to those objects
// arrives as events, but what happens only to its processes (they stop
// reporting, are excluded, take or lose a role) shows only in the status.
// The Cluster reads that status on every poll with its groups listed; it
// hands both to Saw, which compares each group's processes with the last
// status it saw and sends an event for every group whose processes changed.
// Nothing here decides anything: an event only makes a group reconcile
// sooner, and its reconcile reads what it needs itself.
package groupnudge

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// pending is how many nudges may wait for the ProcessGroup controller; one
// that finds no room is dropped, and its group notices at its next poll.
const pending = 4096

// Nudger remembers, per Cluster, each group's processes in the last status
// it saw. Its zero value is not usable: use New.
type Nudger struct {
	events chan event.TypedGenericEvent[*v1alpha1.ProcessGroup]

	mu   sync.Mutex
	last map[client.ObjectKey]map[string]string
}

// New returns a Nudger.
func New() *Nudger {
	return &Nudger{events: make(chan event.TypedGenericEvent[*v1alpha1.ProcessGroup], pending), last: map[client.ObjectKey]map[string]string{}}
}

// Source is what the ProcessGroup controller watches: a request for each
// group nudged.
func (n *Nudger) Source() source.Source {
	return source.Channel(n.events, &handler.TypedEnqueueRequestForObject[*v1alpha1.ProcessGroup]{})
}

// Saw takes status s of the database of Cluster cluster, whose groups are
// groups, and nudges each group whose processes differ from those in the
// last status of cluster it saw. The first status of a Cluster nudges
// nothing (a provider that starts reconciles every group anyway); an
// incomplete one, which cannot show every process, is not taken.
func (n *Nudger) Saw(cluster client.ObjectKey, groups []v1alpha1.ProcessGroup, s *fdb.Status) {
	if n == nil || s == nil || s.Incomplete() {
		return
	}
	if len(groups) == 0 {
		// A Cluster without groups (one being deleted) is forgotten.
		n.mu.Lock()
		delete(n.last, cluster)
		n.mu.Unlock()
		return
	}
	procs := make(map[string][]string, len(groups))
	for _, pg := range groups {
		procs[pg.ID()] = nil
	}
	for _, p := range s.Cluster.Processes {
		if fps, ok := procs[p.Locality.InstanceID]; ok {
			procs[p.Locality.InstanceID] = append(fps, fingerprint(p))
		}
	}
	now := make(map[string]string, len(procs))
	for id, fps := range procs {
		slices.Sort(fps)
		now[id] = strings.Join(fps, ";")
	}
	n.mu.Lock()
	last, seen := n.last[cluster]
	n.last[cluster] = now
	n.mu.Unlock()
	if !seen {
		return
	}
	for i := range groups {
		id := groups[i].ID()
		if was, ok := last[id]; ok && was != now[id] {
			select {
			case n.events <- event.TypedGenericEvent[*v1alpha1.ProcessGroup]{Object: &groups[i]}:
			default:
			}
		}
	}
}

// fingerprint is what a group's reconcile takes from process p: where it
// listens, what it runs, whether it is excluded or degraded, and its roles.
func fingerprint(p fdb.Process) string {
	roles := make([]string, len(p.Roles))
	for i, r := range p.Roles {
		roles[i] = r.Role
	}
	slices.Sort(roles)
	return fmt.Sprintf("%s|%s|%s|%s|%t|%t|%s", p.Locality.ProcessID, p.Address, p.Version, p.CommandLine, p.Excluded, p.Degraded, strings.Join(roles, ","))
}
