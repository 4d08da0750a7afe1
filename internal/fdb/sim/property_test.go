package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

const seeds = 20

// replaceStorage runs a rolling replacement of rounds storage groups the
// way the provider removes process groups: add a replacement, exclude the
// victims, wait until the status reports them fully excluded, then
// remove their pods and include them. Transient crashes hit other storage
// processes meanwhile.
func replaceStorage(t *testing.T, c *fdbtest.Cluster, rng *rand.Rand, rounds, batch int) {
	t.Helper()
	ctx := context.Background()
	next := 100
	for range rounds {
		var storage []string
		perPod := map[string]int{}
		for _, g := range c.Groups {
			if g.Class == sim.ClassStorage {
				storage = append(storage, g.ID)
				perPod[g.ID] = g.ProcessesPerPod
			}
		}
		rng.Shuffle(len(storage), func(i, j int) { storage[i], storage[j] = storage[j], storage[i] })
		victims := storage[:batch]
		var targets []fdb.ProcessAddress
		groups := c.Groups
		for _, v := range victims {
			targets = append(targets, fdb.InstanceTarget(v))
			groups = append(groups, fdbtest.Triple.Group(sim.ClassStorage, next))
			next++
		}
		c.SetGroups(t, groups)
		if err := c.Sim.Exclude(ctx, targets); err != nil {
			t.Fatal(err)
		}
		for waited := time.Duration(0); ; {
			if rng.IntN(4) == 0 {
				id := storage[batch+rng.IntN(len(storage)-batch)]
				crash := fdb.ProcessID(id, 1, perPod[id])
				if err := c.Sim.CrashProcess(crash, time.Duration(1+rng.IntN(20))*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			d := time.Duration(1+rng.IntN(30)) * time.Second
			c.Clock.Step(d)
			waited += d
			pending := fdbtest.NotFullyExcluded(c.Status(t), targets)
			if len(pending) == 0 {
				break
			}
			if waited > 2*time.Hour {
				t.Fatalf("exclusion of %v did not finish: %v pending", victims, pending)
			}
		}
		c.RemoveGroups(t, victims...)
		if err := c.Sim.Include(ctx, targets); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRemovingFullyExcludedStorageNeverLosesData(t *testing.T) {
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			mode := []fdb.RedundancyMode{fdb.RedundancyDouble, fdb.RedundancyTriple}[seed%2]
			tp := fdbtest.Topology{Storage: 5 + int(seed%3), Logs: 4, Stateless: 2, StorageProcessesPerPod: 1 + int(seed%4)/3}
			c := fdbtest.NewCluster(t, tp, sim.Options{Seed: seed, MovementRate: 256 << 20})
			c.Create(t, mode)
			before := c.Status(t).Cluster.Data.TotalKVSizeBytes
			replaceStorage(t, c, rng, 3, 1+int(seed%2))
			c.Clock.Step(10 * time.Minute)
			if v := c.Sim.Check(); len(v) != 0 {
				t.Fatalf("violations: %v", v)
			}
			s := c.Status(t)
			if s.Cluster.Data.TotalKVSizeBytes != before || s.Cluster.Data.State.Name != fdb.DataHealthy {
				t.Errorf("data %d bytes, state %q: want %d bytes, %q", s.Cluster.Data.TotalKVSizeBytes, s.Cluster.Data.State.Name, before, fdb.DataHealthy)
			}
		})
	}
}

func TestRemovingStorageInUseIsDataLoss(t *testing.T) {
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: seed})
			c.Create(t, fdb.RedundancySingle)
			// Exclude one storage group, then remove it right away while it
			// still holds the only copy of its shards.
			victim := fmt.Sprintf("storage-%d", 1+seed%5)
			target := []fdb.ProcessAddress{fdb.InstanceTarget(victim)}
			if err := c.Sim.Exclude(context.Background(), target); err != nil {
				t.Fatal(err)
			}
			pending := fdbtest.NotFullyExcluded(c.Status(t), target)
			c.RemoveGroups(t, victim)
			want := []sim.ViolationKind{sim.RemovedHeldData, sim.DataLoss}
			if diff := cmp.Diff(want, kinds(c.Sim.Check())); len(pending) == 0 || diff != "" {
				t.Errorf("not fully excluded %v, want the victim; violations (-want +got):\n%s", pending, diff)
			}
		})
	}
}

func TestDataLossStaysLost(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1})
	c.Create(t, fdb.RedundancyTriple)
	kept := slices.DeleteFunc(slices.Clone(c.Groups), func(g sim.ProcessGroup) bool { return g.Class == sim.ClassStorage })
	c.SetGroups(t, kept)
	c.SetGroups(t, append(kept, fdbtest.Triple.Groups()[:5]...))
	c.Clock.Step(time.Hour)
	s := c.Status(t)
	lost := kinds(c.Sim.Check())
	if s.Cluster.Data.State.Name != fdb.DataMissing || !slices.Contains(lost, sim.DataLoss) {
		t.Errorf("data state %q, violations %v: want %q and data loss", s.Cluster.Data.State.Name, lost, fdb.DataMissing)
	}
}
