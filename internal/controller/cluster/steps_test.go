package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestDiffers(t *testing.T) {
	running := fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1, Logs: 3, CommitProxies: 2, GrvProxies: 1, Resolvers: 1}
	cases := map[string]struct {
		want fdb.DatabaseConfiguration
		diff bool
	}{
		"UnsetCountsAreFoundationDBsChoice": {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2"}},
		"SameCounts":                        {want: running},
		"OtherRedundancy":                   {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-2"}, diff: true},
		"OtherEngine":                       {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-redwood-1"}, diff: true},
		"MoreLogs":                          {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", Logs: 4}, diff: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.diff, differs(tc.want, running)); diff != "" {
				t.Errorf("differs: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestDescription(t *testing.T) {
	for name, want := range map[string]string{"db": "db", "my-db.prod": "my_db_prod", "A1_b": "A1_b"} {
		cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if got := description(cr); got != want {
			t.Errorf("description(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestDesiredConfiguration(t *testing.T) {
	logs := 5
	cr := &v1alpha1.Cluster{Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{DatabaseConfiguration: v1alpha1.DatabaseConfiguration{
		RedundancyMode: v1alpha1.RedundancyTriple, StorageEngine: "ssd-redwood-1", UsableRegions: 1, Logs: &logs,
	}}}}
	want := fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-redwood-1", UsableRegions: 1, Logs: 5}
	if diff := cmp.Diff(want, desiredConfiguration(cr)); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}
