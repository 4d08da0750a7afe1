package cluster

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// BenchmarkPlan measures planning one reconcile of a converged cluster of
// n storage groups (every step considered, none taken): the in-process work
// of a Cluster reconcile besides reading the world.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}, Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
				Version:               "7.3.63",
				DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1},
				ProcessCounts:         v1alpha1.ProcessCounts{Storage: n},
			}}}
			st := &fdb.Status{Client: fdb.ClientStatus{DatabaseStatus: fdb.DatabaseStatus{Available: true, Healthy: true}}}
			st.Cluster.Configuration.DatabaseConfiguration = fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1}
			st.Cluster.Processes = map[string]fdb.Process{}
			obs := &observation{status: st, zones: []string{"a", "b", "c"}}
			var coords []fdb.ProcessAddress
			for i := 1; i <= n; i++ {
				id, zone, ip := fmt.Sprintf("storage-%d", i), []string{"a", "b", "c"}[i%3], fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
				pg := newGroup(cr, v1alpha1.ProcessClassStorage, id, zone)
				pg.Status.AtProvider = v1alpha1.ProcessGroupObservation{Addresses: []string{ip + ":4501"}, FaultDomain: zone}
				obs.groups = append(obs.groups, *pg)
				st.Cluster.Processes[id+"-1"] = fdb.Process{Address: ip + ":4501", ClassType: "storage",
					CommandLine: workload.ProcessCommandLine(cr, v1alpha1.ProcessClassStorage, id, 1, ip, zone),
					Locality:    fdb.Locality{InstanceID: id, ProcessID: id + "-1", ZoneID: zone}}
				if i <= 3 {
					coords = append(coords, fdb.ProcessAddress(ip+":4501"))
				}
			}
			cs := fdb.ConnectionString{Description: "db", ID: "abcdefgh", Coordinators: fdb.SortedAddresses(coords)}.String()
			st.Cluster.ConnectionString = cs
			cm := workload.ConfigMap(cr, cs, densities(cr, obs.groups))
			e := &external{session: &connector.Session{ConfigMap: &corev1.ConfigMap{Data: cm.Data}, ConnectionString: cs}}
			if s := e.next(cr, obs); s != nil {
				b.Fatalf("a converged cluster plans %q", s.message)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.next(cr, obs)
			}
		})
	}
}
