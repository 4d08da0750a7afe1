package managedkind

import (
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// TestKeepTransitionTimes: a condition that did not transition keeps the
// time it last did, whatever time crossplane-runtime stamped on it in
// this reconcile, so that whether a status is written never depends on
// the wall clock.
func TestKeepTransitionTimes(t *testing.T) {
	then, now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC))
	at := func(c xpv2.Condition, t metav1.Time) xpv2.Condition { c.LastTransitionTime = t; return c }
	cases := map[string]struct {
		reason string
		stored []xpv2.Condition
		set    []xpv2.Condition
		want   []xpv2.Condition
	}{
		"SetAgain": {
			reason: "Deleting set again a second later did not transition: it keeps its time.",
			stored: []xpv2.Condition{at(xpv2.Deleting(), then), at(xpv2.ReconcileSuccess(), then)},
			set:    []xpv2.Condition{at(xpv2.Deleting(), now), at(xpv2.ReconcileSuccess(), then)},
			want:   []xpv2.Condition{at(xpv2.Deleting(), then), at(xpv2.ReconcileSuccess(), then)},
		},
		"Transitioned": {
			reason: "A condition that changed keeps the time it changed.",
			stored: []xpv2.Condition{at(xpv2.Available(), then)},
			set:    []xpv2.Condition{at(xpv2.Deleting(), now)},
			want:   []xpv2.Condition{at(xpv2.Deleting(), now)},
		},
		"New": {
			reason: "A condition of a type not stored is as set.",
			set:    []xpv2.Condition{at(xpv2.Deleting(), now)},
			want:   []xpv2.Condition{at(xpv2.Deleting(), now)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stored, obj := &v1alpha1.ProcessGroup{}, &v1alpha1.ProcessGroup{}
			stored.Status.Conditions, obj.Status.Conditions = tc.stored, tc.set
			u, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(stored)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := keepTransitionTimes(obj, u); err != nil {
				t.Fatal(err)
			}
			// Conditions compare equal whatever their times (Condition.Equal):
			// compare each condition's type and time.
			times := func(cs []xpv2.Condition) map[xpv2.ConditionType]time.Time {
				out := map[xpv2.ConditionType]time.Time{}
				for _, c := range cs {
					out[c.Type] = c.LastTransitionTime.Time
				}
				return out
			}
			if diff := cmp.Diff(times(tc.want), times(obj.Status.Conditions)); diff != "" {
				t.Errorf("\n%s\nkeepTransitionTimes(...): transition times -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
