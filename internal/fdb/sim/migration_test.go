package sim_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// Storage engines the tests migrate between, as 7.1 and 7.3 take them.
const (
	redwood71 = "ssd-redwood-1-experimental"
	redwood73 = "ssd-redwood-1"
)

// migrationCluster returns a created triple database of five storage
// processes, each in a zone of its own, running version.
func migrationCluster(t *testing.T, version string) *fdbtest.Cluster {
	t.Helper()
	tp := fdbtest.Topology{Storage: 5, Logs: 4, Stateless: 2, Version: version}
	c := fdbtest.NewCluster(t, tp, sim.Options{Seed: 9, Shards: 24, TotalKVBytes: 2 << 30})
	c.Create(t, fdb.RedundancyTriple)
	return c
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }

// migrationSettings are the configuration fields a storage migration
// concerns, and the error class of the configure that set them.
type migrationSettings struct {
	Engine, Migration string
	Wiggle            int
	Locality          string
	Err               string
}

// TestConfigureStorageMigration: configure refuses to change the storage
// engine while storage_migration_type is disabled, the default, and changes
// nothing; the same command that also sets another migration type passes.
// perpetual_storage_wiggle takes 0 and 1, its locality "0" or key:value
// pairs as each release parses them, storage_migration_type its three
// values.
func TestConfigureStorageMigration(t *testing.T) {
	const (
		refused = "refused"
		invalid = "invalid"
	)
	defaults73 := migrationSettings{Engine: "ssd-2", Migration: fdb.StorageMigrationDisabled, Locality: "0"}
	with := func(base migrationSettings, change func(*migrationSettings)) migrationSettings {
		change(&base)
		return base
	}
	cases := map[string]struct {
		on71 bool // the cluster runs 7.1.67, else 7.3.63
		cfg  fdb.DatabaseConfiguration
		want migrationSettings
	}{
		"Defaults": {
			want: defaults73,
		},
		"EngineAlone": {
			cfg:  fdb.DatabaseConfiguration{StorageEngine: redwood73},
			want: with(defaults73, func(m *migrationSettings) { m.Err = refused }),
		},
		"EngineWithMigrationDisabled": {
			cfg:  fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationDisabled},
			want: with(defaults73, func(m *migrationSettings) { m.Err = refused }),
		},
		"EngineOn71": {
			on71: true,
			cfg:  fdb.DatabaseConfiguration{StorageEngine: redwood71},
			want: migrationSettings{Engine: "ssd-2", Migration: fdb.StorageMigrationDisabled, Locality: "0", Err: refused},
		},
		"SameStoreTypeUnderAnotherName": {
			cfg:  fdb.DatabaseConfiguration{StorageEngine: "ssd"},
			want: defaults73,
		},
		"EngineWithGradualAndWiggle": {
			cfg: fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1)},
			want: with(defaults73, func(m *migrationSettings) {
				m.Engine, m.Migration, m.Wiggle = redwood73, fdb.StorageMigrationGradual, 1
			}),
		},
		"EngineWithGradualWithoutWiggle": {
			cfg:  fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual},
			want: with(defaults73, func(m *migrationSettings) { m.Engine, m.Migration = redwood73, fdb.StorageMigrationGradual }),
		},
		"EngineWithAggressive": {
			cfg:  fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationAggressive},
			want: with(defaults73, func(m *migrationSettings) { m.Engine, m.Migration = redwood73, fdb.StorageMigrationAggressive }),
		},
		"WiggleTwo": {
			cfg:  fdb.DatabaseConfiguration{PerpetualStorageWiggle: ptrTo(2)},
			want: with(defaults73, func(m *migrationSettings) { m.Err = invalid }),
		},
		"UnknownMigrationType": {
			cfg:  fdb.DatabaseConfiguration{StorageMigrationType: "fast"},
			want: with(defaults73, func(m *migrationSettings) { m.Err = invalid }),
		},
		"LocalityPair": {
			cfg:  fdb.DatabaseConfiguration{PerpetualStorageWiggleLocality: "zoneid:storage-1"},
			want: with(defaults73, func(m *migrationSettings) { m.Locality = "zoneid:storage-1" }),
		},
		"LocalityPairsOn73": {
			cfg:  fdb.DatabaseConfiguration{PerpetualStorageWiggleLocality: "zoneid:storage-1;data_hall:h1"},
			want: with(defaults73, func(m *migrationSettings) { m.Locality = "zoneid:storage-1;data_hall:h1" }),
		},
		"LocalityValueWithColonOn71": {
			on71: true,
			cfg:  fdb.DatabaseConfiguration{PerpetualStorageWiggleLocality: "zoneid:a:b"},
			want: migrationSettings{Engine: "ssd-2", Migration: fdb.StorageMigrationDisabled, Locality: "zoneid:a:b"},
		},
		"LocalityValueWithColonOn73": {
			cfg:  fdb.DatabaseConfiguration{PerpetualStorageWiggleLocality: "zoneid:a:b"},
			want: with(defaults73, func(m *migrationSettings) { m.Err = invalid }),
		},
		"LocalityWithoutValue": {
			cfg:  fdb.DatabaseConfiguration{PerpetualStorageWiggleLocality: "zoneid:"},
			want: with(defaults73, func(m *migrationSettings) { m.Err = invalid }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			version := "7.3.63"
			if tc.on71 {
				version = "7.1.67"
			}
			c := migrationCluster(t, version)
			err := c.Sim.Configure(context.Background(), tc.cfg, false)
			cfg := c.Sim.Configuration()
			got := migrationSettings{Engine: cfg.StorageEngine, Migration: cfg.StorageMigrationType, Wiggle: *cfg.PerpetualStorageWiggle, Locality: cfg.PerpetualStorageWiggleLocality}
			switch {
			case errors.Is(err, fdb.ErrStorageMigrationDisabled):
				got.Err = refused
			case err != nil:
				got.Err = invalid
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("configuration after configure (-want +got):\n%s", diff)
			}
		})
	}
}

// migration is what a storage migration looked like, second by second.
type migration struct {
	// Migrated are the storage processes whose server runs the
	// configured engine at the end.
	Migrated []string
	// Wiggles are the values of finished_wiggle in the order seen until
	// every storage server ran the configured engine (all of them when
	// none did); nil without a storage_wiggler.
	Wiggles []int
	// MostWiggled is the most storage servers wiggled at once;
	// MostRetiring the most marked for removal at once by an aggressive
	// migration; MostOnAProcess the most a process ran at once.
	MostWiggled, MostRetiring, MostOnAProcess int
	// FewestReplicas is the least min_replicas_remaining seen.
	FewestReplicas int
	// Excluded is the most exclusions and excluded processes a status
	// showed at once: a wiggle shows neither.
	Excluded   int
	Violations []sim.ViolationKind
}

// migrate applies cfg to c, then watches it second by second for d.
func migrate(t *testing.T, c *fdbtest.Cluster, cfg fdb.DatabaseConfiguration, d time.Duration) migration {
	t.Helper()
	must(t, c.Sim.Configure(context.Background(), cfg, false))
	engine := c.Sim.Configuration().StorageEngine
	m := migration{FewestReplicas: 3}
	done := false
	for range int(d / time.Second) {
		c.Clock.Step(time.Second)
		st := c.Status(t)
		m.FewestReplicas = min(m.FewestReplicas, st.Cluster.Data.State.MinReplicasRemaining)
		excluded := len(st.Cluster.Configuration.ExcludedServers)
		for _, p := range st.Cluster.Processes {
			excluded += boolInt(p.Excluded)
		}
		m.Excluded = max(m.Excluded, excluded)
		if w := st.Cluster.StorageWiggler; w != nil && !done && (len(m.Wiggles) == 0 || m.Wiggles[len(m.Wiggles)-1] != w.Primary.FinishedWiggle) {
			m.Wiggles = append(m.Wiggles, w.Primary.FinishedWiggle)
		}
		servers := c.Sim.StorageServers()
		wiggled, retiring, onNew, perProcess := 0, 0, 0, map[string]int{}
		if w := st.Cluster.StorageWiggler; w != nil {
			wiggled = len(w.WiggleServerAddresses)
		}
		for _, srv := range servers {
			retiring += boolInt(srv.Retiring)
			onNew += boolInt(srv.Engine == engine)
			perProcess[srv.ProcessID]++
			m.MostOnAProcess = max(m.MostOnAProcess, perProcess[srv.ProcessID])
		}
		m.MostWiggled = max(m.MostWiggled, wiggled, countWiggled(servers))
		m.MostRetiring = max(m.MostRetiring, retiring)
		done = done || onNew == len(servers)
	}
	m.Migrated = onEngine(c, engine)
	m.Violations = kinds(c.Sim.Check())
	return m
}

// countWiggled counts the wiggled servers.
func countWiggled(servers []sim.StorageServer) int {
	n := 0
	for _, srv := range servers {
		n += boolInt(srv.Wiggled)
	}
	return n
}

// onEngine returns the processes whose storage servers all run engine,
// sorted.
func onEngine(c *fdbtest.Cluster, engine string) []string {
	servers := c.Sim.StorageServers()
	other := map[string]bool{}
	for _, srv := range servers {
		other[srv.ProcessID] = other[srv.ProcessID] || srv.Engine != engine
	}
	var out []string
	for _, srv := range servers {
		if !other[srv.ProcessID] && !slices.Contains(out, srv.ProcessID) {
			out = append(out, srv.ProcessID)
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// allStorage are the storage processes of migrationCluster.
var allStorage = []string{"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"}

// TestStorageMigration changes the storage engine of a database of five
// storage servers in one command with each migration type. The gradual
// migration with the perpetual wiggle replaces one server at a time,
// finished_wiggle counting each, only those its locality matches; without
// the wiggle nothing migrates; the aggressive one marks every server at
// once and runs a new one beside each. No shard ever has fewer live
// replicas than the redundancy mode keeps, and nothing is lost.
func TestStorageMigration(t *testing.T) {
	cases := map[string]struct {
		version string
		cfg     fdb.DatabaseConfiguration
		want    migration
	}{
		"GradualWithWiggleOn73": {
			version: "7.3.63",
			cfg:     fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1)},
			want:    migration{Migrated: allStorage, Wiggles: []int{0, 1, 2, 3, 4, 5}, MostWiggled: 1, MostOnAProcess: 1, FewestReplicas: 3},
		},
		"GradualWithWiggleOn71": {
			version: "7.1.67",
			cfg:     fdb.DatabaseConfiguration{StorageEngine: redwood71, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1)},
			want:    migration{Migrated: allStorage, Wiggles: []int{0, 1, 2, 3, 4, 5}, MostWiggled: 1, MostOnAProcess: 1, FewestReplicas: 3},
		},
		"GradualWithWiggleOfALocality": {
			version: "7.3.63",
			cfg: fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1),
				PerpetualStorageWiggleLocality: "zoneid:storage-2"},
			want: migration{Migrated: []string{"storage-2"}, Wiggles: []int{0, 1}, MostWiggled: 1, MostOnAProcess: 1, FewestReplicas: 3},
		},
		"GradualWithoutWiggle": {
			version: "7.3.63",
			cfg:     fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual},
			want:    migration{MostOnAProcess: 1, FewestReplicas: 3},
		},
		"AggressiveOn73": {
			version: "7.3.63",
			cfg:     fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationAggressive},
			want:    migration{Migrated: allStorage, MostRetiring: 5, MostOnAProcess: 2, FewestReplicas: 3},
		},
		"AggressiveOn71": {
			version: "7.1.67",
			cfg:     fdb.DatabaseConfiguration{StorageEngine: "memory", StorageMigrationType: fdb.StorageMigrationAggressive},
			want:    migration{Migrated: allStorage, MostRetiring: 5, MostOnAProcess: 2, FewestReplicas: 3},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := migrationCluster(t, tc.version)
			if diff := cmp.Diff(tc.want, migrate(t, c, tc.cfg, 15*time.Minute)); diff != "" {
				t.Errorf("migration (-want +got):\n%s", diff)
			}
		})
	}
}

// wiggling waits until the wiggle of c moves a server's data away and
// returns that server's process.
func wiggling(t *testing.T, c *fdbtest.Cluster) string {
	t.Helper()
	c.WaitFor(t, 10*time.Minute, func(s *fdb.Status) bool { return countWiggled(c.Sim.StorageServers()) == 1 })
	i := slices.IndexFunc(c.Sim.StorageServers(), func(srv sim.StorageServer) bool { return srv.Wiggled })
	return c.Sim.StorageServers()[i].ProcessID
}

// TestWiggleThroughFaults: a fault in the middle of a gradual migration
// loses nothing the model would not lose otherwise. A storage process down,
// the wiggled one or another, leaves too many shards short of live
// replicas: the wiggle pauses and includes its server again, and resumes
// once the data healed. The wiggled process's disk lost: its replicas are
// gone, are re-replicated elsewhere, and its wiggle ends. Either way the
// migration completes, and no shard ever has fewer than two replicas.
func TestWiggleThroughFaults(t *testing.T) {
	other := func(wiggled string) string {
		return allStorage[(slices.Index(allStorage, wiggled)+1)%len(allStorage)]
	}
	cases := map[string]struct {
		fault func(c *fdbtest.Cluster, wiggled string) error
		want  wiggleFault
	}{
		"OtherProcessDown": {
			fault: func(c *fdbtest.Cluster, wiggled string) error {
				return c.Sim.CrashProcess(other(wiggled), 5*time.Minute)
			},
			want: wiggleFault{State: "paused", Wiggled: 0, Migrated: allStorage, FewestReplicas: 2},
		},
		"WiggledProcessDown": {
			fault: func(c *fdbtest.Cluster, wiggled string) error { return c.Sim.CrashProcess(wiggled, 5*time.Minute) },
			want:  wiggleFault{State: "paused", Wiggled: 0, Migrated: allStorage, FewestReplicas: 2},
		},
		"WiggledProcessDiskLost": {
			fault: func(c *fdbtest.Cluster, wiggled string) error { return c.Sim.LoseDisk(wiggled) },
			want:  wiggleFault{State: "running", Wiggled: 0, Migrated: allStorage, FewestReplicas: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := migrationCluster(t, "7.3.63")
			cfg := fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1)}
			must(t, c.Sim.Configure(context.Background(), cfg, false))
			must(t, tc.fault(c, wiggling(t, c)))
			got := wiggleFault{FewestReplicas: 3}
			for i := range 30 * 60 {
				st := c.Status(t)
				got.FewestReplicas = min(got.FewestReplicas, st.Cluster.Data.State.MinReplicasRemaining)
				if i == 30 {
					got.State, got.Wiggled = st.Cluster.StorageWiggler.Primary.State, countWiggled(c.Sim.StorageServers())
				}
				c.Clock.Step(time.Second)
			}
			got.Migrated, got.Violations = onEngine(c, redwood73), kinds(c.Sim.Check())
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("wiggle 30 s after the fault, and the migration (-want +got):\n%s", diff)
			}
		})
	}
}

// wiggleFault is the wiggle's state and how many servers it wiggles 30 s
// after a fault, and how the migration went after it.
type wiggleFault struct {
	State          string
	Wiggled        int
	Migrated       []string
	FewestReplicas int
	Violations     []sim.ViolationKind
}

// TestWiggleRestsWithTooFewServers: with no more storage servers than a
// team, a wiggled server's data would have nowhere to go: the wiggle rests
// and says it is paused, and nothing migrates.
func TestWiggleRestsWithTooFewServers(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 2, Version: "7.3.63"}, sim.Options{Seed: 9})
	c.Create(t, fdb.RedundancyTriple)
	cfg := fdb.DatabaseConfiguration{StorageEngine: redwood73, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1)}
	must(t, c.Sim.Configure(context.Background(), cfg, false))
	c.Clock.Step(10 * time.Minute)
	type outcome struct {
		Wiggler  *fdb.StorageWiggler
		Migrated []string
	}
	want := outcome{Wiggler: &fdb.StorageWiggler{Primary: &fdb.WiggleMetrics{State: "paused"}}}
	got := outcome{c.Status(t).Cluster.StorageWiggler, onEngine(c, redwood73)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wiggle of three servers in a triple database (-want +got):\n%s", diff)
	}
}

// TestStorageMetadataByRelease: every storage role reports when its server
// was recruited and, from 7.2 on, its engine as cluster.configuration names
// it; 7.1 writes no engine.
func TestStorageMetadataByRelease(t *testing.T) {
	cases := map[string]struct {
		version, engine string
		want            string
	}{
		"On71": {version: "7.1.67", engine: "memory"},
		"On73": {version: "7.3.63", engine: "memory", want: "memory"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tp := fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 1, Version: tc.version}
			c := fdbtest.NewCluster(t, tp, sim.Options{Seed: 3})
			must(t, c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: tc.engine}, true))
			c.Clock.Step(time.Minute)
			want, got := map[string]fdb.StorageMetadata{}, map[string]fdb.StorageMetadata{}
			for _, srv := range c.Sim.StorageServers() {
				want[srv.ID] = fdb.StorageMetadata{StorageEngine: tc.want, CreatedTimeTimestamp: float64(srv.Created.Unix())}
			}
			for _, p := range c.Status(t).Cluster.Processes {
				for _, r := range p.Roles {
					if r.Role == fdb.RoleStorage {
						got[r.ID] = *r.StorageMetadata
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("storage_metadata of the storage roles (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWiggleEngineMigratesItsLocality: perpetual_storage_wiggle_engine
// under storage_migration_type gradual recruits the wiggled servers of the
// wiggle's locality with its engine, whatever storage_engine says, and
// leaves the others on storage_engine; the configuration reports it under
// the release's name, and "none" while it names no engine.
func TestWiggleEngineMigratesItsLocality(t *testing.T) {
	for version, redwood := range map[string]string{"7.3.63": redwood73, "7.1.67": redwood71} {
		t.Run(version, func(t *testing.T) {
			c := migrationCluster(t, version)
			if got := c.Status(t).Cluster.Configuration.PerpetualStorageWiggleEngine; got != fdb.WiggleEngineNone {
				t.Errorf("perpetual_storage_wiggle_engine %q before it is set, want %q", got, fdb.WiggleEngineNone)
			}
			cfg := fdb.DatabaseConfiguration{StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1),
				PerpetualStorageWiggleLocality: "zoneid:storage-2", PerpetualStorageWiggleEngine: "ssd-redwood-1"}
			if version == "7.1.67" {
				cfg.PerpetualStorageWiggleEngine = redwood71
			}
			must(t, c.Sim.Configure(context.Background(), cfg, false))
			for range 15 * 60 {
				c.Clock.Step(time.Second)
			}
			st := c.Status(t)
			if got := st.Cluster.Configuration.PerpetualStorageWiggleEngine; got != redwood {
				t.Errorf("perpetual_storage_wiggle_engine %q, want %q", got, redwood)
			}
			if diff := cmp.Diff([]string{"storage-2"}, onEngine(c, redwood)); diff != "" {
				t.Errorf("processes on the wiggle's engine (-want +got):\n%s", diff)
			}
			if got := len(onEngine(c, "ssd-2")); got != 4 {
				t.Errorf("%d processes on ssd-2, want the 4 outside the wiggle's locality", got)
			}
			if v := c.Sim.Check(); len(v) != 0 {
				t.Errorf("violations %v", v)
			}
		})
	}
}
