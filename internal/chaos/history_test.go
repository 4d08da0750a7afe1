package chaos

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/clusterindex"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestSnapshotListsAsTheCache: the harness's stand-in for the provider's
// cache selects by namespace, label and the cache's Cluster index, and
// refuses a field the cache does not index.
func TestSnapshotListsAsTheCache(t *testing.T) {
	group := func(ns, name, cluster string) *fdbv1alpha1.ProcessGroup {
		return &fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{workload.LabelCluster: cluster}}}
	}
	s := snapshot{groupKind: {group("a", "dc1-log-1", "dc1"), group("a", "dc2-log-1", "dc2"), group("b", "dc1-log-1", "dc1")}}
	cases := map[string]struct {
		opts    []client.ListOption
		want    []string
		wantErr bool
	}{
		"ByIndex":          {opts: clusterindex.Indexed("a", "dc1"), want: []string{"a/dc1-log-1"}},
		"ByLabel":          {opts: clusterindex.Labelled("a", "dc2"), want: []string{"a/dc2-log-1"}},
		"EveryNamespace":   {opts: []client.ListOption{client.MatchingFields{clusterindex.Field: "dc1"}}, want: []string{"a/dc1-log-1", "b/dc1-log-1"}},
		"AnUnindexedField": {opts: []client.ListOption{client.MatchingFields{"spec.nodeName": "n"}}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			list := &fdbv1alpha1.ProcessGroupList{}
			err := s.list(groupKind, list, asIs, tc.opts...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("list: %v, want an error: %t", err, tc.wantErr)
			}
			var got []string
			for _, pg := range list.Items {
				got = append(got, pg.Namespace+"/"+pg.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}
}

// TestViewAsOf: a reconcile through caches that lag confirms a status as
// of the oldest snapshot it may have read, not as of the step it ran in
// (chaos seeds 853 and 1073 of the budget on 47bf664: a reconcile whose
// caches had not yet seen a group deleted confirmed the status from
// before, which looked converged).
func TestViewAsOf(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &history{}
	for i := range 5 {
		h.snaps, h.takenAt = append(h.snaps, snapshot{}), append(h.takenAt, start.Add(time.Duration(i)*time.Second))
	}
	cases := map[string]struct {
		lag  map[schema.GroupVersionKind]int
		want time.Time
	}{
		"Fresh":       {map[schema.GroupVersionKind]int{groupKind: 0, clusterKind: 0}, start.Add(4 * time.Second)},
		"OneKindLags": {map[schema.GroupVersionKind]int{groupKind: 3, clusterKind: 0}, start.Add(1 * time.Second)},
		"BeyondStart": {map[schema.GroupVersionKind]int{groupKind: 9}, start},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := &view{h: h, lag: tc.lag}
			if diff := cmp.Diff(tc.want, v.asOf()); diff != "" {
				t.Errorf("asOf: -want +got:\n%s", diff)
			}
		})
	}
}
