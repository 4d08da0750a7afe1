// Package workload builds the Kubernetes objects a FoundationDB cluster runs
// as — the cluster's ConfigMap and headless Service and, per process group,
// its Pod and data PersistentVolumeClaim — as pure functions of the Cluster and ProcessGroup
// specs. Controllers compare these desired objects with what they observe
// (through SpecHash) and never patch objects piecemeal.
package workload

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Labels and annotations on every object the provider creates in the
// target cluster.
const (
	LabelCluster      = "foundationdb.crossplane.io/cluster"
	LabelProcessClass = "foundationdb.crossplane.io/process-class"
	LabelProcessGroup = "foundationdb.crossplane.io/process-group-id"
	LabelManagedBy    = "app.kubernetes.io/managed-by"
	ManagedBy         = "provider-foundationdb"
	AnnotationSpec    = "foundationdb.crossplane.io/spec-hash"
	// AnnotationNewVolume marks a volume claim the provider created with
	// the connection string of the database when it did ("" when it could
	// not read it): a coordinator change after that (a new connection
	// string) that names the group's coordinator wrote the coordinated
	// state to the volume; before one, a coordinator named by the group's
	// DNS name may hold none on it — FoundationDB also writes it at a
	// recovery that reaches the coordinator, which the status cannot tell.
	// The Cluster takes the mark off the claims of the coordinators its own
	// changes name (BlankUnder).
	AnnotationNewVolume = "foundationdb.crossplane.io/new-volume"
)

// MarkNewVolume marks claim pvc as made under connectionString
// (AnnotationNewVolume).
func MarkNewVolume(pvc *corev1.PersistentVolumeClaim, connectionString string) {
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	pvc.Annotations[AnnotationNewVolume] = connectionString
}

// NewVolume reports whether claim pvc carries the new-volume mark.
func NewVolume(pvc *corev1.PersistentVolumeClaim) bool {
	if pvc == nil {
		return false
	}
	_, ok := pvc.Annotations[AnnotationNewVolume]
	return ok
}

// BlankUnder reports whether claim pvc may hold no coordinated state of
// the database whose connection string is current: it is marked new, and
// was made under current or under a connection string unknown (none, or
// one that does not parse).
func BlankUnder(pvc *corev1.PersistentVolumeClaim, current fdb.ConnectionString) bool {
	if pvc == nil {
		return false
	}
	made, ok := pvc.Annotations[AnnotationNewVolume]
	if !ok {
		return false
	}
	cs, err := fdb.ParseConnectionString(made)
	return err != nil || cs.String() == current.String()
}

// Ports and paths inside the FoundationDB container.
const (
	envClusterFile  = "FDB_CLUSTER_FILE"
	dataDir         = "/var/fdb/data"
	logDir          = "/var/log/fdb-trace-logs"
	configDir       = "/var/dynamic-conf"
	binariesDir     = "/var/fdb/shared-binaries"
	containerName   = "foundationdb"
	dataVolumeName  = "data"
	configVolume    = "config-map"
	binariesVolume  = "shared-binaries"
	logVolume       = "fdb-trace-logs"
	defaultVolume   = "128Gi"
	defaultRepo     = "foundationdb/fdb-kubernetes-monitor"
	generalSettings = "general"
	// defaultDNSDomain is the target cluster's DNS domain unless the
	// Cluster names another.
	defaultDNSDomain = "cluster.local"
)

// Namespace is where the cluster's objects live in the target cluster.
func Namespace(c *v1alpha1.Cluster) string {
	if c.Spec.ForProvider.TargetNamespace != "" {
		return c.Spec.ForProvider.TargetNamespace
	}
	return c.GetNamespace()
}

// ConfigMapName is the name of the cluster's ConfigMap.
func ConfigMapName(c *v1alpha1.Cluster) string { return c.GetName() + "-config" }

// PodName is the name of a process group's pod: <cluster>-<group ID> with
// underscores turned into dashes.
func PodName(c *v1alpha1.Cluster, groupID string) string { return podName(c.GetName(), groupID) }

func podName(cluster, groupID string) string {
	return cluster + "-" + strings.ReplaceAll(groupID, "_", "-")
}

// GroupObjectName is the name of the process group (its ProcessGroup is
// named like its pod) that an object the provider made for one group, its
// pod or volume claim, belongs to; empty for any other object.
func GroupObjectName(o metav1.Object) string {
	l := o.GetLabels()
	if l[LabelManagedBy] != ManagedBy || l[LabelProcessGroup] == "" || l[LabelCluster] == "" {
		return ""
	}
	return podName(l[LabelCluster], l[LabelProcessGroup])
}

// ServiceName is the name of the cluster's headless Service: the DNS
// subdomain of its pods.
func ServiceName(c *v1alpha1.Cluster) string { return c.GetName() }

// UseDNS reports whether the cluster file names the coordinators by DNS
// name (the default) rather than by IP address (the default of groups
// known by their Services' IPs, which are as stable).
func UseDNS(c *v1alpha1.Cluster) bool {
	r := c.Spec.ForProvider.Routing
	return ptr.Deref(r.UseDNSInClusterFile, !r.PublicIPSource.Service())
}

// DNSName is the DNS name of a process group's pod under the cluster's
// headless Service; it resolves to the pod's IP whichever pod the group
// runs now.
func DNSName(c *v1alpha1.Cluster, groupID string) string {
	return dnsName(c, PodName(c, groupID), ServiceName(c))
}

// PodDNSName is the name Kubernetes DNS gives pod p of cluster c, as its
// hostname and subdomain say; empty for a pod without them.
func PodDNSName(c *v1alpha1.Cluster, p *corev1.Pod) string {
	if p.Spec.Hostname == "" || p.Spec.Subdomain == "" {
		return ""
	}
	return dnsName(c, p.Spec.Hostname, p.Spec.Subdomain)
}

func dnsName(c *v1alpha1.Cluster, hostname, subdomain string) string {
	return hostname + "." + subdomain + "." + Namespace(c) + ".svc." + cmp.Or(c.Spec.ForProvider.Routing.DNSDomain, defaultDNSDomain)
}

// Service is the cluster's headless Service. It gives every pod of the
// cluster a DNS name (DNSName), published before the pod is ready, since
// coordinators must resolve while the database is still unavailable.
func Service(c *v1alpha1.Cluster) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName(c), Namespace: Namespace(c), Labels: Labels(c, "", "")},
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 map[string]string{LabelCluster: c.GetName(), LabelManagedBy: ManagedBy},
			PublishNotReadyAddresses: true,
		},
	}
}

// HasVolume reports whether pod p mounts a volume claim: without one, what
// its processes keep lives and dies with the pod.
func HasVolume(p *corev1.Pod) bool {
	return slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil })
}

// PVCName is the name of a process group's data volume claim.
func PVCName(c *v1alpha1.Cluster, groupID string) string { return PodName(c, groupID) + "-data" }

// Labels of the objects of a cluster, or of one process group when id is set.
func Labels(c *v1alpha1.Cluster, class v1alpha1.ProcessClass, id string) map[string]string {
	l := map[string]string{LabelCluster: c.GetName(), LabelManagedBy: ManagedBy}
	if class != "" {
		l[LabelProcessClass] = string(class)
	}
	if id != "" {
		l[LabelProcessGroup] = id
	}
	return l
}

// imageVersionFile holds the FoundationDB version of the image's binaries
// in the fdb-kubernetes-monitor image; the sidecar stages them under
// bin/<that version>/ of its output directory.
const imageVersionFile = "/var/fdb/version"

// stagedProbe makes the sidecar ready once the fdbserver of its image's
// version is staged (StagedVersion): it copies the binaries after it
// starts. The probe names no version, so that a new one, staged by
// changing the sidecar's image in place, leaves the pod's spec hash as it
// is.
var stagedProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
	Command: []string{"sh", "-c", "test -x " + binariesDir + "/bin/$(cat " + imageVersionFile + ")/fdbserver"},
}}}

// SidecarContainer is the name of the container of a process group's pod
// that stages the FoundationDB binaries of its image's version in a volume
// it shares with the main container: changing its image in place (a pod's
// container images are mutable) stages another version without
// restarting the processes.
const SidecarContainer = "foundationdb-sidecar"

// Image is the FoundationDB image of the cluster's version.
func Image(c *v1alpha1.Cluster) string { return imageOf(c, c.Spec.ForProvider.Version) }

// imageOf is the cluster's FoundationDB image of version: its tag is the
// version and the tag suffix of image.configs, its repository the one of
// image.configs, else image.repository, else defaultRepo. Of the configs,
// the first that sets a field and names version, or no version, gives it.
func imageOf(c *v1alpha1.Cluster, version string) string {
	img := c.Spec.ForProvider.Image
	var repo, suffix string
	for _, cfg := range img.Configs {
		if cfg.Version != "" && cfg.Version != version {
			continue
		}
		repo, suffix = cmp.Or(repo, cfg.Repository), cmp.Or(suffix, cfg.TagSuffix)
	}
	return cmp.Or(repo, img.Repository, defaultRepo) + ":" + version + suffix
}

// MainVersion is the version of the image the main container of a pod made
// now runs: the spec's, except while an upgrade to another protocol has not
// taken effect (the Cluster records a running version of another
// major.minor), when it is the running one. Such a pod's monitor then runs
// its image's fdbserver for the version the ConfigMap names until every pod
// staged the new one (the ConfigMap names the new version only then), and
// the new version's staged fdbserver after (MonitorBinary); a pod whose image
// were of the new version would find no fdbserver of the old one and start
// nothing. The spec hash is blind to the tag: no pod is recreated for it.
func MainVersion(c *v1alpha1.Cluster) string {
	spec, running := c.Spec.ForProvider.Version, c.Status.AtProvider.RunningVersion
	if running != "" && !fdb.ProtocolCompatible(running, spec) {
		return running
	}
	return spec
}

// BinaryPath is the fdbserver of a version in a process group's pod: its
// sidecar stages each version's binaries under bin/<version>/ of the
// volume it shares with the main container.
func BinaryPath(version string) string { return binariesDir + "/bin/" + version + "/fdbserver" }

// imageBinaryPath is the fdbserver of the main container's own image, the
// one fdb-kubernetes-monitor runs by default (its --fdbserver-path).
const imageBinaryPath = "/usr/bin/fdbserver"

// ImageVersion is the FoundationDB version of the image pod p's main
// container runs (the tag of the provider's images), which its monitor
// compares with the configured version to choose the fdbserver it starts
// (MonitorBinary); "" when unknown.
func ImageVersion(p *corev1.Pod) string {
	if c := container(&p.Spec, containerName); c != nil {
		return ImageTagVersion(c.Image)
	}
	return ""
}

// BinaryVersion is the version whose staged fdbserver a command line runs
// (see BinaryPath); "" when it runs another binary.
func BinaryVersion(commandLine string) string {
	binary, _, _ := strings.Cut(commandLine, " ")
	rest, ok := strings.CutPrefix(binary, binariesDir+"/bin/")
	if !ok {
		return ""
	}
	version, ok := strings.CutSuffix(rest, "/fdbserver")
	if !ok || strings.Contains(version, "/") {
		return ""
	}
	return version
}

// imageTag is the tag of an image reference; "" when it has none.
func imageTag(image string) string {
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	return image[i+1:]
}

// versionTag is a tag that begins with a FoundationDB version.
var versionTag = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+`)

// ImageTagVersion is the FoundationDB version an image reference's tag
// begins with (the provider's images are tagged by version, with a suffix
// from image.configs): the whole tag when it begins with none, "" when
// there is no tag. The monitor itself knows its image's version from the
// file imageVersionFile in it (--version-file, fdbkubernetesmonitor/main.go
// at 7.1.67 and 7.3.63), which the provider cannot read; it takes the tag
// for it, as the FoundationDB operator does when it builds an image of a
// version as <repository>:<version><tagSuffix> (ImageConfig.Image,
// api/v1beta2/image_config.go at v2.33.0) and expects it to run that
// version: an image tagged with a version it does not hold breaks either.
func ImageTagVersion(image string) string {
	tag := imageTag(image)
	if v := versionTag.FindString(tag); v != "" {
		return v
	}
	return tag
}

// imageWithoutVersion is an image reference without the version its tag
// begins with: its repository, and the rest of its tag (a suffix) if any.
func imageWithoutVersion(image string) string {
	tag := imageTag(image)
	if tag == "" {
		return image
	}
	repo := strings.TrimSuffix(image, ":"+tag)
	if suffix := strings.TrimPrefix(tag, ImageTagVersion(image)); suffix != "" {
		return repo + ":" + suffix
	}
	return repo
}

// container returns the container of a pod spec by name, nil when absent.
func container(spec *corev1.PodSpec, name string) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	return nil
}

// MainContainer is pod p's main container, the monitor's; nil without one.
func MainContainer(p *corev1.Pod) *corev1.Container { return container(&p.Spec, containerName) }

// DataVolume is the main container's mount at the data directory of pod p
// and the pod's volume it mounts; nil when nothing is mounted there (or the
// pod has no such volume).
func DataVolume(p *corev1.Pod) (*corev1.VolumeMount, *corev1.Volume) {
	main := MainContainer(p)
	if main == nil {
		return nil, nil
	}
	for i := range main.VolumeMounts {
		if m := &main.VolumeMounts[i]; m.MountPath == dataDir {
			for j := range p.Spec.Volumes {
				if v := &p.Spec.Volumes[j]; v.Name == m.Name {
					return m, v
				}
			}
			return m, nil
		}
	}
	return nil, nil
}

// SidecarImage is the image a pod's sidecar container runs; "" without one.
func SidecarImage(p *corev1.Pod) string {
	if c := container(&p.Spec, SidecarContainer); c != nil {
		return c.Image
	}
	return ""
}

// SetSidecarImage sets the image of a pod's sidecar container, if it has
// one.
func SetSidecarImage(p *corev1.Pod, image string) {
	if c := container(&p.Spec, SidecarContainer); c != nil {
		c.Image = image
	}
}

// StagedVersion is the version whose binaries a running pod's sidecar has
// staged, as its kubelet reports it: the tag of the image its sidecar
// container runs, once ready; "" while none is known to be staged.
func StagedVersion(p *corev1.Pod) string {
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == SidecarContainer && s.Ready && s.State.Running != nil {
			return ImageTagVersion(s.Image)
		}
	}
	return ""
}

// settings returns the process settings of a class, falling back to the
// "general" entry.
func settings(c *v1alpha1.Cluster, class v1alpha1.ProcessClass) v1alpha1.ProcessSettings {
	if s, ok := c.Spec.ForProvider.Processes[string(class)]; ok {
		return s
	}
	return c.Spec.ForProvider.Processes[generalSettings]
}

// PVC is the data volume claim of a process group of a stateful class.
//
// The class's volumeClaimTemplate is the base: its labels, annotations and
// spec, under the provider's labels, name and namespace; volumeSize and
// storageClassName override it, and the claim is ReadWriteOnce of
// defaultVolume when neither says otherwise.
func PVC(c *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup, groupID string) *corev1.PersistentVolumeClaim {
	class := pg.Spec.ForProvider.ProcessClass
	s := settings(c, class)
	claim := &corev1.PersistentVolumeClaim{}
	if t := s.VolumeClaimTemplate; t != nil {
		claim.Labels, claim.Annotations = maps.Clone(t.Labels), maps.Clone(t.Annotations)
		claim.Spec = *t.Spec.DeepCopy()
	}
	claim.Name, claim.Namespace = PVCName(c, groupID), Namespace(c)
	if claim.Labels == nil {
		claim.Labels = map[string]string{}
	}
	maps.Copy(claim.Labels, Labels(c, class, groupID))
	if len(claim.Spec.AccessModes) == 0 {
		claim.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	if s.StorageClassName != nil {
		claim.Spec.StorageClassName = s.StorageClassName
	}
	size, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		size = resource.MustParse(defaultVolume)
	}
	if s.VolumeSize != nil {
		size = *s.VolumeSize
	}
	if claim.Spec.Resources.Requests == nil {
		claim.Spec.Resources.Requests = corev1.ResourceList{}
	}
	claim.Spec.Resources.Requests[corev1.ResourceStorage] = size
	return claim
}

// Pod is the pod of a process group: its main container runs
// fdb-kubernetes-monitor, which starts the group's processes from the
// monitor configuration of its class and density in the cluster's
// ConfigMap (MonitorConfiguration) with the environment that configuration
// refers to (monitorEnv), as the monitor's ServiceAccount
// (MonitorServiceAccount), which may read and annotate the pod; its sidecar
// stages the binaries of its image's version. Every class has a data
// volume at the data directory: its claim for a class that keeps data, an
// empty directory for the others. The pod runs as the images' fdb user
// with its group owning the volumes, and passes the "restricted" Pod
// Security Standard (podSecurity, containerSecurity). The class's pod
// template is the base: its metadata and spec, with the provider's
// containers merged into its containers of the same names
// (mergeContainers) and its security context under the defaults. Its spec
// hash is recorded in an annotation so drift is found by comparing hashes.
func Pod(c *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup, groupID string) *corev1.Pod {
	d := GroupDensity(pg)
	fault, drilled := c.DrillFault(groupID)
	d.Empty = drilled && fault == v1alpha1.DrillEmptyMonitorConf
	class, n := d.Class, d.Processes
	s := settings(c, class)
	pod := &corev1.Pod{}
	if s.PodTemplate != nil {
		pod.ObjectMeta = *s.PodTemplate.ObjectMeta.DeepCopy()
		pod.Spec = *s.PodTemplate.Spec.DeepCopy()
	}
	pod.Name, pod.Namespace = PodName(c, groupID), Namespace(c)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	for k, v := range Labels(c, class, groupID) {
		pod.Labels[k] = v
	}

	main := corev1.Container{
		Name:            containerName,
		Image:           imageOf(c, MainVersion(c)),
		ImagePullPolicy: c.Spec.ForProvider.Image.PullPolicy,
		Args: []string{
			"--input-dir", configDir, "--input-monitor-conf", monitorConfigFile,
			"--log-path", logDir + "/monitor.log", processCountFlag, strconv.Itoa(n),
		},
		// FDB_CLUSTER_FILE lets fdbcli run in the container find the
		// database, as in the FoundationDB operator's pods.
		Env: append(monitorEnv(c, pg, groupID), corev1.EnvVar{Name: envClusterFile, Value: seedClusterFile}),
		VolumeMounts: []corev1.VolumeMount{
			{Name: configVolume, MountPath: configDir}, {Name: binariesVolume, MountPath: binariesDir, ReadOnly: true},
			{Name: logVolume, MountPath: logDir}, {Name: dataVolumeName, MountPath: dataDir},
		},
	}
	sidecar := corev1.Container{
		Name:            SidecarContainer,
		Image:           Image(c),
		ImagePullPolicy: c.Spec.ForProvider.Image.PullPolicy,
		Args:            []string{"--mode", "sidecar", "--output-dir", binariesDir, "--copy-binary", "fdbserver", "--copy-binary", "fdbcli"},
		VolumeMounts:    []corev1.VolumeMount{{Name: binariesVolume, MountPath: binariesDir}},
		ReadinessProbe:  stagedProbe,
	}
	for i := 1; i <= n; i++ {
		main.Ports = append(main.Ports, corev1.ContainerPort{Name: fmt.Sprintf("fdb-%d", i), ContainerPort: int32(fdb.ProcessPort(i))})
	}
	configItems := []corev1.KeyToPath{
		{Key: KeyClusterFile, Path: clusterFileName},
		{Key: monitorConfigKey(d), Path: monitorConfigFile},
	}
	if v := tlsVolumeOf(c); v != nil {
		pod.Spec.Volumes = append(pod.Spec.Volumes, *v)
		main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: TLSDir, ReadOnly: true})
		main.Env = append(main.Env, tlsEnv(c)...)
		configItems = append(configItems, corev1.KeyToPath{Key: KeyTLSCA, Path: tlsCAFileName})
		for i := 1; i <= n; i++ {
			main.Ports = append(main.Ports, corev1.ContainerPort{Name: fmt.Sprintf("fdb-tls-%d", i), ContainerPort: int32(fdb.TLSProcessPort(i))})
		}
	}
	data := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	if class.IsStateful() {
		data = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: PVCName(c, groupID)}}
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes,
		corev1.Volume{Name: binariesVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		corev1.Volume{Name: logVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		// Optional: the cluster file is written only once the first
		// coordinators are chosen, from pods that must run before.
		corev1.Volume{Name: configVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(c)},
			Items:                configItems,
			Optional:             ptr.To(true),
		}}},
		corev1.Volume{Name: dataVolumeName, VolumeSource: data},
	)
	pod.Spec.Containers = mergeContainers([]corev1.Container{main, sidecar},
		map[string]corev1.ResourceList{containerName: times(processRequests(class), n), SidecarContainer: sidecarRequests()},
		pod.Spec.Containers)
	pod.Spec.SecurityContext = mergePodSecurity(pod.Spec.SecurityContext)
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = MonitorServiceAccount
	}
	pod.Spec.Hostname, pod.Spec.Subdomain = pod.Name, ServiceName(c)
	pod.Spec.ImagePullSecrets = append(pod.Spec.ImagePullSecrets, c.Spec.ForProvider.Image.PullSecrets...)
	if zone := pg.Spec.ForProvider.FaultDomain; zone != "" {
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = map[string]string{}
		}
		pod.Spec.NodeSelector[GroupFaultDomainKey(c, pg)] = zone
	}
	if drilled {
		drill(pod, fault)
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[AnnotationSpec] = SpecHash(pod.Spec)
	return pod
}

// What a drill puts into its groups' pods.
const (
	// DrillCommand is the command the main container of a CrashLoop
	// drill's pod runs: none of that name exists in the image, so the
	// container fails as it starts, again and again, as the FoundationDB
	// operator's buggify crash loop does (its Command and Args
	// "crash-loop", internal/pod_models.go, v2.33.0).
	DrillCommand = "crash-loop"
	// LabelNoSchedule is the node label a NoSchedule drill's pod needs
	// ("true"): no node carries it, so the pod stays Pending, as the
	// operator's buggify noSchedule does with its own label.
	LabelNoSchedule = "foundationdb.crossplane.io/no-schedule"
)

// drill puts fault into pod.
func drill(pod *corev1.Pod, fault v1alpha1.DrillFault) {
	switch fault {
	case v1alpha1.DrillCrashLoop:
		if main := MainContainer(pod); main != nil {
			main.Command, main.Args = []string{DrillCommand}, []string{DrillCommand}
		}
	case v1alpha1.DrillNoSchedule:
		if pod.Spec.Affinity == nil {
			pod.Spec.Affinity = &corev1.Affinity{}
		}
		pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: LabelNoSchedule, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}},
			}}},
		}}
	}
}

// MonitorEntrypoint is the entrypoint of the image's main container:
// fdb-kubernetes-monitor (the fdb-kubernetes-monitor stage of
// packaging/docker/Dockerfile, apple/foundationdb 7.3.63).
const MonitorEntrypoint = "/usr/bin/fdb-kubernetes-monitor"

// MonitorStarts reports whether pod p's main container starts the monitor:
// it runs the image's entrypoint, or names it. A command the image does
// not have fails the container as it starts (DrillCommand).
func MonitorStarts(p *corev1.Pod) bool {
	main := MainContainer(p)
	return main != nil && (len(main.Command) == 0 || main.Command[0] == MonitorEntrypoint)
}

// FaultDomainKey is the node label that names a node's fault domain.
func FaultDomainKey(c *v1alpha1.Cluster) string {
	if k := c.Spec.ForProvider.FaultDomain.Key; k != "" {
		return k
	}
	return "topology.kubernetes.io/zone"
}

// GroupFaultDomainKey is the node label a group's fault domain is a value
// of: the one recorded when it was created, else the Cluster's.
func GroupFaultDomainKey(c *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup) string {
	if k := pg.Spec.ForProvider.FaultDomainKey; k != "" {
		return k
	}
	return FaultDomainKey(c)
}

// SpecHash is a stable hash of a pod spec as the provider built it, blind
// to the versions the tags of the FoundationDB containers' images begin
// with: a new version is staged in place (the sidecar's image changes) and
// runs after one restart of the processes, never by recreating the pod.
// Another image repository, or tag suffix, changes the hash.
func SpecHash(spec corev1.PodSpec) string {
	spec = *spec.DeepCopy()
	for _, name := range []string{containerName, SidecarContainer} {
		if c := container(&spec, name); c != nil {
			c.Image = imageWithoutVersion(c.Image)
		}
	}
	raw, _ := json.Marshal(spec) // a PodSpec always marshals
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// PodRunning reports whether the kubelet runs pod p's containers: it is
// Running with an IP and not being deleted.
func PodRunning(p *corev1.Pod) bool {
	return p != nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && p.Status.PodIP != ""
}

// PodTerminal reports whether a pod is in a terminal phase, Failed or
// Succeeded: its containers are terminated for good, and no kubelet runs
// it again (Kubernetes, "Pod Lifecycle"; a node-pressure eviction fails a
// pod so, "Node-pressure Eviction"). Only a new pod runs its processes.
func PodTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

// NodeReady reports whether a node's Ready condition is True; a node
// without one, or whose kubelet stopped reporting (Unknown), is not Ready.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
