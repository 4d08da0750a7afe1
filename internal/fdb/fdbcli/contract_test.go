package fdbcli_test

import (
	"context"
	"errors"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbcli"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

func TestContract(t *testing.T) {
	fdbtest.RunContract(t, func(t *testing.T, c *fdbtest.Cluster) fdb.Client {
		client, err := fdbcli.New(fdbcli.Config{
			ConnectionString: c.Sim.ConnectionString(),
			Version:          fdbtest.Version,
			BinaryDir:        "/usr/bin/fdb",
			TempDir:          t.TempDir(),
			Runner:           &emulator{sim: c.Sim},
			// As the native client library would, in the same database.
			Locker: c.Sim,
			// The contract's blob store, blobstore://k@host:443/….
			BlobCredentials: func(context.Context) ([]byte, error) {
				return []byte(`{"accounts": {"k@host": {"secret": "s"}}}`), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return client
	})
}

// TestLockWithoutLocker: fdbcli alone cannot take the global lock, and says
// so with fdb.ErrNoLocker instead of acting as if it had.
func TestLockWithoutLocker(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 7})
	client, err := fdbcli.New(fdbcli.Config{ConnectionString: c.Sim.ConnectionString(), Version: fdbtest.Version, BinaryDir: "/usr/bin/fdb",
		TempDir: t.TempDir(), Runner: &emulator{sim: c.Sim}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, take := client.TakeLock(ctx, fdb.LockRequest{Holder: "dc1", Now: c.Clock.Now()})
	for name, err := range map[string]error{
		"TakeLock":           take,
		"ReleaseLock":        client.ReleaseLock(ctx, "dc1"),
		"UpdateLockDenyList": client.UpdateLockDenyList(ctx, []fdb.LockDenyEntry{{ID: "dc2"}}),
	} {
		if !errors.Is(err, fdb.ErrNoLocker) {
			t.Errorf("%s = %v, want fdb.ErrNoLocker", name, err)
		}
	}
}
