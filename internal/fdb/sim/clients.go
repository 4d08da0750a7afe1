package sim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const errConnectClient = "cannot connect client"

// client is an application connected to the database with the client
// libraries of versions loaded (a multi-version client loads several).
type client struct {
	logGroup string
	versions []fdb.Version
}

// ConnectClient connects an application at address (its log group
// logGroup) that loaded the client libraries of versions; it replaces a
// client of the same address. The status lists it under each version in
// cluster.clients, and under its newest protocol in max_protocol_clients.
func (s *Sim) ConnectClient(address, logGroup string, versions ...string) error {
	c := client{logGroup: logGroup}
	for _, v := range versions {
		parsed, err := fdb.ParseVersion(v)
		if err != nil {
			return errors.Wrap(err, errConnectClient)
		}
		c.versions = append(c.versions, parsed)
	}
	if len(c.versions) == 0 {
		return errors.Errorf("%s %s: no client library", errConnectClient, address)
	}
	s.lock()
	defer s.mu.Unlock()
	if s.clients == nil {
		s.clients = map[string]client{}
	}
	s.clients[address] = c
	return nil
}

// DisconnectClient disconnects the application at address.
func (s *Sim) DisconnectClient(address string) {
	s.lock()
	defer s.mu.Unlock()
	delete(s.clients, address)
}

// clientsStatus renders cluster.clients: every client under each version
// it loaded, sorted by version and address.
func (s *Sim) clientsStatus() *fdb.ClientsStatus {
	out := &fdb.ClientsStatus{Count: len(s.clients)}
	byVersion := map[fdb.Version]*fdb.SupportedVersion{}
	for _, addr := range slices.Sorted(maps.Keys(s.clients)) {
		c := s.clients[addr]
		newest := slices.MaxFunc(c.versions, fdb.Version.Compare)
		for _, v := range c.versions {
			sv := byVersion[v]
			if sv == nil {
				sv = &fdb.SupportedVersion{ClientVersion: v.String(), ProtocolVersion: protocolVersion(v), ConnectedClients: []fdb.ConnectedClient{}}
				byVersion[v] = sv
			}
			cl := fdb.ConnectedClient{Address: addr, LogGroup: c.logGroup}
			sv.Count++
			sv.ConnectedClients = append(sv.ConnectedClients, cl)
			if v.MajorMinor() == newest.MajorMinor() {
				sv.MaxProtocolCount++
				sv.MaxProtocolClients = append(sv.MaxProtocolClients, cl)
			}
		}
	}
	for _, v := range slices.SortedFunc(maps.Keys(byVersion), fdb.Version.Compare) {
		out.SupportedVersions = append(out.SupportedVersions, *byVersion[v])
	}
	return out
}

// protocolVersion is the protocol version FoundationDB reports for a
// release's major.minor, in the form of 7.3's fdb00b073000000 (7.1's has a
// revision digit too, fdb00b071010000, which the model leaves out).
func protocolVersion(v fdb.Version) string {
	return fmt.Sprintf("fdb00b0%d%d000000", v.Major, v.Minor)
}
