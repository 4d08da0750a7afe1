package workload

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func TestDrilledPod(t *testing.T) {
	drilling := func(fault v1alpha1.DrillFault, ended bool, specName string) func(*v1alpha1.Cluster) {
		return func(c *v1alpha1.Cluster) {
			c.Spec.ForProvider.Drill = &v1alpha1.Drill{Name: specName, Fault: fault, ProcessGroups: []string{"storage-1"}}
			c.Status.AtProvider.Drill = &v1alpha1.DrillObservation{Name: "d1", Fault: fault, ProcessGroups: []string{"storage-1"},
				Started: metav1.Now(), Ends: metav1.NewTime(time.Now().Add(time.Hour)), Ended: ended}
		}
	}
	noSchedule := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: LabelNoSchedule, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}},
		}}},
	}}}
	type want struct {
		command  []string
		affinity *corev1.Affinity
		starts   bool
		// config is the ConfigMap key the pod's monitor reads.
		config string
	}
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.Cluster
		group   string
		want    want
	}{
		"NoDrill": {reason: "A pod no drill names runs the monitor.", cluster: cluster(), group: "storage-1", want: want{starts: true, config: "fdbmonitor-conf-storage-density-1"}},
		"EmptyMonitorConf": {reason: "An empty-monitor-conf drill's pod reads a configuration of its own.", cluster: cluster(drilling(v1alpha1.DrillEmptyMonitorConf, false, "d1")), group: "storage-1",
			want: want{starts: true, config: "fdbmonitor-conf-storage-density-1-empty"}},
		"CrashLoop":      {reason: "A crash-loop drill's pod runs a command the image does not have.", cluster: cluster(drilling(v1alpha1.DrillCrashLoop, false, "d1")), group: "storage-1", want: want{command: []string{DrillCommand}, config: "fdbmonitor-conf-storage-density-1"}},
		"NoSchedule":     {reason: "A no-schedule drill's pod needs a node label no node has.", cluster: cluster(drilling(v1alpha1.DrillNoSchedule, false, "d1")), group: "storage-1", want: want{affinity: noSchedule, starts: true, config: "fdbmonitor-conf-storage-density-1"}},
		"OtherGroup":     {reason: "A group the drill does not name is untouched.", cluster: cluster(drilling(v1alpha1.DrillCrashLoop, false, "d1")), group: "storage-2", want: want{starts: true, config: "fdbmonitor-conf-storage-density-1"}},
		"Ended":          {reason: "An ended drill's fault is taken out.", cluster: cluster(drilling(v1alpha1.DrillCrashLoop, true, "d1")), group: "storage-1", want: want{starts: true, config: "fdbmonitor-conf-storage-density-1"}},
		"SpecNamesOther": {reason: "A drill the spec no longer names is over.", cluster: cluster(drilling(v1alpha1.DrillCrashLoop, false, "d2")), group: "storage-1", want: want{starts: true, config: "fdbmonitor-conf-storage-density-1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pod := Pod(tc.cluster, group(v1alpha1.ProcessClassStorage, 1, "z1"), tc.group)
			got := want{command: MainContainer(pod).Command, affinity: pod.Spec.Affinity, starts: MonitorStarts(pod)}
			for _, v := range pod.Spec.Volumes {
				if v.ConfigMap == nil {
					continue
				}
				for _, item := range v.ConfigMap.Items {
					if item.Path == monitorConfigFile {
						got.config = item.Key
					}
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nPod(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEmptyMonitorConfRunsNoServer(t *testing.T) {
	d := Density{Class: v1alpha1.ProcessClassStorage, Processes: 1, Empty: true}
	cm := ConfigMap(cluster(), "db:abc@10.0.0.1:4501", map[Density]bool{d: true})
	var cfg MonitorConfig
	if err := json.Unmarshal([]byte(cm.Data[monitorConfigKey(d)]), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.RunServers == nil || *cfg.RunServers {
		t.Errorf("an EmptyMonitorConf density's configuration runServers %v, want false", cfg.RunServers)
	}
}
