package fdb

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errParseConnectionString = "cannot parse connection string"
	reasonNoCoordinators     = "connection string names no coordinators"
	reasonNoDescriptionID    = "connection string needs <description>:<id>@"
)

// localityPrefix starts an exclusion target that selects processes by a
// locality field instead of an address.
const localityPrefix = "locality_"

// tlsSuffix marks a TLS listen address in status and connection strings.
const tlsSuffix = ":tls"

// ProcessAddress names one or more processes: an IP:port address, a bare IP
// (every process on that host), or a locality selector such as
// locality_instance_id:storage-1.
type ProcessAddress string

// InstanceTarget returns the locality selector for every process of the
// process group (pod) instanceID.
func InstanceTarget(instanceID string) ProcessAddress {
	return ProcessAddress(localityPrefix + LocalityInstanceID + ":" + instanceID)
}

// Locality splits a locality selector into key and value; ok is false for
// address targets.
func (a ProcessAddress) Locality() (key, value string, ok bool) {
	rest, found := strings.CutPrefix(string(a), localityPrefix)
	if !found {
		return "", "", false
	}
	return strings.Cut(rest, ":")
}

// Matches reports whether the process p is selected by a.
func (a ProcessAddress) Matches(p Process) bool {
	if key, value, ok := a.Locality(); ok {
		v, known := p.Locality.Get(key)
		return known && v == value
	}
	host, port := splitAddress(string(a))
	phost, pport := splitAddress(p.Address)
	return host == phost && (port == "" || port == pport)
}

// splitAddress returns host and port of an address; port is empty for a
// bare host. The TLS suffix is ignored.
func splitAddress(s string) (host, port string) {
	s = strings.TrimSuffix(s, tlsSuffix)
	if h, p, err := net.SplitHostPort(s); err == nil {
		return h, p
	}
	return strings.Trim(s, "[]"), ""
}

// SortedAddresses returns a sorted copy of addrs without duplicates.
func SortedAddresses(addrs []ProcessAddress) []ProcessAddress {
	out := slices.Clone(addrs)
	slices.Sort(out)
	return slices.Compact(out)
}

// ConnectionString is the content of a cluster file:
// <description>:<id>@<coordinator>,<coordinator>,...
type ConnectionString struct {
	Description  string
	ID           string
	Coordinators []ProcessAddress
}

// ParseConnectionString parses a cluster file's content as FoundationDB
// reads it: without comments, from a # to the end of its line, such as the
// header fdbcli writes when it rewrites a cluster file ("# DO NOT EDIT!",
// ClusterConnectionFile::persist), and without blanks, wherever they are
// (ClusterConnectionString and trim, fdbclient/MonitorLeader.actor.cpp at
// 7.1.67 and 7.3.63).
func ParseConnectionString(s string) (ConnectionString, error) {
	s = withoutComments(s)
	head, addrs, ok := strings.Cut(s, "@")
	if !ok {
		return ConnectionString{}, errors.Wrap(errors.New(reasonNoDescriptionID), errParseConnectionString)
	}
	desc, id, ok := strings.Cut(head, ":")
	if !ok || desc == "" || id == "" {
		return ConnectionString{}, errors.Wrap(errors.New(reasonNoDescriptionID), errParseConnectionString)
	}
	cs := ConnectionString{Description: desc, ID: id}
	for a := range strings.SplitSeq(addrs, ",") {
		if a != "" {
			cs.Coordinators = append(cs.Coordinators, ProcessAddress(a))
		}
	}
	if len(cs.Coordinators) == 0 {
		return ConnectionString{}, errors.Wrap(errors.New(reasonNoCoordinators), errParseConnectionString)
	}
	return cs, nil
}

// withoutComments is s without comments (# to the end of the line) and
// without spaces, tabs, carriage returns and newlines.
func withoutComments(s string) string {
	var b strings.Builder
	comment := false
	for i := range len(s) {
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			comment = false
		case comment || c == ' ' || c == '\t':
		case c == '#':
			comment = true
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// String renders the connection string in cluster file form.
func (c ConnectionString) String() string {
	parts := make([]string, len(c.Coordinators))
	for i, a := range c.Coordinators {
		parts[i] = string(a)
	}
	return c.Description + ":" + c.ID + "@" + strings.Join(parts, ",")
}

// HostAddress is address with its host replaced by host, keeping the
// port and the TLS suffix: the address a coordinator named by DNS name has
// when its process listens on address.
func HostAddress(host, address string) ProcessAddress {
	_, port := splitAddress(address)
	a := net.JoinHostPort(host, port)
	if strings.HasSuffix(address, tlsSuffix) {
		a += tlsSuffix
	}
	return ProcessAddress(a)
}

// Names returns the addresses a coordinator serving on process p may be
// named by in a connection string: the addresses it listens on (its
// command line's, ListenAddresses, else its status address) and, when it
// reports a dns_name locality, the same at its DNS name.
func (p Process) Names() []string {
	return AddressNames(p.Locality.DNSName, ListenAddresses(p.CommandLine, p.Address)...)
}

// ListenAddresses are the addresses the process of commandLine listens on,
// as FoundationDB prints them (an IPv4 address without brackets, ":tls"
// for a TLS one), primary first: its --public_address (or
// --public-address) values, comma separated. A process listens on up to
// two, one of each kind; its status address is one of them, whichever the
// cluster controller prefers (a TLS one when it listens on both:
// Endpoint::choosePrimaryAddress, fdbrpc/FlowTransport.h at 7.1.67 and
// 7.3.63), so the status address alone does not tell a process that
// listens on both. Without such a flag it is fallback alone.
func ListenAddresses(commandLine, fallback string) []string {
	out := addressFlag(commandLine, "public")
	if len(out) == 0 && fallback != "" {
		return []string{fallback}
	}
	return out
}

// BoundAddresses are the addresses the process of commandLine binds, as
// FoundationDB prints them: its --listen_address (or --listen-address)
// values when it has any, else its public addresses (ListenAddresses of
// fallback), as fdbserver takes them (fdbserver/fdbserver.actor.cpp at
// 7.1.67 and 7.3.63: buildNetworkAddresses makes each missing listen
// address "public", and main binds each pair, exiting with "Error
// initializing networking" when it cannot). A process known by an address
// of no interface of its host must bind another.
func BoundAddresses(commandLine, fallback string) []string {
	if out := addressFlag(commandLine, "listen"); len(out) > 0 {
		return out
	}
	return ListenAddresses(commandLine, fallback)
}

// addressFlag is the addresses of commandLine's --<kind>_address flags (or
// --<kind>-address), comma separated, as FoundationDB prints them.
func addressFlag(commandLine, kind string) []string {
	var out []string
	for _, arg := range strings.Fields(commandLine) {
		v, ok := strings.CutPrefix(arg, "--"+kind+"_address=")
		if !ok {
			v, ok = strings.CutPrefix(arg, "--"+kind+"-address=")
		}
		if !ok {
			continue
		}
		for a := range strings.SplitSeq(v, ",") {
			out = append(out, printedAddress(a))
		}
	}
	return out
}

// printedAddress is address a as FoundationDB prints it: an IPv4 address
// without the brackets a command line may give it.
func printedAddress(a string) string {
	tls := strings.HasSuffix(a, tlsSuffix)
	host, port := splitAddress(a)
	if host == "" || port == "" {
		return a
	}
	out := net.JoinHostPort(host, port)
	if tls {
		out += tlsSuffix
	}
	return out
}

// OtherKind is the address of the same process's listener of the other
// kind: its plain-text address for a TLS one and the reverse (the ports
// of fdb.ProcessPort and fdb.TLSProcessPort); a itself when it names no
// port.
func OtherKind(a ProcessAddress) ProcessAddress {
	host, port := splitAddress(string(a))
	n, err := strconv.Atoi(port)
	if host == "" || err != nil {
		return a
	}
	if a.TLS() {
		return ProcessAddress(net.JoinHostPort(host, strconv.Itoa(n+1)))
	}
	return ProcessAddress(net.JoinHostPort(host, strconv.Itoa(n-1)) + tlsSuffix)
}

// AddressNames returns addresses (IP:port) followed, when dnsName is set,
// by the same ports at dnsName: every name a coordinator on one of them
// may have in a connection string.
func AddressNames(dnsName string, addresses ...string) []string {
	out := slices.Clone(addresses)
	if dnsName != "" {
		for _, a := range addresses {
			out = append(out, string(HostAddress(dnsName, a)))
		}
	}
	return out
}

// Host is the host part of a: its IP address or DNS name.
func (a ProcessAddress) Host() string {
	host, _ := splitAddress(string(a))
	return host
}

// Port is the port of a; 0 when it names none.
func (a ProcessAddress) Port() int {
	_, port := splitAddress(string(a))
	n, _ := strconv.Atoi(port)
	return n
}

// IsHostname reports whether a names its host by DNS name rather than IP.
func (a ProcessAddress) IsHostname() bool {
	if _, _, ok := a.Locality(); ok {
		return false
	}
	host := a.Host()
	return host != "" && net.ParseIP(host) == nil
}

// TLS reports whether a is a TLS address (it ends in ":tls").
func (a ProcessAddress) TLS() bool { return strings.HasSuffix(string(a), tlsSuffix) }
