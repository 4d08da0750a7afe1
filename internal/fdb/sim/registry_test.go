package sim_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

func TestRegistrySharesSimulatorPerKey(t *testing.T) {
	r := sim.NewRegistry(clocktesting.NewFakeClock(fdbtest.Start), sim.Options{})
	got := make([]*sim.Sim, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = r.Get("ns/cluster-a") })
	}
	wg.Wait()
	for i, s := range got {
		if s != got[0] {
			t.Fatalf("Get #%d returned another simulator for the same key", i)
		}
	}
	if r.Get("ns/cluster-b") == got[0] {
		t.Error("different keys share a simulator")
	}
}

func TestRegistrySeedsFromKey(t *testing.T) {
	// statusOf creates a database on the simulator a fresh registry
	// returns for key and returns its status JSON.
	statusOf := func(key string) string {
		clk := clocktesting.NewFakeClock(fdbtest.Start)
		c := fdbtest.Attach(t, clk, sim.NewRegistry(clk, sim.Options{Seed: 5}).Get(key), fdbtest.Triple)
		c.Create(t, fdb.RedundancyDouble)
		b, err := c.Sim.StatusJSON(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := map[string]struct {
		a, b     string
		wantSame bool
	}{
		"SameKey":  {a: "ns/a", b: "ns/a", wantSame: true},
		"OtherKey": {a: "ns/a", b: "ns/b", wantSame: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if same := cmp.Equal(statusOf(tc.a), statusOf(tc.b)); same != tc.wantSame {
				t.Errorf("same status: %v, want %v", same, tc.wantSame)
			}
		})
	}
}

// TestRegistryOpenFindsADatabaseByItsClusterFile: a cluster file written
// again under another key (a ConfigMap lost and recreated) reaches the
// database it names; an unknown or empty one gets a database of its own.
func TestRegistryOpenFindsADatabaseByItsClusterFile(t *testing.T) {
	clk := clocktesting.NewFakeClock(fdbtest.Start)
	r := sim.NewRegistry(clk, sim.Options{})
	c := fdbtest.Attach(t, clk, r.Get("cm-1"), fdbtest.Triple)
	c.Create(t, fdb.RedundancyDouble)
	file := c.Sim.ConnectionString()
	for name, tc := range map[string]struct {
		key, file string
		same      bool
	}{
		"SameKey":             {key: "cm-1", file: "", same: true},
		"NewKeySameFile":      {key: "cm-2", file: file, same: true},
		"NewKeyNoFile":        {key: "cm-3", file: ""},
		"NewKeyOtherDatabase": {key: "cm-4", file: "other:abc@10.9.9.9:4501"},
	} {
		if got := r.Open(tc.key, tc.file) == c.Sim; got != tc.same {
			t.Errorf("%s: Open(%q, %q) reaches the first database: %v, want %v", name, tc.key, tc.file, got, tc.same)
		}
	}
	if k, ok := r.KeyAt(file); !ok || k != "cm-1" {
		t.Errorf("KeyAt(%q) = %q, %v; want the first key, cm-1", file, k, ok)
	}
}

// TestAnOldClusterFileIsForwarded: after a coordinator change a cluster file
// naming the old coordinators still reaches the database while one of them
// runs (they forward the client), and reaches nothing once none does.
func TestAnOldClusterFileIsForwarded(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 3})
	c.Create(t, fdb.RedundancyDouble)
	old := c.Sim.ConnectionString()
	moved := []fdb.ProcessAddress{c.Address(t, "storage-1"), c.Address(t, "storage-2"), c.Address(t, "storage-3")}
	current, err := c.Sim.ChangeCoordinators(context.Background(), moved)
	if err != nil {
		t.Fatal(err)
	}
	c.WaitFor(t, time.Minute, func(s *fdb.Status) bool { return s.Cluster.RecoveryState.Name == fdb.RecoveryFullyRecovered })
	reaches := func() map[string]bool {
		return map[string]bool{"current": c.Sim.Reaches(current), "old": c.Sim.Reaches(old), "unknown": c.Sim.Reaches("test:other@10.2.0.2:4501")}
	}
	if diff := cmp.Diff(map[string]bool{"current": true, "old": true, "unknown": false}, reaches()); diff != "" {
		t.Errorf("with the old coordinators running (-want +got):\n%s", diff)
	}
	c.RemoveGroups(t, "log-1", "log-2")
	if diff := cmp.Diff(map[string]bool{"current": true, "old": true, "unknown": false}, reaches()); diff != "" {
		t.Errorf("with one old coordinator running (-want +got):\n%s", diff)
	}
	c.RemoveGroups(t, "log-3")
	if diff := cmp.Diff(map[string]bool{"current": true, "old": false, "unknown": false}, reaches()); diff != "" {
		t.Errorf("with no old coordinator running (-want +got):\n%s", diff)
	}
}
