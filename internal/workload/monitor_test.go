package workload

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// TestFdbserverParser: the parser the provider holds command lines against
// accepts and refuses what fdbserver's does (fdbserver.actor.cpp
// CLIOptions::parseArgsInternal and buildNetworkAddresses with CSimpleOpt,
// flow/network.cpp NetworkAddress::parse), with the error fdbserver
// prints.
func TestFdbserverParser(t *testing.T) {
	cases := map[string]struct {
		release string
		args    string
		want    string
	}{
		"Provider":            {args: "--class=storage --public_address=[10.1.2.3]:4501 --datadir=/var/fdb/data/1 --locality_zoneid=a"},
		"HyphensAndSeparate":  {args: "--public-address [10.1.2.3]:4501 -c log --locality-zoneid a --knob-a=1"},
		"UnbracketedIPv4":     {args: "--public_address=10.1.2.3:4501"},
		"BracketedIPv6":       {args: "--public_address=[fd00::1]:4501:tls"},
		"TwoAddresses":        {args: "--public_address=[fd00::1]:4501,10.1.2.3:4500:tls --listen_address=[::]:4501,0.0.0.0:4500:tls"},
		"AutoAddress":         {args: "--public_address=auto:4501"},
		"EmptyValue":          {args: "--locality_zoneid="},
		"Knob73":              {release: "7.3.63", args: "--trusted-subnet-a=10.0.0.0/8"},
		"UnbracketedIPv6":     {args: "--public_address=fd00::1:4501", want: "fdbserver 7.1.67: Could not parse network address `fd00::1:4501' (specify as IP_ADDRESS:PORT)"},
		"UnspecifiedPublic":   {args: "--public_address=0.0.0.0:4501", want: "fdbserver 7.1.67: 0.0.0.0:4501 is not a valid IP address"},
		"UnknownOption":       {args: "--class=log --bogus_option=1", want: "fdbserver 7.1.67: unknown option: `--bogus_option'"},
		"Abbreviation":        {args: "--clas=log", want: "fdbserver 7.1.67: unknown option: `--clas'"},
		"OneDash":             {args: "-class=log", want: "fdbserver 7.1.67: unknown option: `-class'"},
		"NotAnOption":         {args: "4501", want: "fdbserver 7.1.67: unknown option: `4501'"},
		"Knob73On71":          {args: "--trusted-subnet-a=10.0.0.0/8", want: "fdbserver 7.1.67: unknown option: `--trusted-subnet-a'"},
		"ValueGiven":          {args: "--crash=1", want: "fdbserver 7.1.67: argument given for option `--crash'"},
		"ValueMissing":        {args: "--class", want: "fdbserver 7.1.67: missing argument for option `--class'"},
		"ValueIsAnOption":     {args: "--class --crash", want: "fdbserver 7.1.67: invalid argument to option `--class'"},
		"PrefixSpelling":      {release: "7.3.63", args: "--trusted_subnet_a=10.0.0.0/8", want: "fdbserver 7.3.63: unable to parse --trusted_subnet_a"},
		"UnknownClass":        {args: "--class=proxy_log", want: "fdbserver 7.1.67: Unknown machine class `proxy_log'"},
		"ClassOf73":           {args: "--class=consistency_scan", want: "fdbserver 7.1.67: Unknown machine class `consistency_scan'"},
		"TwoPlainAddresses":   {args: "--public_address=10.1.2.3:4501 --public_address=10.1.2.3:4503", want: "fdbserver 7.1.67: only one public address of each TLS state is allowed"},
		"ThreeAddresses":      {args: "--public_address=10.1.2.3:4501,10.1.2.3:4503,10.1.2.3:4505", want: "fdbserver 7.1.67: maximum 2 public/listen addresses are allowed"},
		"ListenWithoutPublic": {args: "--listen_address=0.0.0.0:4501", want: "fdbserver 7.1.67: Listen addresses (if provided) should be equal to the number of public addresses in order"},
		"SeedWithoutFile":     {args: "--seed_cluster_file=/a", want: "fdbserver 7.1.67: If -seed-cluster-file or --seed-connection-string is specified, -C must be specified as well"},
		"TwoSeeds":            {args: "-C /b --seed_cluster_file=/a --seed_connection_string=a:b@1.2.3.4:1", want: "fdbserver 7.1.67: --seed-cluster-file and --seed-connection-string may not both be specified at once"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := fdbserverFor(cmp.Or(tc.release, "7.1.67")).check(strings.Fields(tc.args)); err != nil {
				got = err.Error()
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("check(%s): -want, +got:\n%s", tc.args, diff)
			}
		})
	}
}

// TestFdbserverForVersion: a version is parsed as the known release of its
// major.minor parses, else as the newest older one, else the oldest.
func TestFdbserverForVersion(t *testing.T) {
	for version, want := range map[string]string{
		"7.1.27": "7.1.67", "7.1.67": "7.1.67", "7.2.4": "7.1.67", "7.3.0": "7.3.63", "7.4.1": "7.3.63", "6.3.25": "7.1.67", "": "7.1.67",
	} {
		if got := fdbserverFor(version).Version; got != want {
			t.Errorf("fdbserverFor(%q) = %s, want %s", version, got, want)
		}
	}
}

// TestRefusedCommandLineRunsNoProcess: a configuration whose command line
// fdbserver refuses (here a custom parameter it does not know) gives no
// command line but the error fdbserver prints, so the simulator runs no
// process for it, as fdbserver exits at once under the monitor.
func TestRefusedCommandLineRunsNoProcess(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"log": {CustomParameters: []string{"bogus_option=1"}}}
	})
	env := ProcessEnvironment(c, "log-1", Placement{PublicIP: "10.1.2.3", Zone: "zone-a", Machine: "node-1"})
	line, err := MonitorConfiguration(c, Density{Class: v1alpha1.ProcessClassLog, Processes: 1}).CommandLine(1, env, "7.3.63")
	got := line
	if err != nil {
		got = err.Error()
	}
	if diff := gocmp.Diff("cannot start fdbserver: fdbserver 7.3.63: unknown option: `--bogus_option'", got); diff != "" {
		t.Errorf("CommandLine: -want, +got:\n%s", diff)
	}
}

// TestMonitorWaitsForTheFirstClusterFile: until the ConfigMap holds a
// cluster file the monitor configurations say runServers false, so the
// monitor starts no fdbserver that would exit for want of one (the
// operator's GetMonitorProcessConfiguration does the same); with one they
// leave it unset, which the monitor reads as true.
func TestMonitorWaitsForTheFirstClusterFile(t *testing.T) {
	c := cluster()
	for cs, want := range map[string]any{"": false, "db:abc@10.0.0.1:4501": nil} {
		for key, raw := range ConfigMap(c, cs, Densities(c)).Data {
			if key == KeyClusterFile {
				continue
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(raw), &doc); err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(want, doc["runServers"]); diff != "" {
				t.Errorf("%s with cluster file %q: runServers -want, +got:\n%s", key, cs, diff)
			}
		}
	}
}

// TestServersLogToTheClusterLogGroup: every process logs with the
// Cluster's name as its trace log group (--loggroup), as the operator's
// processes do with the cluster's.
func TestServersLogToTheClusterLogGroup(t *testing.T) {
	line := ProcessCommandLine(cluster(), Density{Class: v1alpha1.ProcessClassStorage, Processes: 1}, "storage-1", 1, Placement{PublicIP: "10.1.2.3", Zone: "zone-a", Machine: "node-1"}, "7.3.63")
	if !strings.Contains(line+" ", " --loggroup=db ") {
		t.Errorf("command line %q has no --loggroup=db", line)
	}
}

// TestPublicAddressOfEachFamily: a process is known by its pod's IP in
// brackets, which NetworkAddress::parse takes for IPv4 and needs for IPv6:
// the pod's primary IP (status.podIP), or with a podIPFamily the first IP
// of that family among the pod's IPs (status.podIPs), as the monitor's
// IPList argument chooses it.
func TestPublicAddressOfEachFamily(t *testing.T) {
	const v4, v6 = "10.1.2.3", "fd00::2:3"
	cases := map[string]struct {
		family *int
		ips    []string
		want   string
	}{
		"IPv4":               {ips: []string{v4}, want: "[10.1.2.3]:4501"},
		"IPv6":               {ips: []string{v6}, want: "[fd00::2:3]:4501"},
		"DualStackPrimary":   {ips: []string{v6, v4}, want: "[fd00::2:3]:4501"},
		"DualStackFamily4":   {family: ptr.To(4), ips: []string{v6, v4}, want: "[10.1.2.3]:4501"},
		"DualStackFamily6":   {family: ptr.To(6), ips: []string{v4, v6}, want: "[fd00::2:3]:4501"},
		"SingleStackFamily6": {family: ptr.To(6), ips: []string{v6}, want: "[fd00::2:3]:4501"},
		"NoIPOfTheFamily": {family: ptr.To(6), ips: []string{v4},
			want: `cannot expand the monitor configuration: no IP of family 6 in FDB_PUBLIC_IP="10.1.2.3"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.PodIPFamily = tc.family })
			pod := Pod(c, group(v1alpha1.ProcessClassLog, 1, "zone-a"), "log-1")
			pod.Spec.NodeName, pod.Status.PodIP = "node-1", tc.ips[0]
			for _, ip := range tc.ips {
				pod.Status.PodIPs = append(pod.Status.PodIPs, corev1.PodIP{IP: ip})
			}
			line, err := MonitorConfiguration(c, Density{Class: v1alpha1.ProcessClassLog, Processes: 1}).CommandLine(1, MonitorEnvironment(pod), ImageVersion(pod))
			_, got, _ := strings.Cut(line, " --public_address=")
			got, _, _ = strings.Cut(got, " ")
			if err != nil {
				got = err.Error()
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("--public_address: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestIPListNeedsMonitor7160: a monitor older than 7.1.60 does not know
// the IPList argument type and refuses a configuration that uses it.
func TestIPListNeedsMonitor7160(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.PodIPFamily = ptr.To(4) })
	env := ProcessEnvironment(c, "log-1", Placement{PublicIP: "10.1.2.3", Zone: "zone-a", Machine: "node-1"})
	for image, want := range map[string]string{
		"7.1.59": `cannot expand the monitor configuration: unknown argument type "IPList"`,
		"7.1.60": "", "7.3.63": "", "": "",
	} {
		got := ""
		if _, err := MonitorConfiguration(c, Density{Class: v1alpha1.ProcessClassLog, Processes: 1}).CommandLine(1, env, image); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("monitor %q: error %q, want %q", image, got, want)
		}
	}
}

// TestRunServersFalseStartsNoProcess: the monitor starts no process while
// its configuration says runServers false.
func TestRunServersFalseStartsNoProcess(t *testing.T) {
	var cfg MonitorConfig
	if err := json.Unmarshal([]byte(ConfigMap(cluster(), "", Densities(cluster())).Data[monitorConfigKey(Density{Class: v1alpha1.ProcessClassLog, Processes: 1})]), &cfg); err != nil {
		t.Fatal(err)
	}
	_, err := cfg.CommandLine(1, ProcessEnvironment(cluster(), "log-1", Placement{PublicIP: "10.1.2.3", Zone: "zone-a", Machine: "node-1"}), "7.3.63")
	if diff := gocmp.Diff(errRunServers, fmt.Sprint(err)); diff != "" {
		t.Errorf("CommandLine: -want, +got:\n%s", diff)
	}
}
