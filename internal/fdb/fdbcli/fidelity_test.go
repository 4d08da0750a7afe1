package fdbcli_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbcli"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// The tests in this file drive the client through the emulator, which acts
// only on what the real tools' tokenizers and file formats give it.

// testAccount is the blob store account of testURL, as a credentials file
// names it: <key>@<host>, without the port.
const (
	testURL     = "blobstore://k@host:443/nightly?bucket=b&secure_connection=0"
	testAccount = "k@host"
)

// emulated returns a client of a created triple database through the
// emulator, whose tools run at version, and the cluster; its processes run
// in data center dc, when not empty.
func emulated(t *testing.T, version, dc string, mutate func(*fdbcli.Config)) (*fdbcli.Client, *fdbtest.Cluster) {
	t.Helper()
	clk := clocktesting.NewFakeClock(fdbtest.Start)
	c := &fdbtest.Cluster{Clock: clk, Sim: sim.New(clk, sim.Options{Seed: 11})}
	groups := fdbtest.Triple.Groups()
	for i := range groups {
		if dc != "" {
			groups[i].CommandLine += " --locality_dcid=" + dc
		}
	}
	c.SetGroups(t, groups)
	coordinators := fdb.ConnectionString{Description: "test", ID: "initial"}
	for n := 1; n <= 3; n++ {
		coordinators.Coordinators = append(coordinators.Coordinators, c.Address(t, fmt.Sprintf("log-%d", n)))
	}
	if err := c.Sim.SetConnectionString(coordinators.String()); err != nil {
		t.Fatal(err)
	}
	c.Create(t, fdb.RedundancyTriple)
	cfg := fdbcli.Config{ConnectionString: c.Sim.ConnectionString(), Version: version, BinaryDir: "/usr/bin/fdb",
		TempDir: t.TempDir(), Runner: &emulator{sim: c.Sim}}
	if mutate != nil {
		mutate(&cfg)
	}
	client, err := fdbcli.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client, c
}

// TestRegionsJSONSurvivesFdbcliTokenizer: `configure regions=<JSON>` gives
// FoundationDB the JSON the client meant, through fdbcli 7.1's tokenizer
// (no \u escapes) and 7.3's, which erase unescaped quotes.
func TestRegionsJSONSurvivesFdbcliTokenizer(t *testing.T) {
	regions := []fdb.Region{{DataCenters: []fdb.RegionDataCenter{{ID: "dc1", Priority: 1}}}}
	for _, version := range []string{"7.1.27", "7.3.63"} {
		t.Run(version, func(t *testing.T) {
			client, c := emulated(t, version, "dc1", nil)
			if err := client.Configure(context.Background(), fdb.DatabaseConfiguration{Regions: regions}, false); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(regions, c.Configuration(t).Regions); diff != "" {
				t.Errorf("regions FoundationDB got (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWholeKeySpaceRestoreTokenizesToEmptyBeginKey: a restore of the whole
// key space, "" to \xff, reaches fdbrestore as an empty begin key and \xff,
// not as one key \xff (on which fdbrestore fails: strinc asserts).
func TestWholeKeySpaceRestoreTokenizesToEmptyBeginKey(t *testing.T) {
	client, c := emulated(t, fdbtest.Version, "", withCredentials(testAccount))
	req := fdb.RestoreRequest{URL: testURL, Tag: "r", KeyRanges: []fdb.KeyRange{{Begin: "", End: `\xff`}}}
	if err := client.StartRestore(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sim.RestoreStatus(context.Background(), "r"); err != nil {
		t.Errorf("no restore started: %v", err)
	}
}

// TestChangeCoordinatorsIgnoresClusterFileHeader: after `coordinators`, fdbcli
// rewrites the cluster file with its "# DO NOT EDIT!" header; the
// connection string read back has no comment.
func TestChangeCoordinatorsIgnoresClusterFileHeader(t *testing.T) {
	client, c := emulated(t, fdbtest.Version, "", nil)
	coordinators := []fdb.ProcessAddress{c.Address(t, "log-1"), c.Address(t, "log-2"), c.Address(t, "log-3")}
	got, err := client.ChangeCoordinators(context.Background(), coordinators)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Sim.ConnectionString(), got); diff != "" || strings.Contains(got, "#") {
		t.Errorf("connection string (-cluster's +read back):\n%s", diff)
	}
}

// withCredentials configures the client with a blob credentials file that
// has a secret for account.
func withCredentials(account string) func(*fdbcli.Config) {
	return func(cfg *fdbcli.Config) {
		cfg.BlobCredentials = func(context.Context) ([]byte, error) {
			return []byte(`{"accounts": {"` + account + `": {"secret": "s3cr3t"}}}`), nil
		}
	}
}

// TestBackupStartWithoutCredentialsFailsLikeFdbbackup: fdbbackup start and
// fdbrestore start reach the blob store, and fail as the real tools do
// ("Could not create backup container", backup_auth_missing) without a
// credentials file that names the URL's account as <key>@<host>, without
// the port; with one they start. The file is gone once the tool ran.
func TestBackupStartWithoutCredentialsFailsLikeFdbbackup(t *testing.T) {
	cases := map[string]struct {
		mutate  func(*fdbcli.Config)
		wantErr bool
	}{
		"NoCredentials":      {wantErr: true},
		"AccountWithPort":    {mutate: withCredentials("k@host:443"), wantErr: true},
		"AccountWithoutPort": {mutate: withCredentials(testAccount)},
		"UnreadableCredentials": {mutate: func(cfg *fdbcli.Config) {
			cfg.BlobCredentials = func(context.Context) ([]byte, error) { return []byte("accounts"), nil }
		}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var dir string
			client, _ := emulated(t, fdbtest.Version, "", func(cfg *fdbcli.Config) {
				dir = cfg.TempDir
				if tc.mutate != nil {
					tc.mutate(cfg)
				}
			})
			ctx := context.Background()
			backup := client.StartBackup(ctx, fdb.BackupRequest{URL: testURL, Tag: "b"})
			restore := client.StartRestore(ctx, fdb.RestoreRequest{URL: testURL, Tag: "r"})
			for what, err := range map[string]error{"StartBackup": backup, "StartRestore": restore} {
				if (err != nil) != tc.wantErr {
					t.Errorf("%s: got %v, want error %v", what, err, tc.wantErr)
				}
				if err != nil && strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("%s: the error shows the secret: %v", what, err)
				}
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("files left in the temporary directory: %v", left)
			}
		})
	}
}
