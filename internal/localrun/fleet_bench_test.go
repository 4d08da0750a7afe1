package localrun_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// fleetShapeEnv, set to "small", makes the fleet's Clusters (not the
// extra one) the smallest shape there is: single redundancy, one storage,
// one log and one stateless process group, 3 pods instead of the
// quickstart's 11. It is the cheaper harness for N = 1,000: on two cores
// the local cluster creates about 200 pods a minute, so 11,000 pods and
// their groups' reconciles take longer than a session (docs/PERFORMANCE.md,
// Fleet).
const fleetShapeEnv = "FLEET_SHAPE"

// fleetSteadyWindow is how long the steady state of a Ready fleet is
// measured: four of the run's 15 s poll intervals.
const fleetSteadyWindow = time.Minute

// BenchmarkFleet runs the provider as `make run` does (the local kwok
// cluster, the simulator, --poll=15s) for a fleet of N Clusters of the
// quickstart's shape (examples/cluster.yaml, 11 process groups each),
// created together, and one more created once they are Ready and a steady
// window was measured. Each N gets a fresh run. It reports, from the
// provider's own /metrics: its resident memory at steady state, its CPU
// over the fleet's creation and at steady state, API requests and
// reconciles (all controllers) per second at steady state; from
// /proc: its peak resident memory; from a watch on the Clusters: p50 and
// p99 of each Cluster's time from its create request to Ready=True, and the
// extra Cluster's; from the tool-cost counters (the provider's default
// --sim-tool-cost=real): status reads per database per minute at steady
// state, the CPU the tools would spend in the provider's pod and the CPU
// each database's cluster controller would spend on status. FLEET_SHAPE=small
// makes the fleet (not the extra Cluster) of the smallest shape instead
// (fleetShapeEnv). Figures are
// reported, never asserted. It needs the local
// cluster's binaries (make bench-fleet) and skips without them.
func BenchmarkFleet(b *testing.B) {
	binPath := os.Getenv(testenv.LocalRunPathEnv)
	if binPath == "" {
		b.Skipf("%s is not set; run `make bench-fleet`", testenv.LocalRunPathEnv)
	}
	for _, n := range []int{10, 50, 100, 300, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for range b.N {
				fleet(b, binPath, n)
			}
		})
	}
}

// fleet measures one fleet of n Clusters on a fresh run.
func fleet(b *testing.B, binPath string, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n+20)*time.Minute)
	defer cancel()
	o := runOptions(b, binPath, "fdb-fleet-bench")
	o.Quickstart = false
	small := os.Getenv(fleetShapeEnv) == "small"
	groups, zones := 11, o.Zones
	if small {
		// A single-redundancy database's groups all ask for the first zone.
		groups, zones = 3, 1
	}
	// Room for every pod (the extra Cluster's 11 too) at well under a node's 110.
	o.NodesPerZone = max(2, (n*groups+11)/(zones*80)+1)
	o.MetricsAddress = freeAddress(b)
	o.ProviderArgs = []string{"--enable-pprof"}
	r, err := localrun.Start(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := r.Stop(context.WithoutCancel(ctx)); err != nil {
			b.Error(err)
		}
	}()
	c, err := unlimitedClient(r.Kubeconfig())
	if err != nil {
		b.Fatal(err)
	}
	// Every Cluster of the quickstart's shape runs with TLS on the
	// quickstart's certificate Secret.
	if err := r.CreateTLSSecret(ctx); err != nil {
		b.Fatal(err)
	}
	objs, err := manifest.Read([]string{filepath.Join(o.Root, "examples", "cluster.yaml")}, "Cluster")
	if err != nil {
		b.Fatal(err)
	}
	template := &v1alpha1.Cluster{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, template); err != nil {
		b.Fatal(err)
	}
	fleetTemplate := template
	if small {
		fleetTemplate = smallest(template)
	}
	// The watch ends before the run stops (deferred calls run last first).
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	ready := &readiness{at: map[string]time.Time{}}
	go ready.watch(watchCtx, c)
	metrics := providerMetrics{url: "http://" + o.MetricsAddress + "/metrics"}
	fail := func(err error) { b.Fatalf("%v; provider log %s", err, r.ProviderLog()) }

	// The provider serves its metrics once its manager starts.
	var before map[string]float64
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		before, err = metrics.scrape(ctx)
		return err == nil, nil
	}); err != nil {
		fail(fmt.Errorf("the provider serves no metrics: %w", err))
	}
	profiles := profileCreation(ctx, "http://"+o.MetricsAddress, n)
	start := time.Now()
	created := map[string]time.Time{}
	for i := range n {
		name, at, err := createCluster(ctx, c, fleetTemplate, fmt.Sprintf("fleet-%03d", i))
		if err != nil {
			fail(err)
		}
		created[name] = at
	}
	if err := ready.await(ctx, created); err != nil {
		fail(err)
	}
	allReady := time.Since(start)
	profiles()
	atReady, err := metrics.scrape(ctx)
	if err != nil {
		fail(err)
	}

	// Steady state: every Cluster Ready, nothing changing.
	select {
	case <-ctx.Done():
		fail(ctx.Err())
	case <-time.After(fleetSteadyWindow):
	}
	steady, err := metrics.scrape(ctx)
	if err != nil {
		fail(err)
	}

	name, at, err := createCluster(ctx, c, template, "fleet-extra")
	if err != nil {
		fail(err)
	}
	extra := map[string]time.Time{name: at}
	if err := ready.await(ctx, extra); err != nil {
		fail(err)
	}
	peak, err := peakRSS(r.ProviderPID())
	if err != nil {
		fail(err)
	}

	toReady := ready.since(created)
	window := fleetSteadyWindow.Seconds()
	b.ReportMetric(float64(n), "clusters")
	b.ReportMetric(float64(groups), "groups/db")
	b.ReportMetric(allReady.Seconds(), "s-all-ready")
	b.ReportMetric(percentile(toReady, 50).Seconds(), "s-p50-ready")
	b.ReportMetric(percentile(toReady, 99).Seconds(), "s-p99-ready")
	b.ReportMetric(ready.since(extra)[0].Seconds(), "s-extra-ready")
	b.ReportMetric(atReady[cpuSeconds]-before[cpuSeconds], "cpu-s-to-ready")
	b.ReportMetric((steady[cpuSeconds]-atReady[cpuSeconds])/window, "cpu-steady")
	b.ReportMetric(steady[residentBytes]/(1<<20), "MiB-rss-steady")
	b.ReportMetric(peak/(1<<20), "MiB-rss-peak")
	b.ReportMetric((steady[apiRequests]-atReady[apiRequests])/window, "api-req/s-steady")
	b.ReportMetric((steady[reconciles]-atReady[reconciles])/window, "reconciles/s-steady")
	b.ReportMetric((steady[statusReads]-atReady[statusReads])/float64(n)/(window/60), "status/db/min-steady")
	b.ReportMetric(atReady[toolCPU]-before[toolCPU], "tool-cpu-s-to-ready")
	b.ReportMetric((steady[toolCPU]-atReady[toolCPU])/window, "tool-cpu-steady")
	b.ReportMetric((steady[controllerCPU]-atReady[controllerCPU])/float64(n)/window, "cc-status-cpu-steady/db")
}

// fleetProfileEnv names a directory; when set, BenchmarkFleet saves the
// provider's CPU profiles while the fleet comes up there, one per minute
// (cpu-N-000.pprof, …; `go tool pprof -top dir/cpu-N-*.pprof` merges them),
// and its heap once the fleet is Ready (heap-N.pprof).
const fleetProfileEnv = "FLEET_PROFILE"

// profileCreation starts saving CPU profiles of the provider serving
// pprof at base, if fleetProfileEnv asks for them, and returns the function
// that stops at the end of the current minute and saves the heap.
func profileCreation(ctx context.Context, base string, n int) func() {
	dir := os.Getenv(fleetProfileEnv)
	if dir == "" {
		return func() {}
	}
	save := func(path, file string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close() //nolint:errcheck // read-only
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode == http.StatusOK {
			_ = os.WriteFile(filepath.Join(dir, file), body, 0o600)
		}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			save("/debug/pprof/profile?seconds=60", fmt.Sprintf("cpu-%d-%03d.pprof", n, i))
		}
	}()
	return func() {
		close(done)
		<-stopped
		save("/debug/pprof/heap", fmt.Sprintf("heap-%d.pprof", n))
	}
}

// freeAddress is a loopback address with a port nothing listens on now.
func freeAddress(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close() //nolint:errcheck // only its port was wanted
	return l.Addr().String()
}

// unlimitedClient is a client of the run's cluster without client-side rate
// limits, so that the fleet is created together and its readiness seen as
// it happens.
func unlimitedClient(kubeconfig string) (client.WithWatch, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	return client.NewWithWatch(cfg, client.Options{Scheme: s})
}

// smallest returns a copy of template with the fewest process groups a
// database runs with: single redundancy, one storage, one log and one
// stateless group.
func smallest(template *v1alpha1.Cluster) *v1alpha1.Cluster {
	out := template.DeepCopy()
	out.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = v1alpha1.RedundancySingle
	out.Spec.ForProvider.ProcessCounts = v1alpha1.ProcessCounts{Storage: 1, Log: 1, Stateless: 1}
	return out
}

// createCluster creates a copy of template named name, with its own
// connection Secret, and returns its name and when it was requested.
func createCluster(ctx context.Context, c client.Client, template *v1alpha1.Cluster, name string) (string, time.Time, error) {
	cr := &v1alpha1.Cluster{Spec: *template.Spec.DeepCopy()}
	cr.SetGroupVersionKind(v1alpha1.ClusterGroupVersionKind)
	cr.Name, cr.Namespace = name, template.Namespace
	cr.SetWriteConnectionSecretToReference(&xpv2.LocalSecretReference{Name: name + "-fdb"})
	at := time.Now()
	if err := c.Create(ctx, cr); err != nil {
		return "", at, fmt.Errorf("cannot create Cluster %s: %w", name, err)
	}
	return name, at, nil
}

// readiness records when each Cluster was first seen Ready=True.
type readiness struct {
	mu sync.Mutex
	at map[string]time.Time
}

// watch records Clusters as they become Ready until ctx ends, watching
// again whenever a watch ends.
func (r *readiness) watch(ctx context.Context, c client.WithWatch) {
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, &v1alpha1.ClusterList{}, client.InNamespace(localrun.Namespace))
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for ev := range w.ResultChan() {
			if cr, ok := ev.Object.(*v1alpha1.Cluster); ok && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue {
				r.mu.Lock()
				if _, seen := r.at[cr.Name]; !seen {
					r.at[cr.Name] = time.Now()
				}
				r.mu.Unlock()
			}
		}
	}
}

// await waits until every Cluster named in created was seen Ready.
func (r *readiness) await(ctx context.Context, created map[string]time.Time) error {
	var waiting int
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		waiting = 0
		for name := range created {
			if _, ok := r.at[name]; !ok {
				waiting++
			}
		}
		return waiting == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d Clusters are not Ready: %w", waiting, len(created), err)
	}
	return nil
}

// since returns, sorted, each Cluster's time from created to Ready.
func (r *readiness) since(created map[string]time.Time) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]time.Duration, 0, len(created))
	for name, at := range created {
		out = append(out, r.at[name].Sub(at))
	}
	slices.Sort(out)
	return out
}

// percentile is the nearest-rank p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)*p+99)/100-1]
}

// The provider's metrics the benchmark reads (controller-runtime's
// registry: its process collector, client-go's, the controllers' and the
// tool-cost counters). statusReads is one series of its metric.
const (
	residentBytes = "process_resident_memory_bytes"
	cpuSeconds    = "process_cpu_seconds_total"
	apiRequests   = "rest_client_requests_total"
	reconciles    = "controller_runtime_reconcile_total"
	statusReads   = `fdb_tool_invocations_total{op="status"}`
	toolCPU       = "fdb_tool_cpu_seconds_total"
	controllerCPU = "fdb_cluster_controller_status_cpu_seconds_total"
)

// providerMetrics scrapes the provider's metrics endpoint.
type providerMetrics struct{ url string }

// scrape returns the benchmark's metrics, each summed over its series
// (every controller, result, method and response code).
func (m providerMetrics) scrape(ctx context.Context) (map[string]float64, error) {
	var out map[string]float64
	err := scrapeMetrics(ctx, m.url, func(r io.Reader) (err error) {
		out, err = sumSeries(r, residentBytes, cpuSeconds, apiRequests, reconciles, statusReads, toolCPU, controllerCPU)
		return err
	})
	return out, err
}

// sumSeries sums, for each of names, the values of its series in the
// Prometheus text format read from in. A name with labels (`m{l="v"}`)
// is that one series, zero while it is not there (a counter not yet
// counted); a metric named without labels must be there.
func sumSeries(in io.Reader, names ...string) (map[string]float64, error) {
	out := map[string]float64{}
	s := bufio.NewScanner(in)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		series := line[:max(strings.LastIndex(line, " "), 0)]
		name, _, _ := strings.Cut(series, "{")
		wantSeries, wantName := series != name && slices.Contains(names, series), slices.Contains(names, name)
		if !wantSeries && !wantName {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("metric line %q: %w", line, err)
		}
		if wantSeries {
			out[series] += v
		}
		if wantName {
			out[name] += v
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, ok := out[name]; !ok && !strings.Contains(name, "{") {
			return nil, fmt.Errorf("the provider reports no %s", name)
		}
	}
	return out, nil
}

// peakRSS is the peak resident memory of process pid in bytes (VmHWM).
func peakRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("cannot read the provider's peak memory: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

func TestSumSeries(t *testing.T) {
	const text = `# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="managed/cluster",result="success"} 3
controller_runtime_reconcile_total{controller="managed/processgroup",result="requeue_after"} 40
controller_runtime_reconcile_errors_total{controller="managed/cluster"} 7
process_resident_memory_bytes 1.048576e+08
fdb_tool_invocations_total{op="kill"} 2
fdb_tool_invocations_total{op="status"} 120
`
	for _, tc := range []struct {
		name    string
		names   []string
		want    map[string]float64
		wantErr bool
	}{
		{name: "summed over series", names: []string{reconciles}, want: map[string]float64{reconciles: 43}},
		{name: "a gauge without labels", names: []string{residentBytes}, want: map[string]float64{residentBytes: 1 << 20 * 100}},
		{name: "a metric that is not there", names: []string{apiRequests}, wantErr: true},
		{name: "one series", names: []string{statusReads}, want: map[string]float64{statusReads: 120}},
		{name: "a series not yet counted", names: []string{`fdb_tool_invocations_total{op="include"}`},
			want: map[string]float64{}},
		{name: "a metric and one of its series", names: []string{"fdb_tool_invocations_total", statusReads},
			want: map[string]float64{"fdb_tool_invocations_total": 122, statusReads: 120}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sumSeries(strings.NewReader(text), tc.names...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %t", err, tc.wantErr)
			}
			if !tc.wantErr && !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	sorted := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		p    int
		want time.Duration
	}{{50, 5}, {99, 10}, {100, 10}, {1, 1}} {
		if got := percentile(sorted, tc.p); got != tc.want {
			t.Errorf("p%d: got %d, want %d", tc.p, got, tc.want)
		}
	}
}
