package fdb

import "testing"

// TestRecoveredSince: only a recovery past writing the coordinated state,
// begun after every process started, wrote it to them.
func TestRecoveredSince(t *testing.T) {
	status := func(name string, since float64) *Status {
		s := &Status{}
		s.Cluster.RecoveryState = RecoveryState{Name: name, SecondsSinceLastRecovered: since}
		return s
	}
	procs := func(uptimes ...float64) []Process {
		var out []Process
		for _, u := range uptimes {
			out = append(out, Process{UptimeSeconds: u})
		}
		return out
	}
	cases := map[string]struct {
		reason string
		status *Status
		procs  []Process
		want   bool
	}{
		"StartedBefore": {
			reason: "Processes up longer than since the recovery were up when it wrote the state.",
			status: status(RecoveryFullyRecovered, 30), procs: procs(60, 31), want: true,
		},
		"OneStartedAfter": {
			reason: "A process started after the recovery began got nothing from it.",
			status: status(RecoveryFullyRecovered, 30), procs: procs(60, 29),
		},
		"AcceptingCommits": {
			reason: "A recovery accepting commits has written the state.",
			status: status(RecoveryAcceptingCommits, 5), procs: procs(60), want: true,
		},
		"StillRecovering": {
			reason: "A recovery not yet accepting commits may not have written it.",
			status: status(RecoveryRecruitingTransactionServers, 5), procs: procs(60),
		},
		"NoRecoveryState": {
			reason: "A status that says nothing of its recovery proves nothing.",
			status: status("", 0), procs: procs(60),
		},
		"NoProcesses": {
			reason: "Without processes there is nothing to prove it of.",
			status: status(RecoveryFullyRecovered, 30),
		},
		"NoStatus": {
			reason: "Without a status nothing is proven.",
			procs:  procs(60),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RecoveredSince(tc.status, tc.procs); got != tc.want {
				t.Errorf("\n%s\nRecoveredSince(...): got %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
