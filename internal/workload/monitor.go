package workload

import (
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
	// first of that family (ArgumentIPList).
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

// processPort is fdb.ProcessPort of the n-th process: 2n plus the port of
// a process numbered 0.
var processPort = Argument{Type: ArgumentProcessNumber, Multiplier: 2, Offset: fdb.ProcessPort(0)}

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
// imageVersion, as FoundationDB reports it in the process's command_line
// (fdbserver's argv joined by single spaces, argv[0] included): the
// fdbserver the monitor chooses (ServerBinary) and m's arguments in their
// order. It fails, and no process runs, when the monitor refuses the
// configuration (an argument refers to a variable env does not set, or is
// of a type the monitor of imageVersion does not know), when m says
// runServers false, and when fdbserver would refuse the command line and
// exit at once: checked against the option table of the fdbserver release
// of m's version (fdbserverFor).
func (m MonitorConfig) CommandLine(n int, env map[string]string, imageVersion string) (string, error) {
	if m.RunServers != nil && !*m.RunServers {
		return "", errors.New(errRunServers)
	}
	if usesIPList(m.Arguments) && !monitorKnowsIPList(imageVersion) {
		return "", errors.Errorf(errArgumentType, ArgumentIPList)
	}
	args, err := m.arguments(n, env)
	if err != nil {
		return "", err
	}
	if err := fdbserverFor(m.Version).check(args); err != nil {
		return "", errors.Wrap(err, errStartServer)
	}
	return strings.Join(append([]string{ServerBinary(m.Version, imageVersion)}, args...), " "), nil
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

// MonitorConfiguration is the monitor configuration of the pods of a class
// that run density processes each. The n-th process is known by and
// listens on fdb.ProcessPort(n) of the pod's IP (publicIP), keeps its data
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
func MonitorConfiguration(c *v1alpha1.Cluster, class v1alpha1.ProcessClass, density int) MonitorConfig {
	processID := []Argument{variable(EnvInstanceID)}
	if density > 1 {
		processID = append(processID, literal("-"), processNumber)
	}
	args := []Argument{
		literal("--class=" + string(class)),
		prefixed("--public_address=[", publicIP(c), literal("]:"), processPort),
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
	if UseDNS(c) {
		args = append(args, locality(fdb.LocalityDNSName, EnvDNSName))
	}
	if dc := c.Spec.ForProvider.DataCenter; dc != "" {
		args = append(args, literal("--locality_"+fdb.LocalityDCID+"="+dc))
	}
	if hall := c.Spec.ForProvider.DataHall; hall != "" {
		args = append(args, literal("--locality_"+fdb.LocalityDataHall+"="+hall))
	}
	params := append([]string(nil), settings(c, class).CustomParameters...)
	sort.Strings(params)
	for _, p := range params {
		args = append(args, literal("--"+p))
	}
	return MonitorConfig{Version: c.Spec.ForProvider.Version, Arguments: args}
}

// publicIP is the argument of the pod's IP: $FDB_PUBLIC_IP, or with a
// podIPFamily the first IP of that family among the pod's IPs it holds.
// --public_address writes it in brackets, as the operator does with the
// unified image: NetworkAddress::parse (flow/network.cpp) takes an IPv4 or
// IPv6 address in brackets and an IPv6 one only so. There is no
// --listen_address: fdbserver then listens on the public address, which
// holds for either family (0.0.0.0 would miss an IPv6 pod's address).
func publicIP(c *v1alpha1.Cluster) Argument {
	if f := c.Spec.ForProvider.Routing.PodIPFamily; f != nil {
		return Argument{Type: ArgumentIPList, Source: EnvPublicIP, IPFamily: *f}
	}
	return variable(EnvPublicIP)
}

// monitorConfigJSON is MonitorConfiguration as the monitor reads it, with
// runServers false unless the ConfigMap holds a cluster file.
func monitorConfigJSON(c *v1alpha1.Cluster, class v1alpha1.ProcessClass, density int, clusterFile bool) string {
	cfg := MonitorConfiguration(c, class, density)
	if !clusterFile {
		cfg.RunServers = ptr.To(false)
	}
	raw, _ := json.Marshal(cfg) // plain strings, numbers and booleans always marshal
	return string(raw)
}

// ProcessEnvironment is the environment the main container of group
// groupID's pod has while it runs on ip, on node machine, in fault domain
// zone: what its monitor expands the configuration with (see monitorEnv).
func ProcessEnvironment(c *v1alpha1.Cluster, groupID, ip, zone, machine string) map[string]string {
	return map[string]string{
		EnvPublicIP:   ip,
		EnvInstanceID: groupID,
		EnvMachineID:  machine,
		EnvZoneID:     zone,
		EnvDNSName:    DNSName(c, groupID),
	}
}

// ProcessCommandLine is the command line of the n-th process of a group of
// density processes per pod that runs on ip, on node machine, in fault
// domain zone, in a pod whose main container's image is of imageVersion
// (ImageVersion), as FoundationDB reports it: MonitorConfiguration expanded
// with ProcessEnvironment, on the binary the monitor chooses. The provider
// compares it with the command_line the status reports to find processes
// that must restart.
func ProcessCommandLine(c *v1alpha1.Cluster, class v1alpha1.ProcessClass, groupID string, n, density int, ip, zone, machine, imageVersion string) string {
	// ProcessEnvironment sets every variable the configuration refers to
	// (TestPodRunsItsMonitorConfiguration).
	line, _ := MonitorConfiguration(c, class, density).CommandLine(n, ProcessEnvironment(c, groupID, ip, zone, machine), imageVersion)
	return line
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
)

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
	return []corev1.EnvVar{
		{Name: envPodName, ValueFrom: fieldRef(fieldPodName)},
		{Name: envPodNamespace, ValueFrom: fieldRef(fieldPodNamespace)},
		{Name: EnvPublicIP, ValueFrom: fieldRef(ip)},
		{Name: EnvInstanceID, Value: groupID},
		{Name: EnvMachineID, ValueFrom: fieldRef(fieldNodeName)},
		zone,
		{Name: EnvDNSName, Value: DNSName(c, groupID)},
	}
}

// MountedMonitorConfig is the monitor configuration pod p's monitor reads:
// the key of the cluster's ConfigMap (data) that its ConfigMap volume
// projects as the monitor's configuration file, decoded as the monitor
// decodes it (encoding/json, fdbkubernetesmonitor/monitor.go
// readConfiguration at 7.1.67 and 7.3.63); false when the pod projects no
// such key, the ConfigMap holds none (an optional volume then has no such
// file), or it does not decode: the monitor has nothing to load.
func MountedMonitorConfig(p *corev1.Pod, data map[string]string) (MonitorConfig, bool) {
	for _, v := range p.Spec.Volumes {
		if v.Name != configVolume || v.ConfigMap == nil {
			continue
		}
		for _, item := range v.ConfigMap.Items {
			raw, ok := data[item.Key]
			if item.Path != monitorConfigFile || !ok {
				continue
			}
			var m MonitorConfig
			if err := json.Unmarshal([]byte(raw), &m); err != nil {
				return MonitorConfig{}, false
			}
			return m, true
		}
	}
	return MonitorConfig{}, false
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

// fdbserver's command line parser, as far as a monitor configuration can
// meet it: fdbserver (fdbserver/fdbserver.actor.cpp CLIOptions, the same
// at 7.1.67 and 7.3.63) parses its arguments with CSimpleOpt against its
// option table g_rgOptions, with SO_O_EXACT | SO_O_HYPHEN_TO_UNDERSCORE,
// and exits with an error on the first argument the table refuses; the
// monitor then starts it again after a back-off, for good. The tables
// below are internal/fdb/testdata/real/server/options.json
// (TestServerOptionTablesAreTheRealOnes keeps them equal), compact: the
// options of 7.3.63 are those of 7.1.67 and a few more. A name ending in
// '=' takes a value; one whose name ends in '-' is a prefix.
const (
	serverOptions71 = `--blob-credential-file= --bufferedout --buggify= --build-flags --cache-memory= --class=
--cluster-file= --config-path= --consistency-check-urgent-mode --crash --data-filesystem=
--datacenter-id= --datadir= --dev-help --fault-injection= --help --io-trust-seconds=
--io-trust-warn-only --key= --knob-= --kvfile= --listen-address= --locality-= --logdir= --loggroup=
--logsize= --machine-id= --maxlogs= --maxlogssize= --memory= --memory-vsize= --metrics-cluster=
--metrics-prefix= --network= --num-testers= --parentpid= --print-sim-time --process-endpoint=
--process-name= --profiler-= --public-address= --restarting --role= --rsssize= --seed=
--seed-cluster-file= --seed-connection-string= --storage-memory= --test-= --testfile=
--testonservers --testservers= --tls-ca-file= --tls-certificate-file= --tls-key-file=
--tls-password= --tls-plugin= --tls-verify-peers= --trace-format= --traceclock= --tracer=
--unbufferedout --use-test-config-db --version --whitelist-binpath= -? -C= -L= -M= -N= -R -Rs= -a=
-b= -c= -d= -f= -fi= -h -i= -k= -l= -m= -p= -r= -s= -v`
	serverOptions73 = serverOptions71 + `
--authorization-public-key-file= --code-probes= --discover-kms-conn-url-file=
--kms-conn-get-blob-metadata-endpoint= --kms-conn-get-encryption-keys-endpoint=
--kms-conn-get-latest-encryption-keys-endpoint= --kms-conn-validation-token-details=
--kms-connector-type= --kms-rest-allow-not-secure-connection --new-cluster-key= --no-config-db
--trusted-subnet-= --use-future-protocol-version=`
	serverClasses71 = `backup blob_manager blob_worker cluster_controller commit_proxy coordinator data_distributor
encrypt_key_proxy fast_restore grv_proxy log master proxy ratekeeper resolution router stateless storage
storage_cache test transaction unset`
	serverClasses73 = serverClasses71 + ` consistency_scan sim_http_server`
)

// fdbserverRelease is what the fdbserver of one release accepts on its
// command line.
type fdbserverRelease struct {
	// Version is the release the facts were taken from.
	Version string
	// Options says, by option name as written in fdbserver's table (e.g.
	// --public-address, -C), whether the option takes a value; a name
	// ending in '-' is a prefix (--knob-, --locality-).
	Options map[string]bool
	// Classes are the values --class accepts.
	Classes []string
}

// newRelease reads a compact table (see serverOptions71).
func newRelease(version, options, classes string) fdbserverRelease {
	r := fdbserverRelease{Version: version, Options: map[string]bool{}, Classes: strings.Fields(classes)}
	for _, o := range strings.Fields(options) {
		name, value := strings.CutSuffix(o, "=")
		r.Options[name] = value
	}
	sort.Strings(r.Classes)
	return r
}

// fdbserverReleases are the fdbserver releases whose command line parser
// the provider knows, oldest first.
var fdbserverReleases = []fdbserverRelease{
	newRelease("7.1.67", serverOptions71, serverClasses71),
	newRelease("7.3.63", serverOptions73, serverClasses73),
}

// fdbserverFor is the known release whose parser an fdbserver of version
// parses with: the one of its major.minor; for another, the newest older
// one (FoundationDB adds options far more often than it removes them), or
// the oldest for a version older than all (or not a version at all).
func fdbserverFor(version string) fdbserverRelease {
	out := fdbserverReleases[0]
	v, err := fdb.ParseVersion(version)
	if err != nil {
		return out
	}
	for _, r := range fdbserverReleases {
		rv, _ := fdb.ParseVersion(r.Version) // the releases above are versions
		if rv.MajorMinor() == v.MajorMinor() {
			return r
		}
		if rv.Less(v) {
			out = r
		}
	}
	return out
}

// normalizeOption spells an option name as CSimpleOpt compares it with
// SO_O_HYPHEN_TO_UNDERSCORE: '-' and '_' after the leading dashes are the
// same, the number of leading dashes is not.
func normalizeOption(o string) string {
	rest := strings.TrimLeft(o, "-")
	return o[:len(o)-len(rest)] + strings.ReplaceAll(rest, "-", "_")
}

// lookup finds option name (without its value) as CSimpleOpt's
// LookupOption does with SO_O_EXACT: the entry of the same name, or a
// prefix entry (ending in '-') that name extends; it returns the entry.
func (r fdbserverRelease) lookup(name string) (string, bool) {
	n := normalizeOption(name)
	var prefix string
	for o := range r.Options {
		switch no := normalizeOption(o); {
		case no == n:
			return o, true
		case strings.HasSuffix(o, "-") && strings.HasPrefix(n, no):
			prefix = o
		}
	}
	return prefix, prefix != ""
}

// Errors fdbserver prints for a command line it refuses (fdbserver.actor.cpp
// CLIOptions::parseArgsInternal and buildNetworkAddresses), with the
// release and the offending argument.
const (
	errServerUnknownOption = "fdbserver %s: unknown option: `%s'"
	errServerArgGiven      = "fdbserver %s: argument given for option `%s'"
	errServerArgMissing    = "fdbserver %s: missing argument for option `%s'"
	errServerArgInvalid    = "fdbserver %s: invalid argument to option `%s'"
	errServerPrefix        = "fdbserver %s: unable to parse %s"
	errServerClass         = "fdbserver %s: Unknown machine class `%s'"
	errServerSeeds         = "fdbserver %s: --seed-cluster-file and --seed-connection-string may not both be specified at once"
	errServerSeedNoFile    = "fdbserver %s: If -seed-cluster-file or --seed-connection-string is specified, -C must be specified as well"
	errServerListenCount   = "fdbserver %s: Listen addresses (if provided) should be equal to the number of public addresses in order"
	errServerAddressCount  = "fdbserver %s: maximum 2 public/listen addresses are allowed"
	errServerAddress       = "fdbserver %s: Could not parse network address `%s' (specify as IP_ADDRESS:PORT)"
	errServerTLSTwice      = "fdbserver %s: only one public address of each TLS state is allowed"
	errServerInvalidIP     = "fdbserver %s: %s is not a valid IP address"
)

// check refuses, with the error fdbserver prints, the arguments (argv
// without argv[0]) that this release's fdbserver would refuse to start
// with: an argument that is not an option of its table; an option that
// takes a value without one (a separate value may not start with '-'), or
// one that takes none with one; a prefix option whose key does not follow
// the prefix as fdbserver spells it (extractPrefixedArgument in flow's
// ArgParseUtil.h); a class fdbserver does not know; both seed options, or
// one without a cluster file; public addresses (--public_address, comma
// separated, every occurrence counting) that are more than two, two of the
// same TLS state, not as many as listen addresses given, or that
// NetworkAddress::parse (flow/network.cpp) refuses: an IPv6 address
// without brackets, for one. What a process does with values the parser
// accepts (a knob's name, a directory) is not checked.
func (r fdbserverRelease) check(args []string) error {
	var public, listen []string
	var clusterFile, seedFile, seedString bool
	for i := 0; i < len(args); i++ {
		name, value, given := strings.Cut(args[i], "=")
		option, ok := r.lookup(name)
		if !ok {
			return errors.Errorf(errServerUnknownOption, r.Version, name)
		}
		takes := r.Options[option]
		switch {
		case !takes && given:
			return errors.Errorf(errServerArgGiven, r.Version, option)
		case takes && !given && i+1 == len(args):
			return errors.Errorf(errServerArgMissing, r.Version, option)
		case takes && !given && strings.HasPrefix(args[i+1], "-"):
			return errors.Errorf(errServerArgInvalid, r.Version, option)
		case takes && !given:
			i++
			value = args[i]
		}
		if prefix, ok := strings.CutSuffix(option, "-"); ok {
			if rest, ok := strings.CutPrefix(name, prefix); !ok || rest == "" || rest[0] != '-' && rest[0] != '_' {
				return errors.Errorf(errServerPrefix, r.Version, name)
			}
		}
		switch option {
		case "--class", "-c":
			if !slices.Contains(r.Classes, value) {
				return errors.Errorf(errServerClass, r.Version, value)
			}
		case "--public-address", "-p":
			public = append(public, strings.Split(value, ",")...)
		case "--listen-address", "-l":
			listen = append(listen, strings.Split(value, ",")...)
		case "--cluster-file", "-C":
			clusterFile = true
		case "--seed-cluster-file":
			seedFile = true
		case "--seed-connection-string":
			seedString = true
		}
	}
	switch {
	case seedFile && seedString:
		return errors.Errorf(errServerSeeds, r.Version)
	case (seedFile || seedString) && !clusterFile:
		return errors.Errorf(errServerSeedNoFile, r.Version)
	case len(listen) > 0 && len(listen) != len(public):
		return errors.Errorf(errServerListenCount, r.Version)
	case len(public) > 2:
		return errors.Errorf(errServerAddressCount, r.Version)
	}
	tls := map[bool]bool{}
	for _, a := range public {
		port, auto := strings.CutPrefix(a, "auto:")
		if auto {
			a = "0.0.0.0:" + port
		}
		ip, secure, ok := parseNetworkAddress(a)
		switch {
		case !ok:
			return errors.Errorf(errServerAddress, r.Version, a)
		case ip.IsUnspecified() && !auto:
			return errors.Errorf(errServerInvalidIP, r.Version, a)
		case tls[secure]:
			return errors.Errorf(errServerTLSTwice, r.Version)
		}
		tls[secure] = true
	}
	for _, a := range listen {
		if _, _, ok := parseNetworkAddress(a); !ok {
			return errors.Errorf(errServerAddress, r.Version, a)
		}
	}
	return nil
}

// parseNetworkAddress parses an address as NetworkAddress::parse does
// (flow/network.cpp, the same at 7.1.67 and 7.3.63): "[IP]:PORT" with an
// IPv4 or IPv6 address in the brackets, or "A.B.C.D:PORT" without, either
// followed by ":tls"; it returns the IP and whether the address is TLS.
func parseNetworkAddress(s string) (ip net.IP, tls bool, ok bool) {
	s, _, _ = strings.Cut(s, "(fromHostname)")
	if len(s) > 4 {
		s, tls = strings.CutSuffix(s, ":tls")
	}
	if rest, bracketed := strings.CutPrefix(s, "["); bracketed {
		host, port, _ := strings.Cut(rest, "]:")
		ip = net.ParseIP(host)
		// std::stoi reads the port's leading digits and ignores the rest.
		return ip, tls, ip != nil && strings.Contains(rest, "]:") && digitsPrefix(port) > 0
	}
	host, port, _ := strings.Cut(s, ":")
	ip = net.ParseIP(host)
	return ip, tls, ip != nil && ip.To4() != nil && strings.Count(host, ".") == 3 && port != "" && digitsPrefix(port) == len(port)
}

// digitsPrefix is the number of decimal digits s starts with.
func digitsPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
