package kubectlplugin

import (
	"bytes"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }

const includeDenied = "include storage-4 denied by fdb-inclusion/min-recovery-time: the last recovery was less than 600s ago"

func healthyCluster(mods ...func(*v1alpha1.Cluster)) *v1alpha1.Cluster {
	cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "orders"}}
	cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = "double"
	cr.SetConditions(xpv2.Available(), xpv2.ObserveMatched())
	cr.Status.AtProvider.Health = v1alpha1.ClusterHealth{Available: true, FaultTolerance: 1, RecoveryState: "fully_recovered", LastRecoveryTime: at(-time.Minute)}
	for _, m := range mods {
		m(cr)
	}
	return cr
}

func group(id string, mods ...func(*v1alpha1.ProcessGroup)) v1alpha1.ProcessGroup {
	pg := v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "orders-" + id,
		Annotations: map[string]string{"crossplane.io/external-name": id}}}
	pg.Spec.ForProvider.ProcessClass = v1alpha1.ProcessClassStorage
	pg.SetConditions(xpv2.Available(), xpv2.ReconcileSuccess())
	for _, m := range mods {
		m(&pg)
	}
	return pg
}

func TestAnalyze(t *testing.T) {
	health := Health{Ready: true, Available: true, FaultTolerance: 1, DesiredFaultTolerance: 1, RecoveryState: "fully_recovered", LastRecovery: at(-time.Minute)}
	denial := v1alpha1.PolicyDecision{Action: "Include", Targets: []string{"storage-4"}, Result: "Denied", Rule: "fdb-inclusion/min-recovery-time",
		Message: includeDenied, Time: metav1.Time{Time: now.Add(-30 * time.Second)}, AllowedAt: at(9 * time.Minute)}
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.Cluster
		groups  []v1alpha1.ProcessGroup
		want    Report
	}{
		"Healthy": {
			reason:  "Ready, up to date, every group ready: nothing needs a person.",
			cluster: healthyCluster(),
			groups:  []v1alpha1.ProcessGroup{group("storage-1")},
			want:    Report{Namespace: "team-a", Name: "orders", Verdict: VerdictHealthy, Health: health},
		},
		"OldDenialNotInForce": {
			reason: "A denial recorded before a step that has happened since is no wait.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.Status.AtProvider.LastPolicyDecision = &denial
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictHealthy, Health: health},
		},
		"WaitingOnTheInclusionDelay": {
			reason: "A denied step in force names the rule, its message and when the clock alone allows it.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.SetConditions(xpv2.UpdateRequested().WithMessage("included storage-4: removal finished"))
				cr.Status.AtProvider.LastPolicyDecision = &denial
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictWaiting, Health: health,
				Waiting: []Wait{{Resource: "Cluster/orders", PolicyDecision: denial}}},
		},
		"StepTaken": {
			reason: "A step the provider took, with no denial in force, is work in progress, said as the step says it.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.SetConditions(xpv2.UpdateRequested().WithMessage("included storage-4: removal finished"))
				cr.Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: "Include", Targets: []string{"storage-4"}, Result: "Allowed"}
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictWorking, Health: health, Doing: "included storage-4: removal finished"},
		},
		"RemovalStuck": {
			reason:  "A group removed for longer than two hours that still serves a role is a stuck removal; its own denial is a wait.",
			cluster: healthyCluster(),
			groups: []v1alpha1.ProcessGroup{group("storage-2", func(pg *v1alpha1.ProcessGroup) {
				pg.SetAnnotations(map[string]string{"crossplane.io/external-name": "storage-2", v1alpha1.AnnotationReplacement: "storage-9"})
				pg.Status.AtProvider.RemovalTime = at(-3 * time.Hour)
				pg.Status.AtProvider.Excluded, pg.Status.AtProvider.ExclusionTime = true, at(-150*time.Minute)
				pg.Status.AtProvider.Roles = []string{"storage"}
				pg.Status.AtProvider.ExclusionProgress = &v1alpha1.ExclusionProgress{BytesAtExclusion: 4 << 30, BytesLeft: 1 << 30, ObservedAt: *at(-30 * time.Minute)}
			})},
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictWorking, Health: health,
				Removals: []Removal{{ID: "storage-2", Class: "storage", Since: at(-3 * time.Hour), ExcludedSince: at(-150 * time.Minute), Roles: []string{"storage"}, Stuck: true,
					// 3 GiB moved in the 120 minutes from the exclusion to the
					// last change: the last 1 GiB takes 40 more.
					BytesLeft: 1 << 30, BytesAtExclusion: 4 << 30, DrainedBy: at(10 * time.Minute)}}},
		},
		"GroupNotReady": {
			reason:  "A group that is not ready is named with why.",
			cluster: healthyCluster(),
			groups: []v1alpha1.ProcessGroup{group("storage-3", func(pg *v1alpha1.ProcessGroup) {
				pg.SetConditions(xpv2.Unavailable().WithMessage("the pod is not running"))
			})},
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictWorking, Health: health,
				NotReady: []GroupTrouble{{ID: "storage-3", Class: "storage", Why: "the pod is not running"}}},
		},
		"Upgrading": {
			reason: "A long operation under way is work in progress, n of m done.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.Status.AtProvider.Operations = []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 2, Total: 5, Since: *at(-time.Minute)}}
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictWorking, Health: health,
				Operations: []v1alpha1.OperationProgress{{Operation: "Upgrade", Target: "7.3.69", Done: 2, Total: 5, Since: *at(-time.Minute)}}},
		},
		"Drilling": {
			reason: "A drill under way is work in progress; an ended one is not shown.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.Status.AtProvider.Drill = &v1alpha1.DrillObservation{Name: "d1", Fault: v1alpha1.DrillCrashLoop, ProcessGroups: []string{"storage-1"}, Started: *at(-time.Minute), Ends: *at(4 * time.Minute)}
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictWorking, Health: health,
				Drill: &v1alpha1.DrillObservation{Name: "d1", Fault: v1alpha1.DrillCrashLoop, ProcessGroups: []string{"storage-1"}, Started: *at(-time.Minute), Ends: *at(4 * time.Minute)}},
		},
		"DrillEnded": {
			reason: "An ended drill is no work.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.Status.AtProvider.Drill = &v1alpha1.DrillObservation{Name: "d1", Fault: v1alpha1.DrillCrashLoop, ProcessGroups: []string{"storage-1"}, Ended: true}
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictHealthy, Health: health},
		},
		"Unavailable": {
			reason: "A Cluster that is not Ready is Unavailable, whatever else it does.",
			cluster: healthyCluster(func(cr *v1alpha1.Cluster) {
				cr.SetConditions(xpv2.Unavailable().WithMessage("the database is unavailable"))
				cr.Status.AtProvider.Health.Available = false
			}),
			want: Report{Namespace: "team-a", Name: "orders", Verdict: VerdictUnavailable,
				Health: func() Health {
					h := health
					h.Ready, h.Available, h.ReadyMessage = false, false, "the database is unavailable"
					return h
				}()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Analyze(tc.cluster, tc.groups, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nAnalyze(...): -want, +got:\n%s", tc.reason, diff)
			}
			if got.NeedsAttention() != (tc.want.Verdict != VerdictHealthy) {
				t.Errorf("\n%s\nNeedsAttention() = %t for %s", tc.reason, got.NeedsAttention(), got.Verdict)
			}
		})
	}
}

func TestPrintTextWaiting(t *testing.T) {
	cr := healthyCluster(func(cr *v1alpha1.Cluster) {
		cr.SetConditions(xpv2.UpdateRequested().WithMessage("included storage-4: removal finished"))
		cr.Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: "Include", Targets: []string{"storage-4"}, Result: "Denied",
			Rule: "fdb-inclusion/min-recovery-time", Message: includeDenied, Time: metav1.Time{Time: now.Add(-30 * time.Second)}, AllowedAt: at(9 * time.Minute)}
		cr.Status.AtProvider.Operations = []v1alpha1.OperationProgress{{Operation: "Replacement", Done: 1, Total: 2, Since: *at(-2 * time.Minute)},
			{Operation: "Restore", Target: "nightly", Done: 45, Total: 100, Since: *at(-time.Minute)}}
	})
	var out bytes.Buffer
	printText(&out, []Report{Analyze(cr, nil, now)}, now)
	want := `team-a/orders: Waiting
  health: available, fault tolerance 1 of 1 desired, recovery fully_recovered, last recovery 2026-11-30T09:59:00Z (1m0s ago)
  waiting (Cluster/orders): include storage-4 denied by fdb-inclusion/min-recovery-time: the last recovery was less than 600s ago
    rule fdb-inclusion/min-recovery-time, denied since 2026-11-30T09:59:30Z (30s ago); allowed at 2026-11-30T10:09:00Z (in 9m0s) if nothing else changes
  Replacement: 1 of 2 done since 2026-11-30T09:58:00Z (2m0s ago)
  Restore nightly: 45% done since 2026-11-30T09:59:00Z (1m0s ago)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printText: -want, +got:\n%s", diff)
	}
}
