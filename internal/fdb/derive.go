package fdb

import (
	"cmp"
	"slices"
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

// ReportingOf counts the processes status s lists of the pod of process
// group instanceID whose IP is ip ("" when it has none): those of its
// instance_id, and any other listening on its IP, whatever locality its
// command line gave it. It is known (ok) only when the status's view is
// complete (ViewIncompleteBecause): an incomplete status may leave out
// processes that run, and absence there proves nothing.
func ReportingOf(s *Status, instanceID, ip string) (n int, ok bool) {
	if s == nil || ViewIncompleteBecause(s) != "" {
		return 0, false
	}
	for _, p := range s.Cluster.Processes {
		if p.Locality.InstanceID == instanceID || ip != "" && ProcessAddress(p.Address).Host() == ip {
			n++
		}
	}
	return n, true
}

// Exclusions returns the exclusion list of a status, sorted.
func Exclusions(s *Status) []ProcessAddress {
	var out []ProcessAddress
	for _, e := range s.Cluster.Configuration.ExcludedServers {
		out = append(out, e.Target())
	}
	return SortedAddresses(out)
}

// RecoveredSince reports whether the database's last recovery wrote its
// coordinated state while every one of procs was running: the recovery is
// past that write (accepting commits or later) and began after the newest
// of them started (it has run for longer than the time since the recovery
// began). A recovery writes the coordinated state to every coordinator it
// reaches, so a coordinator whose disk was new when its process started
// holds the state once this holds for it. With no procs, or a status that
// says nothing of its recovery, it is false.
func RecoveredSince(s *Status, procs []Process) bool {
	if s == nil || len(procs) == 0 {
		return false
	}
	switch s.Cluster.RecoveryState.Name {
	case RecoveryAcceptingCommits, RecoveryAllLogsRecruited, RecoveryFullyRecovered:
	default:
		return false
	}
	for _, p := range procs {
		if p.UptimeSeconds < s.Cluster.RecoveryState.SecondsSinceLastRecovered {
			return false
		}
	}
	return true
}
