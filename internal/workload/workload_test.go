package workload

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
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
			wantName: "db-storage-1", wantVolumes: []string{"shared-binaries", "fdb-trace-logs", "config-map", "data"}, wantPorts: []int32{4501, 4503},
			wantSelector: map[string]string{"topology.kubernetes.io/zone": "zone-a"}, wantImage: "foundationdb/fdb-kubernetes-monitor:7.3.63",
		},
		"StatelessHasAnEmptyDataDirectory": {
			cluster: cluster(), group: group(v1alpha1.ProcessClassStateless, 1, ""), id: "stateless-4",
			wantName: "db-stateless-4", wantVolumes: []string{"shared-binaries", "fdb-trace-logs", "config-map", "data"}, wantPorts: []int32{4501},
			wantImage: "foundationdb/fdb-kubernetes-monitor:7.3.63",
		},
		"ClusterControllerNameUsesDashes": {
			cluster: cluster(func(c *v1alpha1.Cluster) {
				c.Spec.ForProvider.FaultDomain.Key = "kubernetes.io/hostname"
				c.Spec.ForProvider.Image.Repository = "registry.example.com/fdb"
			}),
			group: group(v1alpha1.ProcessClassClusterController, 1, "node-1"), id: "cluster_controller-1",
			wantName: "db-cluster-controller-1", wantVolumes: []string{"shared-binaries", "fdb-trace-logs", "config-map", "data"}, wantPorts: []int32{4501},
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

// TestPodStartsTheMonitor checks what the monitor needs of its pod: the
// pod it runs in, its configuration as config.json beside a cluster file
// that may not exist yet, a log directory it may write, and a sidecar that
// is ready once it staged its version's fdbserver.
func TestPodStartsTheMonitor(t *testing.T) {
	p := Pod(cluster(), group(v1alpha1.ProcessClassLog, 1, "zone-a"), "log-1")
	env := map[string]*corev1.EnvVarSource{}
	for _, e := range p.Spec.Containers[0].Env {
		env[e.Name] = e.ValueFrom
	}
	var configVolume *corev1.ConfigMapVolumeSource
	for _, v := range p.Spec.Volumes {
		if v.ConfigMap != nil {
			configVolume = v.ConfigMap
		}
	}
	got := map[string]any{
		"args":           p.Spec.Containers[0].Args,
		"podName":        env["FDB_POD_NAME"],
		"podNamespace":   env["FDB_POD_NAMESPACE"],
		"configItems":    configVolume.Items,
		"configOptional": configVolume.Optional,
		"logMount":       p.Spec.Containers[0].VolumeMounts[2],
		"sidecarProbe":   p.Spec.Containers[1].ReadinessProbe.Exec.Command,
	}
	want := map[string]any{
		"args":         []string{"--input-dir", "/var/dynamic-conf", "--input-monitor-conf", "config.json", "--log-path", "/var/log/fdb-trace-logs/monitor.log", "--process-count", "1"},
		"podName":      fieldRef("metadata.name"),
		"podNamespace": fieldRef("metadata.namespace"),
		"configItems": []corev1.KeyToPath{
			{Key: "cluster-file", Path: "fdb.cluster"}, {Key: "fdbmonitor-conf-log-density-1", Path: "config.json"},
		},
		"configOptional": ptr.To(true),
		"logMount":       corev1.VolumeMount{Name: "fdb-trace-logs", MountPath: "/var/log/fdb-trace-logs"},
		"sidecarProbe":   []string{"sh", "-c", "test -x /var/fdb/shared-binaries/bin/$(cat /var/fdb/version)/fdbserver"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pod: -want, +got:\n%s", diff)
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

// TestPVCFromTemplate: the class's volumeClaimTemplate is the claim's base,
// under the provider's name, namespace and labels; volumeSize and
// storageClassName override it.
func TestPVCFromTemplate(t *testing.T) {
	slow, fast, block := "slow", "fast", corev1.PersistentVolumeBlock
	template := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "ignored", Labels: map[string]string{"team": "data", LabelProcessGroup: "stolen"}, Annotations: map[string]string{"backup": "daily"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}, VolumeMode: &block, StorageClassName: &slow,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("64Gi")}},
		},
	}
	cases := map[string]struct {
		settings v1alpha1.ProcessSettings
		want     corev1.PersistentVolumeClaimSpec
	}{
		"Template": {
			settings: v1alpha1.ProcessSettings{VolumeClaimTemplate: template},
			want:     template.Spec,
		},
		"SettingsOverride": {
			settings: func() v1alpha1.ProcessSettings {
				size := resource.MustParse("16Gi")
				return v1alpha1.ProcessSettings{VolumeClaimTemplate: template, VolumeSize: &size, StorageClassName: &fast}
			}(),
			want: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}, VolumeMode: &block, StorageClassName: &fast,
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("16Gi")}},
			},
		},
		"NoTemplate": {
			want: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(defaultVolume)}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(func(c *v1alpha1.Cluster) {
				c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": tc.settings}
			})
			got := PVC(c, group(v1alpha1.ProcessClassStorage, 1, ""), "storage-2")
			if diff := cmp.Diff(tc.want, got.Spec); diff != "" {
				t.Errorf("spec: -want, +got:\n%s", diff)
			}
			if got.Name != "db-storage-2-data" || got.Labels[LabelProcessGroup] != "storage-2" {
				t.Errorf("name %q, labels %v: want the provider's", got.Name, got.Labels)
			}
			if tc.settings.VolumeClaimTemplate != nil && (got.Labels["team"] != "data" || got.Annotations["backup"] != "daily") {
				t.Errorf("labels %v, annotations %v: want the template's kept", got.Labels, got.Annotations)
			}
		})
	}
	if template.Labels[LabelProcessGroup] != "stolen" {
		t.Errorf("PVC changed the template's labels")
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
		c.Spec.ForProvider.LogServersPerPod = 3
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {CustomParameters: []string{"knob_b=2", "knob_a=1"}}}
	})
	cm := ConfigMap(c, "db:abc@10.0.0.1:4501", Densities(c))
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	want := []string{"cluster-file", "fdbmonitor-conf-log-density-3", "fdbmonitor-conf-stateless-density-1", "fdbmonitor-conf-storage-density-2"}
	if diff := cmp.Diff(want, keys, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("keys: -want, +got:\n%s", diff)
	}
	var storage MonitorConfig
	if err := json.Unmarshal([]byte(cm.Data["fdbmonitor-conf-storage-density-2"]), &storage); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(MonitorConfiguration(c, Density{Class: v1alpha1.ProcessClassStorage, Processes: 2}), storage); diff != "" {
		t.Errorf("storage monitor configuration: -want, +got:\n%s", diff)
	}
	if _, ok := ConfigMap(c, "", Densities(c)).Data[KeyClusterFile]; ok {
		t.Error("a cluster file is written before there is a connection string")
	}
}

// TestMonitorConfigFormat checks the JSON the monitor reads: its version,
// and arguments of the monitor's types with their field names.
func TestMonitorConfigFormat(t *testing.T) {
	raw := ConfigMap(cluster(), "", map[Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 2}: true}).Data["fdbmonitor-conf-storage-density-2"]
	cases := map[string]string{
		"Version":       `{"version":"7.3.63","runServers":false,"arguments":[`,
		"Literal":       `{"value":"--class=storage"}`,
		"PublicAddress": `{"type":"Concatenate","values":[{"value":"--public_address=["},{"type":"Environment","source":"FDB_PUBLIC_IP"},{"value":"]:"},{"type":"ProcessNumber","multiplier":2,"offset":4499}]}`,
		"LogGroup":      `{"value":"--loggroup=db"}`,
		"DataDir":       `{"type":"Concatenate","values":[{"value":"--datadir=/var/fdb/data/"},{"type":"ProcessNumber"}]}`,
		"ProcessID": `{"type":"Concatenate","values":[{"value":"--locality_process_id="},{"type":"Environment","source":"FDB_INSTANCE_ID"},` +
			`{"value":"-"},{"type":"ProcessNumber"}]}`,
		"Zone":        `{"type":"Concatenate","values":[{"value":"--locality_zoneid="},{"type":"Environment","source":"FDB_ZONE_ID"}]}`,
		"SeedCluster": `{"value":"--seed_cluster_file=/var/dynamic-conf/fdb.cluster"}`,
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(raw, want) {
				t.Errorf("the monitor configuration lacks %s:\n%s", want, raw)
			}
		})
	}
}

// variables are the environment variables arguments refer to, sorted.
func variables(args []Argument) []string {
	var out []string
	for _, a := range args {
		if a.Type == ArgumentEnvironment {
			out = append(out, a.Source)
		}
		out = append(out, variables(a.Values)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mountedConfig is the monitor configuration pod p reads from ConfigMap
// cm: the key its config volume mounts as the monitor's config.json.
func mountedConfig(t *testing.T, p *corev1.Pod, cm *corev1.ConfigMap) MonitorConfig {
	t.Helper()
	for _, v := range p.Spec.Volumes {
		if v.ConfigMap == nil || v.ConfigMap.Name != cm.Name {
			continue
		}
		for _, item := range v.ConfigMap.Items {
			if item.Path != "config.json" {
				continue
			}
			raw, ok := cm.Data[item.Key]
			if !ok {
				t.Fatalf("the pod mounts %s, which the ConfigMap lacks", item.Key)
			}
			var cfg MonitorConfig
			if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
				t.Fatal(err)
			}
			return cfg
		}
	}
	t.Fatal("the pod mounts no monitor configuration")
	return MonitorConfig{}
}

// TestPodRunsItsMonitorConfiguration renders the pod and the ConfigMap of
// a group of every class and density, placed in a fault domain or not,
// with the cluster file naming coordinators by DNS name or IP: the
// configuration the pod mounts refers to no variable its main container
// lacks, and expanded with the environment the running pod has, it gives
// each process the command line the provider expects, on its port, with
// its process ID.
func TestPodRunsItsMonitorConfiguration(t *testing.T) {
	const ip, serviceIP, node = "10.1.2.3", "10.96.0.5", "node-7"
	type process struct {
		Binary        string
		Port          int32
		PublicAddress string
		ListenAddress string
		ProcessID     string
		DataDir       string
		CommandLine   string
	}
	args := func(line string) map[string]string {
		out := map[string]string{}
		for _, a := range strings.Fields(line) {
			if k, v, ok := strings.Cut(a, "="); ok {
				out[k] = v
			}
		}
		return out
	}
	clusters := map[string]*v1alpha1.Cluster{
		"DNSNames": cluster(func(c *v1alpha1.Cluster) {
			c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {CustomParameters: []string{"knob_b=2", "knob_a=1"}}}
		}),
		"IPAddresses": cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(false) }),
		"ServiceIPs":  cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.PublicIPSource = v1alpha1.PublicIPSourceService }),
	}
	placements := map[string]struct {
		faultDomain, wantZone string
	}{
		"InAFaultDomain": {faultDomain: "zone-b", wantZone: "zone-b"},
		"Unplaced":       {wantZone: node},
	}
	for cname, c := range clusters {
		for _, class := range v1alpha1.ProcessClasses {
			for _, density := range []int{1, 2, 3} {
				for pname, placement := range placements {
					t.Run(fmt.Sprintf("%s/%s/%d/%s", cname, class, density, pname), func(t *testing.T) {
						id := string(class) + "-4"
						g := group(class, density, placement.faultDomain)
						g.Spec.ForProvider.PublicIPSource = c.Spec.ForProvider.Routing.PublicIPSource
						pod := Pod(c, g, id)
						// A group known by its Service's IP is known by
						// serviceIP and listens on the pod's.
						public := ip
						if g.Spec.ForProvider.PublicIPSource.Service() {
							public = serviceIP
							pod.Annotations[AnnotationPublicIP] = serviceIP
						}
						cfg := mountedConfig(t, pod, ConfigMap(c, "db:abc@10.0.0.1:4501", map[Density]bool{GroupDensity(g): true}))
						defined := map[string]bool{}
						for _, e := range pod.Spec.Containers[0].Env {
							defined[e.Name] = true
						}
						var undefined []string
						for _, v := range variables(cfg.Arguments) {
							if !defined[v] {
								undefined = append(undefined, v)
							}
						}
						if diff := cmp.Diff([]string(nil), undefined); diff != "" {
							t.Errorf("variables the configuration refers to that the pod does not set: -want, +got:\n%s", diff)
						}

						pod.Spec.NodeName, pod.Status.PodIP = node, ip
						env := MonitorEnvironment(pod)
						var want, got []process
						for n := 1; n <= ProcessCount(pod); n++ {
							line, err := cfg.CommandLine(n, env, ImageVersion(pod))
							if err != nil {
								t.Fatal(err)
							}
							a := args(line)
							got = append(got, process{
								Binary: strings.Fields(line)[0],
								Port:   pod.Spec.Containers[0].Ports[n-1].ContainerPort, PublicAddress: a["--public_address"], ListenAddress: a["--listen_address"],
								ProcessID: a["--locality_process_id"], DataDir: a["--datadir"], CommandLine: line,
							})
							want = append(want, process{
								// A new pod's image is of the configured
								// version: the monitor runs its own binary.
								Binary: "/usr/bin/fdbserver",
								Port:   int32(fdb.ProcessPort(n)), PublicAddress: fmt.Sprintf("[%s]:%d", public, fdb.ProcessPort(n)),
								ListenAddress: listenAddress(public != ip, ip, n),
								ProcessID:     fdb.ProcessID(id, n, density), DataDir: fmt.Sprintf("/var/fdb/data/%d", n),
								CommandLine: ProcessCommandLine(c, GroupDensity(g), id, n, Placement{PublicIP: public, PodIP: ip, Zone: placement.wantZone, Machine: node}, ImageVersion(pod)),
							})
						}
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("processes the monitor starts: -want, +got:\n%s", diff)
						}
						if diff := cmp.Diff(placement.wantZone, args(got[0].CommandLine)["--locality_zoneid"]); diff != "" {
							t.Errorf("zone: -want, +got:\n%s", diff)
						}
					})
				}
			}
		}
	}
}

// listenAddress is the --listen_address of the n-th process on ip, when
// it has one.
func listenAddress(has bool, ip string, n int) string {
	if !has {
		return ""
	}
	return fmt.Sprintf("[%s]:%d", ip, fdb.ProcessPort(n))
}

// TestProcessCommandLine: the command line of a process as FoundationDB
// reports it, argv[0] included: fdb-kubernetes-monitor runs its image's
// /usr/bin/fdbserver for a configured version of the same major.minor (a
// patch staged in place keeps it), the staged binary of the configured
// version otherwise; the arguments follow in the configuration's order.
func TestProcessCommandLine(t *testing.T) {
	line := func(binary string, n int, processID, extra string) string {
		port := fdb.ProcessPort(n)
		return strings.Join([]string{
			binary, "--class=storage",
			fmt.Sprintf("--public_address=[10.0.0.1]:%d", port),
			"--cluster_file=/var/fdb/data/fdb.cluster", "--seed_cluster_file=/var/dynamic-conf/fdb.cluster",
			fmt.Sprintf("--datadir=/var/fdb/data/%d", n), "--logdir=/var/log/fdb-trace-logs", "--loggroup=db",
			"--locality_instance_id=storage-3", "--locality_process_id=" + processID, "--locality_machineid=node-1", "--locality_zoneid=a",
		}, " ") + extra
	}
	const (
		dns    = " --locality_dns_name=db-storage-3.db.team.svc.cluster.local"
		image  = "/usr/bin/fdbserver"
		staged = "/var/fdb/shared-binaries/bin/7.3.63/fdbserver"
	)
	cases := map[string]struct {
		n, density   int
		dns          *bool
		params       []string
		dataCenter   string
		imageVersion string
		want         string
	}{
		"DensityOne": {n: 1, density: 1, imageVersion: "7.3.63", want: line(image, 1, "storage-3", dns)},
		"DataCenter": {n: 1, density: 1, dataCenter: "dc1", params: []string{"knob_a=1"}, imageVersion: "7.3.63",
			want: line(image, 1, "storage-3", dns+" --locality_dcid=dc1 --knob_a=1")},
		"DensityTwoFirst":    {n: 1, density: 2, imageVersion: "7.3.63", want: line(image, 1, "storage-3-1", dns)},
		"DensityTwoSecond":   {n: 2, density: 2, imageVersion: "7.3.63", want: line(image, 2, "storage-3-2", dns)},
		"WithoutDNS":         {n: 1, density: 1, dns: ptr.To(false), imageVersion: "7.3.63", want: line(image, 1, "storage-3", "")},
		"CustomParameters":   {n: 1, density: 1, params: []string{"knob_b=2", "knob_a=1"}, imageVersion: "7.3.63", want: line(image, 1, "storage-3", dns+" --knob_a=1 --knob_b=2")},
		"PatchStagedInPlace": {n: 1, density: 1, imageVersion: "7.3.60", want: line(image, 1, "storage-3", dns)},
		"MinorStagedInPlace": {n: 1, density: 1, imageVersion: "7.1.67", want: line(staged, 1, "storage-3", dns)},
		"UnknownImage":       {n: 1, density: 1, want: line(staged, 1, "storage-3", dns)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(func(c *v1alpha1.Cluster) {
				c.Spec.ForProvider.Routing.UseDNSInClusterFile = tc.dns
				c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {CustomParameters: tc.params}}
				c.Spec.ForProvider.DataCenter = tc.dataCenter
			})
			got := ProcessCommandLine(c, Density{Class: v1alpha1.ProcessClassStorage, Processes: tc.density}, "storage-3", tc.n, Placement{PublicIP: "10.0.0.1", Zone: "a", Machine: "node-1"}, tc.imageVersion)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ProcessCommandLine: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestMonitorConfigCommandLine checks how the monitor generates
// arguments: a variable that is not set refuses the configuration, an
// empty one is an empty value.
func TestMonitorConfigCommandLine(t *testing.T) {
	type result struct {
		Line string
		Err  string
	}
	cfg := func(args ...Argument) MonitorConfig { return MonitorConfig{Version: "7.3.63", Arguments: args} }
	cases := map[string]struct {
		cfg  MonitorConfig
		env  map[string]string
		want result
	}{
		"Literals": {cfg: cfg(literal("--class=log"), Argument{Type: ArgumentLiteral, Value: "--knob_a=1"}),
			want: result{Line: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver --class=log --knob_a=1"}},
		"ProcessNumber": {cfg: cfg(prefixed("--datadir=/d/", processNumber), prefixed("--public_address=[10.0.0.1]:", processPort(false)),
			prefixed("--locality_x=", Argument{Type: ArgumentProcessNumber, Multiplier: 3, Offset: 1})),
			want: result{Line: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver --datadir=/d/2 --public_address=[10.0.0.1]:4503 --locality_x=7"}},
		"IPList": {cfg: cfg(prefixed("--public_address=[", Argument{Type: ArgumentIPList, Source: EnvPublicIP, IPFamily: 6}, literal("]:4501"))),
			env:  map[string]string{EnvPublicIP: "10.0.0.1,fd00::1"},
			want: result{Line: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver --public_address=[fd00::1]:4501"}},
		"IPListWithoutTheFamily": {cfg: cfg(Argument{Type: ArgumentIPList, Source: EnvPublicIP, IPFamily: 6}), env: map[string]string{EnvPublicIP: "10.0.0.1"},
			want: result{Err: `cannot expand the monitor configuration: no IP of family 6 in FDB_PUBLIC_IP="10.0.0.1"`}},
		"IPListOfAnotherFamily": {cfg: cfg(Argument{Type: ArgumentIPList, Source: EnvPublicIP, IPFamily: 5}), env: map[string]string{EnvPublicIP: "10.0.0.1"},
			want: result{Err: "cannot expand the monitor configuration: unsupported IP family 5"}},
		"RefusedByFdbserver": {cfg: cfg(literal("--bogus=1")),
			want: result{Err: "cannot start fdbserver: fdbserver 7.3.63: unknown option: `--bogus'"}},
		"Variable": {cfg: cfg(locality("zoneid", EnvZoneID)), env: map[string]string{EnvZoneID: "zone-a"},
			want: result{Line: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver --locality_zoneid=zone-a"}},
		"EmptyVariable": {cfg: cfg(locality("zoneid", EnvZoneID)), env: map[string]string{EnvZoneID: ""},
			want: result{Line: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver --locality_zoneid="}},
		"MissingVariable": {cfg: cfg(literal("--class=log"), locality("zoneid", EnvZoneID)), env: map[string]string{EnvInstanceID: "log-1"},
			want: result{Err: "cannot expand the monitor configuration: environment variable FDB_ZONE_ID is not set"}},
		"UnknownType": {cfg: cfg(Argument{Type: "Bogus", Source: EnvPublicIP}),
			want: result{Err: `cannot expand the monitor configuration: unknown argument type "Bogus"`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			line, err := tc.cfg.CommandLine(2, tc.env, "7.1.67")
			got := result{Line: line}
			if err != nil {
				got.Err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CommandLine: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestMonitorEnvironment(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-log-1", Namespace: "team"},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "foundationdb", Env: []corev1.EnvVar{
			{Name: "LITERAL", Value: "x"},
			{Name: "EMPTY"},
			{Name: "POD", ValueFrom: fieldRef("metadata.name")},
			{Name: "NAMESPACE", ValueFrom: fieldRef("metadata.namespace")},
			{Name: "NODE", ValueFrom: fieldRef("spec.nodeName")},
			{Name: "IP", ValueFrom: fieldRef("status.podIP")},
			{Name: "HOST_IP", ValueFrom: fieldRef("status.hostIP")},
			{Name: "SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}},
			{Name: "LITERAL", Value: "last wins"},
		}}, {Name: SidecarContainer, Env: []corev1.EnvVar{{Name: "SIDECAR", Value: "y"}}}}},
		Status: corev1.PodStatus{PodIP: "10.0.0.1"},
	}
	want := map[string]string{"LITERAL": "last wins", "EMPTY": "", "POD": "db-log-1", "NAMESPACE": "team", "NODE": "node-1", "IP": "10.0.0.1"}
	if diff := cmp.Diff(want, MonitorEnvironment(pod)); diff != "" {
		t.Errorf("MonitorEnvironment: -want, +got:\n%s", diff)
	}
	if got := MonitorEnvironment(&corev1.Pod{}); got != nil {
		t.Errorf("MonitorEnvironment of a pod without a main container = %v, want none", got)
	}
}

func TestProcessCount(t *testing.T) {
	withArgs := func(args ...string) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "foundationdb", Args: args}}}}
	}
	cases := map[string]struct {
		pod  *corev1.Pod
		want int
	}{
		"Rendered":         {pod: Pod(cluster(), group(v1alpha1.ProcessClassStorage, 3, ""), "storage-1"), want: 3},
		"NotTold":          {pod: withArgs("--input-dir", "/var/dynamic-conf"), want: 1},
		"NoValue":          {pod: withArgs("--process-count"), want: 1},
		"NotANumber":       {pod: withArgs("--process-count", "two"), want: 1},
		"NoMainContainer":  {pod: &corev1.Pod{}, want: 1},
		"TwoAfterOtherArg": {pod: withArgs("--log-path", "/x", "--process-count", "2"), want: 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ProcessCount(tc.pod)); diff != "" {
				t.Errorf("ProcessCount: -want, +got:\n%s", diff)
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
		"Staged":        {commandLine: ProcessCommandLine(cluster(), Density{Class: v1alpha1.ProcessClassLog, Processes: 1}, "log-1", 1, Placement{PublicIP: "10.0.0.1", Zone: "a", Machine: "node-1"}, "7.1.67"), want: "7.3.63"},
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

func TestImageTagVersion(t *testing.T) {
	cases := map[string]string{
		"foundationdb/fdb-kubernetes-monitor:7.3.63":           "7.3.63",
		"docker.io/foundationdb/fdb-kubernetes-monitor:7.3.69": "7.3.69",
		"registry.example.com:5000/fdb:7.1.57":                 "7.1.57",
		"registry.example.com:5000/fdb:7.1.57-2":               "7.1.57",
		"registry.example.com/fdb:7.3.63.hardened":             "7.3.63",
		"registry.example.com/fdb:latest":                      "latest",
		"registry.example.com:5000/fdb":                        "",
		"fdb":                                                  "",
	}
	for image, want := range cases {
		if diff := cmp.Diff(want, ImageTagVersion(image)); diff != "" {
			t.Errorf("ImageTagVersion(%q): -want, +got:\n%s", image, diff)
		}
	}
}

// TestImageConfigs: image.configs choose, per version, the repository and
// a tag suffix; the first entry that sets a field for the version wins, and
// the spec hash sees the suffix, not the version.
func TestImageConfigs(t *testing.T) {
	configs := []v1alpha1.ImageConfig{
		{Version: "7.1.67", Repository: "old.example.com/fdb"},
		{Repository: "registry.example.com/fdb"},
		{Version: "7.3.63", TagSuffix: "-2"},
		{TagSuffix: "-1"},
	}
	cases := map[string]string{
		"7.1.67": "old.example.com/fdb:7.1.67-1",
		"7.3.63": "registry.example.com/fdb:7.3.63-2",
		"7.3.69": "registry.example.com/fdb:7.3.69-1",
	}
	for version, want := range cases {
		c := cluster(func(c *v1alpha1.Cluster) {
			c.Spec.ForProvider.Version, c.Spec.ForProvider.Image.Configs = version, configs
		})
		if diff := cmp.Diff(want, Image(c)); diff != "" {
			t.Errorf("Image of %s: -want, +got:\n%s", version, diff)
		}
	}
	hash := func(image string) string {
		return SpecHash(corev1.PodSpec{Containers: []corev1.Container{{Name: containerName, Image: image}}})
	}
	if hash("registry.example.com/fdb:7.3.63-1") != hash("registry.example.com/fdb:7.3.69-1") {
		t.Errorf("the spec hash changed with the version")
	}
	if hash("registry.example.com/fdb:7.3.63-1") == hash("registry.example.com/fdb:7.3.63-2") {
		t.Errorf("the spec hash did not change with the tag suffix")
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
				if e.Name == EnvDNSName {
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

// realStatusDocuments are the real 7.1 status documents whose processes
// report their command_line (internal/fdb/testdata/real/SOURCES.md).
var realStatusDocuments = []string{"7.1.0-rc1_operator_healthy.json", "7.1.43_operator_unreachable_testers.json"}

// commandLineFacts is what a command line says about its process: the
// binary (argv[0]), and the values of the flags the status reports again
// elsewhere.
func commandLineFacts(line string) map[string]string {
	args := strings.Fields(line)
	facts := map[string]string{"binary": args[0]}
	for _, a := range args[1:] {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch name {
		case "class", "locality_instance_id", "locality_machineid", "locality_zoneid":
			facts[name] = value
		case "public_address":
			if host, _, ok := strings.Cut(strings.TrimPrefix(value, "["), "]:"); ok {
				facts["public_host"] = host
			} else {
				facts["public_host"], _, _ = strings.Cut(value, ":")
			}
		}
	}
	return facts
}

// TestCommandLineAsRealStatusReports checks the command lines the provider
// expects against the real command_line of the processes of real 7.1
// documents, started on the image's own fdbserver (their pods' image is of
// the version they run): argv[0] first, then one `--name=value` per
// argument, single spaces; the binary, class, localities and public host
// of the line are those the process reports. The real lines come from the
// operator's older launcher (fdbmonitor), which sorts the arguments;
// fdb-kubernetes-monitor keeps its configuration's order, so only the
// arguments, not their order, are compared with the real ones: each flag
// the provider passes is one the real lines pass, or a locality.
func TestCommandLineAsRealStatusReports(t *testing.T) {
	for _, name := range realStatusDocuments {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "fdb", "testdata", "real", "status", name))
			if err != nil {
				t.Fatal(err)
			}
			st, err := fdb.ParseStatus(raw)
			if err != nil {
				t.Fatal(err)
			}
			realFlags := map[string]bool{}
			var expected []string
			checked := 0
			for id, p := range st.Cluster.Processes {
				if p.CommandLine == "" {
					continue
				}
				checked++
				host, _, _ := strings.Cut(p.Address, ":")
				want := map[string]string{
					"binary": "/usr/bin/fdbserver", "class": p.ClassType, "public_host": host,
					"locality_instance_id": p.Locality.InstanceID, "locality_machineid": p.Locality.MachineID, "locality_zoneid": p.Locality.ZoneID,
				}
				if diff := cmp.Diff(want, commandLineFacts(p.CommandLine)); diff != "" {
					t.Errorf("process %s: the real command line's facts: -want (its status), +got:\n%s", id, diff)
				}
				if diff := cmp.Diff(strings.Join(strings.Fields(p.CommandLine), " "), p.CommandLine); diff != "" {
					t.Errorf("process %s: the real command line is not its arguments joined by single spaces: %s", id, diff)
				}
				for _, a := range strings.Fields(p.CommandLine)[1:] {
					flag, _, _ := strings.Cut(a, "=")
					realFlags[flag] = true
				}

				c := cluster(func(c *v1alpha1.Cluster) {
					c.Spec.ForProvider.Version = p.Version
					c.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(false)
				})
				ours := ProcessCommandLine(c, Density{Class: v1alpha1.ProcessClass(p.ClassType), Processes: 1}, p.Locality.InstanceID, 1, Placement{PublicIP: host, Zone: p.Locality.ZoneID, Machine: p.Locality.MachineID}, p.Version)
				if diff := cmp.Diff(want, commandLineFacts(ours)); diff != "" {
					t.Errorf("process %s: the expected command line's facts: -want (the real process's), +got:\n%s", id, diff)
				}
				expected = append(expected, ours)
			}
			for _, line := range expected {
				for _, a := range strings.Fields(line)[1:] {
					flag, _, ok := strings.Cut(a, "=")
					if !ok || !realFlags[flag] && !strings.HasPrefix(flag, "--locality_") {
						t.Errorf("argument %q of %q is not --name=value with a name the real command lines use", a, line)
					}
				}
			}
			if checked == 0 {
				t.Fatal("no process reports its command line")
			}
		})
	}
}

// TestBlankUnder: a claim marked new may hold no coordinated state of the
// connection string it was made under, or of any when it was made under an
// unknown one; an unmarked claim, or one made under an earlier string, was
// in place when the change to the current one named its coordinator.
func TestBlankUnder(t *testing.T) {
	current, err := fdb.ParseConnectionString("db:abc@10.0.0.1:4501,10.0.0.2:4501,10.0.0.3:4501")
	if err != nil {
		t.Fatal(err)
	}
	marked := func(cs string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{}
		MarkNewVolume(pvc, cs)
		return pvc
	}
	cases := map[string]struct {
		pvc  *corev1.PersistentVolumeClaim
		want bool
	}{
		"Unmarked":        {pvc: &corev1.PersistentVolumeClaim{}},
		"None":            {},
		"UnderCurrent":    {pvc: marked("db:abc@10.0.0.1:4501,10.0.0.2:4501,10.0.0.3:4501"), want: true},
		"UnderEarlier":    {pvc: marked("db:xyz@10.0.0.1:4501,10.0.0.2:4501,10.0.0.9:4501")},
		"UnderUnknown":    {pvc: marked(""), want: true},
		"UnderUnreadable": {pvc: marked("not a connection string"), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := BlankUnder(tc.pvc, current); got != tc.want {
				t.Errorf("BlankUnder(...): got %t, want %t", got, tc.want)
			}
		})
	}
}

// TestRoleClasses: a group of a role's own class runs its processes with
// that --class, as fdbserver spells it, and only the coordinator class of
// them keeps a volume: the coordinated state lives on it.
func TestRoleClasses(t *testing.T) {
	for _, class := range []v1alpha1.ProcessClass{
		v1alpha1.ProcessClassCommitProxy, v1alpha1.ProcessClassGrvProxy, v1alpha1.ProcessClassResolution,
		v1alpha1.ProcessClassRatekeeper, v1alpha1.ProcessClassDataDistributor, v1alpha1.ProcessClassCoordinator,
	} {
		t.Run(string(class), func(t *testing.T) {
			line := ProcessCommandLine(cluster(), Density{Class: class, Processes: 1}, string(class)+"-1", 1, Placement{PublicIP: "10.0.0.1", Zone: "zone-a", Machine: ""}, "7.3.63")
			if !strings.Contains(line, " --class="+string(class)+" ") {
				t.Errorf("command line %q, want --class=%s", line, class)
			}
			if got, want := class.IsStateful(), class == v1alpha1.ProcessClassCoordinator; got != want {
				t.Errorf("%s keeps a volume: %v, want %v", class, got, want)
			}
		})
	}
}
