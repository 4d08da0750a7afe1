package fdbcli_test

import (
	"testing"
	"testing/fstest"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbcli"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
)

// binaries is a binary directory with the 7.1 and 7.3 tools.
var binaries = fstest.MapFS{
	"7.1/fdbcli": {}, "7.1/fdbbackup": {}, "7.1/fdbrestore": {},
	"7.3/fdbcli": {}, "7.3/fdbbackup": {}, "7.3/fdbrestore": {},
}

func TestContract(t *testing.T) {
	fdbtest.RunContract(t, func(t *testing.T, c *fdbtest.Cluster) fdb.Client {
		client, err := fdbcli.New(fdbcli.Config{
			ConnectionString: c.Sim.ConnectionString(),
			Version:          fdbtest.Version,
			BinaryDir:        "/usr/bin/fdb",
			Binaries:         binaries,
			TempDir:          t.TempDir(),
			Runner:           &emulator{sim: c.Sim},
		})
		if err != nil {
			t.Fatal(err)
		}
		return client
	})
}
