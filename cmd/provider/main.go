// Command provider runs the FoundationDB Crossplane provider: the managed
// resource controllers for Cluster, ProcessGroup, Backup and Restore, the
// ProviderConfig controllers and the SafetyPolicy controller.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"time"

	changelogsv1alpha1 "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	safestart "github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	fdbcontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cadence"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/groupnudge"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/safetypolicy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/coordination"
	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/bindings"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
	"github.com/crossplane-contrib/provider-foundationdb/internal/statuscache"
	"github.com/crossplane-contrib/provider-foundationdb/internal/toolcost"
	"github.com/crossplane-contrib/provider-foundationdb/internal/version"
)

// flags are the provider's command-line flags, named as in other Crossplane
// providers.
type flags struct {
	debug                bool
	leaderElection       bool
	syncInterval         time.Duration
	pollInterval         time.Duration
	watchedPoll          time.Duration
	minPollInterval      time.Duration
	pollJitterPercentage uint
	pollStateMetric      time.Duration
	maxReconcileRate     int
	workers              int
	kubeAPIQPS           int
	maxConvergeRate      int
	metricsAddress       string
	// pprof serves Go's profiles on the metrics endpoint.
	pprof                bool
	healthAddress        string
	enableChangeLogs     bool
	changeLogsSocketPath string
	fdbBackend           string
	fdbBinaryDir         string
	// simToolCost is what the simulator's calls cost: real (what the
	// tools would) or none.
	simToolCost string
	// fdbTLS is what the native client presents to every database.
	fdbTLS bindings.TLS
	// shard is the part of the objects this instance reconciles.
	shard        shard.Shard
	printVersion bool
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("provider", flag.ContinueOnError)
	fs.BoolVar(&f.debug, "debug", false, "Run with debug logging.")
	fs.BoolVar(&f.leaderElection, "leader-election", true, "Use leader election for the controller manager, so that only one provider pod acts at a time; turn it off only for a single local run.")
	fs.DurationVar(&f.syncInterval, "sync", time.Hour, "How often all resources are resynced from the cache.")
	fs.DurationVar(&f.pollInterval, "poll", time.Minute, "How often each managed resource is checked for drift.")
	fs.DurationVar(&f.watchedPoll, "watched-poll", 5*time.Minute, "How often a Ready, up-to-date ProcessGroup is checked for drift when its pods run in the provider's own cluster "+
		"(InjectedIdentity) and its Cluster's namespace: there its pod, volume claim and node are watched and their changes arrive as events; what does not "+
		"(processes that stop reporting to the database) waits for this poll. No shorter than --poll; a crossplane.io/poll-interval annotation overrides it.")
	fs.DurationVar(&f.minPollInterval, "min-poll-interval", 15*time.Second, "The shortest poll interval of a Ready managed resource: a shorter crossplane.io/poll-interval annotation is raised to it, and --poll must not be shorter.")
	fs.UintVar(&f.pollJitterPercentage, "poll-jitter-percentage", 10, "Percentage of the poll interval by which each poll is moved at random, in either direction; 0 disables jitter, and it must be less than 100.")
	fs.DurationVar(&f.pollStateMetric, "poll-state-metric", 5*time.Second, "How often the managed-resource state metrics are recorded.")
	fs.IntVar(&f.maxReconcileRate, "max-reconcile-rate", 10, "The poll budget: drift polls of Ready, up-to-date managed resources a second, all kinds together, "+
		"and as many at once; work on a resource that converges never waits for it. Also the ProviderConfig and SafetyPolicy controllers' rate. "+
		"Measured: a settled reconcile costs about 30 ms of CPU with "+
		"the simulator in the process, so 10 cost about a third of a core (docs/PERFORMANCE.md, Cadence); the real backend's cost is unmeasured.")
	fs.IntVar(&f.workers, "max-concurrent-reconciles", 20, "Reconciles each controller runs at once. Measured: creating 1,000 databases together, 10 ProcessGroup workers "+
		"all waited on the API server (a group's creation is seven requests one after the other, 0.13-0.23 s each) while the client sent 40 of its 100 requests a second; "+
		"20 let the client's rate (--kube-api-qps), not the workers, bound the creation (docs/PERFORMANCE.md, Fleet).")
	fs.IntVar(&f.maxConvergeRate, "max-converge-rate", 50, "The re-check budget: re-checks a second, all managed kinds together, of resources that converge (each is checked "+
		"again 5 s after its last reconcile; its events come at once, never waiting for this budget). Measured: creating 1,000 databases together, their "+
		"Clusters' re-checks alone asked for 200 reconciles a second and took most of the provider's CPU from the work of their groups (docs/PERFORMANCE.md, Fleet); "+
		"50 re-checks cost about a third of a core.")
	fs.IntVar(&f.kubeAPIQPS, "kube-api-qps", 100, "Requests a second the provider's API client may send, with a burst of twice as many; the API server's priority and fairness protects it beyond that. "+
		"Measured: bringing up 1,000 databases together, the client held at 50 a second (crossplane-runtime's --max-reconcile-rate × 5) became what the fleet waited for "+
		"while the API server had room (docs/PERFORMANCE.md, Fleet).")
	fs.StringVar(&f.metricsAddress, "metrics-bind-address", ":8080", "Address the metrics endpoint binds to.")
	fs.BoolVar(&f.pprof, "enable-pprof", false, "Serve Go's runtime profiles (net/http/pprof) under /debug/pprof/ on the metrics endpoint, e.g. to profile the provider while a fleet comes up. Off by default: profiles show the process's internals to whoever reaches the port.")
	fs.StringVar(&f.healthAddress, "health-probe-bind-address", ":8081", "Address the health and readiness probes bind to.")
	fs.BoolVar(&f.enableChangeLogs, "enable-changelogs", false, "Send a change log entry for every create, update and delete of an external resource to the change-logs sidecar.")
	fs.StringVar(&f.changeLogsSocketPath, "changelogs-socket-path", "/var/run/changelogs/changelogs.sock", "Unix socket of the change-logs sidecar, with --enable-changelogs.")
	fs.StringVar(&f.fdbBackend, "fdb-backend", "real", "How FoundationDB is reached: real (fdbcli, fdbbackup, fdbrestore) or sim (the deterministic simulator).")
	fs.StringVar(&f.simToolCost, "sim-tool-cost", "real", "What each call to a simulated database costs, with --fdb-backend=sim: real (the wall time of the fdbcli, fdbbackup or fdbrestore run it stands for, counted in fdb_tool_invocations_total and the CPU counters; see docs/SIMULATOR.md) or none.")
	fs.StringVar(&f.fdbBinaryDir, "fdb-binary-dir", envOr("FDB_BINARY_DIR", "/usr/bin/fdb"), "Directory with one sub-directory of fdbcli, fdbbackup and fdbrestore per major.minor version (real backend).")
	fs.StringVar(&f.fdbTLS.CertificateFile, "fdb-tls-certificate-file", os.Getenv("PROVIDER_FDB_TLS_CERTIFICATE_FILE"), "Certificate (chain) the native client that holds the global lock presents to every database (real backend, build tag fdb); with --fdb-tls-key-file and --fdb-tls-ca-file.")
	fs.StringVar(&f.fdbTLS.KeyFile, "fdb-tls-key-file", os.Getenv("PROVIDER_FDB_TLS_KEY_FILE"), "Key of --fdb-tls-certificate-file.")
	fs.StringVar(&f.fdbTLS.CAFile, "fdb-tls-ca-file", os.Getenv("PROVIDER_FDB_TLS_CA_FILE"), "CA certificates the native client trusts: those of every cluster that speaks TLS.")
	fs.StringVar(&f.fdbTLS.VerifyPeers, "fdb-tls-verify-peers", os.Getenv("PROVIDER_FDB_TLS_VERIFY_PEERS"), "Peer verification rules of the native client, in FoundationDB's syntax (--tls-verify-peers); FoundationDB's default when empty.")
	shardFlag := fs.String("shard", "0/1", "INDEX/COUNT: this instance reconciles the namespaced objects of the namespaces whose name hashes to INDEX "+
		"(32-bit FNV-1a modulo COUNT), and with INDEX 0 the cluster-scoped ones, and elects its leader among the instances of its shard alone. "+
		"Run COUNT instances, one of each index, when one provider no longer keeps up (docs/PERFORMANCE.md, Shards).")
	fs.BoolVar(&f.printVersion, "version", false, "Print the version and exit.")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	var err error
	if f.shard, err = shard.Parse(*shardFlag); err != nil {
		return f, fmt.Errorf("--shard: %w", err)
	}
	if err := f.fdbTLS.Check(); err != nil {
		return f, fmt.Errorf("--fdb-tls-certificate-file, --fdb-tls-key-file, --fdb-tls-ca-file: %w", err)
	}
	if f.fdbBackend != "real" && f.fdbBackend != "sim" {
		return f, fmt.Errorf("--fdb-backend must be real or sim, not %q", f.fdbBackend)
	}
	if f.simToolCost != "real" && f.simToolCost != "none" {
		return f, fmt.Errorf("--sim-tool-cost must be real or none, not %q", f.simToolCost)
	}
	if f.simToolCost == "none" && f.fdbBackend != "sim" {
		return f, errors.New("--sim-tool-cost=none needs --fdb-backend=sim: the real tools cost what they cost")
	}
	if f.maxReconcileRate < 1 {
		return f, fmt.Errorf("--max-reconcile-rate must be at least 1, not %d", f.maxReconcileRate)
	}
	if f.workers < 1 {
		return f, fmt.Errorf("--max-concurrent-reconciles must be at least 1, not %d", f.workers)
	}
	if f.maxConvergeRate < 1 {
		return f, fmt.Errorf("--max-converge-rate must be at least 1, not %d", f.maxConvergeRate)
	}
	if f.kubeAPIQPS < 1 {
		return f, fmt.Errorf("--kube-api-qps must be at least 1, not %d", f.kubeAPIQPS)
	}
	if f.pollInterval < f.minPollInterval {
		return f, fmt.Errorf("--poll must be at least --min-poll-interval (%s), not %s", f.minPollInterval, f.pollInterval)
	}
	if f.watchedPoll < f.pollInterval {
		return f, fmt.Errorf("--watched-poll must be at least --poll (%s), not %s", f.pollInterval, f.watchedPoll)
	}
	if f.pollJitterPercentage >= 100 {
		return f, fmt.Errorf("--poll-jitter-percentage must be less than 100, not %d", f.pollJitterPercentage)
	}
	if f.pollStateMetric <= 0 {
		return f, fmt.Errorf("--poll-state-metric must be positive, not %s", f.pollStateMetric)
	}
	return f, nil
}

func main() {
	f, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if f.printVersion {
		fmt.Println(version.Version)
		return
	}
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "provider-foundationdb:", err)
		os.Exit(1)
	}
}

func run(f flags) error {
	zl := zap.New(zap.UseDevMode(f.debug))
	log := logging.NewLogrLogger(zl.WithName("provider-foundationdb"))
	ctrl.SetLogger(zl)
	log.Info("Starting", "version", version.Version, "fdb-backend", f.fdbBackend, "sim-tool-cost", f.simToolCost, "shard", f.shard.String())

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("cannot get API server rest config: %w", err)
	}
	changeLogs, conn, err := newChangeLogs(f)
	if err != nil {
		return err
	}
	if conn != nil {
		defer func() { _ = conn.Close() }()
	}
	mgr, err := newManager(cfg, f, log, changeLogs)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// newChangeLogs returns, with --enable-changelogs, the options that send
// change log entries to the change-logs sidecar on --changelogs-socket-path
// and the connection to close once the manager stopped; nil and nil without.
// The connection is made with the first entry.
func newChangeLogs(f flags) (*controller.ChangeLogOptions, *grpc.ClientConn, error) {
	if !f.enableChangeLogs {
		return nil, nil, nil
	}
	conn, err := grpc.NewClient("unix:"+f.changeLogsSocketPath, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create the change-logs client: %w", err)
	}
	logger := managed.NewGRPCChangeLogger(changelogsv1alpha1.NewChangeLogServiceClient(conn), managed.WithProviderVersion(version.Version))
	return &controller.ChangeLogOptions{ChangeLogger: logger}, conn, nil
}

// profileHandlers are net/http/pprof's handlers by path, for the metrics
// server to serve when on; none when off.
func profileHandlers(on bool) map[string]http.Handler {
	if !on {
		return nil
	}
	return map[string]http.Handler{
		"/debug/pprof/":        http.HandlerFunc(pprof.Index),
		"/debug/pprof/cmdline": http.HandlerFunc(pprof.Cmdline),
		"/debug/pprof/profile": http.HandlerFunc(pprof.Profile),
		"/debug/pprof/symbol":  http.HandlerFunc(pprof.Symbol),
		"/debug/pprof/trace":   http.HandlerFunc(pprof.Trace),
	}
}

// eventBudget is how many events one object may emit at once, and how fast
// that budget comes back. client-go's default (25 at once, then one every
// five minutes) dropped a Cluster's FailedOver and ReleasedGlobalLock events
// on the local run, after the updates and the waits of bringing its regions
// up had spent it; a Cluster's events are the record of its steps.
var eventBudget = record.CorrelatorOptions{BurstSize: 200, QPS: 1.0 / 5}

// newEventBroadcaster returns the broadcaster of the provider's events,
// with eventBudget.
func newEventBroadcaster() record.EventBroadcaster {
	return record.NewBroadcasterWithCorrelatorOptions(eventBudget)
}

// limitAPI returns a copy of cfg whose client sends qps requests a second,
// with bursts of twice as many.
func limitAPI(cfg *rest.Config, qps int) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.QPS, out.Burst = float32(qps), 2*qps
	return out
}

// newManager returns the manager of the provider on the API server of cfg,
// configured by f, with every controller set up (the managed kinds behind
// crossplane-runtime's safe-start) and the managed-resource metrics
// registered with controller-runtime's registry, which allows it once per
// process. changeLogs, when not nil, receives the managed reconcilers'
// change log entries.
func newManager(cfg *rest.Config, f flags, log logging.Logger, changeLogs *controller.ChangeLogOptions) (ctrl.Manager, error) {
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(limitAPI(cfg, f.kubeAPIQPS), ctrl.Options{
		Scheme:                     s,
		LeaderElection:             f.leaderElection,
		LeaderElectionID:           f.shard.LeaderElectionID("crossplane-leader-election-provider-foundationdb"),
		LeaderElectionResourceLock: "leases",
		LeaseDuration:              ptr(60 * time.Second),
		RenewDeadline:              ptr(50 * time.Second),
		Cache:                      fdbcontroller.CacheOptions(&f.syncInterval),
		Metrics:                    metricsserver.Options{BindAddress: f.metricsAddress, ExtraHandlers: profileHandlers(f.pprof)},
		HealthProbeBindAddress:     f.healthAddress,
		// The manager lives as long as the process, so the deprecated
		// option's leak (a broadcaster outliving its manager) cannot happen.
		//lint:ignore SA1019 the only way to set the events' budget
		EventBroadcaster: newEventBroadcaster(),
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create controller manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("cannot add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("cannot add readiness check: %w", err)
	}

	mrMetrics := managed.NewMRMetricRecorder()
	stateMetrics := statemetrics.NewMRStateMetrics()
	metrics.Registry.MustRegister(mrMetrics, stateMetrics)

	locker, err := nativeLocker(f)
	if err != nil {
		return nil, err
	}
	var backend connector.FDB = connector.ToolsFDB{BinaryDir: f.fdbBinaryDir, Locker: locker}
	if f.fdbBackend == "sim" {
		// Simulated databases live as long as this process: a restart
		// starts them afresh (see docs/SIMULATOR.md).
		backend = connector.NewSimFDB(sim.NewRegistry(clock.RealClock{}, sim.Options{}))
		if f.simToolCost == "real" {
			m := toolcost.NewMetrics()
			metrics.Registry.MustRegister(m)
			backend = costlyFDB{sims: backend, metrics: m}
		}
	}

	features := &feature.Flags{}
	features.Enable(feature.EnableBetaManagementPolicies)
	engine, err := policy.NewEngine()
	if err != nil {
		return nil, fmt.Errorf("cannot create the safety-policy engine: %w", err)
	}
	o := options.Options{FDB: backend, Clock: clock.RealClock{}, Engine: engine, Policies: safetypolicy.Source{Cache: mgr.GetCache()},
		MinPollInterval: f.minPollInterval, PollJitterPercentage: f.pollJitterPercentage, WatchedPoll: f.watchedPoll,
		Statuses: statuscache.New(clock.RealClock{}), Nudges: groupnudge.New(), Metrics: dbmetrics.Default, Shard: f.shard,
		Budget:     cadence.NewBudget(float64(f.maxReconcileRate), f.maxReconcileRate, clock.RealClock{}),
		Converging: cadence.NewBudget(float64(f.maxConvergeRate), f.maxConvergeRate, clock.RealClock{})}
	o.Options = controller.Options{
		Logger:                  log,
		GlobalRateLimiter:       ratelimiter.NewGlobal(f.maxReconcileRate), // the ProviderConfig and SafetyPolicy controllers'; the managed kinds poll on o.Budget
		PollInterval:            f.pollInterval,
		MaxConcurrentReconciles: f.workers,
		Features:                features,
		MetricOptions: &controller.MetricOptions{
			PollStateMetricInterval: f.pollStateMetric,
			MRMetrics:               mrMetrics,
			MRStateMetrics:          stateMetrics,
		},
		ChangeLogOptions: changeLogs,
		// crossplane-runtime's safe-start: managed kinds start once their
		// CRD is established.
		Gate: new(safestart.Gate[schema.GroupVersionKind]),
	}
	if err := customresourcesgate.Setup(mgr, o.Options); err != nil {
		return nil, fmt.Errorf("cannot set up the CRD gate: %w", err)
	}
	if err := fdbcontroller.Setup(mgr, o); err != nil {
		return nil, fmt.Errorf("cannot set up controllers: %w", err)
	}
	return mgr, nil
}

func ptr[T any](v T) *T { return &v }

// costlyFDB is a backend whose clients cost what the real tools cost
// (toolcost), on the wall clock, counted in metrics.
type costlyFDB struct {
	sims    connector.FDB
	metrics *toolcost.Metrics
}

// Client implements connector.FDB.
func (b costlyFDB) Client(ctx context.Context, target connector.Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, blob *v1alpha1.BlobStore, tls *fdb.TLSCredentials) (fdb.Client, error) {
	cl, err := b.sims.Client(ctx, target, c, cm, blob, tls)
	if err != nil {
		return nil, err
	}
	return toolcost.Wrap(cl, b.metrics, clock.RealClock{}), nil
}

// Files implements connector.FDB.
func (b costlyFDB) Files(target connector.Target, cm *corev1.ConfigMap) coordination.Files {
	return b.sims.Files(target, cm)
}

// nativeLocker returns what holds the global lock through the native
// client library (openNativeLocker), nil in a provider built without it;
// there, TLS settings for it are an error rather than ignored.
func nativeLocker(f flags) (func(connectionString string) (fdb.Locker, error), error) {
	l := openNativeLocker(f)
	if l == nil && f.fdbTLS != (bindings.TLS{}) {
		return nil, errors.New("--fdb-tls-certificate-file, --fdb-tls-key-file, --fdb-tls-ca-file: this provider is built without the native client (build tag fdb)")
	}
	return l, nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
