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

// health summarises a status for fault tests.
type health struct {
	Available   bool
	Quorum      bool
	Data        string
	MinReplicas int
	Processes   int
	Violations  []sim.ViolationKind
}

func observeHealth(t *testing.T, c *fdbtest.Cluster) health {
	t.Helper()
	s := c.Status(t)
	h := health{
		Available:   s.Client.DatabaseStatus.Available,
		Quorum:      s.Client.Coordinators.QuorumReachable,
		Data:        s.Cluster.Data.State.Name,
		MinReplicas: s.Cluster.Data.State.MinReplicasRemaining,
		Processes:   len(s.Cluster.Processes),
	}
	for _, v := range c.Sim.Check() {
		h.Violations = append(h.Violations, v.Kind)
	}
	return h
}

func TestFaults(t *testing.T) {
	healthy := health{Available: true, Quorum: true, Data: fdb.DataHealthy, MinReplicas: 3, Processes: 11}
	with := func(h health, edit func(h *health)) health {
		edit(&h)
		return h
	}
	cases := map[string]struct {
		mode   fdb.RedundancyMode
		fault  func(c *fdbtest.Cluster) error
		during health // right after the fault
		after  health // 15 virtual minutes later
	}{
		"CrashStorage": {
			fault:  func(c *fdbtest.Cluster) error { return c.Sim.CrashProcess("storage-1", 10*time.Minute) },
			during: with(healthy, func(h *health) { h.Data, h.MinReplicas, h.Processes = fdb.DataHealing, 2, 10 }),
			after:  healthy,
		},
		"LosePodBriefly": {
			fault:  func(c *fdbtest.Cluster) error { return c.Sim.LosePod("storage-2", 30*time.Second) },
			during: with(healthy, func(h *health) { h.Data, h.MinReplicas, h.Processes = fdb.DataHealing, 2, 10 }),
			after:  healthy,
		},
		"LoseZoneForever": {
			fault:  func(c *fdbtest.Cluster) error { return c.Sim.LoseZone("storage-3", sim.Forever) },
			during: with(healthy, func(h *health) { h.Data, h.MinReplicas, h.Processes = fdb.DataHealing, 2, 10 }),
			after:  with(healthy, func(h *health) { h.Processes = 10 }),
		},
		"BriefFaultOnAZoneLostForever": {
			// A later, shorter fault does not bring back what a longer one
			// took down.
			fault: func(c *fdbtest.Cluster) error {
				if err := c.Sim.LoseZone("storage-3", sim.Forever); err != nil {
					return err
				}
				return c.Sim.LosePod("storage-3", 30*time.Second)
			},
			during: with(healthy, func(h *health) { h.Data, h.MinReplicas, h.Processes = fdb.DataHealing, 2, 10 }),
			after:  with(healthy, func(h *health) { h.Processes = 10 }),
		},
		"PartitionTwoCoordinators": {
			fault: func(c *fdbtest.Cluster) error {
				for _, a := range []fdb.ProcessAddress{"10.2.0.2:4501", "10.2.0.3:4501"} {
					if err := c.Sim.PartitionCoordinator(a, time.Minute); err != nil {
						return err
					}
				}
				return nil
			},
			during: health{Violations: []sim.ViolationKind{sim.CoordinatorQuorumLoss}},
			after:  with(healthy, func(h *health) { h.Violations = []sim.ViolationKind{sim.CoordinatorQuorumLoss} }),
		},
		"LoseDiskTriple": {
			fault:  func(c *fdbtest.Cluster) error { return c.Sim.LoseDisk("storage-4") },
			during: with(healthy, func(h *health) { h.Data, h.MinReplicas = fdb.DataHealing, 2 }),
			after:  healthy,
		},
		"LoseDiskSingle": {
			mode:  fdb.RedundancySingle,
			fault: func(c *fdbtest.Cluster) error { return c.Sim.LoseDisk("storage-4") },
			during: with(healthy, func(h *health) {
				h.Data, h.MinReplicas, h.Violations = fdb.DataMissing, 0, []sim.ViolationKind{sim.DataLoss}
			}),
			after: with(healthy, func(h *health) {
				h.Data, h.MinReplicas, h.Violations = fdb.DataMissing, 0, []sim.ViolationKind{sim.DataLoss}
			}),
		},
		"StopPod": {
			fault: func(c *fdbtest.Cluster) error {
				groups := slices.Clone(c.Groups)
				groups[0] = sim.ProcessGroup{ID: groups[0].ID, Class: groups[0].Class, Stopped: true}
				return c.Sim.SetProcessGroups(groups)
			},
			during: with(healthy, func(h *health) { h.Data, h.MinReplicas, h.Processes = fdb.DataHealing, 2, 10 }),
			after:  with(healthy, func(h *health) { h.Processes = 10 }),
		},
		"MoveCoordinatorIP": {
			fault: func(c *fdbtest.Cluster) error {
				groups := slices.Clone(c.Groups)
				for i := range groups {
					if groups[i].ID == "log-1" {
						groups[i].IP = "10.2.9.9"
					}
				}
				return c.Sim.SetProcessGroups(groups)
			},
			during: healthy,
			after:  healthy,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
			mode := tc.mode
			if mode == "" {
				mode = fdb.RedundancyTriple
			}
			c.Create(t, mode)
			if err := tc.fault(c); err != nil {
				t.Fatal(err)
			}
			during := tc.during
			if mode == fdb.RedundancySingle && during.MinReplicas > 0 {
				during.MinReplicas = 1
			}
			if diff := cmp.Diff(during, observeHealth(t, c)); diff != "" {
				t.Errorf("right after the fault (-want +got):\n%s", diff)
			}
			c.Clock.Step(15 * time.Minute)
			if diff := cmp.Diff(tc.after, observeHealth(t, c)); diff != "" {
				t.Errorf("15 minutes later (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCoordinatorOnOldIPIsUnreachable(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	groups := slices.Clone(c.Groups)
	for i := range groups {
		if groups[i].Class == sim.ClassLog {
			groups[i].IP = "10.9.0." + groups[i].ID[len("log-"):]
		}
	}
	c.SetGroups(t, groups)
	s := c.Status(t)
	if s.Client.Coordinators.QuorumReachable {
		t.Error("coordinators whose pods moved to new IPs are still reachable")
	}
	if v := c.Sim.Check(); len(v) != 1 || v[0].Kind != sim.CoordinatorQuorumLoss {
		t.Errorf("violations %v, want one coordinator quorum loss", v)
	}
}

// runningVersion is a created triple cluster whose pods all run version
// now (their processes pick it up when they restart), with the addresses of
// their processes.
func runningVersion(t *testing.T, version string) (*fdbtest.Cluster, []fdb.ProcessAddress) {
	t.Helper()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	upgraded := slices.Clone(c.Groups)
	var all []fdb.ProcessAddress
	for i := range upgraded {
		upgraded[i].Version = version
		all = append(all, fdb.ProcessAddress(upgraded[i].IP+":4501"))
	}
	c.SetGroups(t, upgraded)
	return c, all
}

func TestPartialUpgradeIsIncompatible(t *testing.T) {
	ctx := context.Background()
	c, all := runningVersion(t, "7.3.43")
	if err := c.Sim.Kill(ctx, all[:1]); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Processes    int
		Incompatible []string
	}
	observe := func() view {
		s := c.Status(t)
		return view{len(s.Cluster.Processes), s.Cluster.IncompatibleConnections}
	}
	if diff := cmp.Diff(view{10, []string{string(all[0])}}, observe()); diff != "" {
		t.Errorf("after upgrading one process (-want +got):\n%s", diff)
	}
	if err := c.Sim.Kill(ctx, all[1:]); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	if diff := cmp.Diff(view{11, []string{}}, observe()); diff != "" {
		t.Errorf("after upgrading all processes (-want +got):\n%s", diff)
	}
}

// TestInPlaceUpgrade restarts every process of a triple cluster on a
// staged, protocol-incompatible version in one kill: one recovery, the same
// addresses and coordinators, every process back on the new version.
func TestInPlaceUpgrade(t *testing.T) {
	ctx := context.Background()
	c, all := runningVersion(t, "7.4.1")
	before, cs := c.Sim.Recoveries(), c.Sim.ConnectionString()
	if err := c.Sim.Kill(ctx, all); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	s := c.Status(t)
	versions := map[string]int{}
	for _, p := range s.Cluster.Processes {
		versions[p.Version]++
	}
	type view struct {
		Recoveries   int
		Versions     map[string]int
		Connection   string
		Available    bool
		Incompatible []string
	}
	want := view{1, map[string]int{"7.4.1": len(all)}, cs, true, []string{}}
	got := view{c.Sim.Recoveries() - before, versions, c.Sim.ConnectionString(), s.Client.DatabaseStatus.Available, s.Cluster.IncompatibleConnections}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after one kill of every process (-want +got):\n%s", diff)
	}
}

// TestUnstagedVersionDoesNotStart: a process restarted on a version its pod
// has not staged stays down, and starts once the pod stages it; a running
// process is not affected by staging.
func TestUnstagedVersionDoesNotStart(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	groups := slices.Clone(c.Groups)
	for i := range groups {
		// A patch of the cluster's 7.1.27, not yet staged.
		groups[i].Version, groups[i].Staged = "7.1.28", "7.1.27"
	}
	c.SetGroups(t, groups)
	reporting := func() int { return len(c.Status(t).Cluster.Processes) }
	if n := reporting(); n != len(groups) {
		t.Fatalf("%d processes report after a version nobody restarted on, want all %d", n, len(groups))
	}
	target := fdb.ProcessAddress(groups[0].IP + ":4501")
	if err := c.Sim.Kill(ctx, []fdb.ProcessAddress{target}); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	if n := reporting(); n != len(groups)-1 {
		t.Errorf("%d processes report after restarting one on an unstaged version, want %d", n, len(groups)-1)
	}
	groups[0].Staged = "7.1.28"
	c.SetGroups(t, groups)
	c.Clock.Step(time.Minute)
	if n := reporting(); n != len(groups) {
		t.Errorf("%d processes report once its pod staged the version, want %d", n, len(groups))
	}
}

// TestUnconfiguredMonitorStartsNothing: while a pod's monitor has no
// configuration to load, its running processes keep running, and one that
// restarts stays down until the configuration is back.
func TestUnconfiguredMonitorStartsNothing(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	groups := slices.Clone(c.Groups)
	for i := range groups {
		groups[i].Unconfigured = true
	}
	c.SetGroups(t, groups)
	reporting := func() int { return len(c.Status(t).Cluster.Processes) }
	if n := reporting(); n != len(groups) {
		t.Fatalf("%d processes report once the configuration went, want all %d", n, len(groups))
	}
	if err := c.Sim.Kill(ctx, []fdb.ProcessAddress{fdb.ProcessAddress(groups[0].IP + ":4501")}); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	if n := reporting(); n != len(groups)-1 {
		t.Errorf("%d processes report after one restarted without a configuration, want %d", n, len(groups)-1)
	}
	groups[0].Unconfigured = false
	c.SetGroups(t, groups)
	c.Clock.Step(time.Minute)
	if n := reporting(); n != len(groups) {
		t.Errorf("%d processes report once its configuration is back, want %d", n, len(groups))
	}
}

func TestSlowDataMovement(t *testing.T) {
	cases := map[string]struct {
		rate     int64
		wantDone bool
	}{
		"Default": {wantDone: true},
		"Slow":    {rate: 1 << 20, wantDone: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11, TotalKVBytes: 1 << 30})
			c.Create(t, fdb.RedundancyTriple)
			if tc.rate > 0 {
				if err := c.Sim.SetMovementRate(tc.rate); err != nil {
					t.Fatal(err)
				}
			}
			target := []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")}
			if err := c.Sim.Exclude(context.Background(), target); err != nil {
				t.Fatal(err)
			}
			c.Clock.Step(time.Minute)
			done := len(fdbtest.NotFullyExcluded(c.Status(t), target)) == 0
			if done != tc.wantDone {
				t.Errorf("fully excluded after a minute: %v, want %v", done, tc.wantDone)
			}
		})
	}
}

func TestDriverErrors(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	cases := map[string]error{
		"CrashUnknownProcess":     c.Sim.CrashProcess("nope-1", time.Second),
		"LoseUnknownPod":          c.Sim.LosePod("nope", time.Second),
		"LoseUnknownZone":         c.Sim.LoseZone("nope", time.Second),
		"LoseUnknownDisk":         c.Sim.LoseDisk("nope-1"),
		"DiskErrorUnknownProcess": c.Sim.DiskError("nope-1", fdb.MessageIOError, time.Second),
		"DiskErrorNotAnIOError":   c.Sim.DiskError(c.Groups[0].ID, "platform_error", time.Second),
		"PartitionNonCoordinator": c.Sim.PartitionCoordinator("10.1.0.2:4501", time.Second),
		"NegativeAgents":          c.Sim.SetBackupAgents(-1),
		"ZeroMovementRate":        c.Sim.SetMovementRate(0),
		"BadConnectionString":     c.Sim.SetConnectionString("nope"),
		"DuplicateGroup":          c.Sim.SetProcessGroups([]sim.ProcessGroup{c.Groups[0], c.Groups[0]}),
		"SharedIP": c.Sim.SetProcessGroups([]sim.ProcessGroup{
			c.Groups[0], {ID: "other", IP: c.Groups[0].IP, Version: fdbtest.Version},
		}),
		"BadVersion": c.Sim.SetProcessGroups([]sim.ProcessGroup{{ID: "x", IP: "10.0.0.1", Version: "seven"}}),
		"BadIP":      c.Sim.SetProcessGroups([]sim.ProcessGroup{{ID: "x", IP: "pod", Version: fdbtest.Version}}),
	}
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
}

// TestDiskError: a process whose disk operation failed lists the I/O error
// among its status messages for the fault's duration, and no longer once
// it restarts.
func TestDiskError(t *testing.T) {
	ctx := context.Background()
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 12})
	c.Create(t, fdb.RedundancyTriple)
	messages := func() map[string]string {
		t.Helper()
		st, err := c.Sim.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range st.Cluster.Processes {
			if name := fdb.IOErrorOf(p); name != "" {
				out[p.Locality.ProcessID] = name
			}
		}
		return out
	}
	id := c.Groups[0].ID
	if err := c.Sim.DiskError(id, fdb.MessageIOTimeout, time.Hour); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	if diff := cmp.Diff(map[string]string{id: fdb.MessageIOTimeout}, messages()); diff != "" {
		t.Errorf("I/O errors after the fault: -want +got:\n%s", diff)
	}
	if err := c.Sim.CrashProcess(id, time.Second); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(time.Minute)
	if diff := cmp.Diff(map[string]string{}, messages()); diff != "" {
		t.Errorf("I/O errors once the process restarted: -want +got:\n%s", diff)
	}
	if err := c.Sim.DiskError(id, fdb.MessageIOError, time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Clock.Step(2 * time.Minute)
	if diff := cmp.Diff(map[string]string{}, messages()); diff != "" {
		t.Errorf("I/O errors after the fault's duration: -want +got:\n%s", diff)
	}
}

func TestStoppedPodKeepsItsData(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 3, Logs: 1, Stateless: 1, StorageProcessesPerPod: 2}, sim.Options{Seed: 4})
	c.Create(t, fdb.RedundancySingle)
	running := slices.Clone(c.Groups)
	stopped := slices.Clone(running)
	stopped[0] = sim.ProcessGroup{ID: stopped[0].ID, Class: stopped[0].Class, Stopped: true}
	c.SetGroups(t, stopped)
	c.Clock.Step(time.Hour)
	if got := observeHealth(t, c); got.Data != fdb.DataMissing || len(got.Violations) != 0 {
		t.Errorf("while stopped: data %q, violations %v: want %q and none", got.Data, got.Violations, fdb.DataMissing)
	}
	c.SetGroups(t, running)
	c.Clock.Step(time.Minute)
	want := health{Available: true, Quorum: true, Data: fdb.DataHealthy, MinReplicas: 1, Processes: 8}
	if diff := cmp.Diff(want, observeHealth(t, c)); diff != "" {
		t.Errorf("after restarting the pod (-want +got):\n%s", diff)
	}
}

func TestFailNext(t *testing.T) {
	ctx := context.Background()
	const url = "blobstore://k@h:443/b"
	cases := map[sim.Op]func(c *fdbtest.Cluster) error{
		sim.OpStatus: func(c *fdbtest.Cluster) error { _, err := c.Sim.Status(ctx); return err },
		sim.OpConfigure: func(c *fdbtest.Cluster) error {
			return c.Sim.Configure(ctx, fdb.DatabaseConfiguration{Resolvers: 2}, false)
		},
		sim.OpExclude: func(c *fdbtest.Cluster) error {
			return c.Sim.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")})
		},
		sim.OpInclude: func(c *fdbtest.Cluster) error {
			return c.Sim.Include(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-2")})
		},
		sim.OpKill: func(c *fdbtest.Cluster) error {
			return c.Sim.Kill(ctx, []fdb.ProcessAddress{addressOf(c, "storage-1")})
		},
		sim.OpCoordinators: func(c *fdbtest.Cluster) error {
			_, err := c.Sim.ChangeCoordinators(ctx, []fdb.ProcessAddress{addressOf(c, "log-1"), addressOf(c, "log-2"), addressOf(c, "log-4")})
			return err
		},
		sim.OpStartBackup:   func(c *fdbtest.Cluster) error { return c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: url, Tag: "new"}) },
		sim.OpStopBackup:    func(c *fdbtest.Cluster) error { return c.Sim.StopBackup(ctx, "b") },
		sim.OpPauseBackups:  func(c *fdbtest.Cluster) error { return c.Sim.PauseBackups(ctx) },
		sim.OpResumeBackups: func(c *fdbtest.Cluster) error { return c.Sim.ResumeBackups(ctx) },
		sim.OpModifyBackup: func(c *fdbtest.Cluster) error {
			return c.Sim.ModifyBackup(ctx, fdb.BackupRequest{Tag: "b", SnapshotPeriodSeconds: 60})
		},
		sim.OpBackupStatus: func(c *fdbtest.Cluster) error { _, err := c.Sim.BackupStatus(ctx, "b"); return err },
		sim.OpStartRestore: func(c *fdbtest.Cluster) error {
			return c.Sim.StartRestore(ctx, fdb.RestoreRequest{URL: url, Tag: "new"})
		},
		sim.OpRestoreStatus: func(c *fdbtest.Cluster) error { _, err := c.Sim.RestoreStatus(ctx, "r"); return err },
		sim.OpAbortRestore:  func(c *fdbtest.Cluster) error { return c.Sim.AbortRestore(ctx, "r") },
	}
	for op, call := range cases {
		t.Run(string(op), func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
			c.Create(t, fdb.RedundancyTriple)
			if err := c.Sim.SetBackupAgents(1); err != nil {
				t.Fatal(err)
			}
			if err := c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: url, Tag: "b"}); err != nil {
				t.Fatal(err)
			}
			if err := c.Sim.StartRestore(ctx, fdb.RestoreRequest{URL: url, Tag: "r"}); err != nil {
				t.Fatal(err)
			}
			before, err := c.Sim.StatusJSON(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Sim.FailNext(op, fdb.ErrTimeout, 2); err != nil {
				t.Fatal(err)
			}
			var timedOut []bool
			for range 2 {
				timedOut = append(timedOut, errors.Is(call(c), fdb.ErrTimeout))
			}
			if diff := cmp.Diff([]bool{true, true}, timedOut); diff != "" {
				t.Errorf("calls timing out (-want +got):\n%s", diff)
			}
			after, err := c.Sim.StatusJSON(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(before), string(after)); diff != "" {
				t.Errorf("the failed calls changed the status (-before +after):\n%s", diff)
			}
			if err := call(c); err != nil {
				t.Errorf("the call after the injected failures: %v", err)
			}
		})
	}
}

func TestFaultHookErrors(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	cases := map[string]struct {
		err     error
		wantErr bool
	}{
		"FailUnknownOp":          {err: c.Sim.FailNext("nope", fdb.ErrTimeout, 1), wantErr: true},
		"FailNegativeCount":      {err: c.Sim.FailNext(sim.OpKill, fdb.ErrTimeout, -1), wantErr: true},
		"FailWithoutError":       {err: c.Sim.FailNext(sim.OpKill, nil, 1), wantErr: true},
		"FailCleared":            {err: c.Sim.FailNext(sim.OpKill, nil, 0)},
		"IncompleteNegative":     {err: c.Sim.IncompleteStatusNext(-1), wantErr: true},
		"OmitRolesNegative":      {err: c.Sim.OmitRolesNext(-1), wantErr: true},
		"PartialKillNegative":    {err: c.Sim.PartialKillNext(-1, fdb.ErrTimeout), wantErr: true},
		"PartialKillWithoutErr":  {err: c.Sim.PartialKillNext(1, nil), wantErr: true},
		"MissWithoutErr":         {err: c.Sim.MissInNextKill([]fdb.ProcessAddress{"10.0.0.1:4501"}, nil), wantErr: true},
		"MissCleared":            {err: c.Sim.MissInNextKill(nil, nil)},
		"RecoverBeforeConfigure": {err: c.Sim.Recover(), wantErr: true},
	}
	for name, tc := range cases {
		if got := tc.err != nil; got != tc.wantErr {
			t.Errorf("%s: error %v, want an error: %v", name, tc.err, tc.wantErr)
		}
	}
}

func TestStatusFaults(t *testing.T) {
	type view struct {
		Incomplete bool
		Messages   []string
		Processes  int
		Roles      []string
		Data       string
	}
	observe := func(c *fdbtest.Cluster) view {
		s := c.Status(t)
		v := view{Incomplete: s.Incomplete(), Processes: len(s.Cluster.Processes), Data: s.Cluster.Data.State.Name}
		for _, m := range s.Cluster.Messages {
			v.Messages = append(v.Messages, m.Name)
		}
		for _, p := range s.Cluster.Processes {
			for _, r := range p.Roles {
				if !slices.Contains(v.Roles, r.Role) {
					v.Roles = append(v.Roles, r.Role)
				}
			}
		}
		slices.Sort(v.Roles)
		return v
	}
	complete := view{Processes: 11, Data: fdb.DataHealthy, Roles: []string{
		fdb.RoleClusterControl, fdb.RoleCommitProxy, fdb.RoleCoordinator, fdb.RoleDataDistributor, fdb.RoleGrvProxy,
		fdb.RoleLog, fdb.RoleMaster, fdb.RoleRatekeeper, fdb.RoleResolver, fdb.RoleStorage,
	}}
	incomplete := view{
		Incomplete: true, Messages: []string{fdb.MessageStatusIncomplete, fdb.MessageStorageServersError, fdb.MessageLogServersError},
		Processes: 11, Roles: slices.DeleteFunc(slices.Clone(complete.Roles), func(r string) bool { return r == fdb.RoleLog || r == fdb.RoleStorage }),
	}
	cases := map[string]struct {
		inject func(c *fdbtest.Cluster) error
		want   []view
	}{
		"Incomplete": {
			inject: func(c *fdbtest.Cluster) error { return c.Sim.IncompleteStatusNext(2) },
			want:   []view{incomplete, incomplete, complete},
		},
		"WithoutRoles": {
			inject: func(c *fdbtest.Cluster) error { return c.Sim.OmitRolesNext(1) },
			want:   []view{{Processes: 11, Data: fdb.DataHealthy}, complete},
		},
		"Cleared": {
			inject: func(c *fdbtest.Cluster) error {
				if err := c.Sim.IncompleteStatusNext(5); err != nil {
					return err
				}
				return c.Sim.IncompleteStatusNext(0)
			},
			want: []view{complete},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
			c.Create(t, fdb.RedundancyTriple)
			if err := tc.inject(c); err != nil {
				t.Fatal(err)
			}
			var got []view
			for range tc.want {
				got = append(got, observe(c))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status reads (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStallExclusions(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	target := []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")}
	c.Sim.StallExclusions(true)
	if err := c.Sim.Exclude(context.Background(), target); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Pending []fdb.ProcessAddress
		Data    string
	}
	observe := func() view {
		s := c.Status(t)
		return view{fdbtest.NotFullyExcluded(s, target), s.Cluster.Data.State.Name}
	}
	c.Clock.Step(time.Hour)
	if diff := cmp.Diff(view{target, fdb.DataHealthyRemovingServer}, observe()); diff != "" {
		t.Errorf("an hour into a stalled exclusion (-want +got):\n%s", diff)
	}
	c.Sim.StallExclusions(false)
	c.Clock.Step(time.Second)
	if diff := cmp.Diff(view{nil, fdb.DataHealthy}, observe()); diff != "" {
		t.Errorf("once resumed (-want +got):\n%s", diff)
	}
}

func TestPartialKill(t *testing.T) {
	ctx := context.Background()
	c, all := runningVersion(t, "7.1.29")
	if err := c.Sim.PartialKillNext(1, fdb.ErrTimeout); err != nil {
		t.Fatal(err)
	}
	versions := func() map[string]int {
		out := map[string]int{}
		for _, p := range c.Status(t).Cluster.Processes {
			out[p.Version]++
		}
		return out
	}
	before := c.Sim.Recoveries()
	if err := c.Sim.Kill(ctx, all); !errors.Is(err, fdb.ErrTimeout) {
		t.Errorf("partial kill: got error %v, want %v", err, fdb.ErrTimeout)
	}
	if diff := cmp.Diff(map[string]int{"7.1.27": 5, "7.1.29": 6}, versions()); diff != "" {
		t.Errorf("versions after a partial kill (-want +got):\n%s", diff)
	}
	if err := c.Sim.Kill(ctx, all); err != nil {
		t.Errorf("the kill after: %v", err)
	}
	if diff := cmp.Diff(map[string]int{"7.1.29": 11}, versions()); diff != "" {
		t.Errorf("versions after the second kill (-want +got):\n%s", diff)
	}
	if got := c.Sim.Recoveries() - before; got != 2 {
		t.Errorf("recoveries: %d, want one per kill", got)
	}
}

func TestMissInNextKill(t *testing.T) {
	ctx := context.Background()
	c, all := runningVersion(t, "7.1.29")
	if err := c.Sim.MissInNextKill(all[2:4], fdb.ErrTimeout); err != nil {
		t.Fatal(err)
	}
	old := func() []string {
		var out []string
		for _, p := range c.Status(t).Cluster.Processes {
			if p.Version != "7.1.29" {
				out = append(out, p.Address)
			}
		}
		slices.Sort(out)
		return out
	}
	if err := c.Sim.Kill(ctx, all); !errors.Is(err, fdb.ErrTimeout) {
		t.Errorf("kill that missed two: got error %v, want %v", err, fdb.ErrTimeout)
	}
	if diff := cmp.Diff([]string{string(all[2]), string(all[3])}, old()); diff != "" {
		t.Errorf("processes the kill missed (-want +got):\n%s", diff)
	}
	if err := c.Sim.Kill(ctx, all); err != nil {
		t.Errorf("the kill after: %v", err)
	}
	if diff := cmp.Diff([]string(nil), old()); diff != "" {
		t.Errorf("processes on the old version after the second kill (-want +got):\n%s", diff)
	}
}

func TestRecover(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 11})
	c.Create(t, fdb.RedundancyTriple)
	if err := c.Sim.Recover(); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Recoveries int
		State      string
	}
	observe := func() view { return view{c.Sim.Recoveries(), c.Status(t).Cluster.RecoveryState.Name} }
	if diff := cmp.Diff(view{2, fdb.RecoveryReadingCoordinatedState}, observe()); diff != "" {
		t.Errorf("right after Recover (-want +got):\n%s", diff)
	}
	c.Clock.Step(time.Minute)
	if diff := cmp.Diff(view{2, fdb.RecoveryFullyRecovered}, observe()); diff != "" {
		t.Errorf("a minute later (-want +got):\n%s", diff)
	}
}
