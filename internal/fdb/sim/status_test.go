package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

func TestStatusJSONRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 4, Logs: 3, Stateless: 1, StorageProcessesPerPod: 2}, sim.Options{Seed: 9})
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.SetBackupAgents(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b", SnapshotPeriodSeconds: 10}); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1"), "10.2.0.1:4501"}); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(5 * time.Second)
	b, err := c.Sim.StatusJSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := fdb.ParseStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Status(t), parsed); diff != "" {
		t.Errorf("parsed status JSON (-want +got):\n%s", diff)
	}
	var storage2 []string
	for _, p := range fdb.ProcessesByInstance(parsed)["storage-2"] {
		storage2 = append(storage2, p.Locality.ProcessID+"@"+p.Address)
	}
	if diff := cmp.Diff([]string{"storage-2-1@10.1.0.3:4501", "storage-2-2@10.1.0.3:4503"}, storage2); diff != "" {
		t.Errorf("processes of a two-process pod (-want +got):\n%s", diff)
	}
}
