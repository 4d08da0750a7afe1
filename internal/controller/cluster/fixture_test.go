package cluster

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// fixtureZones are the zones of the fixture's nodes.
var fixtureZones = []string{"a", "b", "c"}

// converged is a double-redundancy Cluster of n storage groups spread over
// three zones and the observation of one reconcile in which it is exactly
// as its spec says: pods running their spec, processes reporting their
// command lines, the first three groups coordinators (by IP address: DNS
// names in the cluster file are opted into by the cases about them), the
// ConfigMap and the headless Service current. Planning it yields no step; tests change one thing.
func converged(n int) (*v1alpha1.Cluster, *observation) {
	cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns", UID: "0123456789abcdef", Generation: 1},
		Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
			Version:               "7.3.63",
			DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1},
			ProcessCounts:         v1alpha1.ProcessCounts{Storage: n},
			Routing:               v1alpha1.Routing{UseDNSInClusterFile: ptr.To(false)},
		}}}
	st := &fdb.Status{Client: fdb.ClientStatus{DatabaseStatus: fdb.DatabaseStatus{Available: true, Healthy: true}}}
	st.Cluster.Configuration.DatabaseConfiguration = fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1}
	st.Cluster.FullReplication = ptr.To(true)
	st.Cluster.Processes = map[string]fdb.Process{}
	o := &observation{status: st, zones: fixtureZones, pods: map[string]*corev1.Pod{}, database: true, service: workload.Service(cr),
		account: workload.MonitorAccount(workload.Namespace(cr)), role: workload.MonitorRole(workload.Namespace(cr)), binding: workload.MonitorRoleBinding(workload.Namespace(cr))}
	var coords []fdb.ProcessAddress
	for i := 1; i <= n; i++ {
		id, zone, ip := fmt.Sprintf("storage-%d", i), fixtureZones[i%3], fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
		pg := newGroup(cr, v1alpha1.ProcessClassStorage, id, zone)
		pg.Status.AtProvider = v1alpha1.ProcessGroupObservation{Addresses: []string{ip + ":4501"}, ProcessIDs: []string{id}, FaultDomain: zone}
		o.groups = append(o.groups, *pg)
		pod := workload.Pod(cr, pg, id)
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip}
		o.pods[pod.Name] = pod
		st.Cluster.Processes[id+"-1"] = fdb.Process{Address: ip + ":4501", ClassType: "storage", UptimeSeconds: 3600, Version: cr.Spec.ForProvider.Version,
			CommandLine: workload.ProcessCommandLine(cr, workload.Density{Class: v1alpha1.ProcessClassStorage, Processes: pg.Spec.ForProvider.ProcessesPerPod}, id, 1, workload.Placement{PublicIP: ip, Zone: zone, Machine: ""}, workload.ImageVersion(pod)),
			Locality:    fdb.Locality{InstanceID: id, ProcessID: id, ZoneID: zone}}
		if i <= 3 {
			coords = append(coords, fdb.ProcessAddress(ip+":4501"))
		}
	}
	cs := fdb.ConnectionString{Description: "db", ID: "01234567", Coordinators: fdb.SortedAddresses(coords)}.String()
	st.Client.Coordinators.QuorumReachable = len(coords) > 0
	for _, c := range fdb.SortedAddresses(coords) {
		st.Client.Coordinators.Coordinators = append(st.Client.Coordinators.Coordinators, fdb.CoordinatorStatus{Address: c, Reachable: true})
	}
	st.Cluster.ConnectionString = cs
	o.clusterFile = cs
	o.configMap = configMapData(cr, o, cs)
	o.disruptionBudget = workload.DisruptionBudget(cr, n)
	loaded()(cr, o)
	return cr, o
}
