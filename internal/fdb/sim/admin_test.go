package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestAdminCalls: the database records every mutating request that reached
// it, with the groups its addresses name, and no read nor a request that
// never reached it.
func TestAdminCalls(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11, RecordAdminCalls: true})
	c.Create(t, fdb.RedundancyTriple)
	storage1, log2 := c.Address(t, "storage-1"), c.Address(t, "log-2")
	from := len(c.Sim.AdminCalls(0))
	steps := []func() error{
		func() error { return c.Sim.Exclude(ctx, []fdb.ProcessAddress{storage1}) },
		func() error { _, err := c.Sim.Status(ctx); return err },
		func() error { return c.Sim.Include(ctx, []fdb.ProcessAddress{"locality_instance_id:storage-1"}) },
		func() error { return c.Sim.FailNext(sim.OpKill, fdb.ErrTimeout, 1) },
		func() error { return c.Sim.Kill(ctx, []fdb.ProcessAddress{log2}) }, // fails before it reaches the database
		func() error { return c.Sim.Kill(ctx, []fdb.ProcessAddress{log2}) },
		func() error {
			c.WaitFor(t, time.Minute, func(s *fdb.Status) bool { return s.Client.DatabaseStatus.Available })
			return nil
		},
		func() error { return c.Sim.SetMaintenance(ctx, "zone-1", 60) },
		func() error { return c.Sim.ResetMaintenance(ctx) },
		func() error { return c.Sim.StopBackup(ctx, "default") }, // reaches it, then fails: no backup runs
	}
	for i, step := range steps {
		if err := step(); err != nil && i != 4 && i != 9 {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	var got []string
	for _, call := range c.Sim.AdminCalls(from) {
		got = append(got, fmt.Sprintf("%s %s groups=%s", call.Op, strings.Join(call.Args, ","), strings.Join(call.Groups, ",")))
	}
	want := []string{
		fmt.Sprintf("exclude %s groups=storage-1", storage1),
		"include locality_instance_id:storage-1 groups=storage-1",
		fmt.Sprintf("kill %s groups=log-2", log2),
		"maintenance zone-1,60 groups=",
		"maintenance off groups=",
		"stop_backup default groups=",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AdminCalls (-want +got):\n%s", diff)
	}
	if n := len(c.Sim.AdminCalls(0)); n != from+len(want) {
		t.Errorf("AdminCalls(0) holds %d calls, want %d", n, from+len(want))
	}
}
