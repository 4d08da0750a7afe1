package fdbtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// Factory returns the client under test for a simulated cluster; the
// cluster is the ground truth the contract drives and inspects.
type Factory func(t *testing.T, c *Cluster) fdb.Client

// RunContract checks that the clients made by factory behave as fdb.Client
// promises. Each case gets a fresh Triple cluster.
func RunContract(t *testing.T, factory Factory) {
	cases := []struct {
		name string
		run  func(t *testing.T, c *Cluster, client fdb.Client)
	}{
		{"StatusBeforeConfigure", contractStatusBeforeConfigure},
		{"ConfigureNew", contractConfigureNew},
		{"ConfigureChange", contractConfigureChange},
		{"StorageMigration", contractStorageMigration},
		{"ExcludeInclude", contractExcludeInclude},
		{"Kill", contractKill},
		{"ChangeCoordinators", contractChangeCoordinators},
		{"Maintenance", contractMaintenance},
		{"Clients", contractClients},
		{"Backup", contractBackup},
		{"Restore", contractRestore},
		{"QuorumLoss", contractQuorumLoss},
		{"ContextDone", contractContextDone},
		{"Timeout", contractTimeout},
		{"IncompleteStatus", contractIncompleteStatus},
		{"PartialKill", contractPartialKill},
		{"GlobalLock", contractGlobalLock},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(t, Triple, sim.Options{Seed: 7, Shards: 24, TotalKVBytes: 2 << 30})
			tc.run(t, c, factory(t, c))
		})
	}
}

// wantErr fails the test unless errors.Is(err, want); want nil means
// success.
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// wantUnavailable fails the test unless err says the database could not
// take the command: fdbcli waits for an unavailable database, printing that
// it is unavailable as a warning, until its --timeout (ErrTimeout); the
// simulator says so at once (ErrUnavailable). The provider takes either as
// the step not taken.
func wantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, fdb.ErrUnavailable) && !errors.Is(err, fdb.ErrTimeout) {
		t.Fatalf("%s: got error %v, want %v or %v", what, err, fdb.ErrUnavailable, fdb.ErrTimeout)
	}
}

func mustStatus(t *testing.T, client fdb.Client) *fdb.Status {
	t.Helper()
	s, err := client.Status(context.Background())
	wantErr(t, "Status", err, nil)
	return s
}

func contractStatusBeforeConfigure(t *testing.T, c *Cluster, client fdb.Client) {
	s := mustStatus(t, client)
	type summary struct {
		Available, Quorum bool
		Recovery          string
		Processes         int
	}
	got := summary{s.Client.DatabaseStatus.Available, s.Client.Coordinators.QuorumReachable, s.Cluster.RecoveryState.Name, len(s.Cluster.Processes)}
	want := summary{false, true, fdb.RecoveryConfigurationNeverCreated, len(c.Groups)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status before configure (-want +got):\n%s", diff)
	}
	wantErr(t, "Configure without new", client.Configure(context.Background(), fdb.DatabaseConfiguration{Logs: 4}, false), fdb.ErrUnavailable)
	wantUnavailable(t, "Exclude", client.Exclude(context.Background(), []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")}))
}

func contractConfigureNew(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	cfg := fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-2", Logs: 3}
	wantErr(t, "Configure new", client.Configure(ctx, cfg, true), nil)
	wantErr(t, "Configure new again", client.Configure(ctx, cfg, true), fdb.ErrAlreadyExists)
	c.Clock.Step(30 * time.Second)
	s := mustStatus(t, client)
	type summary struct {
		Available, Healthy bool
		Mode               fdb.RedundancyMode
		Recovery           string
		Generations        int
		MinReplicas        int
		DataTolerance      int
	}
	got := summary{
		s.Client.DatabaseStatus.Available, s.Client.DatabaseStatus.Healthy, s.Cluster.Configuration.RedundancyMode,
		s.Cluster.RecoveryState.Name, s.Cluster.RecoveryState.ActiveGenerations, s.Cluster.Data.State.MinReplicasRemaining,
		s.Cluster.FaultTolerance.MaxZoneFailuresWithoutLosingData,
	}
	// Three replicas survive two zones lost, three coordinators one:
	// status reports the lesser (faultToleranceStatusFetcher).
	want := summary{true, true, fdb.RedundancyTriple, fdb.RecoveryFullyRecovered, 1, 3, 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status after configure new (-want +got):\n%s", diff)
	}
}

func contractConfigureChange(t *testing.T, c *Cluster, client fdb.Client) {
	c.Create(t, fdb.RedundancyTriple)
	before := c.Sim.Recoveries()
	wantErr(t, "Configure", client.Configure(context.Background(), fdb.DatabaseConfiguration{Logs: 4}, false), nil)
	c.Clock.Step(time.Minute)
	s := mustStatus(t, client)
	logs := 0
	for _, p := range s.Cluster.Processes {
		if p.HasRole(fdb.RoleLog) {
			logs++
		}
	}
	got := []int{s.Cluster.Configuration.Logs, logs, c.Sim.Recoveries() - before}
	if diff := cmp.Diff([]int{4, 4, 1}, got); diff != "" {
		t.Errorf("logs configured, logs running, recoveries (-want +got):\n%s", diff)
	}
}

// contractStorageMigration changes the storage engine: refused while
// storage_migration_type is disabled, the default, with nothing changed;
// taken with gradual migration and the perpetual wiggle in the same
// command, after which the wiggle replaces every storage server with one
// of the new engine.
func contractStorageMigration(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	const engine = "ssd-redwood-1-experimental" // taken by 7.1 and 7.3
	before := c.Configuration(t)
	err := client.Configure(ctx, fdb.DatabaseConfiguration{StorageEngine: engine}, false)
	wantErr(t, "Configure engine while migration is disabled", err, fdb.ErrStorageMigrationDisabled)
	if diff := cmp.Diff(before, c.Configuration(t)); diff != "" {
		t.Errorf("configuration after the refusal (-want +got):\n%s", diff)
	}
	wiggle := 1
	cfg := fdb.DatabaseConfiguration{StorageEngine: engine, StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: &wiggle}
	wantErr(t, "Configure engine with gradual migration", client.Configure(ctx, cfg, false), nil)
	got := c.Configuration(t)
	version, _ := fdb.ParseVersion(Version)
	want, _ := fdb.ReportedStorageEngine(engine, version)
	c.WaitFor(t, time.Hour, func(*fdb.Status) bool { return slices.Equal(serverEngines(c), []string{want}) })
	s := mustStatus(t, client)
	type summary struct {
		Engine, Migration string
		Wiggle            int
		Wiggled           bool
		Healthy           bool
	}
	if diff := cmp.Diff(
		summary{want, fdb.StorageMigrationGradual, 1, true, true},
		summary{got.StorageEngine, got.StorageMigrationType, *got.PerpetualStorageWiggle,
			s.Cluster.StorageWiggler != nil && s.Cluster.StorageWiggler.Primary.FinishedWiggle > 0, s.Cluster.Data.State.Healthy},
	); diff != "" {
		t.Errorf("after the migration (-want +got):\n%s", diff)
	}
}

// serverEngines returns the storage engines the cluster's storage servers
// run, each once, sorted.
func serverEngines(c *Cluster) []string {
	var out []string
	for _, srv := range c.Sim.StorageServers() {
		out = append(out, srv.Engine)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func contractExcludeInclude(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	byLocality := fdb.InstanceTarget("storage-1")
	byAddress := fdb.ProcessAddress(c.Groups[1].IP + ":4501")
	targets := []fdb.ProcessAddress{byLocality, byAddress}
	wantErr(t, "Exclude", client.Exclude(ctx, targets), nil)
	s := mustStatus(t, client)
	if diff := cmp.Diff(fdb.SortedAddresses(targets), fdb.Exclusions(s)); diff != "" {
		t.Errorf("exclusions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fdb.SortedAddresses(targets), NotFullyExcluded(s, targets)); diff != "" {
		t.Errorf("not fully excluded right after Exclude (-want +got):\n%s", diff)
	}
	c.Clock.Step(10 * time.Minute)
	if got := NotFullyExcluded(mustStatus(t, client), targets); len(got) != 0 {
		t.Errorf("not fully excluded after data moved: %v, want none", got)
	}
	wantErr(t, "Include", client.Include(ctx, targets), nil)
	if got := fdb.Exclusions(mustStatus(t, client)); len(got) != 0 {
		t.Errorf("exclusions after Include: %v, want none", got)
	}
}

// contractMaintenance stops a storage pod of a zone under maintenance for
// longer than the failure detection time: its data waits for it, nothing
// moves, until the maintenance is reset.
func contractMaintenance(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	c.Clock.Step(time.Hour)
	groups := slices.Clone(c.Groups)
	i := slices.IndexFunc(groups, func(g sim.ProcessGroup) bool { return g.Class == sim.ClassStorage })
	zone := groups[i].Zone
	if zone == "" {
		zone = groups[i].ID // a group without a zone is one
	}
	wantErr(t, "SetMaintenance", client.SetMaintenance(ctx, zone, 3600), nil)
	s := mustStatus(t, client)
	if s.Cluster.MaintenanceZone != zone || s.Cluster.MaintenanceSecondsRemaining <= 0 || s.Cluster.MaintenanceSecondsRemaining > 3600 {
		t.Errorf("maintenance in the status: zone %q, %vs remaining; want %q, up to 3600s", s.Cluster.MaintenanceZone, s.Cluster.MaintenanceSecondsRemaining, zone)
	}
	groups[i].Stopped = true
	c.SetGroups(t, groups)
	healthy := func() fdb.DataState { return mustStatus(t, client).Cluster.Data.State }
	c.Clock.Step(10 * time.Minute)
	if st := healthy(); st.Healthy || st.MinReplicasRemaining != 2 {
		t.Errorf("data state %+v with a stopped process of a zone under maintenance, want 2 replicas left, not re-replicated", st)
	}
	wantErr(t, "ResetMaintenance", client.ResetMaintenance(ctx), nil)
	if z := mustStatus(t, client).Cluster.MaintenanceZone; z != "" {
		t.Errorf("maintenance zone %q after the reset, want none", z)
	}
	c.WaitFor(t, time.Hour, func(s *fdb.Status) bool { return s.Cluster.Data.State.Healthy })
	if err := client.SetMaintenance(ctx, "", 60); err == nil {
		t.Error("SetMaintenance without a zone succeeded")
	}
}

// contractClients connects an application that loaded only an old client
// library and one that also loaded the new one: the status lists both
// under their libraries, with their log groups, so that the one an upgrade
// to the new protocol would cut off is found; once it disconnects, none is.
func contractClients(t *testing.T, c *Cluster, client fdb.Client) {
	c.Create(t, fdb.RedundancyTriple)
	target := fdb.Version{Major: 7, Minor: 4, Patch: 1}
	if err := c.Sim.ConnectClient("10.9.0.1:40001", "app", "7.3.63"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sim.ConnectClient("10.9.0.2:40001", "batch", "7.3.63", "7.4.1"); err != nil {
		t.Fatal(err)
	}
	s := mustStatus(t, client)
	if s.Cluster.Clients == nil || s.Cluster.Clients.Count != 2 {
		t.Fatalf("clients in the status: %+v, want 2", s.Cluster.Clients)
	}
	type without struct {
		Count  int
		Sample []string
		Known  bool
	}
	var got without
	got.Count, got.Sample, got.Known = fdb.ClientsWithout(s, target)
	if diff := cmp.Diff(without{1, []string{"10.9.0.1:40001 (app)"}, true}, got); diff != "" {
		t.Errorf("clients without %s (-want +got):\n%s", target, diff)
	}
	c.Sim.DisconnectClient("10.9.0.1:40001")
	got.Count, got.Sample, got.Known = fdb.ClientsWithout(mustStatus(t, client), target)
	if diff := cmp.Diff(without{0, nil, true}, got); diff != "" {
		t.Errorf("clients without %s after the old one left (-want +got):\n%s", target, diff)
	}
}

func contractKill(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	c.Clock.Step(time.Hour)
	upgraded := slices.Clone(c.Groups)
	var all []fdb.ProcessAddress
	for i := range upgraded {
		upgraded[i].Version = "7.1.29"
		all = append(all, fdb.ProcessAddress(upgraded[i].IP+":4501"))
	}
	c.SetGroups(t, upgraded)
	before := c.Sim.Recoveries()
	wantErr(t, "Kill", client.Kill(ctx, all), nil)
	s := mustStatus(t, client)
	versions := map[string]int{}
	var maxUptime float64
	for _, p := range s.Cluster.Processes {
		versions[p.Version]++
		maxUptime = max(maxUptime, p.UptimeSeconds)
	}
	if diff := cmp.Diff(map[string]int{"7.1.29": len(all)}, versions); diff != "" {
		t.Errorf("versions after Kill (-want +got):\n%s", diff)
	}
	if maxUptime >= 60 {
		t.Errorf("max uptime after Kill: %v, want < 60", maxUptime)
	}
	if got := c.Sim.Recoveries() - before; got != 1 {
		t.Errorf("recoveries caused by one Kill batch: %d, want 1", got)
	}
	wantErr(t, "Kill unknown", client.Kill(ctx, []fdb.ProcessAddress{"10.9.9.9:4501"}), fdb.ErrNotFound)
}

func contractChangeCoordinators(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	var coordinators []fdb.ProcessAddress
	for _, g := range c.Groups[:5] {
		coordinators = append(coordinators, fdb.ProcessAddress(g.IP+":4501"))
	}
	cs, err := client.ChangeCoordinators(ctx, coordinators)
	wantErr(t, "ChangeCoordinators", err, nil)
	parsed, err := fdb.ParseConnectionString(cs)
	wantErr(t, "ParseConnectionString", err, nil)
	if diff := cmp.Diff(fdb.SortedAddresses(coordinators), parsed.Coordinators); diff != "" {
		t.Errorf("coordinators in the new connection string (-want +got):\n%s", diff)
	}
	if got := c.Sim.ConnectionString(); got != cs {
		t.Errorf("cluster connection string %q, client returned %q", got, cs)
	}
	c.Clock.Step(time.Minute)
	s := mustStatus(t, client)
	var reachable []fdb.ProcessAddress
	for _, co := range s.Client.Coordinators.Coordinators {
		if co.Reachable {
			reachable = append(reachable, co.Address)
		}
	}
	if diff := cmp.Diff(fdb.SortedAddresses(coordinators), fdb.SortedAddresses(reachable)); diff != "" {
		t.Errorf("reachable coordinators (-want +got):\n%s", diff)
	}
	if _, err := client.ChangeCoordinators(ctx, []fdb.ProcessAddress{"10.9.9.9:4501"}); err == nil {
		t.Error("ChangeCoordinators to an unknown process: got no error")
	}
}

func contractBackup(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.SetBackupAgents(2); err != nil {
		t.Fatal(err)
	}
	_, err := client.BackupStatus(ctx, "nightly")
	wantErr(t, "BackupStatus before start", err, fdb.ErrNotFound)
	req := fdb.BackupRequest{URL: "blobstore://k@host:443/nightly?bucket=b", Tag: "nightly", SnapshotPeriodSeconds: 60}
	wantErr(t, "StartBackup", client.StartBackup(ctx, req), nil)
	wantErr(t, "StartBackup again", client.StartBackup(ctx, req), fdb.ErrAlreadyExists)

	type summary struct {
		State                   fdb.BackupState
		Running, Restorable     bool
		Paused                  bool
		Period                  int
		HasRestorableVersionSet bool
	}
	check := func(step string, want summary) {
		t.Helper()
		st, err := client.BackupStatus(ctx, "nightly")
		wantErr(t, "BackupStatus", err, nil)
		got := summary{st.State, st.Running, st.Restorable, st.AgentsPaused, st.SnapshotPeriodSeconds, st.LatestRestorableVersion > 0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step, diff)
		}
	}
	check("started", summary{fdb.BackupRunning, true, false, false, 60, false})
	c.Clock.Step(2 * time.Minute)
	check("after a snapshot", summary{fdb.BackupRunningDifferentially, true, true, false, 60, true})
	wantErr(t, "PauseBackups", client.PauseBackups(ctx), nil)
	check("paused", summary{fdb.BackupRunningDifferentially, true, true, true, 60, true})
	wantErr(t, "ResumeBackups", client.ResumeBackups(ctx), nil)
	wantErr(t, "ModifyBackup", client.ModifyBackup(ctx, fdb.BackupRequest{Tag: "nightly", SnapshotPeriodSeconds: 120}), nil)
	check("modified", summary{fdb.BackupRunningDifferentially, true, true, false, 120, true})
	wantErr(t, "StopBackup", client.StopBackup(ctx, "nightly"), nil)
	c.Clock.Step(5 * time.Minute)
	check("stopped", summary{fdb.BackupCompleted, false, true, false, 120, true})
	wantErr(t, "StopBackup again", client.StopBackup(ctx, "nightly"), fdb.ErrNotFound)
}

func contractRestore(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.SetBackupAgents(1); err != nil {
		t.Fatal(err)
	}
	_, err := client.RestoreStatus(ctx, "")
	wantErr(t, "RestoreStatus before start", err, fdb.ErrNotFound)
	req := fdb.RestoreRequest{URL: "blobstore://k@host:443/nightly?bucket=b", KeyRanges: []fdb.KeyRange{{Begin: "a", End: "z"}}}
	wantErr(t, "StartRestore", client.StartRestore(ctx, req), nil)
	wantErr(t, "StartRestore again", client.StartRestore(ctx, req), fdb.ErrAlreadyExists)
	state := func(tag string) fdb.RestoreState {
		t.Helper()
		st, err := client.RestoreStatus(ctx, tag)
		wantErr(t, "RestoreStatus", err, nil)
		return st.State
	}
	var seen []fdb.RestoreState
	for range 120 {
		if s := state(""); len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
		c.Clock.Step(time.Second)
	}
	want := []fdb.RestoreState{fdb.RestoreQueued, fdb.RestoreStarting, fdb.RestoreRunning, fdb.RestoreCompleted}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("restore states (-want +got):\n%s", diff)
	}
	wantErr(t, "StartRestore other tag", client.StartRestore(ctx, fdb.RestoreRequest{URL: req.URL, Tag: "other"}), nil)
	wantErr(t, "AbortRestore", client.AbortRestore(ctx, "other"), nil)
	if got := state("other"); got != fdb.RestoreAborted {
		t.Errorf("state after AbortRestore: %q, want %q", got, fdb.RestoreAborted)
	}
	wantErr(t, "AbortRestore unknown", client.AbortRestore(ctx, "unknown"), fdb.ErrNotFound)
}

func contractQuorumLoss(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	for _, g := range c.Groups {
		if g.Class == sim.ClassLog {
			if err := c.Sim.LosePod(g.ID, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := mustStatus(t, client)
	if s.Client.Coordinators.QuorumReachable || !s.Incomplete() {
		t.Errorf("quorum reachable %v, incomplete %v: want false, true", s.Client.Coordinators.QuorumReachable, s.Incomplete())
	}
	wantUnavailable(t, "Exclude", client.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")}))
}

func contractContextDone(t *testing.T, _ *Cluster, client fdb.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := client.Status(ctx)
	wantErr(t, "Status with a canceled context", err, fdb.ErrTimeout)
}

// contractTimeout: a command the cluster does not answer in time fails
// with ErrTimeout, and a retry succeeds.
func contractTimeout(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	target := []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")}
	if err := c.Sim.FailNext(sim.OpExclude, fdb.ErrTimeout, 1); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Exclude timing out", client.Exclude(ctx, target), fdb.ErrTimeout)
	if got := fdb.Exclusions(mustStatus(t, client)); len(got) != 0 {
		t.Errorf("exclusions after a timed out Exclude: %v, want none", got)
	}
	wantErr(t, "Exclude retried", client.Exclude(ctx, target), nil)
	if diff := cmp.Diff(target, fdb.Exclusions(mustStatus(t, client))); diff != "" {
		t.Errorf("exclusions after the retry (-want +got):\n%s", diff)
	}
}

// contractIncompleteStatus: an incomplete status is returned as such, not
// as an error, so callers see Incomplete().
func contractIncompleteStatus(t *testing.T, c *Cluster, client fdb.Client) {
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.IncompleteStatusNext(1); err != nil {
		t.Fatal(err)
	}
	got := []bool{mustStatus(t, client).Incomplete(), mustStatus(t, client).Incomplete()}
	if diff := cmp.Diff([]bool{true, false}, got); diff != "" {
		t.Errorf("incomplete status reads (-want +got):\n%s", diff)
	}
}

// contractPartialKill: a kill that restarts only part of its targets
// reports the failure, so the caller retries the batch.
func contractPartialKill(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	c.Create(t, fdb.RedundancyTriple)
	targets := []fdb.ProcessAddress{fdb.ProcessAddress(c.Groups[0].IP + ":4501"), fdb.ProcessAddress(c.Groups[1].IP + ":4501")}
	if err := c.Sim.PartialKillNext(1, fdb.ErrTimeout); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Hour)
	wantErr(t, "Kill restarting half", client.Kill(ctx, targets), fdb.ErrTimeout)
	restarted := 0
	for _, p := range mustStatus(t, client).Cluster.Processes {
		if slices.Contains(targets, fdb.ProcessAddress(p.Address)) && p.UptimeSeconds < 60 {
			restarted++
		}
	}
	if restarted != 1 {
		t.Errorf("%d of the 2 targets restarted, want 1", restarted)
	}
	wantErr(t, "Kill retried", client.Kill(ctx, targets), nil)
}

// contractGlobalLock takes the global lock for two instances in turn: one
// holds it, the other is told who holds it until when; the holder extends
// it; it is taken over once expired or once its holder is denied; a
// release never frees another's lock; an unavailable database cannot be
// locked.
func contractGlobalLock(t *testing.T, c *Cluster, client fdb.Client) {
	ctx := context.Background()
	take := func(holder string) (fdb.GlobalLock, error) {
		return client.TakeLock(ctx, fdb.LockRequest{Holder: holder, Now: c.Clock.Now(), Duration: time.Minute})
	}
	_, err := take("dc1")
	wantErr(t, "TakeLock before configure", err, fdb.ErrUnavailable)
	c.Create(t, fdb.RedundancyTriple)
	start := c.Clock.Now()
	l, err := take("dc1")
	wantErr(t, "TakeLock", err, nil)
	if want := (fdb.GlobalLock{Holder: "dc1", Start: start, End: start.Add(time.Minute)}); l != want {
		t.Errorf("TakeLock = %+v, want %+v", l, want)
	}
	var held *fdb.LockHeldError
	if _, err := take("dc2"); !errors.As(err, &held) || held.Held.Holder != "dc1" || held.Denied {
		t.Errorf("TakeLock by another while held = %v, want a *LockHeldError naming dc1", err)
	}
	wantErr(t, "ReleaseLock by another", client.ReleaseLock(ctx, "dc2"), nil)
	c.Clock.Step(30 * time.Second)
	if l, err := take("dc1"); err != nil || l.Start != start || l.End != start.Add(90*time.Second) {
		t.Errorf("the holder's extension = %+v, %v; want start %s, end 90s later", l, err, start)
	}
	c.Clock.Step(90 * time.Second)
	if l, err := take("dc2"); err != nil || l.Holder != "dc2" {
		t.Errorf("TakeLock once expired = %+v, %v; want dc2's", l, err)
	}
	wantErr(t, "UpdateLockDenyList", client.UpdateLockDenyList(ctx, []fdb.LockDenyEntry{{ID: "dc2"}}), nil)
	if l, err := take("dc1"); err != nil || l.Holder != "dc1" {
		t.Errorf("TakeLock of a denied holder's lock = %+v, %v; want dc1's", l, err)
	}
	if _, err := take("dc2"); !errors.As(err, &held) || !held.Denied {
		t.Errorf("TakeLock by a denied instance = %v, want a *LockHeldError that says it is denied", err)
	}
	wantErr(t, "UpdateLockDenyList", client.UpdateLockDenyList(ctx, []fdb.LockDenyEntry{{ID: "dc2", Allow: true}}), nil)
	wantErr(t, "ReleaseLock", client.ReleaseLock(ctx, "dc1"), nil)
	if l, err := take("dc2"); err != nil || l.Holder != "dc2" {
		t.Errorf("TakeLock once allowed and released = %+v, %v; want dc2's", l, err)
	}
}
