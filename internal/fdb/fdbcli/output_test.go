package fdbcli

import (
	"context"
	"errors"
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
			output: "Specified timeout reached -- the database may be unavailable\n", runErr: exit, wantErr: fdb.ErrTimeout,
		},
		"Unavailable": {
			output:  "The database is unavailable; type `status' for more information.\nSpecified timeout reached\n",
			runErr:  exit,
			wantErr: fdb.ErrUnavailable,
		},
		"DatabaseExists": {
			output:  "ERROR: Database already exists! To change configuration, don't say `new'\n",
			runErr:  exit,
			wantErr: fdb.ErrAlreadyExists,
		},
		"BackupRunning": {
			output: "ERROR: A backup is already running on tag `default'\n", runErr: exit, wantErr: fdb.ErrAlreadyExists,
		},
		"KillUnknown": {
			output: "ERROR: process `10.9.9.9:4501' not recognized.\n", runErr: exit, wantErr: fdb.ErrNotFound,
		},
		"BackupMissing": {
			output: "ERROR: Backup does not exist on tag `x'\n", runErr: exit, wantErr: fdb.ErrNotFound,
		},
		"NoBackup": {
			output: "No backup on tag `x'\n", runErr: exit, wantErr: fdb.ErrNotFound,
		},
		"NoPreviousBackups": {
			output: "No previous backups found.\n", runErr: exit, wantErr: fdb.ErrNotFound,
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
		"Garbage":       {out: "", wantErr: fdb.ErrUnexpectedOutput},
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
