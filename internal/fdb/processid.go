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
// without TLS: 4499+2n, so 4501, 4503, ... (TLSProcessPort with TLS).
func ProcessPort(n int) int { return 4499 + 2*n }

// TLSProcessPort is the port the n-th process (1-based) of a pod listens
// on with TLS: 4498+2n, so 4500, 4502, ..., one below its plain port, as
// the FoundationDB operator numbers them.
func TLSProcessPort(n int) int { return ProcessPort(n) - 1 }

// Listeners are the kinds of address a process listens on, its primary
// address first: the one FoundationDB knows it by (its address in the
// status) and by which it is chosen as a coordinator. A process listens on
// one address of each kind at most.
type Listeners string

// The listeners a process may have.
const (
	// ListenPlain is a plain-text address only.
	ListenPlain Listeners = "plain"
	// ListenTLS is a TLS address only.
	ListenTLS Listeners = "tls"
	// ListenTLSAndPlain is a TLS address, then a plain one: a database
	// moving to TLS, or one whose coordinators still use plain text.
	ListenTLSAndPlain Listeners = "tls,plain"
	// ListenPlainAndTLS is a plain address, then a TLS one: a database
	// moving back to plain text.
	ListenPlainAndTLS Listeners = "plain,tls"
)

// TLS reports whether l include a TLS address.
func (l Listeners) TLS() bool { return l != ListenPlain && l != "" }

// Plain reports whether l include a plain-text address.
func (l Listeners) Plain() bool { return l != ListenTLS }

// PrimaryTLS reports whether the primary address is a TLS one.
func (l Listeners) PrimaryTLS() bool { return l == ListenTLS || l == ListenTLSAndPlain }

// Kinds says, for each address of l in order, whether it is a TLS one.
func (l Listeners) Kinds() []bool {
	switch l {
	case ListenTLS:
		return []bool{true}
	case ListenTLSAndPlain:
		return []bool{true, false}
	case ListenPlainAndTLS:
		return []bool{false, true}
	}
	return []bool{false}
}
