package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/bindings"
)

func TestParseFlags(t *testing.T) {
	t.Setenv("FDB_BINARY_DIR", "")
	defaults := flags{
		syncInterval: time.Hour, pollInterval: time.Minute, watchedPoll: 5 * time.Minute, minPollInterval: 15 * time.Second, pollJitterPercentage: 10, pollStateMetric: 5 * time.Second,
		maxReconcileRate: 10, workers: 20, kubeAPIQPS: 100, maxConvergeRate: 50, metricsAddress: ":8080", healthAddress: ":8081", fdbBackend: "real", fdbBinaryDir: "/usr/bin/fdb",
		leaderElection: true, changeLogsSocketPath: "/var/run/changelogs/changelogs.sock", simToolCost: "real", shard: shard.Shard{Count: 1},
	}
	cases := map[string]struct {
		args    []string
		want    flags
		wantErr string
	}{
		"Defaults": {want: defaults},
		"CrossplaneStyleFlags": {
			args: []string{"--debug", "--leader-election", "--poll=30s", "--poll-jitter-percentage=5", "--max-reconcile-rate=3", "--fdb-backend=sim",
				"--enable-changelogs", "--changelogs-socket-path=/run/cl.sock"},
			want: func() flags {
				f := defaults
				f.debug, f.leaderElection, f.pollInterval, f.pollJitterPercentage, f.maxReconcileRate, f.fdbBackend = true, true, 30*time.Second, 5, 3, "sim"
				f.enableChangeLogs, f.changeLogsSocketPath = true, "/run/cl.sock"
				return f
			}(),
		},
		"LowerMinimumPollInterval": {
			args: []string{"--poll=10s", "--min-poll-interval=5s", "--poll-jitter-percentage=0"},
			want: func() flags {
				f := defaults
				f.pollInterval, f.minPollInterval, f.pollJitterPercentage = 10*time.Second, 5*time.Second, 0
				return f
			}(),
		},
		"WatchedPoll": {
			args: []string{"--watched-poll=15m"},
			want: func() flags { f := defaults; f.watchedPoll = 15 * time.Minute; return f }(),
		},
		"WatchedPollLikeOthers": {
			args: []string{"--poll=2m", "--watched-poll=2m"},
			want: func() flags { f := defaults; f.pollInterval, f.watchedPoll = 2*time.Minute, 2*time.Minute; return f }(),
		},
		"LocalRunWithoutLeaderElection": {
			args: []string{"--leader-election=false"},
			want: func() flags { f := defaults; f.leaderElection = false; return f }(),
		},
		"SimulatorWithoutToolCost": {
			args: []string{"--fdb-backend=sim", "--sim-tool-cost=none"},
			want: func() flags { f := defaults; f.fdbBackend, f.simToolCost = "sim", "none"; return f }(),
		},
		"APIRate": {
			args: []string{"--kube-api-qps=300"},
			want: func() flags { f := defaults; f.kubeAPIQPS = 300; return f }(),
		},
		"Workers": {
			args: []string{"--max-concurrent-reconciles=5"},
			want: func() flags { f := defaults; f.workers = 5; return f }(),
		},
		"ConvergeRate": {
			args: []string{"--max-converge-rate=20"},
			want: func() flags { f := defaults; f.maxConvergeRate = 20; return f }(),
		},
		"Profiles": {
			args: []string{"--enable-pprof"},
			want: func() flags { f := defaults; f.pprof = true; return f }(),
		},
		"OneShardOfThree": {
			args: []string{"--shard=2/3"},
			want: func() flags { f := defaults; f.shard = shard.Shard{Index: 2, Count: 3}; return f }(),
		},
		"ShardBeyondCount":  {args: []string{"--shard=3/3"}, wantErr: `--shard: shard "3/3": the index must be at least 0 and less than the count`},
		"ShardNotAFraction": {args: []string{"--shard=2"}, wantErr: `--shard: shard "2" is not INDEX/COUNT, e.g. 0/3`},
		"UnknownToolCost": {
			args:    []string{"--fdb-backend=sim", "--sim-tool-cost=free"},
			wantErr: `--sim-tool-cost must be real or none, not "free"`,
		},
		"NoToolCostOfRealTools": {
			args:    []string{"--sim-tool-cost=none"},
			wantErr: "--sim-tool-cost=none needs --fdb-backend=sim",
		},
		"UnknownBackend":       {args: []string{"--fdb-backend=mock"}, wantErr: `--fdb-backend must be real or sim, not "mock"`},
		"ZeroRate":             {args: []string{"--max-reconcile-rate=0"}, wantErr: "--max-reconcile-rate must be at least 1"},
		"NoWorkers":            {args: []string{"--max-concurrent-reconciles=0"}, wantErr: "--max-concurrent-reconciles must be at least 1"},
		"ZeroConvergeRate":     {args: []string{"--max-converge-rate=0"}, wantErr: "--max-converge-rate must be at least 1"},
		"ZeroAPIRate":          {args: []string{"--kube-api-qps=0"}, wantErr: "--kube-api-qps must be at least 1"},
		"UnknownFlag":          {args: []string{"--nope"}, wantErr: "flag provided but not defined: -nope"},
		"BadPollDuration":      {args: []string{"--poll=soon"}, wantErr: `invalid value "soon" for flag -poll`},
		"PollBelowMinimum":     {args: []string{"--poll=10s"}, wantErr: "--poll must be at least --min-poll-interval (15s), not 10s"},
		"WatchedPollBelowPoll": {args: []string{"--watched-poll=30s"}, wantErr: "--watched-poll must be at least --poll (1m0s), not 30s"},
		"JitterTooLarge":       {args: []string{"--poll-jitter-percentage=100"}, wantErr: "--poll-jitter-percentage must be less than 100, not 100"},
		"NegativeJitter":       {args: []string{"--poll-jitter-percentage=-1"}, wantErr: `invalid value "-1" for flag -poll-jitter-percentage`},
		"NoStateMetric":        {args: []string{"--poll-state-metric=0s"}, wantErr: "--poll-state-metric must be positive, not 0s"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseFlags(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseFlags(%v): error %v, want one containing %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(flags{})); diff != "" {
				t.Errorf("parseFlags(%v): -want, +got:\n%s", tc.args, diff)
			}
		})
	}
}

// TestNativeClientTLSFlags: --fdb-tls-certificate-file, --fdb-tls-key-file,
// --fdb-tls-ca-file and --fdb-tls-verify-peers, each also from its
// PROVIDER_FDB_TLS_ environment setting, are the one identity the native
// client presents to every database (bindings.TLS): all three files or
// none, each readable when the provider starts, and only in a provider
// built with the native client (the build tag fdb).
func TestNativeClientTLSFlags(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"tls.crt", "tls.key", "ca.crt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cert, key, ca := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"), filepath.Join(dir, "ca.crt")
	all := bindings.TLS{CertificateFile: cert, KeyFile: key, CAFile: ca, VerifyPeers: "Check.Valid=1,S.CN=db"}
	withoutClient := "this provider is built without the native client (build tag fdb)"
	cases := map[string]struct {
		args    []string
		env     map[string]string
		want    bindings.TLS
		wantErr string
	}{
		"None": {},
		"Flags": {
			args: []string{"--fdb-tls-certificate-file=" + cert, "--fdb-tls-key-file=" + key, "--fdb-tls-ca-file=" + ca, "--fdb-tls-verify-peers=Check.Valid=1,S.CN=db"},
			want: all,
		},
		"Environment": {
			env: map[string]string{"PROVIDER_FDB_TLS_CERTIFICATE_FILE": cert, "PROVIDER_FDB_TLS_KEY_FILE": key, "PROVIDER_FDB_TLS_CA_FILE": ca,
				"PROVIDER_FDB_TLS_VERIFY_PEERS": "Check.Valid=1,S.CN=db"},
			want: all,
		},
		"FlagOverEnvironment": {
			args: []string{"--fdb-tls-verify-peers=Check.Valid=1,S.CN=db"},
			env:  map[string]string{"PROVIDER_FDB_TLS_CERTIFICATE_FILE": cert, "PROVIDER_FDB_TLS_KEY_FILE": key, "PROVIDER_FDB_TLS_CA_FILE": ca, "PROVIDER_FDB_TLS_VERIFY_PEERS": "Check.Valid=0"},
			want: all,
		},
		"NoKey":          {args: []string{"--fdb-tls-certificate-file=" + cert, "--fdb-tls-ca-file=" + ca}, wantErr: "they need a certificate, key and CA file"},
		"UnreadableFile": {args: []string{"--fdb-tls-certificate-file=" + cert, "--fdb-tls-key-file=" + filepath.Join(dir, "gone.key"), "--fdb-tls-ca-file=" + ca}, wantErr: "gone.key"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"PROVIDER_FDB_TLS_CERTIFICATE_FILE", "PROVIDER_FDB_TLS_KEY_FILE", "PROVIDER_FDB_TLS_CA_FILE", "PROVIDER_FDB_TLS_VERIFY_PEERS"} {
				t.Setenv(k, tc.env[k])
			}
			got, err := parseFlags(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseFlags(%v): error %v, want one containing %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.fdbTLS); diff != "" {
				t.Errorf("parseFlags(%v): the native client's TLS: -want, +got:\n%s", tc.args, diff)
			}
			_, err = nativeLocker(got)
			if tc.want != (bindings.TLS{}) && openNativeLocker(got) == nil {
				if err == nil || !strings.Contains(err.Error(), withoutClient) {
					t.Errorf("nativeLocker(...) with TLS settings, without the native client: %v, want an error containing %q", err, withoutClient)
				}
			} else if err != nil {
				t.Errorf("nativeLocker(...): %v", err)
			}
		})
	}
}

// TestProfileHandlers: with --enable-pprof the metrics server serves Go's
// profile index; without it, nothing more than the metrics.
func TestProfileHandlers(t *testing.T) {
	if h := profileHandlers(false); h != nil {
		t.Errorf("profileHandlers(false) = %v, want none", h)
	}
	index := profileHandlers(true)["/debug/pprof/"]
	if index == nil {
		t.Fatal("profileHandlers(true) serves no /debug/pprof/")
	}
	rec := httptest.NewRecorder()
	index.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/pprof/", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("/debug/pprof/: %d, body without the goroutine profile:\n%s", rec.Code, rec.Body.String())
	}
}
