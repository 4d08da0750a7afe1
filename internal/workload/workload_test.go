package workload

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func cluster(mod ...func(*v1alpha1.Cluster)) *v1alpha1.Cluster {
	c := &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "team"},
		Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
			Version:       "7.3.63",
			ProcessCounts: v1alpha1.ProcessCounts{Storage: 3, Log: 2, Stateless: 1},
			Image:         v1alpha1.ImageSettings{Repository: "foundationdb/fdb-kubernetes-monitor", PullPolicy: corev1.PullIfNotPresent},
		}},
	}
	for _, m := range mod {
		m(c)
	}
	return c
}

func group(class v1alpha1.ProcessClass, n int, zone string) *v1alpha1.ProcessGroup {
	return &v1alpha1.ProcessGroup{Spec: v1alpha1.ProcessGroupSpec{ForProvider: v1alpha1.ProcessGroupParameters{
		ProcessClass: class, ProcessesPerPod: n, FaultDomain: zone,
	}}}
}

func volumes(p *corev1.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		out = append(out, v.Name)
	}
	return out
}

func ports(p *corev1.Pod) []int32 {
	var out []int32
	for _, port := range p.Spec.Containers[0].Ports {
		out = append(out, port.ContainerPort)
	}
	return out
}

func TestPod(t *testing.T) {
	cases := map[string]struct {
		cluster      *v1alpha1.Cluster
		group        *v1alpha1.ProcessGroup
		id           string
		wantName     string
		wantVolumes  []string
		wantPorts    []int32
		wantSelector map[string]string
		wantImage    string
	}{
		"StorageWithTwoProcessesInAZone": {
			cluster: cluster(), group: group(v1alpha1.ProcessClassStorage, 2, "zone-a"), id: "storage-1",
			wantName: "db-storage-1", wantVolumes: []string{"shared-binaries", "config-map", "data"}, wantPorts: []int32{4501, 4503},
			wantSelector: map[string]string{"topology.kubernetes.io/zone": "zone-a"}, wantImage: "foundationdb/fdb-kubernetes-monitor:7.3.63",
		},
		"StatelessHasNoVolumeClaim": {
			cluster: cluster(), group: group(v1alpha1.ProcessClassStateless, 1, ""), id: "stateless-4",
			wantName: "db-stateless-4", wantVolumes: []string{"shared-binaries", "config-map"}, wantPorts: []int32{4501},
			wantImage: "foundationdb/fdb-kubernetes-monitor:7.3.63",
		},
		"ClusterControllerNameUsesDashes": {
			cluster: cluster(func(c *v1alpha1.Cluster) {
				c.Spec.ForProvider.FaultDomain.Key = "kubernetes.io/hostname"
				c.Spec.ForProvider.Image.Repository = "registry.example.com/fdb"
			}),
			group: group(v1alpha1.ProcessClassClusterController, 1, "node-1"), id: "cluster_controller-1",
			wantName: "db-cluster-controller-1", wantVolumes: []string{"shared-binaries", "config-map"}, wantPorts: []int32{4501},
			wantSelector: map[string]string{"kubernetes.io/hostname": "node-1"}, wantImage: "registry.example.com/fdb:7.3.63",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Pod(tc.cluster, tc.group, tc.id)
			got := []any{p.Name, p.Namespace, volumes(p), ports(p), p.Spec.NodeSelector, p.Spec.Containers[0].Image, SidecarImage(p), p.Labels[LabelProcessGroup]}
			want := []any{tc.wantName, "team", tc.wantVolumes, tc.wantPorts, tc.wantSelector, tc.wantImage, tc.wantImage, tc.id}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Pod: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestPodTemplateIsMerged(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "db"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "sidecar", Image: "busybox"}}, Tolerations: []corev1.Toleration{{Key: "fdb"}}},
		}}}
	})
	p := Pod(c, group(v1alpha1.ProcessClassLog, 1, ""), "log-1")
	got := []any{p.Labels["team"], p.Labels[LabelCluster], len(p.Spec.Containers), p.Spec.Containers[0].Name, p.Spec.Containers[1].Name, p.Spec.Containers[2].Name, len(p.Spec.Tolerations)}
	if diff := cmp.Diff([]any{"db", "db", 3, "foundationdb", SidecarContainer, "sidecar", 1}, got); diff != "" {
		t.Errorf("merged pod: -want, +got:\n%s", diff)
	}
}

func TestSpecHashFollowsTheSpec(t *testing.T) {
	pg := group(v1alpha1.ProcessClassStorage, 1, "zone-a")
	base := Pod(cluster(), pg, "storage-1").Annotations[AnnotationSpec]
	cases := map[string]struct {
		cluster  *v1alpha1.Cluster
		wantSame bool
	}{
		"SameSpec": {cluster: cluster(), wantSame: true},
		// A version is staged in place and picked up by a restart.
		"NewVersion":    {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Version = "7.3.64" }), wantSame: true},
		"NewMinor":      {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Version = "7.4.1" }), wantSame: true},
		"NewRepository": {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Image.Repository = "registry.example.com/fdb" })},
		"NewPullPolicy": {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Image.PullPolicy = corev1.PullAlways })},
		// The pod's DNS name names its namespace, the target one.
		"OtherNamespace":      {cluster: cluster(func(c *v1alpha1.Cluster) { c.Namespace = "other" })},
		"OtherMRSameTarget":   {cluster: cluster(func(c *v1alpha1.Cluster) { c.Namespace, c.Spec.ForProvider.TargetNamespace = "other", "team" }), wantSame: true},
		"IPsInTheClusterFile": {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(false) }), wantSame: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Pod(tc.cluster, pg, "storage-1").Annotations[AnnotationSpec]
			if diff := cmp.Diff(tc.wantSame, got == base); diff != "" {
				t.Errorf("hash %s vs %s: same -want, +got:\n%s", got, base, diff)
			}
		})
	}
}

func TestPVC(t *testing.T) {
	fast := "fast"
	c := cluster(func(c *v1alpha1.Cluster) {
		size := resource.MustParse("16Gi")
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {VolumeSize: &size, StorageClassName: &fast}}
	})
	storage := PVC(c, group(v1alpha1.ProcessClassStorage, 1, ""), "storage-2")
	logs := PVC(c, group(v1alpha1.ProcessClassLog, 1, ""), "log-2")
	got := []any{storage.Name, storage.Spec.Resources.Requests.Storage().String(), *storage.Spec.StorageClassName, logs.Spec.Resources.Requests.Storage().String(), logs.Spec.StorageClassName}
	want := []any{"db-storage-2-data", "16Gi", "fast", "128Gi", (*string)(nil)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PVC: -want, +got:\n%s", diff)
	}
}

func TestGroupObjectName(t *testing.T) {
	c := cluster()
	pg := group(v1alpha1.ProcessClassStorage, 1, "")
	pod := Pod(c, pg, "storage_2")
	stranger := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-2", Labels: map[string]string{LabelProcessGroup: "storage_2"}}}
	cm := ConfigMap(c, "", Densities(c))
	cases := map[string]struct {
		o    metav1.Object
		want string
	}{
		"Pod":                {pod, "db-storage-2"},
		"VolumeClaim":        {PVC(c, pg, "storage_2"), "db-storage-2"},
		"NotMadeByProvider":  {stranger, ""},
		"NotOfAProcessGroup": {cm, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, GroupObjectName(tc.o)); diff != "" {
				t.Errorf("GroupObjectName: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestConfigMap(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.StorageServersPerPod = 2
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {CustomParameters: []string{"knob_b=2", "knob_a=1"}}}
	})
	cm := ConfigMap(c, "db:abc@10.0.0.1:4501", Densities(c))
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	want := []string{"cluster-file", "fdbmonitor-conf-log-density-1", "fdbmonitor-conf-stateless-density-1", "fdbmonitor-conf-storage-density-2"}
	if diff := cmp.Diff(want, keys, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("keys: -want, +got:\n%s", diff)
	}
	storage := cm.Data["fdbmonitor-conf-storage-density-2"]
	for _, frag := range []string{"[fdbserver.1]", "[fdbserver.2]", "--public_address=$POD_IP:4503", "--locality_process_id=$INSTANCE_ID-2", "--knob_a=1 --knob_b=2", "--class=storage"} {
		if !strings.Contains(storage, frag) {
			t.Errorf("storage monitor conf lacks %q:\n%s", frag, storage)
		}
	}
	if _, ok := ConfigMap(c, "", Densities(c)).Data[KeyClusterFile]; ok {
		t.Error("a cluster file is written before there is a connection string")
	}
}

func TestCommandLine(t *testing.T) {
	line := func(port int, n int, group, processID string) string {
		return strings.Join([]string{
			"/var/fdb/shared-binaries/bin/7.3.63/fdbserver", "--class=storage",
			fmt.Sprintf("--public_address=$POD_IP:%d", port), fmt.Sprintf("--listen_address=0.0.0.0:%d", port),
			"--cluster_file=/var/fdb/data/fdb.cluster", fmt.Sprintf("--datadir=/var/fdb/data/%d", n),
			"--logdir=/var/log/fdb-trace-logs", "--locality_instance_id=" + group,
			"--locality_process_id=" + processID, "--locality_zoneid=$ZONE", "--locality_dns_name=$FDB_DNS_NAME",
		}, " ")
	}
	cases := map[string]struct {
		group      string
		n, density int
		dns        *bool
		want       string
	}{
		"DensityOne":       {group: "storage-3", n: 1, density: 1, want: line(4501, 1, "storage-3", "storage-3")},
		"DensityTwoFirst":  {group: "storage-3", n: 1, density: 2, want: line(4501, 1, "storage-3", "storage-3-1")},
		"DensityTwoSecond": {group: "storage-3", n: 2, density: 2, want: line(4503, 2, "storage-3", "storage-3-2")},
		"MonitorOne":       {group: "$INSTANCE_ID", n: 1, density: 1, want: line(4501, 1, "$INSTANCE_ID", "$INSTANCE_ID")},
		"MonitorTwoSecond": {group: "$INSTANCE_ID", n: 2, density: 2, want: line(4503, 2, "$INSTANCE_ID", "$INSTANCE_ID-2")},
		"WithoutDNS": {group: "storage-3", n: 1, density: 1, dns: ptr.To(false),
			want: strings.TrimSuffix(line(4501, 1, "storage-3", "storage-3"), " --locality_dns_name=$FDB_DNS_NAME")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.UseDNSInClusterFile = tc.dns })
			if diff := cmp.Diff(tc.want, CommandLine(c, v1alpha1.ProcessClassStorage, tc.group, tc.n, tc.density)); diff != "" {
				t.Errorf("CommandLine: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestProcessCommandLine(t *testing.T) {
	c := cluster()
	cases := map[string]struct {
		n, density int
		want       []string
	}{
		"DensityOne": {n: 1, density: 1, want: []string{
			"--public_address=10.0.0.1:4501", "--listen_address=0.0.0.0:4501", "--datadir=/var/fdb/data/1",
			"--locality_instance_id=storage-3", "--locality_process_id=storage-3", "--locality_zoneid=a",
			"--locality_dns_name=db-storage-3.db.team.svc.cluster.local",
		}},
		"DensityTwoSecond": {n: 2, density: 2, want: []string{
			"--public_address=10.0.0.1:4503", "--listen_address=0.0.0.0:4503", "--datadir=/var/fdb/data/2",
			"--locality_instance_id=storage-3", "--locality_process_id=storage-3-2", "--locality_zoneid=a",
			"--locality_dns_name=db-storage-3.db.team.svc.cluster.local",
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, arg := range strings.Fields(ProcessCommandLine(c, v1alpha1.ProcessClassStorage, "storage-3", tc.n, tc.density, "10.0.0.1", "a")) {
				if strings.Contains(arg, "address=") || strings.HasPrefix(arg, "--datadir=") || strings.HasPrefix(arg, "--locality_") {
					got = append(got, arg)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ProcessCommandLine: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestMonitorConfProcessIDs(t *testing.T) {
	c := cluster()
	cases := map[string]struct {
		density int
		want    []string
	}{
		"DensityOne": {density: 1, want: []string{"--locality_process_id=$INSTANCE_ID"}},
		"DensityTwo": {density: 2, want: []string{"--locality_process_id=$INSTANCE_ID-1", "--locality_process_id=$INSTANCE_ID-2"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, arg := range strings.Fields(MonitorConf(c, v1alpha1.ProcessClassStorage, tc.density)) {
				if strings.HasPrefix(arg, "--locality_process_id=") {
					got = append(got, arg)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("process IDs of the monitor conf: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestNodeReady(t *testing.T) {
	cases := map[string]struct {
		conditions []corev1.NodeCondition
		want       bool
	}{
		"Ready":         {conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}, want: true},
		"NotReady":      {conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}},
		"KubeletSilent": {conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}},
		"NoCondition":   {conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, NodeReady(&corev1.Node{Status: corev1.NodeStatus{Conditions: tc.conditions}})); diff != "" {
				t.Errorf("NodeReady: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestBinaryVersion(t *testing.T) {
	cases := map[string]struct {
		commandLine string
		want        string
	}{
		"Staged":        {commandLine: CommandLine(cluster(), v1alpha1.ProcessClassLog, "log-1", 1, 1), want: "7.3.63"},
		"BinaryOnly":    {commandLine: BinaryPath("7.4.1"), want: "7.4.1"},
		"ImageBinary":   {commandLine: "/usr/bin/fdbserver --class=log"},
		"Nested":        {commandLine: "/var/fdb/shared-binaries/bin/7.3.63/x/fdbserver --class=log"},
		"OtherBinary":   {commandLine: "/var/fdb/shared-binaries/bin/7.3.63/fdbcli"},
		"NoCommandLine": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, BinaryVersion(tc.commandLine)); diff != "" {
				t.Errorf("BinaryVersion(%q): -want, +got:\n%s", tc.commandLine, diff)
			}
		})
	}
}

func TestImageTag(t *testing.T) {
	cases := map[string]string{
		"foundationdb/fdb-kubernetes-monitor:7.3.63":           "7.3.63",
		"docker.io/foundationdb/fdb-kubernetes-monitor:7.3.69": "7.3.69",
		"registry.example.com:5000/fdb:7.1.57":                 "7.1.57",
		"registry.example.com:5000/fdb":                        "",
		"fdb":                                                  "",
	}
	for image, want := range cases {
		if diff := cmp.Diff(want, ImageTag(image)); diff != "" {
			t.Errorf("ImageTag(%q): -want, +got:\n%s", image, diff)
		}
	}
}

func TestStagedVersion(t *testing.T) {
	status := func(name, image string, ready, running bool) corev1.ContainerStatus {
		s := corev1.ContainerStatus{Name: name, Image: image, Ready: ready}
		if running {
			s.State.Running = &corev1.ContainerStateRunning{}
		}
		return s
	}
	cases := map[string]struct {
		statuses []corev1.ContainerStatus
		want     string
	}{
		"Ready": {statuses: []corev1.ContainerStatus{
			status(containerName, "fdb:7.3.63", true, true), status(SidecarContainer, "docker.io/fdb:7.3.69", true, true)}, want: "7.3.69"},
		"NotReady":      {statuses: []corev1.ContainerStatus{status(SidecarContainer, "fdb:7.3.69", false, true)}},
		"NotRunning":    {statuses: []corev1.ContainerStatus{status(SidecarContainer, "fdb:7.3.69", true, false)}},
		"OnlyMain":      {statuses: []corev1.ContainerStatus{status(containerName, "fdb:7.3.69", true, true)}},
		"NoStatusAtAll": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: tc.statuses}}
			if diff := cmp.Diff(tc.want, StagedVersion(p)); diff != "" {
				t.Errorf("StagedVersion: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestDNSNames(t *testing.T) {
	cases := map[string]struct {
		cluster *v1alpha1.Cluster
		want    string
	}{
		"Default":         {cluster: cluster(), want: "db-storage-3.db.team.svc.cluster.local"},
		"TargetNamespace": {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.TargetNamespace = "fdb" }), want: "db-storage-3.db.fdb.svc.cluster.local"},
		"Domain":          {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.DNSDomain = "k8s.example" }), want: "db-storage-3.db.team.svc.k8s.example"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := tc.cluster
			pod := Pod(c, group(v1alpha1.ProcessClassStorage, 1, "a"), "storage-3")
			got := map[string]string{"DNSName": DNSName(c, "storage-3"), "PodDNSName": PodDNSName(c, pod)}
			for _, e := range pod.Spec.Containers[0].Env {
				if e.Name == envDNSName {
					got["env"] = e.Value
				}
			}
			want := map[string]string{"DNSName": tc.want, "PodDNSName": tc.want, "env": tc.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
			svc := Service(c)
			if svc.Name != pod.Spec.Subdomain || svc.Namespace != pod.Namespace || svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
				t.Errorf("Service %s/%s clusterIP %q publishNotReady %t; pod subdomain %q in %s: want a headless Service publishing not-ready pods named as the subdomain",
					svc.Namespace, svc.Name, svc.Spec.ClusterIP, svc.Spec.PublishNotReadyAddresses, pod.Spec.Subdomain, pod.Namespace)
			}
			for k, v := range svc.Spec.Selector {
				if pod.Labels[k] != v {
					t.Errorf("Service selector %s=%s does not select the pod (labels %v)", k, v, pod.Labels)
				}
			}
			if pod.Spec.Hostname != pod.Name {
				t.Errorf("pod hostname %q, want its name %q", pod.Spec.Hostname, pod.Name)
			}
		})
	}
	if got := PodDNSName(cluster(), &corev1.Pod{}); got != "" {
		t.Errorf("PodDNSName of a pod without hostname and subdomain = %q, want none", got)
	}
}
