package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

const (
	// maxListed is how many groups that are not ready the Cluster's Ready
	// condition names; it counts the others.
	maxListed = 3
	// maxCause is the longest cause, in runes, it gives for one group.
	maxCause = 100
)

// readyCondition is the Cluster's Ready condition after a reconcile that
// observed o and planned s (nil when nothing is to be done): Available
// while the database is available and configured, else Unavailable with
// why the status could not be read, Creating with the step under way, or
// Unavailable. Its message ends with the groups that are not ready
// (notReady): ProcessGroups are not among an XR's resources, so the
// Cluster is where `crossplane resource trace` ends.
func readyCondition(o *observation, s *clusterStep) xpv2.Condition {
	groups := notReady(o.groups)
	switch {
	case o.available() && o.configured():
		return xpv2.Available().WithMessage(groups)
	case o.statusErr != nil:
		return xpv2.Unavailable().WithMessage(joinNonEmpty(o.statusErr.Error(), groups))
	case s != nil:
		return xpv2.Creating().WithMessage(joinNonEmpty(s.Message, groups))
	}
	return xpv2.Unavailable().WithMessage(groups)
}

// notReady summarises the groups that are not ready, in ID order, e.g.
// "2 of 11 process groups not ready: storage-3 (MissingProcesses since
// 2026-01-02T10:04:00Z; the pod is not running), storage-4 (removing; ...)",
// naming at most maxListed; "" when every group is ready. It says only
// what the groups recorded, with no age, so it changes when a group's
// state does, not as time passes.
func notReady(groups []v1alpha1.ProcessGroup) string {
	var listed []string
	n := 0
	for i := range groups {
		why := Trouble(&groups[i])
		if why == "" {
			continue
		}
		if n++; n <= maxListed {
			listed = append(listed, fmt.Sprintf("%s (%s)", groups[i].ID(), why))
		}
	}
	if n == 0 {
		return ""
	}
	msg := fmt.Sprintf("%d of %d process groups not ready: %s", n, len(groups), strings.Join(listed, ", "))
	if n > maxListed {
		msg += fmt.Sprintf(" and %d more", n-maxListed)
	}
	return msg
}

// Trouble says what keeps group pg from being ready, "" when nothing does:
// "removing" while it is being removed; the failure conditions it
// recorded (those that get a group replaced) with when the oldest began;
// and the cause its own conditions give — the action and policy rule that
// denied its last step, another error of its last reconcile, or why it is
// not Ready.
func Trouble(pg *v1alpha1.ProcessGroup) string {
	ready, synced := pg.GetCondition(xpv2.TypeReady), pg.GetCondition(xpv2.TypeSynced)
	var cause string
	switch d := pg.Status.AtProvider.LastPolicyDecision; {
	case synced.Status == corev1.ConditionFalse && d != nil && d.Result == string(policy.ResultDenied):
		cause = fmt.Sprintf("%s denied by %s", d.Action, d.Rule)
	case synced.Status == corev1.ConditionFalse:
		cause = describe(synced)
	case ready.Status != corev1.ConditionTrue:
		cause = describe(ready)
	}
	failing := failingSince(pg)
	if cause == "" && failing == "" {
		return ""
	}
	removing := ""
	if deleting(pg) {
		removing = "removing"
	}
	return joinNonEmpty(removing, failing, cause)
}

// failingSince names the failure conditions pg recorded, oldest first, and
// when the oldest began: "PodPending, MissingProcesses since
// 2026-01-02T10:04:00Z"; "" when it recorded none.
func failingSince(pg *v1alpha1.ProcessGroup) string {
	var conds []v1alpha1.ProcessGroupCondition
	for _, c := range pg.Status.AtProvider.ProcessGroupConditions {
		if slices.Contains(failures, c.Type) {
			conds = append(conds, c)
		}
	}
	if len(conds) == 0 {
		return ""
	}
	slices.SortFunc(conds, func(a, b v1alpha1.ProcessGroupCondition) int {
		if c := a.Since.Compare(b.Since.Time); c != 0 {
			return c
		}
		return strings.Compare(string(a.Type), string(b.Type))
	})
	types := make([]string, len(conds))
	for i, c := range conds {
		types[i] = string(c.Type)
	}
	return strings.Join(types, ", ") + " since " + stamp(conds[0].Since)
}

// stamp is how a message names a time: RFC 3339 in UTC, to the second. A
// message says since when, never how long: an age would change the message,
// and the resource's status, as time passes.
func stamp(t metav1.Time) string { return t.UTC().Format(time.RFC3339) }

// describe is a group's condition in a few words: its message (cut to
// maxCause runes), else its reason, else "not observed yet" for a
// condition the group never recorded.
func describe(c xpv2.Condition) string {
	switch {
	case c.Message != "":
		if r := []rune(c.Message); len(r) > maxCause {
			return string(r[:maxCause-1]) + "…"
		}
		return c.Message
	case c.Reason != "":
		return string(c.Reason)
	}
	return "not observed yet"
}

// joinNonEmpty joins the non-empty parts with "; ".
func joinNonEmpty(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "; ")
}
