package managedkind

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

func TestSinceRecorded(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	denied := func(at metav1.Time, mutate ...func(*v1alpha1.PolicyDecision)) *v1alpha1.PolicyDecision {
		d := &v1alpha1.PolicyDecision{Action: "DeleteCluster", Targets: []string{"db"}, Result: "Denied", Rule: "fdb-deletion/protection",
			Message: "DeleteCluster db denied by fdb-deletion/protection: deletionProtection is set", Time: at}
		for _, m := range mutate {
			m(d)
		}
		return d
	}
	allowedAt := func(at time.Time) func(*v1alpha1.PolicyDecision) {
		return func(d *v1alpha1.PolicyDecision) { d.AllowedAt = &metav1.Time{Time: at} }
	}
	cases := map[string]struct {
		reason   string
		recorded *v1alpha1.PolicyDecision
		d        *v1alpha1.PolicyDecision
		want     *v1alpha1.PolicyDecision
	}{
		"Alike": {
			reason:   "A decision like the recorded one keeps its time: a retry denied for the same reason writes nothing new.",
			recorded: denied(t0),
			d:        denied(t1),
			want:     denied(t0),
		},
		"AlikeWithoutTargets": {
			reason:   "No targets and an empty list are alike, as they are once stored.",
			recorded: denied(t0, func(d *v1alpha1.PolicyDecision) { d.Targets = nil }),
			d:        denied(t1, func(d *v1alpha1.PolicyDecision) { d.Targets = []string{} }),
			want:     denied(t0, func(d *v1alpha1.PolicyDecision) { d.Targets = []string{} }),
		},
		"AlikeAllowedAtTheSameMoment": {
			reason:   "A wait's end put a second later by a later reconcile is the same moment: the recorded one stays.",
			recorded: denied(t0, allowedAt(t1.Time)),
			d:        denied(t1, allowedAt(t1.Add(time.Second))),
			want:     denied(t0, allowedAt(t1.Time)),
		},
		"AlikeAllowedLater": {
			reason:   "A wait that ends later than recorded (a new recovery restarted it) is recorded anew, though the message is the same.",
			recorded: denied(t0, allowedAt(t1.Time)),
			d:        denied(t1, allowedAt(t1.Add(time.Minute))),
			want:     denied(t0, allowedAt(t1.Add(time.Minute))),
		},
		"NothingRecorded": {
			reason: "A first decision has its own time.",
			d:      denied(t1),
			want:   denied(t1),
		},
		"OtherMessage": {
			reason:   "A decision for other values is a new one.",
			recorded: denied(t0, func(d *v1alpha1.PolicyDecision) { d.Message = "42s since last recovery, needs 120s" }),
			d:        denied(t1, func(d *v1alpha1.PolicyDecision) { d.Message = "43s since last recovery, needs 120s" }),
			want:     denied(t1, func(d *v1alpha1.PolicyDecision) { d.Message = "43s since last recovery, needs 120s" }),
		},
		"OtherResult": {
			reason:   "An allowed decision after a denial is a new one.",
			recorded: denied(t0),
			d:        denied(t1, func(d *v1alpha1.PolicyDecision) { d.Result, d.Rule = "Allowed", "" }),
			want:     denied(t1, func(d *v1alpha1.PolicyDecision) { d.Result, d.Rule = "Allowed", "" }),
		},
		"OtherTargets": {
			reason:   "The same action on other targets is a new decision.",
			recorded: denied(t0),
			d:        denied(t1, func(d *v1alpha1.PolicyDecision) { d.Targets = []string{"other"} }),
			want:     denied(t1, func(d *v1alpha1.PolicyDecision) { d.Targets = []string{"other"} }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, sinceRecorded(tc.recorded, tc.d)); diff != "" {
				t.Errorf("\n%s\nsinceRecorded(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestTakeWaitsForAFirsthandStatus: a gated step planned on a status shared
// from another's read is not taken (and its reconcile asked nothing of the
// gate) and Take says so (ErrSecondhand); a step no policy gates is.
func TestTakeWaitsForAFirsthandStatus(t *testing.T) {
	cases := map[string]struct {
		action  *policy.Action
		wantRan bool
	}{
		"GatedStep":   {action: &policy.Action{Type: apiv1alpha1.ActionDeletePod, Targets: []string{"stateless-1"}}, wantRan: false},
		"UngatedStep": {action: nil, wantRan: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ran, asked := false, false
			d := Deps{Record: event.NewNopRecorder()}
			ev := Evidence{Status: &fdb.Status{}, Firsthand: func() bool { asked = true; return false }}
			s := step.Step{Reason: "RecreatingPod", Message: "deleted the pod", Action: tc.action}
			err := d.Take(context.Background(), &v1alpha1.ProcessGroup{}, ev, s, func(context.Context) error { ran = true; return nil })
			type outcome struct{ Ran, Asked, Secondhand bool }
			want := outcome{Ran: tc.wantRan, Asked: !tc.wantRan, Secondhand: !tc.wantRan}
			if diff := cmp.Diff(want, outcome{ran, asked, errors.Is(err, ErrSecondhand)}); diff != "" {
				t.Errorf("Take (-want +got):\n%s", diff)
			}
		})
	}
}
