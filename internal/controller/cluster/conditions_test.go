package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
)

// group is ProcessGroup id carrying conditions, as its controller left it.
func group(id string, conds ...xpv2.Condition) v1alpha1.ProcessGroup {
	pg := v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: id}}
	pg.SetConditions(conds...)
	return pg
}

// healthy is a group whose last reconcile found it Ready and synced.
func healthy(id string) v1alpha1.ProcessGroup {
	return group(id, xpv2.Available(), xpv2.ReconcileSuccess())
}

// stuck is a group whose pod has not run since t0 (PodPending) and whose
// processes have been missing since t0 minus a minute, with a drifted spec
// besides, which is no failure.
func stuck(id string, t0 time.Time) v1alpha1.ProcessGroup {
	pg := group(id, xpv2.Unavailable().WithMessage("the pod is not running"), xpv2.ReconcileSuccess())
	pg.Status.AtProvider.ProcessGroupConditions = []v1alpha1.ProcessGroupCondition{
		{Type: v1alpha1.PodPending, Since: metav1.NewTime(t0)},
		{Type: v1alpha1.IncorrectPodSpec, Since: metav1.NewTime(t0.Add(-time.Hour))},
		{Type: v1alpha1.MissingProcesses, Since: metav1.NewTime(t0.Add(-time.Minute))},
	}
	return pg
}

func TestNotReady(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 10, 5, 0, 0, time.FixedZone("CET", 3600))
	denied := group("storage-2", xpv2.Available(), xpv2.ReconcileError(errors.New("policy fdb-fault-tolerance denied DeletePod: fault tolerance 0 after the deletion, 1 wanted (recovered 12 s ago)")))
	denied.Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: "DeletePod", Result: "Denied", Rule: "fdb-fault-tolerance/keep-tolerance", Message: "recovered 12 s ago"}
	allowedBefore := group("storage-2", xpv2.Available(), xpv2.ReconcileError(errors.New("cannot delete the group's pod: pods is forbidden")))
	allowedBefore.Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: "DeletePod", Result: "Allowed"}
	removing := group("storage-6", xpv2.Deleting().WithMessage("waiting for the cluster to exclude the group before it is removed"), xpv2.ReconcileSuccess())
	removing.SetDeletionTimestamp(&metav1.Time{Time: t0})
	long := strings.Repeat("x", maxCause+10)

	cases := map[string]struct {
		reason string
		groups []v1alpha1.ProcessGroup
		want   string
	}{
		"AllReady": {
			reason: "Groups that are Ready and synced are not mentioned at all.",
			groups: []v1alpha1.ProcessGroup{healthy("log-1"), healthy("storage-1")},
		},
		"NeverObserved": {
			reason: "A group its controller has not reconciled yet has no conditions.",
			groups: []v1alpha1.ProcessGroup{healthy("log-1"), group("storage-1")},
			want:   "1 of 2 process groups not ready: storage-1 (not observed yet)",
		},
		"Failing": {
			reason: "The failure conditions, oldest first, with when the oldest began in UTC (no age that ticks), then why the group is not Ready.",
			groups: []v1alpha1.ProcessGroup{stuck("storage-1", t0), healthy("storage-2")},
			want:   "1 of 2 process groups not ready: storage-1 (MissingProcesses, PodPending since 2026-01-02T09:04:00Z; the pod is not running)",
		},
		"PolicyDenied": {
			reason: "A group whose step a policy denied names the action and the rule, not the message's values.",
			groups: []v1alpha1.ProcessGroup{healthy("storage-1"), denied},
			want:   "1 of 2 process groups not ready: storage-2 (DeletePod denied by fdb-fault-tolerance/keep-tolerance)",
		},
		"ReconcileError": {
			reason: "Any other error of the group's last reconcile is given as it is.",
			groups: []v1alpha1.ProcessGroup{allowedBefore},
			want:   "1 of 1 process groups not ready: storage-2 (cannot delete the group's pod: pods is forbidden)",
		},
		"Paused": {
			reason: "A condition without a message is given by its reason.",
			groups: []v1alpha1.ProcessGroup{group("storage-1", xpv2.Available(), xpv2.ReconcilePaused())},
			want:   "1 of 1 process groups not ready: storage-1 (ReconcilePaused)",
		},
		"Removing": {
			reason: "A group being removed says so, and what its removal waits for.",
			groups: []v1alpha1.ProcessGroup{healthy("storage-1"), removing},
			want:   "1 of 2 process groups not ready: storage-6 (removing; waiting for the cluster to exclude the group before it is removed)",
		},
		"LongMessage": {
			reason: "A long message is cut.",
			groups: []v1alpha1.ProcessGroup{group("storage-1", xpv2.Unavailable().WithMessage(long))},
			want:   "1 of 1 process groups not ready: storage-1 (" + long[:maxCause-1] + "…)",
		},
		"Capped": {
			reason: "At most maxListed groups are named, in ID order; the others are counted.",
			groups: []v1alpha1.ProcessGroup{group("log-1"), stuck("log-2", t0), healthy("log-3"), group("storage-1"), group("storage-2"), group("storage-3")},
			want: "5 of 6 process groups not ready: log-1 (not observed yet), log-2 (MissingProcesses, PodPending since 2026-01-02T09:04:00Z; the pod is not running), " +
				"storage-1 (not observed yet) and 2 more",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, notReady(tc.groups)); diff != "" {
				t.Errorf("\n%s\nnotReady(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReadyCondition(t *testing.T) {
	summary := "1 of 2 process groups not ready: storage-2 (not observed yet)"
	groups := []v1alpha1.ProcessGroup{healthy("storage-1"), group("storage-2")}
	_, o := converged(2)
	st := o.status
	unreadable := &observation{groups: groups, statusErr: errors.New("cannot read the database status: timed out")}
	cases := map[string]struct {
		reason string
		o      *observation
		s      *clusterStep
		want   xpv2.Condition
	}{
		"AvailableAllReady": {
			reason: "An available database whose groups are all ready is Available without a message.",
			o:      &observation{groups: []v1alpha1.ProcessGroup{healthy("storage-1"), healthy("storage-2")}, status: st},
			want:   xpv2.Available(),
		},
		"AvailableDegraded": {
			reason: "An available database says which groups are not ready.",
			o:      &observation{groups: groups, status: st},
			want:   xpv2.Available().WithMessage(summary),
		},
		"StatusUnreadable": {
			reason: "Why the status could not be read comes first.",
			o:      unreadable,
			want:   xpv2.Unavailable().WithMessage("cannot read the database status: timed out; " + summary),
		},
		"Creating": {
			reason: "A database on its way is Creating with the step under way.",
			o:      &observation{groups: groups},
			s:      &clusterStep{Step: step.Wait("waiting for 1 pod to run")},
			want:   xpv2.Creating().WithMessage("waiting for 1 pod to run; " + summary),
		},
		"Unavailable": {
			reason: "Nothing to do and no database: Unavailable with the groups.",
			o:      &observation{groups: groups},
			want:   xpv2.Unavailable().WithMessage(summary),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, readyCondition(tc.o, tc.s), cmpopts.IgnoreFields(xpv2.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("\n%s\nreadyCondition(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
