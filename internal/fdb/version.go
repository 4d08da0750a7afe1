package fdb

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const errParseVersion = "cannot parse version"

// Version is a FoundationDB release version major.minor.patch.
type Version struct {
	Major, Minor, Patch int
}

// MinimumVersion is the oldest release the provider administers.
var MinimumVersion = Version{Major: 7, Minor: 1}

// ParseVersion parses "major.minor.patch".
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, errors.Errorf("%s %q: want major.minor.patch", errParseVersion, s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, errors.Errorf("%s %q: %q is not a number", errParseVersion, s, p)
		}
		n[i] = v
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

// CheckVersion parses s and returns ErrUnsupportedVersion when it is older
// than MinimumVersion.
func CheckVersion(s string) (Version, error) {
	v, err := ParseVersion(s)
	if err != nil {
		return Version{}, errors.Wrapf(ErrUnsupportedVersion, "%v", err)
	}
	if v.Less(MinimumVersion) {
		return Version{}, errors.Wrapf(ErrUnsupportedVersion, "version %s is older than %s", v, MinimumVersion)
	}
	return v, nil
}

// Less reports whether v is older than o.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// Compare returns -1, 0 or 1 as v is older than, the same as or newer
// than o.
func (v Version) Compare(o Version) int {
	switch {
	case v.Less(o):
		return -1
	case o.Less(v):
		return 1
	}
	return 0
}

// MajorMinor returns "major.minor": releases sharing it speak the same
// protocol, and the binaries of a release live in a directory of that name.
func (v Version) MajorMinor() string {
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// ProtocolCompatible reports whether processes of versions a and b speak
// the same protocol (the same major.minor): false when either is unknown.
func ProtocolCompatible(a, b string) bool {
	va, errA := ParseVersion(a)
	vb, errB := ParseVersion(b)
	return errA == nil && errB == nil && va.MajorMinor() == vb.MajorMinor()
}

// RunningVersion is the version most of the status's processes run (ties:
// the lowest); "" when none reports one.
func RunningVersion(s *Status) string {
	count := map[string]int{}
	for _, p := range s.Cluster.Processes {
		if p.Version != "" {
			count[p.Version]++
		}
	}
	best := ""
	for v, n := range count {
		if n > count[best] || (n == count[best] && v < best) {
			best = v
		}
	}
	return best
}

// LeftBehind reports whether a process at one of addresses was left behind
// by an upgrade to version: the database runs version, and the process is
// among the status's incompatible connections, so it runs another protocol
// and cannot join (e.g. a kill that did not reach it). A process cannot be
// killed from the database it is not part of: its pod must be recreated.
func LeftBehind(s *Status, version string, addresses []string) bool {
	return s != nil && RunningVersion(s) == version && slices.ContainsFunc(addresses, func(a string) bool {
		return slices.Contains(s.Cluster.IncompatibleConnections, a)
	})
}

// ClientsWithout reports the connected clients that loaded no client library
// of version's protocol (its major.minor) and so cannot talk to the
// database once it runs version: how many, and their addresses with their
// log groups, sorted. The status lists a sample of each library's clients
// with their count; clients beyond the sample of a library of another
// protocol count as unable, since nothing shows otherwise. known is false
// when the status lists no clients section, or counts clients without
// listing their versions: then nothing is known about them. Clients of the
// log groups in ignore are left out (e.g. the provider's own tools). A
// client version is read up to a pre-release suffix ("7.1.0-rc1" speaks
// 7.1); one that does not parse (FoundationDB reports "Unknown" for clients
// too old to say) speaks no protocol. A client on the host of one of the
// database's own processes is left out too: every fdbserver also connects
// to the database as a client, from its own IP on an ephemeral port (the
// 7.1.43 status in testdata/real lists its servers' hosts among the
// connected clients, with the ":tls" flag), and it runs the version the
// upgrade restarts it on. The FoundationDB operator skips them the same
// way, by host alone (getUnsupportedClients in
// controllers/check_client_compatibility.go, v2.33.0, #2022 after #1991).
func ClientsWithout(s *Status, version Version, ignore ...string) (count int, sample []string, known bool) {
	c := s.Cluster.Clients
	if c == nil || (c.Count > 0 && len(c.SupportedVersions) == 0) {
		return 0, nil, false
	}
	servers := map[string]bool{}
	for _, p := range s.Cluster.Processes {
		if host := ProcessAddress(p.Address).Host(); host != "" {
			servers[host] = true
		}
	}
	speaks := func(sv SupportedVersion) bool {
		release, _, _ := strings.Cut(sv.ClientVersion, "-")
		v, err := ParseVersion(release)
		return err == nil && v.MajorMinor() == version.MajorMinor()
	}
	supports := map[string]bool{}
	for _, sv := range c.SupportedVersions {
		for _, cl := range sv.ConnectedClients {
			supports[cl.Address] = supports[cl.Address] || speaks(sv)
		}
	}
	unsampled := 0
	for _, sv := range c.SupportedVersions {
		if !speaks(sv) {
			unsampled += max(sv.Count-len(sv.ConnectedClients), 0)
		}
		for _, cl := range sv.ConnectedClients {
			if !supports[cl.Address] && !slices.Contains(ignore, cl.LogGroup) && !servers[ProcessAddress(cl.Address).Host()] {
				supports[cl.Address] = true // listed once
				sample = append(sample, cl.Address+" ("+cl.LogGroup+")")
			}
		}
	}
	slices.Sort(sample)
	return len(sample) + unsampled, sample, true
}
