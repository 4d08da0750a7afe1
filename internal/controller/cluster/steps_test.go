package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// TestDiffers: the configuration drifts when a field the spec sets differs;
// the storage engine is compared by the name the status of the running
// version reports for the configured keyword, never literally.
func TestDiffers(t *testing.T) {
	running := fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1, Logs: 3, CommitProxies: 2, GrvProxies: 1, Resolvers: 1}
	engine := func(name string) fdb.DatabaseConfiguration {
		return fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: name}
	}
	wiggleEngine := func(name string) fdb.DatabaseConfiguration {
		c := engine("ssd-2")
		c.PerpetualStorageWiggleEngine = name
		return c
	}
	cases := map[string]struct {
		want, got fdb.DatabaseConfiguration
		version   string
		diff      bool
	}{
		"UnsetCountsAreFoundationDBsChoice": {want: engine("ssd-2"), got: running, version: "7.3.63"},
		"SameCounts":                        {want: running, got: running, version: "7.3.63"},
		"OtherRedundancy":                   {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-2"}, got: running, version: "7.3.63", diff: true},
		"OtherEngine":                       {want: engine("ssd-redwood-1"), got: running, version: "7.3.63", diff: true},
		"MoreLogs":                          {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", Logs: 4}, got: running, version: "7.3.63", diff: true},
		"LogRouters":                        {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", LogRouters: 4}, got: running, version: "7.3.63", diff: true},
		"RemoteLogs":                        {want: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", RemoteLogs: 4}, got: running, version: "7.3.63", diff: true},
		"SsdReportsSsd2":                    {want: engine("ssd"), got: engine("ssd-2"), version: "7.1.67"},
		"MemoryOn71ReportsMemory2":          {want: engine("memory"), got: engine("memory-2"), version: "7.1.67"},
		"MemoryOn73ReportsMemory":           {want: engine("memory"), got: engine("memory"), version: "7.3.63"},
		"Memory2On73ReportsMemory":          {want: engine("memory-2"), got: engine("memory"), version: "7.3.63"},
		"RedwoodExperimentalOn71":           {want: engine("ssd-redwood-1-experimental"), got: engine("ssd-redwood-1-experimental"), version: "7.1.67"},
		"RedwoodExperimentalOn73":           {want: engine("ssd-redwood-1-experimental"), got: engine("ssd-redwood-1"), version: "7.3.63"},
		"RedwoodOn73":                       {want: engine("ssd-redwood-1"), got: engine("ssd-redwood-1"), version: "7.3.63"},
		"OtherEngineOn71":                   {want: engine("ssd-2"), got: engine("memory-2"), version: "7.1.67", diff: true},
		"MemoryOn73ReportingMemory2":        {want: engine("memory"), got: engine("memory-2"), version: "7.3.63", diff: true},
		"RedwoodKeywordOn71IsNotTaken":      {want: engine("ssd-redwood-1"), got: engine("ssd-redwood-1-experimental"), version: "7.1.67", diff: true},
		"UnknownVersionComparesNames":       {want: engine("memory"), got: engine("memory-2"), diff: true},
		"UnknownVersionSameNames":           {want: engine("ssd-2"), got: engine("ssd-2")},
		"UnknownKeywordSameNames":           {want: engine("ssd-future"), got: engine("ssd-future"), version: "7.3.63"},
		"WiggleEngineSet":                   {want: wiggleEngine("ssd-redwood-1"), got: wiggleEngine("none"), version: "7.3.63", diff: true},
		"WiggleEngineAsReported":            {want: wiggleEngine("ssd-redwood-1-experimental"), got: wiggleEngine("ssd-redwood-1"), version: "7.3.63"},
		"WiggleEngineNone":                  {want: wiggleEngine("none"), got: wiggleEngine("none"), version: "7.3.63"},
		"WiggleEngineUnset":                 {want: engine("ssd-2"), got: wiggleEngine("ssd-redwood-1"), version: "7.3.63"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.diff, differs(tc.want, tc.got, tc.version)); diff != "" {
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
	logs, routers, remote := 5, 6, 7
	cr := &v1alpha1.Cluster{Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{DatabaseConfiguration: v1alpha1.DatabaseConfiguration{
		RedundancyMode: v1alpha1.RedundancyTriple, StorageEngine: "ssd-redwood-1", UsableRegions: 1, Logs: &logs, LogRouters: &routers, RemoteLogs: &remote,
	}}}}
	want := fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-redwood-1", UsableRegions: 1, Logs: 5, LogRouters: 6, RemoteLogs: 7}
	if diff := cmp.Diff(want, desiredConfiguration(cr)); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}
