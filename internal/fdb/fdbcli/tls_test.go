package fdbcli

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// testTLS are the credentials of the TLS test clients.
var testTLS = &fdb.TLSCredentials{
	Certificate: []byte("-----BEGIN CERTIFICATE-----\nY2xpZW50LWNlcnRpZmljYXRl\n-----END CERTIFICATE-----\n"),
	Key:         []byte("-----BEGIN PRIVATE KEY-----\nY2xpZW50LXByaXZhdGUta2V5\n-----END PRIVATE KEY-----\n"),
	CA:          []byte("-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n"),
	VerifyPeers: "Check.Valid=1,S.CN=fdb-cluster",
}

// newTLSTestClient is newTestClient of FoundationDB version with the
// credentials tls.
func newTLSTestClient(t *testing.T, r Runner, version string, tls *fdb.TLSCredentials) *Client {
	t.Helper()
	c := newTestClient(t, r, "")
	c.cfg.TLS = tls
	c.majorMinor = version[:3]
	return c
}

// TestToolsPassTheirCertificatesByFlag: every tool of a client with
// credentials is given the paths of its certificate, key and CA files
// with --tls-certificate-file, --tls-key-file and --tls-ca-file, and the
// peer verification rules with --tls-verify-peers when there are any
// (TLS_OPTION_FLAGS, flow/TLSConfig.actor.h at 7.1.67 and 7.3.63, in the
// option tables of fdbcli, of each fdbbackup subcommand and of
// fdbrestore). 7.1's `fdbbackup modify` has no TLS flags (its
// g_rgBackupModifyOptions lacks TLS_OPTION_FLAGS, fdbbackup/backup.actor.cpp
// at 7.1.67; 7.3.63's has them) and fails on an unknown one: it gets the
// same files by FDB_TLS_CERTIFICATE_FILE, FDB_TLS_KEY_FILE, FDB_TLS_CA_FILE
// and FDB_TLS_VERIFY_PEERS, which every tool reads when no flag says
// otherwise (TLSConfig::getCertificatePathSync and its siblings,
// flow/TLSConfig.actor.cpp). A client without credentials passes neither.
func TestToolsPassTheirCertificatesByFlag(t *testing.T) {
	flags := []string{"--tls-certificate-file", "<certificate-file>", "--tls-key-file", "<key-file>", "--tls-ca-file", "<ca-file>"}
	withRules := append(append([]string{}, flags...), "--tls-verify-peers", testTLS.VerifyPeers)
	settings := []string{"FDB_TLS_CERTIFICATE_FILE=<certificate-file>", "FDB_TLS_KEY_FILE=<key-file>", "FDB_TLS_CA_FILE=<ca-file>"}
	defaultRules := *testTLS
	defaultRules.VerifyPeers = ""
	cli := func(v string) []string {
		return []string{"/fdb/" + v + "/fdbcli", "-C", "<cluster-file>", "--exec", "status json", "--timeout", "40", "--log-group", "provider-foundationdb"}
	}
	modify := func(v string) []string {
		return []string{"/fdb/" + v + "/fdbbackup", "modify", "-C", "<cluster-file>", "-t", "nightly", "-s", "3600"}
	}
	cases := map[string]struct {
		version  string
		op       string
		tls      *fdb.TLSCredentials
		wantCall []string
		wantEnv  []string
	}{
		"Fdbcli71": {version: "7.1.67", op: "Status", tls: testTLS, wantCall: append(cli("7.1"), withRules...)},
		"Fdbcli73": {version: "7.3.63", op: "Status", tls: testTLS, wantCall: append(cli("7.3"), withRules...)},
		"DefaultPeerVerification": {version: "7.3.63", op: "Status", tls: &defaultRules,
			wantCall: append(cli("7.3"), flags...)},
		"BackupStart": {version: "7.1.67", op: "StartBackup", tls: testTLS,
			wantCall: append([]string{"/fdb/7.1/fdbbackup", "start", "-C", "<cluster-file>", "-d", "blobstore://k:s@host:443/b?bucket=x", "-t", "nightly", "-z", "--blob_credentials", "<credentials-file>"}, withRules...)},
		"BackupStatus": {version: "7.3.63", op: "BackupStatus", tls: testTLS,
			wantCall: append([]string{"/fdb/7.3/fdbbackup", "status", "-C", "<cluster-file>", "-t", "nightly", "--json"}, withRules...)},
		"BackupModify73": {version: "7.3.63", op: "ModifyBackup", tls: testTLS, wantCall: append(modify("7.3"), withRules...)},
		"BackupModify71ByEnvironment": {version: "7.1.67", op: "ModifyBackup", tls: testTLS, wantCall: modify("7.1"),
			wantEnv: append(append([]string{}, settings...), "FDB_TLS_VERIFY_PEERS="+testTLS.VerifyPeers)},
		"BackupModify71DefaultPeerVerification": {version: "7.1.67", op: "ModifyBackup", tls: &defaultRules, wantCall: modify("7.1"), wantEnv: settings},
		"RestoreStart": {version: "7.3.63", op: "StartRestore", tls: testTLS,
			wantCall: append([]string{"/fdb/7.3/fdbrestore", "start", "-r", "blobstore://k:s@host:443/b", "--dest_cluster_file", "<cluster-file>", "-t", "r", "--blob_credentials", "<credentials-file>"}, withRules...)},
		"RestoreAbort": {version: "7.1.67", op: "AbortRestore", tls: testTLS,
			wantCall: append([]string{"/fdb/7.1/fdbrestore", "abort", "--dest_cluster_file", "<cluster-file>", "-t", "r"}, withRules...)},
		"PlainCluster": {version: "7.1.67", op: "ModifyBackup", wantCall: modify("7.1")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &recorder{t: t, tls: tc.tls, output: "RESTORE_ABORT Tag: r  State: aborted\n{\"Status\": {\"Name\": \"Running\"}}"}
			call := clientOps[tc.op]
			if tc.op == "ModifyBackup" {
				call = func(ctx context.Context, c *Client) error {
					return c.ModifyBackup(ctx, fdb.BackupRequest{Tag: "nightly", SnapshotPeriodSeconds: 3600})
				}
			}
			_ = call(context.Background(), newTLSTestClient(t, r, tc.version, tc.tls))
			if diff := cmp.Diff([][]string{tc.wantCall}, r.calls); diff != "" {
				t.Errorf("invocation: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff([][]string{tc.wantEnv}, r.envs); diff != "" {
				t.Errorf("invocation's environment: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestCertificateFilesAreRemovedAfterEachRun: every file an invocation of a
// client with credentials is given (the cluster file, the blob
// credentials, the certificate, key and CA files) is gone once the tool
// has run, whether it succeeded or failed, and nothing is left in the
// client's temporary directory.
func TestCertificateFilesAreRemovedAfterEachRun(t *testing.T) {
	for _, version := range []string{"7.1.67", "7.3.63"} {
		for op, call := range clientOps {
			for _, fail := range []bool{false, true} {
				t.Run(version+"/"+op+"/failed="+map[bool]string{false: "no", true: "yes"}[fail], func(t *testing.T) {
					r := &recorder{t: t, tls: testTLS, output: "RESTORE_ABORT Tag: r  State: aborted\n{\"Status\": {\"Name\": \"Running\"}}"}
					if fail {
						r.output, r.err = "ERROR: Could not communicate with all of the coordination servers.", errors.New("exit status 1")
					}
					c := newTLSTestClient(t, r, version, testTLS)
					_ = call(context.Background(), c)
					tlsFilesGiven := 0
					for _, f := range r.files {
						if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("%s is still there after the run (%v)", f, err)
						}
						if strings.Contains(f, ".tls-") {
							tlsFilesGiven++
						}
					}
					if tlsFilesGiven != 3 {
						t.Errorf("the tool was given %d TLS files (%q), want 3", tlsFilesGiven, r.files)
					}
					if left, err := os.ReadDir(c.cfg.TempDir); err != nil || len(left) != 0 {
						t.Errorf("left in the temporary directory: %v (%v)", left, err)
					}
				})
			}
		}
	}
}

// TestNoKeyMaterialInErrors: no argument, environment setting or error of
// any invocation of a client with credentials holds a line of their PEM
// content, including the error of a tool that fails and prints the paths
// of the files it was given (as fdbcli and fdbbackup do when they cannot
// load them: "ERROR: cannot set TLS key path to ...", fdbcli.actor.cpp
// and BackupTLSConfig.cpp at 7.1.67 and 7.3.63).
func TestNoKeyMaterialInErrors(t *testing.T) {
	var secrets []string
	for _, pem := range [][]byte{testTLS.Certificate, testTLS.Key, testTLS.CA} {
		for _, line := range strings.Split(string(pem), "\n") {
			if line != "" && !strings.HasPrefix(line, "-----") {
				secrets = append(secrets, line)
			}
		}
	}
	for _, version := range []string{"7.1.67", "7.3.63"} {
		for op, call := range clientOps {
			t.Run(version+"/"+op, func(t *testing.T) {
				r := &echoRunner{recorder: recorder{t: t, tls: testTLS}}
				err := call(context.Background(), newTLSTestClient(t, r, version, testTLS))
				if err == nil {
					t.Fatal("the failed tool's error is nil")
				}
				seen := strings.Join(append(append(r.raw, r.rawEnv...), err.Error()), "\n")
				for _, s := range secrets {
					if strings.Contains(seen, s) {
						t.Errorf("PEM content %q in an argument, setting or error:\n%s", s, seen)
					}
				}
				if !strings.Contains(err.Error(), "cannot set TLS") {
					t.Errorf("error %q does not carry the tool's output", err)
				}
			})
		}
	}
}

// echoRunner is a recorder whose tool fails printing the paths of the
// TLS files it was given, and keeps the raw arguments and settings.
type echoRunner struct {
	recorder
	raw, rawEnv []string
}

func (e *echoRunner) Run(ctx context.Context, binary string, env []string, args ...string) ([]byte, error) {
	e.raw = append(e.raw, args...)
	e.rawEnv = append(e.rawEnv, env...)
	var out strings.Builder
	for i, a := range args {
		if i > 0 && strings.HasPrefix(args[i-1], "--tls-") {
			out.WriteString("ERROR: cannot set TLS path to `" + a + "' (File could not be found)\n")
		}
	}
	for _, s := range env {
		out.WriteString("ERROR: cannot set TLS path from " + s + "\n")
	}
	_, _ = e.recorder.Run(ctx, binary, env, args...)
	return []byte(out.String()), errors.New("exit status 1")
}

// TestInvocationSettingsWinOverTheProvidersEnvironment: the settings of an
// invocation (7.1's `fdbbackup modify` gets its TLS files that way) win
// over what the provider's own environment holds.
func TestInvocationSettingsWinOverTheProvidersEnvironment(t *testing.T) {
	t.Setenv("FDB_TLS_CA_FILE", "/etc/provider/ca.pem")
	out, err := ExecRunner{}.Run(context.Background(), "/bin/sh", []string{"FDB_TLS_CA_FILE=/tmp/fdb-1.tls-ca"}, "-c", "echo $FDB_TLS_CA_FILE")
	if err != nil {
		t.Skipf("no shell: %v", err)
	}
	if diff := cmp.Diff("/tmp/fdb-1.tls-ca", strings.TrimSpace(string(out))); diff != "" {
		t.Errorf("FDB_TLS_CA_FILE: -want, +got:\n%s", diff)
	}
}
