package workload

import (
	"cmp"
	"encoding/json"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errMissingVariable = "cannot expand the monitor configuration: environment variable %s is not set"
	errArgumentType    = "cannot expand the monitor configuration: unknown argument type %q"
	errIPFamily        = "cannot expand the monitor configuration: unsupported IP family %d"
	errNoIPOfFamily    = "cannot expand the monitor configuration: no IP of family %d in %s=%q"
	errRunServers      = "cannot start fdbserver: the monitor configuration says runServers false"
	errStartServer     = "cannot start fdbserver"
)

// Environment variables of a pod's main container that its monitor
// configuration refers to, named as the FoundationDB operator names them.
// Each is set in every pod (monitorEnv); workload_test checks that the
// configuration of every class and density refers to no other.
const (
	// EnvPublicIP is the pod's IP, the host of --public_address: its
	// primary IP (status.podIP), or with a podIPFamily all its IPs
	// (status.podIPs, comma-separated), of which the monitor takes the
	// first of that family (ArgumentIPList); for a group known by its
	// Service, the Service's cluster IP, which the pod's AnnotationPublicIP
	// holds.
	EnvPublicIP = "FDB_PUBLIC_IP"
	// EnvInstanceID is the process group ID, the instance_id locality and
	// the stem of the process_id locality.
	EnvInstanceID = "FDB_INSTANCE_ID"
	// EnvMachineID is the pod's node, the machineid locality.
	EnvMachineID = "FDB_MACHINE_ID"
	// EnvZoneID is the pod's fault domain, the zoneid locality.
	EnvZoneID = "FDB_ZONE_ID"
	// EnvDNSName is the pod's DNS name, the dns_name locality.
	EnvDNSName = "FDB_DNS_NAME"
	// EnvPodIP is the pod's IP (or IPs, as EnvPublicIP) where its
	// processes listen when they are known by their group's Service's IP,
	// which EnvPublicIP then holds.
	EnvPodIP = "FDB_POD_IP"
)

// Environment variables the monitor itself reads: the pod it runs in, which
// it watches and annotates with the configuration it loaded.
const (
	envPodName      = "FDB_POD_NAME"
	envPodNamespace = "FDB_POD_NAMESPACE"
)

// The monitor's configuration file and the cluster file in its input
// directory (configDir), both items of the cluster's ConfigMap. The monitor
// reads monitorConfigFile; fdbserver copies the cluster file into its data
// directory when it starts without one (--seed_cluster_file) and keeps it
// there as coordinators change.
const (
	monitorConfigFile = "config.json"
	clusterFilePath   = dataDir + "/" + clusterFileName
	seedClusterFile   = configDir + "/" + clusterFileName
)

// ClusterFilePath is the cluster file of a pod's fdbservers (--cluster_file),
// in its data volume.
const ClusterFilePath = clusterFilePath

// ProcessDataDir is the data directory (--datadir) of the n-th process of
// a pod.
func ProcessDataDir(n int) string { return dataDir + "/" + strconv.Itoa(n) }

// MonitorConfig is the configuration fdb-kubernetes-monitor, the launcher
// of the pod's main container, reads as JSON from config.json in its input
// directory: the version its processes run, whether it runs them, and the
// arguments of each (its ProcessConfiguration, fdbkubernetesmonitor/api/
// config.go; the conformance tests hold every configuration the ConfigMap
// holds against its keys and types). The monitor starts --process-count
// processes and builds the command line of the n-th from the arguments,
// with n and the container's environment.
type MonitorConfig struct {
	// Version is the FoundationDB version the processes run; the monitor
	// chooses the fdbserver binary by it.
	Version string `json:"version"`
	// RunServers false makes the monitor start no process and stop those
	// it runs; unset means true. The monitor starts them when a later
	// configuration leaves it unset (see ConfigMap).
	RunServers *bool `json:"runServers,omitempty"`
	// Arguments are fdbserver's arguments, one each.
	Arguments []Argument `json:"arguments,omitempty"`
}

// ArgumentType says how the monitor generates an Argument.
type ArgumentType string

// The argument types the provider's configurations use.
const (
	// ArgumentLiteral is Value as it is (the type when none is given).
	ArgumentLiteral ArgumentType = "Literal"
	// ArgumentConcatenate joins the generated Values.
	ArgumentConcatenate ArgumentType = "Concatenate"
	// ArgumentEnvironment is the value of the environment variable Source;
	// a configuration that refers to a variable that is not set is
	// refused, and no process starts.
	ArgumentEnvironment ArgumentType = "Environment"
	// ArgumentProcessNumber is n×Multiplier+Offset for the n-th process
	// (from 1); a zero Multiplier counts as 1.
	ArgumentProcessNumber ArgumentType = "ProcessNumber"
	// ArgumentIPList is the first IP of family IPFamily (4 or 6) in the
	// comma-separated list the environment variable Source holds, without
	// brackets; a configuration whose list has none, or that names another
	// family, is refused. Monitors older than 7.1.60 do not know the type
	// (monitorKnowsIPList).
	ArgumentIPList ArgumentType = "IPList"
)

// Argument is one argument of a MonitorConfig.
type Argument struct {
	Type       ArgumentType `json:"type,omitempty"`
	Value      string       `json:"value,omitempty"`
	Values     []Argument   `json:"values,omitempty"`
	Source     string       `json:"source,omitempty"`
	Multiplier int          `json:"multiplier,omitempty"`
	Offset     int          `json:"offset,omitempty"`
	IPFamily   int          `json:"ipFamily,omitempty"`
}

func literal(v string) Argument { return Argument{Value: v} }

func variable(name string) Argument { return Argument{Type: ArgumentEnvironment, Source: name} }

func concatenate(values ...Argument) Argument {
	return Argument{Type: ArgumentConcatenate, Values: values}
}

// processNumber is n of the n-th process.
var processNumber = Argument{Type: ArgumentProcessNumber}

// processPort is fdb.ProcessPort of the n-th process, or with tls
// fdb.TLSProcessPort: 2n plus the port of a process numbered 0.
func processPort(tls bool) Argument {
	offset := fdb.ProcessPort(0)
	if tls {
		offset = fdb.TLSProcessPort(0)
	}
	return Argument{Type: ArgumentProcessNumber, Multiplier: 2, Offset: offset}
}

// addresses is the argument of flag (--public_address or
// --listen_address) for listeners l: an address of the IP the environment
// variable source holds (ipOf) per listener, the primary first, a TLS one
// marked ":tls", separated by commas (fdbserver takes at most one of each
// kind, and as many listen addresses as public ones).
func addresses(c *v1alpha1.Cluster, flag, source string, l fdb.Listeners) Argument {
	var values []Argument
	for i, tls := range l.Kinds() {
		open := ",["
		if i == 0 {
			open = flag + "=["
		}
		values = append(values, literal(open), ipOf(c, source), literal("]:"), processPort(tls))
		if tls {
			values = append(values, literal(":tls"))
		}
	}
	return concatenate(values...)
}

// prefixed is text followed by values.
func prefixed(text string, values ...Argument) Argument {
	return concatenate(append([]Argument{literal(text)}, values...)...)
}

// locality is the flag that sets locality key to the environment variable
// env.
func locality(key, env string) Argument {
	return prefixed("--locality_"+key+"=", variable(env))
}

// expand generates the argument for the n-th process in environment env.
func (a Argument) expand(n int, env map[string]string) (string, error) {
	switch a.Type {
	case "", ArgumentLiteral:
		return a.Value, nil
	case ArgumentConcatenate:
		var b strings.Builder
		for _, v := range a.Values {
			s, err := v.expand(n, env)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	case ArgumentProcessNumber:
		m := a.Multiplier
		if m == 0 {
			m = 1
		}
		return strconv.Itoa(n*m + a.Offset), nil
	case ArgumentEnvironment, ArgumentIPList:
		v, ok := env[a.Source]
		if !ok {
			return "", errors.Errorf(errMissingVariable, a.Source)
		}
		if a.Type == ArgumentIPList {
			return a.ipOfFamily(v)
		}
		return v, nil
	}
	return "", errors.Errorf(errArgumentType, a.Type)
}

// ipOfFamily is the first IP of the argument's family in the
// comma-separated list, as the monitor's LookupEnv chooses it: entries
// that are no IP are skipped, an IPv4-mapped IPv6 address counts as IPv4.
func (a Argument) ipOfFamily(list string) (string, error) {
	if a.IPFamily != 4 && a.IPFamily != 6 {
		return "", errors.Errorf(errIPFamily, a.IPFamily)
	}
	for s := range strings.SplitSeq(list, ",") {
		if ip := net.ParseIP(s); ip != nil && (ip.To4() != nil) == (a.IPFamily == 4) {
			return s, nil
		}
	}
	return "", errors.Errorf(errNoIPOfFamily, a.IPFamily, a.Source, list)
}

// usesIPList reports whether any of args, or of the values they join, is
// an ArgumentIPList.
func usesIPList(args []Argument) bool {
	return slices.ContainsFunc(args, func(a Argument) bool { return a.Type == ArgumentIPList || usesIPList(a.Values) })
}

// monitorKnowsIPList reports whether the monitor of an image of version
// knows ArgumentIPList: from 7.1.60 in the 7.1 releases and in every
// later one (fdbkubernetesmonitor/api/config.go). An unknown version is
// taken to know it.
func monitorKnowsIPList(version string) bool {
	v, err := fdb.ParseVersion(version)
	return err != nil || !v.Less(fdb.Version{Major: 7, Minor: 1, Patch: 60})
}

// CommandLine is the command line of the n-th process the monitor starts
// with configuration m in environment env when its own image is of
// imageVersion: CommandLineOf the fdbserver that monitor chooses for m's
// version (MonitorBinary).
func (m MonitorConfig) CommandLine(n int, env map[string]string, imageVersion string) (string, error) {
	return m.CommandLineOf(MonitorBinary(imageVersion, m.Version), n, env, imageVersion)
}

// CommandLineOf is the command line of the n-th process a monitor of
// release starts on binary with configuration m in environment env, as
// FoundationDB reports it in the process's command_line (fdbserver's argv
// joined by single spaces, argv[0] included): binary and m's arguments in
// their order. It fails, and no process runs, when the monitor refuses the
// configuration (RefusedArguments), when m says runServers false, and when
// fdbserver would refuse the command line and exit at once: checked against
// the option table of the fdbserver release of m's version (fdbserverFor).
func (m MonitorConfig) CommandLineOf(binary string, n int, env map[string]string, release string) (string, error) {
	if m.RunServers != nil && !*m.RunServers {
		return "", errors.New(errRunServers)
	}
	args, err := m.generate(n, env, release)
	if err != nil {
		return "", err
	}
	if err := fdbserverFor(m.Version).check(args); err != nil {
		return "", errors.Wrap(err, errStartServer)
	}
	return strings.Join(append([]string{binary}, args...), " "), nil
}

// RefusedArguments is why a monitor of release refuses configuration m in
// environment env, as readConfiguration generates the first process's
// arguments before it accepts one (generate); nil when it generates them.
func (m MonitorConfig) RefusedArguments(env map[string]string, release string) error {
	_, err := m.generate(1, env, release)
	return err
}

// generate is what the monitor of release generates as the n-th process's
// arguments: an error when an argument refers to a variable env does not
// set, or is of a type the monitor does not know.
func (m MonitorConfig) generate(n int, env map[string]string, release string) ([]string, error) {
	if usesIPList(m.Arguments) && !monitorKnowsIPList(release) {
		return nil, errors.Errorf(errArgumentType, ArgumentIPList)
	}
	return m.arguments(n, env)
}

// arguments are the arguments of the n-th process, argv[0] not included.
func (m MonitorConfig) arguments(n int, env map[string]string) ([]string, error) {
	args := make([]string, 0, len(m.Arguments))
	for _, a := range m.Arguments {
		s, err := a.expand(n, env)
		if err != nil {
			return nil, err
		}
		args = append(args, s)
	}
	return args, nil
}

// MonitorConfiguration is the monitor configuration of the pods of a
// density: of a class, running a number of processes each, known by their
// pod's IP or by their group's Service's. The n-th process is known by
// fdb.ProcessPort(n) of its public IP ($FDB_PUBLIC_IP) and listens there,
// or, known by a Service IP, which is no address of the pod's, on the
// same port of the pod's IP ($FDB_POD_IP, --listen_address, as the
// operator's do: fdbserver binds its listen addresses, which are its
// public ones unless given, and a Service's cluster IP is only ever
// translated to the pod's by the node's proxy). It keeps its data
// in <data dir>/<n>, logs with the Cluster's name as its log group (as the
// operator's processes do) and is named fdb.ProcessID: the group ID
// ($FDB_INSTANCE_ID) when it is the pod's only one, <group ID>-<n>
// otherwise. Its localities come from the pod's environment (monitorEnv):
// machineid is its node, zoneid its fault domain and, with DNS names in
// the cluster file, dns_name the pod's DNS name, by which the coordinators
// it serves are named; dcid is the Cluster's data center and data_hall
// its data hall, when it names one. The class's custom parameters follow,
// sorted. The configuration runs its processes (RunServers unset); the
// ConfigMap holds them back until there is a cluster file.
func MonitorConfiguration(c *v1alpha1.Cluster, d Density) MonitorConfig {
	class := d.Class
	processID := []Argument{variable(EnvInstanceID)}
	if d.Processes > 1 {
		processID = append(processID, literal("-"), processNumber)
	}
	args := []Argument{
		literal("--class=" + string(class)),
		addresses(c, "--public_address", EnvPublicIP, Listen(c)),
		literal("--cluster_file=" + clusterFilePath),
		literal("--seed_cluster_file=" + seedClusterFile),
		prefixed("--datadir="+dataDir+"/", processNumber),
		literal("--logdir=" + logDir),
		literal("--loggroup=" + c.GetName()),
		locality(fdb.LocalityInstanceID, EnvInstanceID),
		prefixed("--locality_"+fdb.LocalityProcessID+"=", processID...),
		locality(fdb.LocalityMachineID, EnvMachineID),
		locality(fdb.LocalityZoneID, EnvZoneID),
	}
	if d.ServiceIP {
		args = append(args, addresses(c, "--listen_address", EnvPodIP, Listen(c)))
	}
	if UseDNS(c) {
		args = append(args, locality(fdb.LocalityDNSName, EnvDNSName))
	}
	if dc := c.Spec.ForProvider.DataCenter; dc != "" {
		args = append(args, literal("--locality_"+fdb.LocalityDCID+"="+dc))
	}
	if hall := c.Spec.ForProvider.DataHall; hall != "" {
		args = append(args, literal("--locality_"+fdb.LocalityDataHall+"="+hall))
	}
	if Listen(c).TLS() {
		args = append(args, tlsArguments(c)...)
	}
	params := append([]string(nil), settings(c, class).CustomParameters...)
	sort.Strings(params)
	for _, p := range params {
		args = append(args, literal("--"+p))
	}
	return MonitorConfig{Version: c.Spec.ForProvider.Version, Arguments: args}
}

// ipOf is the argument of the IP the environment variable source holds:
// the variable, or with a podIPFamily the first IP of that family among
// those it holds. An address writes it in brackets, as the operator does
// with the unified image: NetworkAddress::parse (flow/network.cpp) takes an
// IPv4 or IPv6 address in brackets and an IPv6 one only so.
func ipOf(c *v1alpha1.Cluster, source string) Argument {
	if f := c.Spec.ForProvider.Routing.PodIPFamily; f != nil {
		return Argument{Type: ArgumentIPList, Source: source, IPFamily: *f}
	}
	return variable(source)
}

// monitorConfigJSON is MonitorConfiguration of version as the monitor
// reads it, with runServers false unless the ConfigMap holds a cluster file
// and d is not an EmptyMonitorConf drill's.
func monitorConfigJSON(c *v1alpha1.Cluster, d Density, clusterFile bool, version string) string {
	cfg := MonitorConfiguration(c, d)
	cfg.Version = version
	if !clusterFile || d.Empty {
		cfg.RunServers = ptr.To(false)
	}
	raw, _ := json.Marshal(cfg) // plain strings, numbers and booleans always marshal
	return string(raw)
}

// Placement is where a group's pod runs, as its processes see it.
type Placement struct {
	// PublicIP is the IP the processes are known by: the pod's, or the
	// cluster IP of the group's Service.
	PublicIP string
	// PodIP is the pod's IP, where processes known by a Service IP
	// listen; PublicIP when empty.
	PodIP string
	// Zone is the fault domain, Machine the node.
	Zone, Machine string
}

// ProcessEnvironment is the environment the main container of group
// groupID's pod has while it runs at placement at: what its monitor
// expands the configuration with (see monitorEnv).
func ProcessEnvironment(c *v1alpha1.Cluster, groupID string, at Placement) map[string]string {
	return map[string]string{
		EnvPublicIP:   at.PublicIP,
		EnvPodIP:      cmp.Or(at.PodIP, at.PublicIP),
		EnvInstanceID: groupID,
		EnvMachineID:  at.Machine,
		EnvZoneID:     at.Zone,
		EnvDNSName:    DNSName(c, groupID),
	}
}

// ProcessCommandLine is the command line of the n-th process of a group of
// density d that runs at placement at, in a pod whose main container's
// image is of imageVersion (ImageVersion), as FoundationDB reports it:
// MonitorConfiguration expanded with ProcessEnvironment, on the binary the
// monitor chooses. The provider compares it with the command_line the
// status reports to find processes that must restart.
func ProcessCommandLine(c *v1alpha1.Cluster, d Density, groupID string, n int, at Placement, imageVersion string) string {
	// ProcessEnvironment sets every variable the configuration refers to
	// (TestPodRunsItsMonitorConfiguration).
	line, _ := MonitorConfiguration(c, d).CommandLine(n, ProcessEnvironment(c, groupID, at), imageVersion)
	return line
}

// PublicIP is the IP pod p's processes are known by: its group's Service's
// cluster IP (AnnotationPublicIP) for a pod of a group known by it, else
// the pod's IP; empty while it has none.
func PublicIP(p *corev1.Pod) string {
	if PodDensity(p).ServiceIP {
		return p.Annotations[AnnotationPublicIP]
	}
	return p.Status.PodIP
}

// PodPlacement is the placement of pod p, whose processes report zone and
// machine: the IPs its main container's environment holds.
func PodPlacement(p *corev1.Pod, zone, machine string) Placement {
	env := MonitorEnvironment(p)
	return Placement{PublicIP: env[EnvPublicIP], PodIP: env[EnvPodIP], Zone: zone, Machine: machine}
}

func fieldRef(path string) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}
}

// Downward API fields of the pod that monitorEnv refers to; status.podIPs
// is the pod's IPs, comma-separated.
const (
	fieldPodName      = "metadata.name"
	fieldPodNamespace = "metadata.namespace"
	fieldNodeName     = "spec.nodeName"
	fieldPodIP        = "status.podIP"
	fieldPodIPs       = "status.podIPs"
	fieldPublicIP     = "metadata.annotations['" + AnnotationPublicIP + "']"
)

// AnnotationPublicIP is the pod annotation that holds the cluster IP of
// its group's Service, for a group known by it: the processgroup
// controller writes it when it creates the pod, as the operator does
// (foundationdb.org/public-ip), and the pod's main container reads it
// through the downward API. The kubelet gives an annotation the pod lacks
// as an empty value (fieldpath.ExtractFieldPathAsString, kubernetes
// pkg/fieldpath at v1.35), which no address can be made of.
const AnnotationPublicIP = "foundationdb.crossplane.io/public-ip"

// monitorEnv is the environment of the main container of group groupID's
// pod: what its monitor needs (the pod it runs in) and every variable the
// monitor configuration refers to; the pod's IPs when the Cluster chooses
// a podIPFamily, else its IP. Kubernetes' downward API gives a pod its
// own fields, never its node's labels, so the zone comes from the
// placement: a group placed in a fault domain has its pod pinned there by
// a node selector on the fault-domain label, and the zone is that value; a
// group without one takes its node as its zone, as FoundationDB does by
// default for processes that share a host.
func monitorEnv(c *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup, groupID string) []corev1.EnvVar {
	zone := corev1.EnvVar{Name: EnvZoneID, ValueFrom: fieldRef(fieldNodeName)}
	if fd := pg.Spec.ForProvider.FaultDomain; fd != "" {
		zone = corev1.EnvVar{Name: EnvZoneID, Value: fd}
	}
	ip := fieldPodIP
	if c.Spec.ForProvider.Routing.PodIPFamily != nil {
		ip = fieldPodIPs
	}
	public := []corev1.EnvVar{{Name: EnvPublicIP, ValueFrom: fieldRef(ip)}}
	if pg.Spec.ForProvider.PublicIPSource.Service() {
		public = []corev1.EnvVar{
			{Name: EnvPublicIP, ValueFrom: fieldRef(fieldPublicIP)},
			{Name: EnvPodIP, ValueFrom: fieldRef(ip)},
		}
	}
	return append(append([]corev1.EnvVar{
		{Name: envPodName, ValueFrom: fieldRef(fieldPodName)},
		{Name: envPodNamespace, ValueFrom: fieldRef(fieldPodNamespace)},
	}, public...),
		corev1.EnvVar{Name: EnvInstanceID, Value: groupID},
		corev1.EnvVar{Name: EnvMachineID, ValueFrom: fieldRef(fieldNodeName)},
		zone,
		corev1.EnvVar{Name: EnvDNSName, Value: DNSName(c, groupID)},
	)
}

// MountedMonitorConfig is the monitor configuration pod p's monitor reads:
// the key of the cluster's ConfigMap (data) that its ConfigMap volume
// projects as the monitor's configuration file, decoded as the monitor
// decodes it (encoding/json, fdbkubernetesmonitor/monitor.go
// readConfiguration at 7.1.67 and 7.3.63); false when the pod projects no
// such key, the ConfigMap holds none (an optional volume then has no such
// file), or it does not decode: the monitor has nothing to load.
func MountedMonitorConfig(p *corev1.Pod, data map[string]string) (MonitorConfig, bool) {
	raw, ok := MountedMonitorConfigFile(p, data)
	if !ok {
		return MonitorConfig{}, false
	}
	var m MonitorConfig
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return MonitorConfig{}, false
	}
	return m, true
}

// MonitorEnvironment is the environment the kubelet gives the main
// container of pod p, which its monitor expands the configuration with:
// literal values, and the fields of p the downward API variables of
// monitorEnv name. A variable from any other source is not set.
func MonitorEnvironment(p *corev1.Pod) map[string]string {
	main := container(&p.Spec, containerName)
	if main == nil {
		return nil
	}
	ips := make([]string, 0, len(p.Status.PodIPs))
	for _, ip := range p.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	fields := map[string]string{
		fieldPodName: p.Name, fieldPodNamespace: p.Namespace, fieldNodeName: p.Spec.NodeName,
		fieldPodIP: p.Status.PodIP, fieldPodIPs: strings.Join(ips, ","),
		fieldPublicIP: p.Annotations[AnnotationPublicIP],
	}
	env := map[string]string{}
	for _, e := range main.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil:
			if v, ok := fields[e.ValueFrom.FieldRef.FieldPath]; ok {
				env[e.Name] = v
			}
		}
	}
	return env
}

// processCountFlag is the monitor's flag for the number of processes it
// starts.
const processCountFlag = "--process-count"

// ProcessCount is the number of fdbserver processes pod p runs: what its
// monitor is told to start (1 unless told otherwise).
func ProcessCount(p *corev1.Pod) int {
	main := container(&p.Spec, containerName)
	if main == nil {
		return 1
	}
	for i, a := range main.Args {
		if a == processCountFlag && i+1 < len(main.Args) {
			if n, err := strconv.Atoi(main.Args[i+1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 1
}
