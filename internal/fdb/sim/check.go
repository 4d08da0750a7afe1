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
	// DataLoss: a shard lost its last replica. Lost data stays lost.
	DataLoss ViolationKind = "DataLoss"
	// CoordinatorQuorumLoss: a majority of the coordinators became
	// unreachable after the database was created; reported once per
	// episode.
	CoordinatorQuorumLoss ViolationKind = "CoordinatorQuorumLoss"
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
// means no data was lost and the coordinators never lost their quorum.
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
