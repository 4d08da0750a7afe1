package fdb

import (
	"strconv"
	"strings"
)

// How the processes of a pod are named and where they listen, by storage
// density: a pod of a process group running density fdbserver processes
// runs processes n = 1..density. Both the provider (command lines, monitor
// configurations) and the simulator follow these rules.

// ProcessID is the process_id locality of the n-th process (1-based) of
// process group groupID whose pod runs density processes: the group ID
// itself when the pod runs one process (density 1, or 0 for unset), and
// <group>-<n> when it runs more.
func ProcessID(groupID string, n, density int) string {
	if density <= 1 {
		return groupID
	}
	return groupID + "-" + strconv.Itoa(n)
}

// ProcessNumber is n of process processID of group groupID, the inverse of
// ProcessID: n of <group>-<n>, and 1 when processID is the group ID or is
// not <group>-<n> with n ≥ 1.
func ProcessNumber(groupID, processID string) int {
	rest, ok := strings.CutPrefix(processID, groupID+"-")
	if !ok {
		return 1
	}
	if n, err := strconv.Atoi(rest); err == nil && n > 0 && strconv.Itoa(n) == rest {
		return n
	}
	return 1
}

// ProcessPort is the port the n-th process (1-based) of a pod listens on
// without TLS: 4499+2n, so 4501, 4503, ... (with TLS it would be 4498+2n;
// the provider runs no TLS).
func ProcessPort(n int) int { return 4499 + 2*n }
