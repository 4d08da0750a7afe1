package sim

import (
	"fmt"
	"slices"
	"time"
)

// ViolationKind names an invariant.
type ViolationKind string

// Invariants the simulator checks after every change.
const (
	// DataLoss: a shard lost its last replica, or a log generation still
	// needed lost as many logs as it keeps replicas of each mutation. Lost
	// data stays lost.
	DataLoss ViolationKind = "DataLoss"
	// CoordinatorQuorumLoss: a majority of the coordinators became
	// unreachable after the database was created; reported once per
	// episode.
	CoordinatorQuorumLoss ViolationKind = "CoordinatorQuorumLoss"
	// CoordinatorStateLost: so many coordinators of the connection string
	// lost their disk (volume deleted or lost) that fewer than a quorum
	// keep the coordinated state. The database cannot recover any more.
	CoordinatorStateLost ViolationKind = "CoordinatorStateLost"
	// RemovedHeldData: a volume was deleted (its group left
	// SetProcessGroups) while it held a replica of a shard that, without
	// it, has fewer good replicas than the redundancy mode wants. One
	// violation per group.
	RemovedHeldData ViolationKind = "RemovedHeldData"
	// RemovedLogData: a volume was deleted while it held a transaction
	// log of the current generation or of an older one still needed.
	RemovedLogData ViolationKind = "RemovedLogData"
	// CommitsLost: a forced recovery gave up committed mutations that
	// only the data centers it could not reach held.
	CommitsLost ViolationKind = "CommitsLost"
	// RemovedCoordinator: a volume was deleted while its process was a
	// coordinator of the current connection string.
	RemovedCoordinator ViolationKind = "RemovedCoordinator"
	// ConcurrentWiggles: a perpetual wiggle started while another storage
	// server of the same data center was wiggled: data distribution
	// wiggles one at a time in each (perpetualStorageWiggler).
	ConcurrentWiggles ViolationKind = "ConcurrentWiggles"
)

// A Violation is a broken invariant.
type Violation struct {
	Time   time.Time
	Kind   ViolationKind
	Detail string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s %s: %s", v.Time.UTC().Format(time.RFC3339), v.Kind, v.Detail)
}

// Check returns every violation so far, oldest first. An empty result
// means no data was lost, nothing that held needed data was removed and
// the coordinators never lost their quorum or their state.
func (s *Sim) Check() []Violation {
	s.lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

func (s *Sim) violate(kind ViolationKind, detail string) {
	s.violations = append(s.violations, Violation{Time: s.now, Kind: kind, Detail: detail})
}

// checkQuorum records the start of a coordinator quorum loss.
func (s *Sim) checkQuorum() {
	if !s.created {
		return
	}
	lost := !s.quorumReachable()
	if lost && !s.quorumLost {
		s.violate(CoordinatorQuorumLoss, fmt.Sprintf("%d of %d coordinators reachable",
			s.reachableCoordinators(), len(s.conn.Coordinators)))
	}
	s.quorumLost = lost
}
