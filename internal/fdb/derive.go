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
