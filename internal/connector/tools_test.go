package connector

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// grantingLocker grants every request, and names the connection string it
// was opened for as the lock's holder.
type grantingLocker struct{ opened string }

func (l grantingLocker) TakeLock(_ context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	return fdb.GlobalLock{Holder: r.Holder + "@" + l.opened, Start: r.Now, End: r.Now.Add(r.Duration)}, nil
}
func (grantingLocker) ReleaseLock(context.Context, string) error                     { return nil }
func (grantingLocker) UpdateLockDenyList(context.Context, []fdb.LockDenyEntry) error { return nil }

// TestToolsFDBLocker: the fdbcli client holds the global lock through the
// Locker ToolsFDB opens for the ConfigMap's connection string; without one
// it cannot (fdb.ErrNoLocker); a Locker that cannot open fails the client.
func TestToolsFDBLocker(t *testing.T) {
	cr, cm, _ := simCluster("ns")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := fdb.LockRequest{Holder: "dc1", Now: now, Duration: time.Minute}
	cases := map[string]struct {
		locker    func(string) (fdb.Locker, error)
		want      fdb.GlobalLock
		clientErr bool
		noLocker  bool
	}{
		"Native": {
			locker: func(cs string) (fdb.Locker, error) { return grantingLocker{opened: cs}, nil },
			want:   fdb.GlobalLock{Holder: "dc1@db:abc@10.0.0.1:4501", Start: now, End: now.Add(time.Minute)},
		},
		"FdbcliAlone": {noLocker: true},
		"CannotOpen":  {locker: func(string) (fdb.Locker, error) { return nil, errors.New("no libfdb_c") }, clientErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := ToolsFDB{BinaryDir: t.TempDir(), Locker: tc.locker}.Client(context.Background(), Target{}, cr, cm, nil, nil)
			if (err != nil) != tc.clientErr {
				t.Fatalf("Client(...): %v, want an error: %t", err, tc.clientErr)
			}
			if tc.clientErr {
				return
			}
			got, err := c.TakeLock(context.Background(), req)
			if tc.noLocker {
				if !errors.Is(err, fdb.ErrNoLocker) {
					t.Errorf("TakeLock(...) without a Locker: %v, want fdb.ErrNoLocker", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("TakeLock(...): -want, +got:\n%s", diff)
			}
		})
	}
}

// TestClusterFile: one file per connection string, holding it, written once;
// a string that is no connection string is refused.
func TestClusterFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "files")
	const cs = "db:abc@10.0.0.1:4501"
	path, err := ClusterFile(dir, cs)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != cs+"\n" {
		t.Errorf("the cluster file holds %q (%v), want %q", got, err, cs+"\n")
	}
	again, err := ClusterFile(dir, cs)
	if err != nil || again != path {
		t.Errorf("ClusterFile(...) again = %q, %v; want %q", again, err, path)
	}
	other, err := ClusterFile(dir, "db:abc@10.0.0.2:4501")
	if err != nil || other == path {
		t.Errorf("another connection string's file = %q, %v; want a file of its own", other, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want the two cluster files alone", len(entries))
	}
	if _, err := ClusterFile(dir, "not a connection string"); err == nil {
		t.Error("ClusterFile(...) of a bad connection string: no error")
	}
}

// TestBackupStartGetsTheAgentsCredentials checks that the provider's own
// `fdbbackup start` reaches the blob store with the credentials of the
// Secret the Backup names — the one its agents mount, in the target
// namespace — as the file --blob_credentials names, and that a Secret
// without the key fails the start naming Secret and key. The tool is a
// stand-in script that keeps what that file held.
func TestBackupStartGetsTheAgentsCredentials(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	ns := "tools-blob-credentials"
	cr, cm, _ := simCluster(ns)
	const credentials = `{"accounts":{"backup@minio.storage.svc":{"secret":"s3cr3t"}}}`
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "blob"}, StringData: map[string]string{"credentials": credentials}},
	} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	dir, kept := t.TempDir(), filepath.Join(t.TempDir(), "kept")
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --blob_credentials ] && cat \"$2\" > " + kept + "; shift; done\n"
	if err := os.MkdirAll(filepath.Join(dir, "7.3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "7.3", "fdbbackup"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	blob := func(key string) *fdbv1alpha1.BlobStore {
		return &fdbv1alpha1.BlobStore{CredentialsSecretRef: &xpv2.LocalSecretKeySelector{LocalSecretReference: xpv2.LocalSecretReference{Name: "blob"}, Key: key}}
	}
	req := fdb.BackupRequest{URL: "blobstore://backup@minio.storage.svc:9000/db?bucket=fdb-backups", Tag: "default"}

	db, err := ToolsFDB{BinaryDir: dir}.Client(ctx, Target{Client: env.Client, Live: env.Client}, cr, cm, blob("credentials"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.StartBackup(ctx, req) // the stand-in prints nothing a real start would
	got, err := os.ReadFile(kept)
	if err != nil {
		t.Fatalf("fdbbackup start was given no credentials file: %v", err)
	}
	if diff := cmp.Diff(credentials, string(got)); diff != "" {
		t.Errorf("the credentials file: -want, +got:\n%s", diff)
	}

	db, err = ToolsFDB{BinaryDir: dir}.Client(ctx, Target{Client: env.Client, Live: env.Client}, cr, cm, blob("missing"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartBackup(ctx, req); err == nil || !strings.Contains(err.Error(), "Secret "+ns+"/blob has no key missing") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("StartBackup with a Secret without the key: %v, want an error naming the Secret and key, not its content", err)
	}
}

// TestToolsFindTheVersionRunningAfterAnIncompatibleKill: after the gated
// kill of a 7.1 → 7.3 upgrade the recorded running version still names
// 7.1. When the 7.1 fdbcli times out or sees no process, the 7.3 fdbcli is
// asked, and once it sees the processes it serves the rest of the session
// (the kill after the status); when it sees nothing either, the first
// answer stands and the old tools stay; a patch upgrade has one set of
// tools and asks once. The tools are stand-in scripts that log which
// version ran which command.
func TestToolsFindTheVersionRunningAfterAnIncompatibleKill(t *testing.T) {
	const (
		timesOut  = `echo "Specified timeout reached -- exiting..."; exit 1`
		noProcess = `echo '{"client":{"database_status":{"available":false}},"cluster":{}}'`
	)
	runs := func(version string) string {
		return `echo '{"client":{"database_status":{"available":true}},"cluster":{"messages":[],"processes":{"p1":{"address":"10.0.0.1:4501","version":"` + version + `"}}}}'`
	}
	type want struct {
		Err      bool
		Versions []string
		Ran      []string
	}
	cases := map[string]struct {
		running, spec string
		tools         map[string]string
		want          want
	}{
		"OldToolsTimeOut": {
			running: "7.1.67", spec: "7.3.63",
			tools: map[string]string{"7.1": timesOut, "7.3": runs("7.3.63")},
			want:  want{Versions: []string{"7.3.63"}, Ran: []string{"7.1 status json", "7.3 status json", "7.3 kill"}},
		},
		"OldToolsSeeNoProcess": {
			running: "7.1.67", spec: "7.3.63",
			tools: map[string]string{"7.1": noProcess, "7.3": runs("7.3.63")},
			want:  want{Versions: []string{"7.3.63"}, Ran: []string{"7.1 status json", "7.3 status json", "7.3 kill"}},
		},
		"OldToolsSeeTheProcesses": {
			running: "7.1.67", spec: "7.3.63",
			tools: map[string]string{"7.1": runs("7.1.67"), "7.3": runs("7.3.63")},
			want:  want{Versions: []string{"7.1.67"}, Ran: []string{"7.1 status json", "7.1 kill"}},
		},
		"NeitherSeesTheProcesses": {
			running: "7.1.67", spec: "7.3.63",
			tools: map[string]string{"7.1": timesOut, "7.3": noProcess},
			want:  want{Err: true, Ran: []string{"7.1 status json", "7.3 status json", "7.1 kill"}},
		},
		"PatchUpgrade": {
			running: "7.3.63", spec: "7.3.69",
			tools: map[string]string{"7.3": timesOut},
			want:  want{Err: true, Ran: []string{"7.3 status json", "7.3 kill"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir, log := t.TempDir(), filepath.Join(t.TempDir(), "ran")
			for line, behaviour := range tc.tools {
				script := "#!/bin/sh\ncmd=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --exec ] && cmd=\"$2\"; shift; done\n" +
					"echo \"" + line + " ${cmd%%;*}\" >> " + log + "\n" + behaviour + "\n"
				if err := os.MkdirAll(filepath.Join(dir, line), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, line, "fdbcli"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cr, cm, _ := simCluster("ns")
			cr.Spec.ForProvider.Version, cr.Status.AtProvider.RunningVersion = tc.spec, tc.running
			ctx := context.Background()
			db, err := ToolsFDB{BinaryDir: dir}.Client(ctx, Target{}, cr, cm, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got want
			s, err := db.Status(ctx)
			got.Err = err != nil
			if err == nil {
				for _, p := range s.Cluster.Processes {
					got.Versions = append(got.Versions, p.Version)
				}
			}
			_ = db.Kill(ctx, []fdb.ProcessAddress{"10.0.0.1:4501"}) // the stand-ins print nothing a kill would
			ran, _ := os.ReadFile(log)
			got.Ran = strings.Split(strings.TrimSpace(string(ran)), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
