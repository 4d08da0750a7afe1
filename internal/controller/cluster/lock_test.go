package cluster

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// TestReleaseLockStep: a Cluster with nothing left to do releases the
// global lock it holds, and only its own, unexpired one, while it can reach
// the database.
func TestReleaseLockStep(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	held := func(holder string, until time.Time) *v1alpha1.GlobalLockObservation {
		return &v1alpha1.GlobalLockObservation{Holder: holder, Until: metav1.NewTime(until)}
	}
	cases := map[string]struct {
		reason string
		lock   *v1alpha1.GlobalLockObservation
		status *fdb.Status
		want   kind
	}{
		"Own":         {reason: "Its own lock is released.", lock: held("dc1", now.Add(time.Minute)), status: &fdb.Status{}, want: kindReleaseLock},
		"None":        {reason: "Without a lock there is nothing to release.", status: &fdb.Status{}},
		"Another":     {reason: "Another instance's lock is never released.", lock: held("dc2", now.Add(time.Minute)), status: &fdb.Status{}},
		"Expired":     {reason: "An expired lock is nobody's.", lock: held("dc1", now), status: &fdb.Status{}},
		"Unreachable": {reason: "Without a status the database may be unreachable: the lock expires on its own.", lock: held("dc1", now.Add(time.Minute))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.Cluster{}
			cr.Spec.ForProvider.DataCenter = "dc1"
			cr.Status.AtProvider.GlobalLock = tc.lock
			var got kind
			if s := releaseLockStep(cr, &observation{now: now, status: tc.status}); s != nil {
				got = s.Kind
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nreleaseLockStep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
