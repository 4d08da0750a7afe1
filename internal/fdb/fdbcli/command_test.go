package fdbcli

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const testConnectionString = "test:abc@10.2.0.1:4501,10.2.0.2:4501,10.2.0.3:4501"

// recorder records invocations and answers each with output; it checks
// that the cluster file holds the connection string while the tool runs.
type recorder struct {
	t      *testing.T
	output string
	err    error
	// rewrite, when set, replaces the cluster file content like fdbcli
	// does after a coordinator change.
	rewrite string
	calls   [][]string
}

func (r *recorder) Run(_ context.Context, binary string, args ...string) ([]byte, error) {
	call := []string{binary}
	for i, a := range args {
		if i > 0 && (args[i-1] == "-C" || args[i-1] == "--dest_cluster_file") {
			content, err := os.ReadFile(a)
			if err != nil || strings.TrimSpace(string(content)) != testConnectionString {
				r.t.Errorf("cluster file %s: content %q, error %v", a, content, err)
			}
			if r.rewrite != "" {
				if err := os.WriteFile(a, []byte(r.rewrite), 0o600); err != nil {
					r.t.Error(err)
				}
			}
			a = "<cluster-file>"
		}
		call = append(call, a)
	}
	r.calls = append(r.calls, call)
	return []byte(r.output), r.err
}

func newTestClient(t *testing.T, r Runner, logDir string) *Client {
	t.Helper()
	c, err := New(Config{
		ConnectionString: testConnectionString,
		Version:          "7.1.27",
		BinaryDir:        "/fdb",
		TempDir:          t.TempDir(),
		LogDir:           logDir,
		Runner:           r,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCommands(t *testing.T) {
	ctx := context.Background()
	cli := func(command, timeout string) []string {
		return []string{"/fdb/7.1/fdbcli", "-C", "<cluster-file>", "--exec", command, "--timeout", timeout, "--log-group", "provider-foundationdb"}
	}
	backupStatus := `{"Status": {"Name": "Running", "Running": true}}`
	cases := map[string]struct {
		call   func(c *Client) error
		output string
		logDir string
		want   [][]string
	}{
		"Status": {
			call:   func(c *Client) error { _, err := c.Status(ctx); return err },
			output: "{}",
			want:   [][]string{cli("status json", "40")},
		},
		"StatusWithLogs": {
			call:   func(c *Client) error { _, err := c.Status(ctx); return err },
			output: "{}",
			logDir: "/var/log/fdb",
			want:   [][]string{append(cli("status json", "40"), "--log", "--log-dir", "/var/log/fdb", "--trace_format", "json")},
		},
		"ConfigureNew": {
			call: func(c *Client) error {
				return c.Configure(ctx, fdb.DatabaseConfiguration{
					RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-2", UsableRegions: 1,
					Logs: 3, CommitProxies: 2, GrvProxies: 1, Resolvers: 1, StorageMigrationType: "disabled",
				}, true)
			},
			want: [][]string{cli("configure new triple ssd-2 usable_regions=1 logs=3 commit_proxies=2 grv_proxies=1 resolvers=1 storage_migration_type=disabled", "10")},
		},
		"ConfigureRegions": {
			call: func(c *Client) error {
				return c.Configure(ctx, fdb.DatabaseConfiguration{UsableRegions: 1, Regions: []fdb.Region{
					{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: 1}, {ID: "dc2", Priority: 1, Satellite: 1}}, SatelliteRedundancyMode: "one_satellite_double", SatelliteLogs: 2},
					{DataCenters: []fdb.RegionDataCenter{{ID: "dc3", Priority: -1}}},
				}}, false)
			},
			// One word: `configure` splits its arguments at spaces and
			// parses regions= as JSON (configForToken).
			want: [][]string{cli(`configure usable_regions=1 regions=[{"datacenters":[{"id":"dc1","priority":1},{"id":"dc2","priority":1,"satellite":1}],"satellite_redundancy_mode":"one_satellite_double","satellite_logs":2},{"datacenters":[{"id":"dc3","priority":-1}]}]`, "10")},
		},
		"ConfigureChange": {
			call: func(c *Client) error { return c.Configure(ctx, fdb.DatabaseConfiguration{Logs: 5}, false) },
			want: [][]string{cli("configure logs=5", "10")},
		},
		"Exclude": {
			call: func(c *Client) error {
				return c.Exclude(ctx, []fdb.ProcessAddress{"10.1.0.1:4501", fdb.InstanceTarget("storage-2")})
			},
			want: [][]string{cli("exclude no_wait 10.1.0.1:4501 locality_instance_id:storage-2", "40")},
		},
		"ExcludeTLS": {
			call: func(c *Client) error {
				return c.Exclude(ctx, []fdb.ProcessAddress{"10.1.0.1:4501:tls", "10.1.0.2"})
			},
			want: [][]string{cli("exclude no_wait 10.1.0.1:4501 10.1.0.2", "40")},
		},
		"SetMaintenance": {
			call: func(c *Client) error { return c.SetMaintenance(ctx, "zone-b", 600) },
			want: [][]string{cli("maintenance on zone-b 600", "10")},
		},
		"ResetMaintenance": {
			call: func(c *Client) error { return c.ResetMaintenance(ctx) },
			want: [][]string{cli("maintenance off", "10")},
		},
		"ForceRecovery": {
			call: func(c *Client) error { return c.ForceRecovery(ctx, "dc2") },
			want: [][]string{cli("force_recovery_with_data_loss dc2", "10")},
		},
		"ExcludeNothing": {
			call: func(c *Client) error { return c.Exclude(ctx, nil) },
		},
		"Include": {
			call: func(c *Client) error { return c.Include(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-2")}) },
			want: [][]string{cli("include locality_instance_id:storage-2", "10")},
		},
		"IncludeTLS": {
			call: func(c *Client) error { return c.Include(ctx, []fdb.ProcessAddress{"10.1.0.1:4501:tls"}) },
			want: [][]string{cli("include 10.1.0.1:4501", "10")},
		},
		"Kill": {
			call: func(c *Client) error { return c.Kill(ctx, []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501"}) },
			want: [][]string{cli("kill; kill 10.1.0.1:4501 10.1.0.2:4501; sleep 5", "40")},
		},
		"KillTLS": {
			// kill names processes as the database lists them: with :tls.
			call: func(c *Client) error { return c.Kill(ctx, []fdb.ProcessAddress{"10.1.0.1:4501:tls"}) },
			want: [][]string{cli("kill; kill 10.1.0.1:4501:tls; sleep 5", "40")},
		},
		"ChangeCoordinators": {
			call: func(c *Client) error {
				_, err := c.ChangeCoordinators(ctx, []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501", "10.1.0.3:4501"})
				return err
			},
			want: [][]string{cli("coordinators 10.1.0.1:4501 10.1.0.2:4501 10.1.0.3:4501", "10")},
		},
		"StartBackup": {
			call: func(c *Client) error {
				return c.StartBackup(ctx, fdb.BackupRequest{
					URL: "blobstore://k@h:443/b?bucket=x", Tag: "nightly", SnapshotPeriodSeconds: 3600,
					KeyRanges: []fdb.KeyRange{{Begin: "a", End: "m"}, {Begin: "n", End: "z"}},
				})
			},
			want: [][]string{{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "blobstore://k@h:443/b?bucket=x", "-t", "nightly", "-z", "-s", "3600", "-k", "a m", "-k", "n z"}},
		},
		"StartBackupDefaults": {
			call: func(c *Client) error { return c.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b"}) },
			want: [][]string{{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "file:///b", "-t", "default", "-z"}},
		},
		"StartBackupWithLogs": {
			call:   func(c *Client) error { return c.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b"}) },
			logDir: "/logs",
			want:   [][]string{{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "file:///b", "-t", "default", "-z", "--log", "--logdir", "/logs", "--trace_format", "json"}},
		},
		"StopBackup": {
			call: func(c *Client) error { return c.StopBackup(ctx, "nightly") },
			want: [][]string{{"/fdb/7.1/fdbbackup", "discontinue", "-C", "<cluster-file>", "-t", "nightly"}},
		},
		"PauseBackups": {
			call: func(c *Client) error { return c.PauseBackups(ctx) },
			want: [][]string{{"/fdb/7.1/fdbbackup", "pause", "-C", "<cluster-file>"}},
		},
		"ResumeBackups": {
			call: func(c *Client) error { return c.ResumeBackups(ctx) },
			want: [][]string{{"/fdb/7.1/fdbbackup", "resume", "-C", "<cluster-file>"}},
		},
		"ModifyBackup": {
			call: func(c *Client) error {
				return c.ModifyBackup(ctx, fdb.BackupRequest{Tag: "nightly", SnapshotPeriodSeconds: 7200})
			},
			want: [][]string{{"/fdb/7.1/fdbbackup", "modify", "-C", "<cluster-file>", "-t", "nightly", "-s", "7200"}},
		},
		"ModifyBackupWithLogs": {
			// fdbbackup modify takes no --trace-format.
			call: func(c *Client) error {
				return c.ModifyBackup(ctx, fdb.BackupRequest{Tag: "nightly", SnapshotPeriodSeconds: 7200})
			},
			logDir: "/logs",
			want:   [][]string{{"/fdb/7.1/fdbbackup", "modify", "-C", "<cluster-file>", "-t", "nightly", "-s", "7200", "--log", "--logdir", "/logs"}},
		},
		"StopBackupWithLogs": {
			call:   func(c *Client) error { return c.StopBackup(ctx, "nightly") },
			logDir: "/logs",
			want:   [][]string{{"/fdb/7.1/fdbbackup", "discontinue", "-C", "<cluster-file>", "-t", "nightly", "--log", "--logdir", "/logs", "--trace_format", "json"}},
		},
		"RestoreStatusWithLogs": {
			call:   func(c *Client) error { _, err := c.RestoreStatus(ctx, "r"); return err },
			output: "Tag: r  UID: 1  State: running  Blocks: 1/2",
			logDir: "/logs",
			want:   [][]string{{"/fdb/7.1/fdbrestore", "status", "--dest_cluster_file", "<cluster-file>", "-t", "r", "--log", "--logdir", "/logs", "--trace_format", "json"}},
		},
		"BackupStatus": {
			call:   func(c *Client) error { _, err := c.BackupStatus(ctx, ""); return err },
			output: backupStatus,
			want:   [][]string{{"/fdb/7.1/fdbbackup", "status", "-C", "<cluster-file>", "-t", "default", "--json"}},
		},
		"StartRestore": {
			call: func(c *Client) error {
				return c.StartRestore(ctx, fdb.RestoreRequest{URL: "blobstore://k@h:443/b", Tag: "r", KeyRanges: []fdb.KeyRange{{Begin: "a", End: "b"}}, Version: 1234})
			},
			want: [][]string{{"/fdb/7.1/fdbrestore", "start", "-r", "blobstore://k@h:443/b", "--dest_cluster_file", "<cluster-file>", "-t", "r", "-k", "a b", "-v", "1234"}},
		},
		"RestoreStatus": {
			call:   func(c *Client) error { _, err := c.RestoreStatus(ctx, "r"); return err },
			output: "Tag: r  UID: 1  State: running  Blocks: 1/2",
			want:   [][]string{{"/fdb/7.1/fdbrestore", "status", "--dest_cluster_file", "<cluster-file>", "-t", "r"}},
		},
		"AbortRestore": {
			call:   func(c *Client) error { return c.AbortRestore(ctx, "") },
			output: "RESTORE_ABORT Tag: default  State: aborted\n",
			want:   [][]string{{"/fdb/7.1/fdbrestore", "abort", "--dest_cluster_file", "<cluster-file>", "-t", "default"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &recorder{t: t, output: tc.output}
			c := newTestClient(t, r, tc.logDir)
			if err := tc.call(c); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.calls); diff != "" {
				t.Errorf("invocations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	coordinators := []fdb.ProcessAddress{"10.1.0.1:4501"}
	cases := map[string]struct {
		r        recorder
		call     func(c *Client) error
		wantFail bool
		wantErr  error
	}{
		"KillLocality": {
			call:     func(c *Client) error { return c.Kill(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1")}) },
			wantFail: true,
		},
		"ChangeCoordinatorsToNothing": {
			call:     func(c *Client) error { _, err := c.ChangeCoordinators(ctx, nil); return err },
			wantFail: true,
		},
		"ChangeCoordinatorsGarbageClusterFile": {
			r:       recorder{rewrite: "garbage"},
			call:    func(c *Client) error { _, err := c.ChangeCoordinators(ctx, coordinators); return err },
			wantErr: fdb.ErrUnexpectedOutput,
		},
		"StatusNotJSON": {
			r:       recorder{output: "Unable to connect to cluster from `/tmp/x.cluster'"},
			call:    func(c *Client) error { _, err := c.Status(ctx); return err },
			wantErr: fdb.ErrUnexpectedOutput,
		},
		"StatusTimeout": {
			r:       recorder{output: "Specified timeout reached -- exiting...\n", err: errors.New("exit status 1")},
			call:    func(c *Client) error { _, err := c.Status(ctx); return err },
			wantErr: fdb.ErrTimeout,
		},
		"BackupStatusNeverRan": {
			r:       recorder{output: `{"SchemaVersion":"1.0.0","BackupAgentsPaused":false,"Tag":"x"}`},
			call:    func(c *Client) error { _, err := c.BackupStatus(ctx, "x"); return err },
			wantErr: fdb.ErrNotFound,
		},
		"BackupStatusGarbage": {
			r:       recorder{output: "Segmentation fault"},
			call:    func(c *Client) error { _, err := c.BackupStatus(ctx, "x"); return err },
			wantErr: fdb.ErrUnexpectedOutput,
		},
		"RestoreStatusUninitialized": {
			r:       recorder{output: "Tag:   UID: 00000000000000000000000000000000  State: unitialized  Blocks: 0/0"},
			call:    func(c *Client) error { _, err := c.RestoreStatus(ctx, "x"); return err },
			wantErr: fdb.ErrNotFound,
		},
		"RestoreStatusGarbage": {
			r:       recorder{output: "what?"},
			call:    func(c *Client) error { _, err := c.RestoreStatus(ctx, "x"); return err },
			wantErr: fdb.ErrUnexpectedOutput,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.r.t = t
			err := tc.call(newTestClient(t, &tc.r, ""))
			if (err != nil) != (tc.wantFail || tc.wantErr != nil) || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, want %v (any error: %v)", err, tc.wantErr, tc.wantFail)
			}
		})
	}
}

func TestChangeCoordinatorsReadsClusterFile(t *testing.T) {
	next := "test:xyz@10.1.0.1:4501,10.1.0.2:4501,10.1.0.3:4501"
	c := newTestClient(t, &recorder{t: t, rewrite: next + "\n"}, "")
	got, err := c.ChangeCoordinators(context.Background(), []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501", "10.1.0.3:4501"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{next, next}, []string{got, c.ConnectionString()}); diff != "" {
		t.Errorf("returned and kept connection string (-want +got):\n%s", diff)
	}
}

func TestNew(t *testing.T) {
	cases := map[string]Config{
		"OldVersion":    {ConnectionString: testConnectionString, Version: "6.3.25"},
		"BadConnection": {ConnectionString: "nope", Version: "7.1.27"},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := New(cfg); err == nil {
				t.Error("got no error")
			}
		})
	}
	c, err := New(Config{ConnectionString: testConnectionString, Version: "7.1.27", Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{MaxTimeout}, []time.Duration{c.cfg.Timeout}); diff != "" {
		t.Errorf("timeout (-want +got):\n%s", diff)
	}
}
