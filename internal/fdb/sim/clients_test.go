package sim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestConnectedClients: the status lists connected applications under each
// client library they loaded, the newest as their max protocol, and no
// longer once they disconnect.
func TestConnectedClients(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.ConnectClient("10.9.0.1:40001", "app", "7.1.27"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.ConnectClient("10.9.0.2:40001", "batch", "7.1.27", "7.3.63"); err != nil {
		t.Fatal(err)
	}
	app, batch := fdb.ConnectedClient{Address: "10.9.0.1:40001", LogGroup: "app"}, fdb.ConnectedClient{Address: "10.9.0.2:40001", LogGroup: "batch"}
	want := &fdb.ClientsStatus{Count: 2, SupportedVersions: []fdb.SupportedVersion{
		{ClientVersion: "7.1.27", ProtocolVersion: "fdb00b071000000", Count: 2, ConnectedClients: []fdb.ConnectedClient{app, batch},
			MaxProtocolCount: 1, MaxProtocolClients: []fdb.ConnectedClient{app}},
		{ClientVersion: "7.3.63", ProtocolVersion: "fdb00b073000000", Count: 1, ConnectedClients: []fdb.ConnectedClient{batch},
			MaxProtocolCount: 1, MaxProtocolClients: []fdb.ConnectedClient{batch}},
	}}
	if diff := cmp.Diff(want, c.Status(t).Cluster.Clients); diff != "" {
		t.Errorf("cluster.clients: -want, +got:\n%s", diff)
	}
	n, sample, _ := fdb.ClientsWithout(c.Status(t), fdb.Version{Major: 7, Minor: 3, Patch: 69})
	if diff := cmp.Diff([]any{1, []string{"10.9.0.1:40001 (app)"}}, []any{n, sample}); diff != "" {
		t.Errorf("clients without 7.3: -want, +got:\n%s", diff)
	}
	c.Sim.DisconnectClient(app.Address)
	if got := c.Status(t).Cluster.Clients.Count; got != 1 {
		t.Errorf("%d clients after one of two disconnected, want 1", got)
	}
	if err := c.Sim.ConnectClient("10.9.0.3:40001", "app"); err == nil {
		t.Error("a client without a library connected")
	}
}
