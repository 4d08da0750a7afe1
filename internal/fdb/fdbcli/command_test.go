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
	// tls, when set, is what the TLS files the tools are given must hold.
	tls   *fdb.TLSCredentials
	calls [][]string
	// envs are the settings of each invocation, the paths of TLS files
	// replaced as in calls.
	envs [][]string
	// files are the paths of every file an invocation was given.
	files []string
}

func (r *recorder) Run(_ context.Context, binary string, env []string, args ...string) ([]byte, error) {
	call := []string{binary}
	for i, a := range args {
		if i > 0 && args[i-1] == "--blob_credentials" {
			checkCredentialsFile(r.t, a)
			r.files = append(r.files, a)
			a = "<credentials-file>"
		}
		if i > 0 && strings.HasPrefix(args[i-1], "--tls-") && args[i-1] != "--tls-verify-peers" {
			a = r.tlsFile(args[i-1], a)
		}
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
			r.files = append(r.files, a)
			a = "<cluster-file>"
		}
		call = append(call, a)
	}
	var settings []string
	for _, e := range env {
		name, value, _ := strings.Cut(e, "=")
		if name != "FDB_TLS_VERIFY_PEERS" {
			value = r.tlsFile(name, value)
		}
		settings = append(settings, name+"="+value)
	}
	r.calls = append(r.calls, call)
	r.envs = append(r.envs, settings)
	return []byte(r.output), r.err
}

// tlsFilesGiven name the TLS files by the flag or environment setting that
// passes them, with the placeholder calls and envs record, and what of the
// credentials each holds.
var tlsFilesGiven = map[string]struct {
	placeholder string
	content     func(*fdb.TLSCredentials) []byte
}{
	"--tls-certificate-file":   {"<certificate-file>", func(c *fdb.TLSCredentials) []byte { return c.Certificate }},
	"FDB_TLS_CERTIFICATE_FILE": {"<certificate-file>", func(c *fdb.TLSCredentials) []byte { return c.Certificate }},
	"--tls-key-file":           {"<key-file>", func(c *fdb.TLSCredentials) []byte { return c.Key }},
	"FDB_TLS_KEY_FILE":         {"<key-file>", func(c *fdb.TLSCredentials) []byte { return c.Key }},
	"--tls-ca-file":            {"<ca-file>", func(c *fdb.TLSCredentials) []byte { return c.CA }},
	"FDB_TLS_CA_FILE":          {"<ca-file>", func(c *fdb.TLSCredentials) []byte { return c.CA }},
}

// tlsFile checks that the file passed by flag or setting name holds what
// of the credentials it should and that only its owner may read it, and
// returns its placeholder.
func (r *recorder) tlsFile(name, path string) string {
	r.t.Helper()
	f, ok := tlsFilesGiven[name]
	if !ok || r.tls == nil {
		r.t.Errorf("unexpected TLS file %s %s", name, path)
		return path
	}
	r.files = append(r.files, path)
	content, err := os.ReadFile(path)
	var mode os.FileMode
	if info, statErr := os.Stat(path); statErr == nil {
		mode = info.Mode().Perm()
	}
	if err != nil || string(content) != string(f.content(r.tls)) || mode != 0o600 {
		r.t.Errorf("%s %s: error %v, content %q, want %q, mode %v", name, path, err, content, f.content(r.tls), mode)
	}
	return f.placeholder
}

// testCredentials is the blob credentials file of the test clients.
const testCredentials = `{"accounts": {"k@h": {"secret": "s3cr3t"}}}`

// checkCredentialsFile checks that the file passed with --blob_credentials
// holds the credentials and that only its owner may read it.
func checkCredentialsFile(t *testing.T, name string) {
	t.Helper()
	content, err := os.ReadFile(name)
	info, statErr := os.Stat(name)
	if err != nil || statErr != nil || string(content) != testCredentials || info.Mode().Perm() != 0o600 {
		t.Errorf("credentials file %s: error %v %v, content %q, mode %v", name, err, statErr, content, info.Mode())
	}
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
		BlobCredentials:  func(context.Context) ([]byte, error) { return []byte(testCredentials), nil },
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
			// One word, its quotes escaped: fdbcli's tokenizer erases
			// bare quotes, configForToken parses regions= as JSON.
			want: [][]string{cli(`configure usable_regions=1 regions=[{\"datacenters\":[{\"id\":\"dc1\",\"priority\":1},{\"id\":\"dc2\",\"priority\":1,\"satellite\":1}],\"satellite_redundancy_mode\":\"one_satellite_double\",\"satellite_logs\":2},{\"datacenters\":[{\"id\":\"dc3\",\"priority\":-1}]}]`, "10")},
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
			// kill finds a process by IP:port without :tls
			// (addInterfacesFromKVs, fdbcli/Util.actor.cpp at 7.3.63),
			// whatever the status lists.
			call: func(c *Client) error { return c.Kill(ctx, []fdb.ProcessAddress{"10.1.0.1:4500:tls"}) },
			want: [][]string{cli("kill; kill 10.1.0.1:4500; sleep 5", "40")},
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
			want: [][]string{{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "blobstore://k@h:443/b?bucket=x", "-t", "nightly", "-z", "-s", "3600", "-k", "a m", "-k", "n z", "--blob_credentials", "<credentials-file>"}},
		},
		"StartBackupDefaults": {
			call: func(c *Client) error { return c.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b"}) },
			want: [][]string{{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "file:///b", "-t", "default", "-z", "--blob_credentials", "<credentials-file>"}},
		},
		"StartBackupWithLogs": {
			call:   func(c *Client) error { return c.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b"}) },
			logDir: "/logs",
			want:   [][]string{{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "file:///b", "-t", "default", "-z", "--blob_credentials", "<credentials-file>", "--log", "--logdir", "/logs", "--trace_format", "json"}},
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
			want: [][]string{{"/fdb/7.1/fdbrestore", "start", "-r", "blobstore://k@h:443/b", "--dest_cluster_file", "<cluster-file>", "-t", "r", "-k", "a b", "-v", "1234", "--blob_credentials", "<credentials-file>"}},
		},
		"StartRestoreWholeKeySpace": {
			// The empty begin key quoted: fdbrestore skips a leading blank.
			call: func(c *Client) error {
				return c.StartRestore(ctx, fdb.RestoreRequest{URL: "blobstore://k@h:443/b", Tag: "r", KeyRanges: []fdb.KeyRange{{Begin: "", End: `\xff`}}})
			},
			want: [][]string{{"/fdb/7.1/fdbrestore", "start", "-r", "blobstore://k@h:443/b", "--dest_cluster_file", "<cluster-file>", "-t", "r", "-k", `"" \xff`, "--blob_credentials", "<credentials-file>"}},
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

// TestCommandsSurviveTokenizers renders every fdbcli command the client
// builds, with words that hold what fdbcli's tokenizer treats specially
// (blanks, quotes, `;`, backslashes, bytes outside printable ASCII), and
// reads the --exec string back with the model of fdbcli 7.1's and 7.3's
// tokenizer: it gives back the words the client meant.
func TestCommandsSurviveTokenizers(t *testing.T) {
	hostile := "dc 1;\"x\"\\\t\xc3\xa9"
	regions := []fdb.Region{{DataCenters: []fdb.RegionDataCenter{{ID: hostile, Priority: 1}, {ID: "dc2", Priority: 1, Satellite: 1}},
		SatelliteRedundancyMode: "one_satellite_double"}}
	regionsJSON := `regions=[{"datacenters":[{"id":"dc 1;\"x\"\\\t` + "\xc3\xa9" + `","priority":1},{"id":"dc2","priority":1,"satellite":1}],"satellite_redundancy_mode":"one_satellite_double"}]`
	targets := []fdb.ProcessAddress{"10.1.0.1:4501:tls", "[2001:db8::1]:4501", fdb.InstanceTarget("storage 1")}
	cases := map[string]struct {
		commands [][]string
		want     [][]string
	}{
		"Status": {commands: [][]string{{"status", "json"}}, want: [][]string{{"status", "json"}}},
		"ConfigureNew": {
			commands: [][]string{configureCommand(fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-2", UsableRegions: 2,
				Logs: 3, CommitProxies: 2, GrvProxies: 1, Resolvers: 1, LogRouters: 4, RemoteLogs: 5, StorageMigrationType: "gradual", Regions: regions}, true)},
			want: [][]string{{"configure", "new", "triple", "ssd-2", "usable_regions=2", "logs=3", "commit_proxies=2", "grv_proxies=1", "resolvers=1",
				"log_routers=4", "remote_logs=5", "storage_migration_type=gradual", regionsJSON}},
		},
		"Exclude":              {commands: [][]string{excludeCommand(targets)}, want: [][]string{{"exclude", "no_wait", "10.1.0.1:4501", "[2001:db8::1]:4501", "locality_instance_id:storage 1"}}},
		"Include":              {commands: [][]string{includeCommand(targets)}, want: [][]string{{"include", "10.1.0.1:4501", "[2001:db8::1]:4501", "locality_instance_id:storage 1"}}},
		"KillWithoutTLSSuffix": {commands: killCommands(targets[:2]), want: [][]string{{"kill"}, {"kill", "10.1.0.1:4501", "[2001:db8::1]:4501"}, {"sleep", "5"}}},
		"SetMaintenance":       {commands: [][]string{maintenanceCommand(hostile, 600)}, want: [][]string{{"maintenance", "on", hostile, "600"}}},
		"ResetMaintenance":     {commands: [][]string{maintenanceOffCommand}, want: [][]string{{"maintenance", "off"}}},
		"ForceRecovery":        {commands: [][]string{forceRecoveryCommand(hostile)}, want: [][]string{{"force_recovery_with_data_loss", hostile}}},
		"Coordinators":         {commands: [][]string{coordinatorsCommand(targets[:2])}, want: [][]string{{"coordinators", "10.1.0.1:4501:tls", "[2001:db8::1]:4501"}}},
		"EmptyWord":            {commands: [][]string{{"maintenance", "on", "", "1"}}, want: [][]string{{"maintenance", "on", "", "1"}}},
	}
	for name, tc := range cases {
		for release, d := range map[string]dialect{"7.1": fdbcli71, "7.3": fdbcli73} {
			t.Run(name+"/"+release, func(t *testing.T) {
				if diff := cmp.Diff(tc.want, tc.commands); diff != "" {
					t.Errorf("words built (-want +got):\n%s", diff)
				}
				got := tokenize(script(tc.commands...), d)
				if got.malformed || got.partial {
					t.Errorf("%q does not parse: malformed %v, partial %v", script(tc.commands...), got.malformed, got.partial)
				}
				if diff := cmp.Diff(tc.want, got.commands); diff != "" {
					t.Errorf("words fdbcli reads from %q (-want +got):\n%s", script(tc.commands...), diff)
				}
			})
		}
	}
	if got := tokenize(statusCommand, fdbcli71).commands; !cmp.Equal(got, [][]string{{"status", "json"}}) {
		t.Errorf("status command reads as %q", got)
	}
}

// TestKeyRangesSurviveTokenizer renders key ranges as -k values and reads
// them with the model of fdbbackup's and fdbrestore's tokenizer and
// addKeyRange: each gives the range of raw keys its printable form names,
// the empty key included; a key that is not in printable form is refused
// before any tool runs.
func TestKeyRangesSurviveTokenizer(t *testing.T) {
	cases := map[string]struct {
		r       fdb.KeyRange
		want    [][2]string
		wantErr bool
	}{
		"WholeKeySpace":  {r: fdb.KeyRange{Begin: "", End: `\xff`}, want: [][2]string{{"", "\xff"}}},
		"Plain":          {r: fdb.KeyRange{Begin: "a", End: "m"}, want: [][2]string{{"a", "m"}}},
		"Blanks":         {r: fdb.KeyRange{Begin: "a b", End: "a;c"}, want: [][2]string{{"a b", "a;c"}}},
		"Quotes":         {r: fdb.KeyRange{Begin: `"a`, End: `\\b`}, want: [][2]string{{`"a`, `\b`}}},
		"Bytes":          {r: fdb.KeyRange{Begin: `\x00\x09`, End: `\x7F`}, want: [][2]string{{"\x00\t", "\x7f"}}},
		"EmptyBothEnds":  {r: fdb.KeyRange{Begin: "", End: ""}, want: [][2]string{{"", ""}}},
		"NotPrintable":   {r: fdb.KeyRange{Begin: `\q`, End: "z"}, wantErr: true},
		"ShortHexEscape": {r: fdb.KeyRange{Begin: "a", End: `\xf`}, wantErr: true},
		"BadHexEscape":   {r: fdb.KeyRange{Begin: "a", End: `\xzz`}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			args, err := keyRangeArgs([]fdb.KeyRange{tc.r})
			if (err != nil) != tc.wantErr {
				t.Fatalf("keyRangeArgs: error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			got := keyRanges("fdbrestore", args[1])
			if diff := cmp.Diff(keyRangeResult{ranges: tc.want}, got, cmp.AllowUnexported(keyRangeResult{})); diff != "" {
				t.Errorf("-k %q (-want +got):\n%s", args[1], diff)
			}
		})
	}
}
