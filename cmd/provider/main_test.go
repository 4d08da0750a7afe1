package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlags(t *testing.T) {
	t.Setenv("FDB_BINARY_DIR", "")
	defaults := flags{
		syncInterval: time.Hour, pollInterval: time.Minute, pollStateMetric: 5 * time.Second,
		maxReconcileRate: 10, metricsAddress: ":8080", healthAddress: ":8081", fdbBackend: "real", fdbBinaryDir: "/usr/bin/fdb",
		leaderElection: true,
	}
	cases := map[string]struct {
		args    []string
		want    flags
		wantErr string
	}{
		"Defaults": {want: defaults},
		"CrossplaneStyleFlags": {
			args: []string{"--debug", "--leader-election", "--poll=10s", "--max-reconcile-rate=3", "--fdb-backend=sim"},
			want: func() flags {
				f := defaults
				f.debug, f.leaderElection, f.pollInterval, f.maxReconcileRate, f.fdbBackend = true, true, 10*time.Second, 3, "sim"
				return f
			}(),
		},
		"LocalRunWithoutLeaderElection": {
			args: []string{"--leader-election=false"},
			want: func() flags { f := defaults; f.leaderElection = false; return f }(),
		},
		"UnknownBackend":  {args: []string{"--fdb-backend=mock"}, wantErr: `--fdb-backend must be real or sim, not "mock"`},
		"ZeroRate":        {args: []string{"--max-reconcile-rate=0"}, wantErr: "--max-reconcile-rate must be at least 1"},
		"UnknownFlag":     {args: []string{"--nope"}, wantErr: "flag provided but not defined: -nope"},
		"BadPollDuration": {args: []string{"--poll=soon"}, wantErr: `invalid value "soon" for flag -poll`},
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
