package fdb

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// ProcessesByInstance groups the processes of a status by their instance_id
// locality (the process group, i.e. pod, they run in). Each group is sorted
// by process_id locality, then address; processes without an instance_id
// are left out.
func ProcessesByInstance(s *Status) map[string][]Process {
	out := map[string][]Process{}
	for _, p := range s.Cluster.Processes {
		if id := p.Locality.InstanceID; id != "" {
			out[id] = append(out[id], p)
		}
	}
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b Process) int {
			return cmp.Or(cmp.Compare(a.Locality.ProcessID, b.Locality.ProcessID), cmp.Compare(a.Address, b.Address))
		})
	}
	return out
}

// Exclusions returns the exclusion list of a status, sorted.
func Exclusions(s *Status) []ProcessAddress {
	var out []ProcessAddress
	for _, e := range s.Cluster.Configuration.ExcludedServers {
		out = append(out, e.Target())
	}
	return SortedAddresses(out)
}

// StillInUse returns the targets, sorted, that select at least one process
// holding data or serving a role (coordinator included). An excluded
// storage server keeps its storage role until its data has moved.
func StillInUse(s *Status, targets []ProcessAddress) []ProcessAddress {
	var out []ProcessAddress
	for _, t := range SortedAddresses(targets) {
		if slices.ContainsFunc(matching(s, t), func(p Process) bool { return len(p.Roles) > 0 }) {
			out = append(out, t)
		}
	}
	return out
}

// ExclusionReport sorts targets by how far their exclusion has progressed.
type ExclusionReport struct {
	// Blocked, when set, says why the status cannot be trusted for
	// removals; every target is then reported NotExcluded.
	Blocked string
	// NotExcluded targets are neither in the exclusion list nor reported
	// excluded by all their processes.
	NotExcluded []ProcessAddress
	// InProgress targets are excluded but a process still holds data or
	// serves a role.
	InProgress []ProcessAddress
	// FullyExcluded targets are excluded and every process they select is
	// running without data or roles: safe to remove.
	FullyExcluded []ProcessAddress
	// Missing targets are excluded but select no reporting process. The
	// status cannot tell whether a missing storage process held the last
	// copy of some data: check the data state before removing them.
	Missing []ProcessAddress
}

// removalBlockers are the cluster messages under which the exclusion state
// in a status is not trustworthy.
var removalBlockers = []string{
	MessageUnreadableConfiguration,
	MessageFullReplicationTimeout,
	MessageStorageServersError,
	MessageLogServersError,
}

// removalBlocked returns why s cannot be trusted for removal decisions, or
// "" when it can.
func removalBlocked(s *Status) string {
	if s.Incomplete() {
		return "status is incomplete"
	}
	if g := s.Cluster.RecoveryState.ActiveGenerations; g > 1 {
		return fmt.Sprintf("a recovery is in progress with %d active generations", g)
	}
	for _, m := range s.Cluster.Messages {
		if slices.Contains(removalBlockers, m.Name) {
			return "status reports " + m.Name
		}
	}
	return ""
}

// ClassifyExclusions reports the exclusion progress of each target. Like
// the operator's removal check it is conservative: while the status is
// incomplete, a recovery has more than one active generation or data
// distribution reports an error, every target counts as not excluded.
func ClassifyExclusions(s *Status, targets []ProcessAddress) ExclusionReport {
	listed := Exclusions(s)
	var r ExclusionReport
	if r.Blocked = removalBlocked(s); r.Blocked != "" {
		r.NotExcluded = SortedAddresses(targets)
		return r
	}
	for _, t := range SortedAddresses(targets) {
		procs := matching(s, t)
		allExcluded := len(procs) > 0 && !slices.ContainsFunc(procs, func(p Process) bool { return !p.Excluded })
		switch {
		case !allExcluded && !slices.Contains(listed, t):
			r.NotExcluded = append(r.NotExcluded, t)
		case len(procs) == 0:
			r.Missing = append(r.Missing, t)
		case slices.ContainsFunc(procs, func(p Process) bool { return len(p.Roles) > 0 }):
			r.InProgress = append(r.InProgress, t)
		default:
			r.FullyExcluded = append(r.FullyExcluded, t)
		}
	}
	return r
}

// matching returns the processes of s selected by t.
func matching(s *Status, t ProcessAddress) []Process {
	var out []Process
	for _, p := range s.Cluster.Processes {
		if t.Matches(p) {
			out = append(out, p)
		}
	}
	return out
}

const (
	errReadStatus          = "cannot read status"
	reasonStatusIncomplete = "status is incomplete"
)

// StatusReader reads a cluster's status; every Client is one.
type StatusReader interface {
	Status(ctx context.Context) (*Status, error)
}

// ReadExclusions reads a complete status and returns its exclusion list.
// Implementations of Client.Exclusions delegate here.
func ReadExclusions(ctx context.Context, r StatusReader) ([]ProcessAddress, error) {
	s, err := readComplete(ctx, r)
	if err != nil {
		return nil, err
	}
	return Exclusions(s), nil
}

// ReadStillInUse reads a complete status and applies StillInUse.
// Implementations of Client.StillInUse delegate here.
func ReadStillInUse(ctx context.Context, r StatusReader, targets []ProcessAddress) ([]ProcessAddress, error) {
	s, err := readComplete(ctx, r)
	if err != nil {
		return nil, err
	}
	return StillInUse(s, targets), nil
}

// readComplete reads a status and fails with ErrUnavailable when it is
// incomplete.
func readComplete(ctx context.Context, r StatusReader) (*Status, error) {
	s, err := r.Status(ctx)
	if err != nil {
		return nil, errors.Wrap(err, errReadStatus)
	}
	if s.Incomplete() {
		return nil, errors.Wrap(ErrUnavailable, reasonStatusIncomplete)
	}
	return s, nil
}
