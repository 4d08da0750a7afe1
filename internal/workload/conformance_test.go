package workload

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// realDir holds the facts extracted from the real components' sources
// (internal/fdb/testdata/real/SOURCES.md).
var realDir = filepath.Join("..", "fdb", "testdata", "real")

// realServerOptions is internal/fdb/testdata/real/server/options.json:
// fdbserver's option table and classes by release.
type realServerOptions struct {
	Options map[string]map[string]bool `json:"options"`
	Classes map[string][]string        `json:"classes"`
}

// realMonitorTypes is internal/fdb/testdata/real/monitor/config_types.json:
// the JSON fdb-kubernetes-monitor reads, by release.
type realMonitorTypes struct {
	Types map[string]struct {
		ProcessConfiguration map[string]string `json:"ProcessConfiguration"`
		Argument             map[string]string `json:"Argument"`
		ArgumentTypes        []string          `json:"argumentTypes"`
		IPFamilies           []float64         `json:"ipFamilies"`
		VersionPattern       string            `json:"versionPattern"`
	} `json:"types"`
}

func readReal(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(realDir, path))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// realReleases are the fdbserver releases of server/options.json, as the
// parser the tests hold command lines against.
func realReleases(t *testing.T) []fdbserverRelease {
	t.Helper()
	var real realServerOptions
	readReal(t, "server/options.json", &real)
	var out []fdbserverRelease
	for version, options := range real.Options {
		out = append(out, release(version, options, real.Classes[version]))
	}
	slices.SortFunc(out, func(a, b fdbserverRelease) int { return strings.Compare(a.Version, b.Version) })
	return out
}

// TestServerOptionTablesAreTheRealOnes: the option tables the provider
// checks command lines against at run time (fdbserverReleases) are those
// extracted from fdbserver's sources.
func TestServerOptionTablesAreTheRealOnes(t *testing.T) {
	if diff := cmp.Diff(realReleases(t), fdbserverReleases, cmp.AllowUnexported(fdbserverRelease{})); diff != "" {
		t.Errorf("fdbserverReleases: -want (server/options.json), +got:\n%s", diff)
	}
}

// conformanceClusters are the Clusters whose monitor configurations the
// conformance tests render: every setting that changes a command line.
func conformanceClusters() map[string]*v1alpha1.Cluster {
	return map[string]*v1alpha1.Cluster{
		"DNSNames":     cluster(),
		"IPAddresses":  cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(false) }),
		"DataCenter":   cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.DataCenter = "dc1" }),
		"DataHall":     cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.DataHall = "hall-a" }),
		"PodIPFamily4": cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.PodIPFamily = ptr.To(4) }),
		"PodIPFamily6": cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.PodIPFamily = ptr.To(6) }),
		"ServiceIPs":   cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.PublicIPSource = v1alpha1.PublicIPSourceService }),
		"CustomParameters": cluster(func(c *v1alpha1.Cluster) {
			c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{
				"general": {CustomParameters: []string{"knob_disable_posix_kernel_aio=1", "memory=8GiB"}},
				"storage": {CustomParameters: []string{"knob_storage_hard_limit_bytes=1000000000", "locality_rack=r1"}},
			}
		}),
	}
}

// podIPs are the addresses a pod may run on, its primary IP first: single
// and dual stack.
var podIPs = map[string][]string{
	"IPv4": {"10.1.2.3"}, "IPv6": {"fd00:10:1::2:3"},
	"DualStack": {"10.1.2.3", "fd00:10:1::2:3"}, "DualStackIPv6First": {"fd00:10:1::2:3", "10.1.2.3"},
}

// hasFamily reports whether ips hold an IP of the Cluster's podIPFamily,
// if it names one.
func hasFamily(c *v1alpha1.Cluster, ips []string) bool {
	f := c.Spec.ForProvider.Routing.PodIPFamily
	return f == nil || slices.ContainsFunc(ips, func(ip string) bool { return strings.Contains(ip, ":") == (*f == 6) })
}

// conformanceLines renders, for each cluster of conformanceClusters at
// each release the provider knows, each class and density, on an IPv4, an
// IPv6 and dual-stack pods (those with an IP of the Cluster's podIPFamily),
// the command lines the pod's monitor starts from the
// configuration the pod mounts, and calls check with each (argv[0]
// dropped).
func conformanceLines(t *testing.T, check func(t *testing.T, version string, args []string)) {
	for cname, c := range conformanceClusters() {
		for _, version := range []string{"7.1.67", "7.3.63"} {
			c := c.DeepCopy()
			c.Spec.ForProvider.Version = version
			for _, class := range v1alpha1.ProcessClasses {
				for _, density := range []int{1, 2, 3} {
					for family, ips := range podIPs {
						if !hasFamily(c, ips) {
							continue
						}
						t.Run(fmt.Sprintf("%s/%s/%s/%d/%s", cname, version, class, density, family), func(t *testing.T) {
							g := group(class, density, "zone-a")
							g.Spec.ForProvider.PublicIPSource = c.Spec.ForProvider.Routing.PublicIPSource
							pod := Pod(c, g, string(class)+"-4")
							pod.Annotations[AnnotationPublicIP] = "10.96.0.5"
							cfg := mountedConfig(t, pod, ConfigMap(c, "db:abc@10.0.0.1:4501", map[Density]bool{GroupDensity(g): true}))
							pod.Spec.NodeName, pod.Status.PodIP = "node-7", ips[0]
							for _, ip := range ips {
								pod.Status.PodIPs = append(pod.Status.PodIPs, corev1.PodIP{IP: ip})
							}
							for n := 1; n <= ProcessCount(pod); n++ {
								args, err := cfg.arguments(n, MonitorEnvironment(pod))
								if err != nil {
									t.Fatalf("process %d: %v", n, err)
								}
								check(t, version, args)
							}
						})
					}
				}
			}
		}
	}
}

// TestCommandLinesParseAsFdbserverDoes: every command line a pod's monitor
// starts parses with the option table of the real fdbserver of 7.1 and
// 7.3 (every option known, a value given to exactly those that take one,
// a known class, public addresses NetworkAddress::parse takes, IPv6 ones
// bracketed), and names each option once.
func TestCommandLinesParseAsFdbserverDoes(t *testing.T) {
	releases := realReleases(t)
	conformanceLines(t, func(t *testing.T, _ string, args []string) {
		for _, r := range releases {
			if err := r.check(args); err != nil {
				t.Errorf("%v\n%s", err, strings.Join(args, " "))
			}
			seen := map[string]bool{}
			for _, a := range args {
				name, _, _ := strings.Cut(a, "=")
				if n := normalizeOption(name); seen[n] {
					t.Errorf("%s is given twice: %s", name, strings.Join(args, " "))
				} else {
					seen[n] = true
				}
			}
		}
	})
}

// TestMonitorConfigurationsDecodeAsTheMonitorDoes: every monitor
// configuration the ConfigMap holds, before and after the first cluster
// file, holds only the keys of the monitor's ProcessConfiguration and
// Argument with their JSON types, argument types the monitor knows, IP
// families it accepts and a version it parses, at 7.1.67 and 7.3.63.
func TestMonitorConfigurationsDecodeAsTheMonitorDoes(t *testing.T) {
	var real realMonitorTypes
	readReal(t, "monitor/config_types.json", &real)
	for cname, c := range conformanceClusters() {
		for _, cs := range []string{"", "db:abc@10.0.0.1:4501"} {
			for key, raw := range ConfigMap(c, cs, Densities(c)).Data {
				if key == KeyClusterFile {
					continue
				}
				for release, types := range real.Types {
					t.Run(fmt.Sprintf("%s/%s/clusterFile=%t/%s", cname, key, cs != "", release), func(t *testing.T) {
						var doc any
						if err := json.Unmarshal([]byte(raw), &doc); err != nil {
							t.Fatal(err)
						}
						version := regexp.MustCompile(types.VersionPattern)
						var walk func(path string, v any, fields map[string]string)
						walk = func(path string, v any, fields map[string]string) {
							obj, ok := v.(map[string]any)
							if !ok {
								t.Errorf("%s: %v is not an object", path, v)
								return
							}
							for k, value := range obj {
								at := path + "." + k
								want, ok := fields[k]
								if !ok {
									t.Errorf("%s: the monitor's %s has no key %q", at, path, k)
									continue
								}
								if got := jsonType(value); got != want && !(want == "array of Argument" && got == "array") {
									t.Errorf("%s: %s, the monitor reads %s", at, got, want)
								}
								switch k {
								case "arguments", "values":
									items, _ := value.([]any)
									for i, item := range items {
										walk(fmt.Sprintf("%s[%d]", at, i), item, types.Argument)
									}
								case "type":
									if !slices.Contains(types.ArgumentTypes, fmt.Sprint(value)) {
										t.Errorf("%s: the monitor knows no argument type %v", at, value)
									}
								case "ipFamily":
									if f, _ := value.(float64); !slices.Contains(types.IPFamilies, f) {
										t.Errorf("%s: the monitor knows no IP family %v", at, value)
									}
								case "version":
									if !version.MatchString(fmt.Sprint(value)) {
										t.Errorf("%s: the monitor cannot parse version %v", at, value)
									}
								}
							}
						}
						walk("ProcessConfiguration", doc, types.ProcessConfiguration)
					})
				}
			}
		}
	}
}

// jsonType is the JSON type of a decoded value, as config_types.json
// names it.
func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}
