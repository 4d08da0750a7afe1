package cadence

import (
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func TestFreshnessOf(t *testing.T) {
	f := Freshness{Active: 5 * time.Second, Settled: time.Minute, MinPoll: 15 * time.Second, JitterPercentage: 10}
	settled := func(mutate ...func(*v1alpha1.ProcessGroup)) *v1alpha1.ProcessGroup {
		pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Generation: 2}}
		synced := xpv2.ReconcileSuccess()
		synced.ObservedGeneration = 2
		pg.SetConditions(xpv2.Available(), synced, xpv2.Condition{Type: xpv2.TypeUpToDate, Status: "True"})
		for _, m := range mutate {
			m(pg)
		}
		return pg
	}
	cases := map[string]struct {
		pg   *v1alpha1.ProcessGroup
		want time.Duration
	}{
		"Settled": {pg: settled(), want: 66 * time.Second},
		"OwnPollInterval": {pg: settled(func(pg *v1alpha1.ProcessGroup) {
			meta.AddAnnotations(pg, map[string]string{meta.AnnotationKeyPollInterval: "30s"})
		}), want: 33 * time.Second},
		"OwnPollIntervalRaisedToTheFloor": {pg: settled(func(pg *v1alpha1.ProcessGroup) {
			meta.AddAnnotations(pg, map[string]string{meta.AnnotationKeyPollInterval: "1s"})
		}), want: 16500 * time.Millisecond},
		"NotReady": {pg: settled(func(pg *v1alpha1.ProcessGroup) { pg.SetConditions(xpv2.Creating()) }), want: 5 * time.Second},
		"NotUpToDate": {pg: settled(func(pg *v1alpha1.ProcessGroup) {
			pg.SetConditions(xpv2.Condition{Type: xpv2.TypeUpToDate, Status: "False"})
		}), want: 5 * time.Second},
		"SpecNotSyncedYet": {pg: settled(func(pg *v1alpha1.ProcessGroup) { pg.SetGeneration(3) }), want: 5 * time.Second},
		"Deleted":          {pg: settled(func(pg *v1alpha1.ProcessGroup) { pg.SetDeletionTimestamp(&metav1.Time{}) }), want: 5 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, f.Of(tc.pg)); diff != "" {
				t.Errorf("Of: -want, +got:\n%s", diff)
			}
		})
	}
}
