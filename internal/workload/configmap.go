package workload

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// KeyClusterFile is the key of the cluster file in the cluster's
// ConfigMap.
const KeyClusterFile = "cluster-file"

// monitorConfigKey is the key of the monitor configuration (JSON, see
// MonitorConfig) of the pods of density d in the cluster's ConfigMap; the
// key's name predates the JSON format.
func monitorConfigKey(d Density) string {
	key := fmt.Sprintf(monitorConfigPrefix+"%s-density-%d", d.Class, d.Processes)
	if d.ServiceIP {
		key += "-service-ip"
	}
	if d.Empty {
		key += "-empty"
	}
	return key
}

// Density is a monitor configuration: pods of Class running Processes
// processes each, known by their pod's IP or, ServiceIP, by their group's
// Service's. Empty is the configuration of an EmptyMonitorConf drill's
// pods: it runs no fdbserver (runServers false).
type Density struct {
	Class     v1alpha1.ProcessClass
	Processes int
	ServiceIP bool
	Empty     bool
}

// PodDensity is the density of pod p: its class label, the processes its
// monitor starts, and whether its environment has the pod's IP apart from
// the public one (monitorEnv gives it only to a group known by its
// Service's IP).
func PodDensity(p *corev1.Pod) Density {
	service := false
	if main := container(&p.Spec, containerName); main != nil {
		service = slices.ContainsFunc(main.Env, func(e corev1.EnvVar) bool { return e.Name == EnvPodIP })
	}
	return Density{Class: v1alpha1.ProcessClass(p.Labels[LabelProcessClass]), Processes: ProcessCount(p), ServiceIP: service}
}

// GroupDensity is the density of group pg's pod.
func GroupDensity(pg *v1alpha1.ProcessGroup) Density {
	p := pg.Spec.ForProvider
	return Density{Class: p.ProcessClass, Processes: max(p.ProcessesPerPod, 1), ServiceIP: p.PublicIPSource.Service()}
}

// ConfigMap is the cluster's ConfigMap whose monitor configurations name the
// spec's version (ConfigMapAt).
func ConfigMap(c *v1alpha1.Cluster, connectionString string, densities map[Density]bool) *corev1.ConfigMap {
	return ConfigMapAt(c, connectionString, densities, c.Spec.ForProvider.Version)
}

// ConfigMapAt is the cluster's ConfigMap: the cluster file (once there is a
// connection string) and a monitor configuration per density in use, whose
// processes run FoundationDB version. While
// there is no connection string the configurations say runServers false,
// as the operator's do: fdbserver exits at once without a cluster file (nor
// a seed to copy one from), and the monitor would start it again and again
// with a growing back-off. The write that adds the cluster file leaves
// runServers unset; each monitor, on seeing its configuration file change,
// starts its processes.
func ConfigMapAt(c *v1alpha1.Cluster, connectionString string, densities map[Density]bool, version string) *corev1.ConfigMap {
	data := map[string]string{}
	if connectionString != "" {
		data[KeyClusterFile] = connectionString
	}
	for d := range densities {
		data[monitorConfigKey(d)] = monitorConfigJSON(c, d, connectionString != "", version)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName(c), Namespace: Namespace(c), Labels: Labels(c, "", "")},
		Data:       data,
	}
}

// Densities returns the densities of the cluster's spec: storage pods run
// storageServersPerPod processes, log pods logServersPerPod, others one,
// known by the routing's public IP source.
func Densities(c *v1alpha1.Cluster) map[Density]bool {
	out := map[Density]bool{}
	for class, n := range c.Spec.ForProvider.ProcessCounts.ByClass() {
		if n > 0 {
			out[Density{Class: class, Processes: ProcessesPerPod(c, class), ServiceIP: c.Spec.ForProvider.Routing.PublicIPSource.Service()}] = true
		}
	}
	return out
}

// ProcessesPerPod is the number of processes a new pod of class runs.
func ProcessesPerPod(c *v1alpha1.Cluster, class v1alpha1.ProcessClass) int {
	switch {
	case class == v1alpha1.ProcessClassStorage && c.Spec.ForProvider.StorageServersPerPod > 1:
		return c.Spec.ForProvider.StorageServersPerPod
	case class == v1alpha1.ProcessClassLog && c.Spec.ForProvider.LogServersPerPod > 1:
		return c.Spec.ForProvider.LogServersPerPod
	}
	return 1
}

// monitorConfigPrefix begins the key of every monitor configuration.
const monitorConfigPrefix = "fdbmonitor-conf-"

// ConfiguredVersion is the version the monitor configurations of a
// ConfigMap's data name (the first that decodes, by key); "" when it holds
// none.
func ConfiguredVersion(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		if strings.HasPrefix(k, monitorConfigPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		var m MonitorConfig
		if json.Unmarshal([]byte(data[k]), &m) == nil && m.Version != "" {
			return m.Version
		}
	}
	return ""
}
