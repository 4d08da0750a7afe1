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

// TestDisableLocksStep: a Cluster that shares its database and asks to
// disable locks asks the policies (DisableLocks) with the acknowledgement
// and the other holder it last saw; once allowed, or without sharing, it
// asks nothing.
func TestDisableLocksStep(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	type want struct {
		kind    kind
		details map[string]any
	}
	read := &fdb.Status{}
	cases := map[string]struct {
		reason string
		mutate func(cr *v1alpha1.Cluster)
		status *fdb.Status
		want   want
	}{
		"Asked": {
			reason: "Asked, unacknowledged, no other holder seen.",
			status: read,
			want:   want{kindDisableLocks, map[string]any{"lockHolder": "", "locksAcknowledged": false}},
		},
		"AcknowledgedWhileAnotherHolds": {
			reason: "The acknowledgement and the other holder it last saw, unexpired, go to the policies.",
			status: read,
			mutate: func(cr *v1alpha1.Cluster) {
				cr.SetAnnotations(map[string]string{"foundationdb.crossplane.io/allow-disable-locks": "true"})
				cr.Status.AtProvider.GlobalLock = &v1alpha1.GlobalLockObservation{Holder: "dc2", Until: metav1.NewTime(now.Add(time.Minute))}
			},
			want: want{kindDisableLocks, map[string]any{"lockHolder": "dc2", "locksAcknowledged": true}},
		},
		"OtherHolderExpired": {
			reason: "A lock seen held by another that has since expired is held by nobody.",
			status: read,
			mutate: func(cr *v1alpha1.Cluster) {
				cr.Status.AtProvider.GlobalLock = &v1alpha1.GlobalLockObservation{Holder: "dc2", Until: metav1.NewTime(now)}
			},
			want: want{kindDisableLocks, map[string]any{"lockHolder": "", "locksAcknowledged": false}},
		},
		"AlreadyDisabled": {
			reason: "Once allowed there is nothing more to ask.",
			status: read,
			mutate: func(cr *v1alpha1.Cluster) { cr.Status.AtProvider.LocksDisabled = true },
		},
		"NotAsked": {
			reason: "Locks stay unless asked.",
			status: read,
			mutate: func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.Locks.DisableLocks = false },
		},
		"Alone": {
			reason: "A Cluster alone on its database takes no lock to disable.",
			status: read,
			mutate: func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.DatabaseConfiguration.Regions = nil },
		},
		"NoStatus": {
			reason: "Without a status (before the database exists) there is nothing to decide on: the steps that make the database go first.",
			status: nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.Cluster{}
			cr.Spec.ForProvider.DataCenter = "dc1"
			cr.Spec.ForProvider.DatabaseConfiguration.Regions = []v1alpha1.Region{{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc1"}}}}
			cr.Spec.ForProvider.Locks.DisableLocks = true
			if tc.mutate != nil {
				tc.mutate(cr)
			}
			var got want
			if s := disableLocksStep(cr, &observation{now: now, status: tc.status}); s != nil {
				got = want{s.Kind, s.Action.Details}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\ndisableLocksStep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDenyListStep: the deny list is written when it differs from what the
// Cluster last wrote, and only for a Cluster that shares its database and
// can reach it.
func TestDenyListStep(t *testing.T) {
	deny := []v1alpha1.LockDenyEntry{{ID: "dc2"}, {ID: "dc3", Allow: true}}
	cases := map[string]struct {
		reason  string
		spec    []v1alpha1.LockDenyEntry
		written []v1alpha1.LockDenyEntry
		alone   bool
		status  *fdb.Status
		want    string
	}{
		"New":         {reason: "A list not written yet is written.", spec: deny, status: &fdb.Status{}, want: "wrote the global lock's deny list: dc2 denied, dc3 allowed"},
		"Written":     {reason: "A list written already is not written again.", spec: deny, written: deny, status: &fdb.Status{}},
		"Changed":     {reason: "A changed list is written.", spec: deny[:1], written: deny, status: &fdb.Status{}, want: "wrote the global lock's deny list: dc2 denied"},
		"None":        {reason: "No list, none written: nothing to do.", status: &fdb.Status{}},
		"Alone":       {reason: "A Cluster alone on its database has no lock.", spec: deny, alone: true, status: &fdb.Status{}},
		"Unreachable": {reason: "Without a status the database may be unreachable.", spec: deny},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.Cluster{}
			if !tc.alone {
				cr.Spec.ForProvider.SeedConnectionString = "db:abc@10.0.0.1:4501"
			}
			cr.Spec.ForProvider.Locks.DenyList = tc.spec
			cr.Status.AtProvider.LockDenyList = tc.written
			var got string
			if s := denyListStep(cr, &observation{status: tc.status}); s != nil {
				got = s.Message
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\ndenyListStep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
