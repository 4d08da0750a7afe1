package sim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// destroyVolumes destroys the data of the processes ids (sorted): their
// storage replicas and storage servers, the transaction logs they held and
// the coordinated state of the coordinators they were. A deliberate destruction (the
// volume was deleted) of a database's volume is first checked against the
// promise never to remove anything that still holds needed data; an
// injected one (a disk lost) is a fault and only its consequences are
// recorded.
func (s *Sim) destroyVolumes(ids []string, deliberate bool, reason string) {
	if len(ids) == 0 || !s.created {
		return
	}
	if deliberate {
		s.checkRemovedData(ids)
		s.checkRemovedLogs(ids)
		s.checkRemovedCoordinators(ids)
	}
	s.loseLogs(ids, reason)
	s.loseCoordinatorState(ids)
	for _, id := range ids {
		// The cluster file and coordination files live in the data
		// directory.
		if p := s.procs[id]; p != nil {
			p.clusterFile, p.copiedState = "", ""
		}
	}
	s.dropReplicas(func(id string) bool { return slices.Contains(ids, id) }, reason)
	s.dropStorageServers(ids)
}

// byGroup collects, for each group of the processes ids, the sorted
// values held returns for its processes; groups without any are left out.
func byGroup[T cmp.Ordered](s *Sim, ids []string, held func(id string) []T) map[string][]T {
	out := map[string][]T{}
	for _, id := range ids {
		if values := held(id); len(values) > 0 {
			g := s.procs[id].group
			out[g] = append(out[g], values...)
		}
	}
	for g, values := range out {
		slices.Sort(values)
		out[g] = slices.Compact(values)
	}
	return out
}

// checkRemovedData records a RemovedHeldData violation for every group
// among ids that held a replica of a shard left below full replication in
// the replica's data center: fewer good replicas there than the
// redundancy mode wants once every volume of ids is gone.
func (s *Sim) checkRemovedData(ids []string) {
	rf := s.storageReplicas()
	type where struct {
		shard int
		dc    string
	}
	left := map[where]int{} // shards below full replication in a data center: good replicas left there
	for _, sh := range s.shards {
		if sh.lost {
			continue
		}
		good := slices.DeleteFunc(s.classify(sh).good, func(id string) bool { return slices.Contains(ids, id) })
		for _, dc := range s.dataDCs() {
			if n := len(s.in(good, dc)); n < rf {
				left[where{sh.id, dc}] = n
			}
		}
	}
	fewest := map[string]int{} // by group: the fewest replicas it left a shard
	held := byGroup(s, ids, func(id string) []int {
		var out []int
		dc, _ := s.dataDCOf(s.procs[id])
		for _, sh := range s.shards {
			if n, below := left[where{sh.id, dc}]; below && slices.Contains(sh.replicas, id) {
				out = append(out, sh.id)
				g := s.procs[id].group
				if f, seen := fewest[g]; !seen || n < f {
					fewest[g] = n
				}
			}
		}
		return out
	})
	for _, g := range slices.Sorted(maps.Keys(held)) {
		s.violate(RemovedHeldData, fmt.Sprintf("group %s's volume held a replica of shards %v below full replication (%d of %d replicas left)",
			g, held[g], fewest[g], rf))
	}
}

// checkRemovedLogs records a RemovedLogData violation for every group among
// ids that held a log of a generation still needed.
func (s *Sim) checkRemovedLogs(ids []string) {
	held := byGroup(s, ids, func(id string) []int64 {
		var epochs []int64
		for _, g := range s.rec.gens {
			if !g.dataLost && (slices.Contains(g.logs, id) || slices.Contains(g.satellites, id)) && !slices.Contains(g.lost, id) {
				epochs = append(epochs, g.epoch)
			}
		}
		return epochs
	})
	for _, g := range slices.Sorted(maps.Keys(held)) {
		s.violate(RemovedLogData, fmt.Sprintf("group %s's volume held transaction logs of generations %v that are still needed", g, held[g]))
	}
}

// checkRemovedCoordinators records a RemovedCoordinator violation for every
// group among ids that ran a coordinator of the current connection string.
func (s *Sim) checkRemovedCoordinators(ids []string) {
	held := byGroup(s, ids, func(id string) []fdb.ProcessAddress { return s.servedCoordinators(s.procs[id]) })
	for _, g := range slices.Sorted(maps.Keys(held)) {
		s.violate(RemovedCoordinator, fmt.Sprintf("group %s's volume held the coordinated state of coordinators %v of the current connection string", g, held[g]))
	}
}

// loseLogs records that the logs on ids lost their data and a DataLoss for
// every needed generation that thereby lost as many logs as it keeps
// replicas of each mutation (and as many satellite logs, and the remote
// region had not applied them).
func (s *Sim) loseLogs(ids []string, reason string) {
	k := s.logReplicas()
	for _, g := range s.rec.gens {
		for _, id := range ids {
			if (slices.Contains(g.logs, id) || slices.Contains(g.satellites, id)) && !slices.Contains(g.lost, id) {
				g.lost = append(g.lost, id)
			}
		}
		slices.Sort(g.lost)
		if !g.dataLost && !s.readable(g, wiped) {
			g.dataLost = true
			s.violate(DataLoss, fmt.Sprintf("log generation %d lost every replica of its mutations: %d of %d logs lost, in %d zones, with log replication %d: %s %v",
				g.epoch, len(g.lost), len(g.logs), wiped(g, g.logs), k, reason, g.lost))
		}
	}
}

// loseCoordinatorState records that the coordinators on ids lost their
// disk and a CoordinatorStateLost once fewer than a quorum of the current
// coordinators keep the coordinated state.
func (s *Sim) loseCoordinatorState(ids []string) {
	for _, id := range ids {
		s.coordinatorsLost = fdb.SortedAddresses(append(s.coordinatorsLost, s.servedCoordinators(s.procs[id])...))
	}
	n := len(s.conn.Coordinators)
	if kept := n - len(s.coordinatorsLost); !s.stateLost && kept < quorum(n) {
		s.stateLost = true
		s.violate(CoordinatorStateLost, fmt.Sprintf("coordinators %v lost their disks: %d of %d keep the coordinated state, a quorum needs %d",
			s.coordinatorsLost, kept, n, quorum(n)))
	}
}
