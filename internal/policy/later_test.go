package policy

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

func TestLater(t *testing.T) {
	in := Input{
		Action: Action{Type: v1alpha1.ActionKill, Details: map[string]any{
			DetailMinimumUptimeSeconds: 10, DetailFailedSeconds: int64(20), DetailRestorableVersionAgeSeconds: 1.5,
			DetailFailureDetectionSeconds: 7200,
		}},
		Cluster:       Cluster{SecondsSinceLastRecovery: 30, TLS: TLS{Certificates: true, CertificateSecondsLeft: 100}},
		ProcessGroups: []ProcessGroup{{ID: "storage-1", Conditions: []Condition{{Type: ConditionMissingProcesses, AgeSeconds: 5}}}},
	}
	want := Input{
		Action: Action{Type: v1alpha1.ActionKill, Details: map[string]any{
			DetailMinimumUptimeSeconds: 70, DetailFailedSeconds: int64(80), DetailRestorableVersionAgeSeconds: 61.5,
			DetailFailureDetectionSeconds: 7200,
		}},
		Cluster:       Cluster{SecondsSinceLastRecovery: 90, TLS: TLS{Certificates: true, CertificateSecondsLeft: 40}},
		ProcessGroups: []ProcessGroup{{ID: "storage-1", Conditions: []Condition{{Type: ConditionMissingProcesses, AgeSeconds: 65}}}},
	}
	if diff := cmp.Diff(want, in.Later(time.Minute)); diff != "" {
		t.Errorf("Later(1m): -want +got:\n%s", diff)
	}
	if in.Cluster.SecondsSinceLastRecovery != 30 || in.ProcessGroups[0].Conditions[0].AgeSeconds != 5 || in.Action.Details[DetailMinimumUptimeSeconds] != 10 {
		t.Errorf("Later changed the input it was given: %+v", in)
	}
}

func TestAllowedAfter(t *testing.T) {
	include := func(mods ...func(*v1alpha1.SafetyPolicySpec)) Policy {
		return policyOf("fdb-inclusion", append([]func(*v1alpha1.SafetyPolicySpec){func(s *v1alpha1.SafetyPolicySpec) {
			s.Actions = []v1alpha1.ActionType{v1alpha1.ActionInclude}
		}}, mods...)...)
	}
	recovered := rule("min-recovery-time", "cluster.secondsSinceLastRecovery >= 600")
	cases := map[string]struct {
		policy    Policy
		in        Input
		wantAfter time.Duration
		wantOK    bool
	}{
		"AgePassesThreshold": {
			policy:    include(recovered),
			in:        Input{Action: Action{Type: v1alpha1.ActionInclude}, Cluster: Cluster{SecondsSinceLastRecovery: 42}},
			wantAfter: 558 * time.Second, wantOK: true,
		},
		"UnknownRecoveryTimeDoesNotAge": {
			policy: include(recovered),
			in:     Input{Action: Action{Type: v1alpha1.ActionInclude}, Cluster: Cluster{SecondsSinceLastRecovery: -1}},
		},
		"NowMoves": {
			policy:    include(rule("after", "now >= timestamp('2025-03-01T13:00:00Z')")),
			in:        Input{Action: Action{Type: v1alpha1.ActionInclude}},
			wantAfter: time.Hour, wantOK: true,
		},
		"TimeAloneDoesNot": {
			policy: include(recovered, rule("recovery-state", "cluster.recoveryState == 'fully_recovered'")),
			in:     Input{Action: Action{Type: v1alpha1.ActionInclude}, Cluster: Cluster{SecondsSinceLastRecovery: 42, RecoveryState: "recruiting_transaction_servers"}},
		},
		"LongerThanADay": {
			policy: include(rule("min-recovery-time", "cluster.secondsSinceLastRecovery >= 200000")),
			in:     Input{Action: Action{Type: v1alpha1.ActionInclude}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			after, ok := newTestEngine(t).AllowedAfter(context.Background(), []Policy{tc.policy}, tc.in)
			if after != tc.wantAfter || ok != tc.wantOK {
				t.Errorf("AllowedAfter: %s, %t; want %s, %t", after, ok, tc.wantAfter, tc.wantOK)
			}
		})
	}
}
