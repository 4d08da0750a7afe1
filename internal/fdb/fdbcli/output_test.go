package fdbcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestCheck(t *testing.T) {
	exit := errors.New("exit status 1")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		ctx        context.Context
		output     string
		runErr     error
		errorLines bool
		wantFail   bool
		wantErr    error
	}{
		"Success":            {output: "Attempted to kill 2 processes\n", errorLines: true},
		"StatusDataIsNotErr": {output: `{"cluster": {"messages": [{"description": "ERROR: x"}]}}`},
		"ErrorLineExitZero":  {output: "ERROR: Unknown command `exclud'\n", errorLines: true, wantFail: true},
		"Timeout": {
			output: "Specified timeout reached -- exiting...\n", runErr: exit, wantErr: fdb.ErrTimeout,
		},
		"UnavailableWarningThenTimeout": {
			output:  "\nWARNING: Long delay (Ctrl-C to interrupt)\n\nThe database is unavailable; type `status' for more information.\n\nSpecified timeout reached -- exiting...\n",
			runErr:  exit,
			wantErr: fdb.ErrTimeout,
		},
		"ConfigureUnavailable": {
			output:  "ERROR: The database is unavailable\nType `configure FORCE <TOKEN...>' to configure without this check\n",
			runErr:  exit,
			wantErr: fdb.ErrUnavailable,
		},
		"DatabaseExists": {
			output:  "ERROR: Database already exists! To change configuration, don't say `new'\n",
			runErr:  exit,
			wantErr: fdb.ErrAlreadyExists,
		},
		"BackupRunning": {
			output: "ERROR: A backup is already running on tag `default'\nFatal Error: Backup error\n", runErr: exit, wantErr: fdb.ErrAlreadyExists,
		},
		"RestoreRunning": {
			output: "ERROR: Restore duplicate request\nFatal Error: Restore duplicate request\n", runErr: exit, wantErr: fdb.ErrAlreadyExists,
		},
		"KillUnknown": {
			output: "ERROR: process `10.9.9.9:4501' not recognized.\n", runErr: exit, wantErr: fdb.ErrNotFound,
		},
		"BackupNotRunning": {
			output: "ERROR: A backup in not running on tag `x'\nFatal Error: Backup unneeded request\n", runErr: exit, wantErr: fdb.ErrNotFound,
		},
		"NoBackup": {
			output: "No backup exists on tag 'x'\nFatal Error: Backup error\n", runErr: exit, wantErr: fdb.ErrNotFound,
		},
		"NoDestination": {
			// Not "no backup": the command line lacks the container.
			output: "ERROR: No backup destination was specified.\n", runErr: exit, wantFail: true,
		},
		"RestoreVerboseThenFails": {
			// "No restore target version given" is not "no restore".
			output:   "No restore target version given, will use maximum restorable version from backup description.\nERROR: Restore error\nFatal Error: Restore error\n",
			runErr:   exit,
			wantFail: true,
		},
		"ClusterFileMissing": {
			// Not a missing backup: a missing file.
			output: "Restore destination cluster file '/tmp/x.cluster' does not exist.\n", runErr: exit, wantFail: true,
		},
		"UnknownFailure":  {output: "Segmentation fault\n", runErr: exit, wantFail: true},
		"BinaryMissing":   {runErr: errors.New("fork/exec /fdb/7.1/fdbcli: no such file or directory"), wantFail: true},
		"ContextCanceled": {ctx: canceled, runErr: context.Canceled, wantErr: fdb.ErrTimeout},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := check(ctx, "fdbcli --exec 'x'", []byte(tc.output), tc.runErr, tc.errorLines)
			if (err != nil) != (tc.wantFail || tc.wantErr != nil) || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("check: got %v, want %v (any error: %v)", err, tc.wantErr, tc.wantFail)
			}
			var ce *fdb.CommandError
			if err != nil && !errors.As(err, &ce) {
				t.Errorf("check returned %T, want *fdb.CommandError", err)
			}
			if tc.wantErr == nil && ce != nil && ce.Err != nil {
				t.Errorf("check classified the failure as %v, want no classification", ce.Err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	out := "ERROR: cannot reach blobstore://backup:s3cr3t@minio:9000/nightly?bucket=b and blobstore://k@h/x\n"
	err := check(context.Background(), "fdbbackup start", redact([]byte(out)), errors.New("exit status 1"), true)
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error leaks credentials or is missing: %v", err)
	}
	want := "ERROR: cannot reach blobstore://<redacted>@minio:9000/nightly?bucket=b and blobstore://<redacted>@h/x\n"
	if diff := cmp.Diff(want, string(redact([]byte(out)))); diff != "" {
		t.Errorf("redact (-want +got):\n%s", diff)
	}
}

func TestParseBackupStatus(t *testing.T) {
	// Recorded from `fdbbackup status --json` of a running, restorable
	// backup (fields the client ignores left in).
	out := `{
  "SchemaVersion": "1.0.0",
  "BackupAgentsPaused": false,
  "Tag": "nightly",
  "UID": "5d2bbd7a2b8c3e1f",
  "DestinationURL": "blobstore://backup@minio:9000/nightly?bucket=fdb-backups&sc=0",
  "Status": {"Name": "RunningDifferentially", "Description": "is differential", "Completed": false, "Running": true},
  "Restorable": true,
  "LatestRestorablePoint": {"Version": 89229222300, "Timestamp": "2026/01/01.00:00:00+0000", "Seconds": 1767225600},
  "SnapshotIntervalSeconds": 864000,
  "CurrentSnapshot": {"Begin": {"Version": 1}, "EndTarget": {"Version": 2}, "IntervalSeconds": 864000, "ExpectedProgress": 12.5},
  "Errors": {}
}`
	got, err := parseBackupStatus([]byte(out), "nightly")
	if err != nil {
		t.Fatal(err)
	}
	want := &fdb.BackupStatus{
		Tag: "nightly", URL: "blobstore://backup@minio:9000/nightly?bucket=fdb-backups&sc=0",
		State: fdb.BackupRunningDifferentially, Running: true, Restorable: true,
		SnapshotPeriodSeconds: 864000, LatestRestorableVersion: 89229222300, SnapshotProgress: 12.5,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseBackupStatus (-want +got):\n%s", diff)
	}
}

// TestParseRealBackupStatus parses `fdbbackup status --json` of a real
// running backup (see internal/fdb/testdata/real/SOURCES.md).
func TestParseRealBackupStatus(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "testdata", "real", "backup", "fdbbackup_status_json_6.2_operator_running.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseBackupStatus(out, "default")
	if err != nil {
		t.Fatal(err)
	}
	want := &fdb.BackupStatus{
		Tag: "default", URL: "blobstore://minio@minio-service:9000/sample-cluster?bucket=fdb-backups",
		State: fdb.BackupRunning, Running: true, SnapshotPeriodSeconds: 864000, SnapshotProgress: 0.00155186,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseBackupStatus (-want +got):\n%s", diff)
	}
}

func TestParseBackupStatusStates(t *testing.T) {
	doc := func(name string, running bool) string {
		return fmt.Sprintf(`{"SchemaVersion":"1.0.0","BackupAgentsPaused":false,"Tag":"t","UID":"1","Status":{"Name":%q,"Description":"","Completed":false,"Running":%v}}`, name, running)
	}
	cases := map[string]struct {
		out     string
		want    fdb.BackupState
		wantErr error
	}{
		"Aborting":  {out: doc("Aborting", true), want: fdb.BackupAborting},
		"Errored":   {out: doc("Errored", false), want: fdb.BackupErrored},
		"NeverRan":  {out: `{"SchemaVersion":"1.0.0","BackupAgentsPaused":false,"Tag":"t"}`, wantErr: fdb.ErrNotFound},
		"Undefined": {out: doc("<undefined>", false), wantErr: fdb.ErrUnexpectedOutput},
		"Other":     {out: doc("Paused", false), wantErr: fdb.ErrUnexpectedOutput},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseBackupStatus([]byte(tc.out), "t")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err == nil && got.State != tc.want {
				t.Errorf("state %q, want %q", got.State, tc.want)
			}
		})
	}
}

func TestParseRestoreStatus(t *testing.T) {
	cases := map[string]struct {
		out     string
		want    *fdb.RestoreStatus
		wantErr error
	}{
		"Running": {
			out:  `Tag: r  UID: 8a1c  State: running  Blocks: 120/4096  BlocksInProgress: 8  Files: 12  BytesWritten: 125829120  ApplyVersionLag: 0  LastError: ""`,
			want: &fdb.RestoreStatus{Tag: "r", State: fdb.RestoreRunning, BlocksDone: 120, BlocksTotal: 4096, BytesWritten: 125829120},
		},
		"Completed": {
			out:  "Tag: r  UID: 8a1c  State: completed  Blocks: 4096/4096  BlocksInProgress: 0",
			want: &fdb.RestoreStatus{Tag: "r", State: fdb.RestoreCompleted, BlocksDone: 4096, BlocksTotal: 4096},
		},
		"Queued":        {out: "State: queued", want: &fdb.RestoreStatus{Tag: "r", State: fdb.RestoreQueued}},
		"Uninitialized": {out: "Tag: r  UID: 0  State: uninitialized", wantErr: fdb.ErrNotFound},
		"Unitialized": {
			// What 7.1 and 7.3 print (restoreStateText, sic).
			out:     "Tag:   UID: 00000000000000000000000000000000  State: unitialized  Blocks: 0/0  BlocksInProgress: 0",
			wantErr: fdb.ErrNotFound,
		},
		"UnknownState": {out: "Tag: r  UID: 1  State: Unknown  Blocks: 0/0", wantErr: fdb.ErrUnexpectedOutput},
		"Overflow":     {out: "Tag: r  UID: 1  State: running  Blocks: 1/99999999999999999999", wantErr: fdb.ErrUnexpectedOutput},
		"Garbage":      {out: "", wantErr: fdb.ErrUnexpectedOutput},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseRestoreStatus([]byte(tc.out), "r")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseRestoreStatus (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTimeoutIsNotUnavailable: fdbcli prints "The database is unavailable"
// as a warning after 5 s (checkStatus, fdbcli.actor.cpp at 7.1.67 and
// 7.3.63) and keeps waiting; when --timeout then ends it, the command timed
// out. Only configure's own check ("ERROR: The database is unavailable")
// says the database refused it.
func TestTimeoutIsNotUnavailable(t *testing.T) {
	exit := errors.New("exit status 1")
	cases := map[string]struct {
		output string
		want   error
	}{
		"WarningThenTimeout": {
			output: "\nWARNING: Long delay (Ctrl-C to interrupt)\n\nThe database is unavailable; type `status' for more information.\n\nSpecified timeout reached -- exiting...\n",
			want:   fdb.ErrTimeout,
		},
		"ConfigureRefused": {
			output: "ERROR: The database is unavailable\nType `configure FORCE <TOKEN...>' to configure without this check\n",
			want:   fdb.ErrUnavailable,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := check(context.Background(), "fdbcli", []byte(tc.output), exit, true)
			for _, sentinel := range []error{fdb.ErrTimeout, fdb.ErrUnavailable} {
				if errors.Is(err, sentinel) != (sentinel == tc.want) {
					t.Fatalf("got %v, want only %v", err, tc.want)
				}
			}
		})
	}
}
