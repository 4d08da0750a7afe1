package fdbcli_test

import (
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbcli"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
)

func TestContract(t *testing.T) {
	fdbtest.RunContract(t, func(t *testing.T, c *fdbtest.Cluster) fdb.Client {
		client, err := fdbcli.New(fdbcli.Config{
			ConnectionString: c.Sim.ConnectionString(),
			Version:          fdbtest.Version,
			BinaryDir:        "/usr/bin/fdb",
			TempDir:          t.TempDir(),
			Runner:           &emulator{sim: c.Sim},
		})
		if err != nil {
			t.Fatal(err)
		}
		return client
	})
}
