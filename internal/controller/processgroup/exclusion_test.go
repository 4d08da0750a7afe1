package processgroup

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestExclusionProgress(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	earlier := metav1.NewTime(now.Add(-time.Minute))
	holding := func(bytes int64) *fdb.Status {
		s := &fdb.Status{}
		s.Cluster.Processes = map[string]fdb.Process{
			"a": {Locality: fdb.Locality{InstanceID: "storage-1"}, Roles: []fdb.ProcessRole{{Role: fdb.RoleStorage, StoredBytes: bytes}, {Role: fdb.RoleLog, StoredBytes: 99}}},
			"b": {Locality: fdb.Locality{InstanceID: "storage-2"}, Roles: []fdb.ProcessRole{{Role: fdb.RoleStorage, StoredBytes: 7}}},
		}
		return s
	}
	cases := map[string]struct {
		reason   string
		excluded bool
		prev     *v1alpha1.ExclusionProgress
		status   *fdb.Status
		want     *v1alpha1.ExclusionProgress
	}{
		"NotExcluded": {reason: "A group that is not excluded has none.", prev: &v1alpha1.ExclusionProgress{BytesLeft: 5}, status: holding(5)},
		"FirstSeen":   {reason: "The bytes when first seen excluded are the start.", excluded: true, status: holding(1000), want: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 1000, ObservedAt: now}},
		"Draining": {reason: "Bytes that changed are recorded with when.", excluded: true, prev: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 1000, ObservedAt: earlier},
			status: holding(400), want: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: now}},
		"Unchanged": {reason: "Bytes that did not change keep their time: nothing new to write.", excluded: true, prev: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: earlier},
			status: holding(400), want: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: earlier}},
		"NoStatus": {reason: "Without a status the record stands.", excluded: true, prev: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: earlier},
			want: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: earlier}},
		"NotReporting": {reason: "A group whose processes do not report has no new figure.", excluded: true, prev: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: earlier},
			status: &fdb.Status{}, want: &v1alpha1.ExclusionProgress{BytesAtExclusion: 1000, BytesLeft: 400, ObservedAt: earlier}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := exclusionProgress(tc.excluded, tc.prev, tc.status, "storage-1", now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nexclusionProgress(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
