package chaos

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// TestStatusAsOfTheDatabaseRead: a Cluster's or group's status is only as
// fresh as the database status its reconcile used, which the provider's
// cache may have shared from before the view it read the API server
// through (chaos seed 1777 at 1eb5a2a).
func TestStatusAsOfTheDatabaseRead(t *testing.T) {
	read := time.Date(2026, 1, 1, 7, 48, 0, 0, time.UTC)
	view := read.Add(time.Minute)
	group := &fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "dc2-log-1"}}
	group.Spec.ForProvider.ClusterName = remoteDC
	cases := map[string]struct {
		reason string
		obj    client.Object
		readAt time.Time
		want   time.Time
	}{
		"SharedOlderRead": {
			reason: "The Cluster decided on a status read before its view: it is as of the read.",
			obj:    &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: remoteDC}}, readAt: read, want: read,
		},
		"FreshRead": {
			reason: "A read after the view leaves the view the older.",
			obj:    &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: remoteDC}}, readAt: view.Add(time.Second), want: view,
		},
		"GroupOfTheCluster": {
			reason: "A group's reconcile reaches its Cluster's database.",
			obj:    group, readAt: read, want: read,
		},
		"NeverRead": {
			reason: "A Cluster whose database was never read proves nothing about it.",
			obj:    &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: primaryDC}}, readAt: read, want: time.Time{},
		},
		"OtherKinds": {
			reason: "What is not made of a database status is as of the view.",
			obj:    &corev1.ConfigMap{}, readAt: read, want: view,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(tc.readAt)
			s := newStatusReads(clk)
			s.reached(remoteDC, "db:abc@10.0.0.1:4501")
			s.read("db:abc@10.0.0.1:4501")
			if diff := cmp.Diff(tc.want, s.asOf(tc.obj, view)); diff != "" {
				t.Errorf("\n%s\nasOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
