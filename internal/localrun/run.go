// Package localrun is `make run`: the whole product on one machine. It
// starts a local Kubernetes cluster (internal/localcluster), installs the
// provider's CRDs, its permissions (examples/provider) and the default
// ClusterProviderConfig, builds the provider and runs it against that
// cluster, as its ServiceAccount, with the FoundationDB simulator, applies
// the quickstart (a triple-redundancy Cluster and a Backup) and reports each
// resource's progress. Stop undoes all of it; Cleanup (`make stop`) undoes
// what a killed run left behind.
package localrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
)

// Quickstart facts: what the run applies and where.
const (
	// Namespace of the quickstart resources.
	Namespace = "default"
	// EnforcePodSecurity is the namespace label that names the Pod
	// Security Standard the API server enforces on the namespace's pods.
	EnforcePodSecurity = "pod-security.kubernetes.io/enforce"
	// ClusterName is the quickstart Cluster (examples/cluster.yaml).
	ClusterName = "quickstart"
	// blobCredentials is the Secret examples/backup.yaml refers to; the
	// simulator does not read it, but a real backup agent would.
	blobCredentials = "blob-credentials"
)

// Options configure a run.
type Options struct {
	// Root is the repository root: CRDs, examples and the provider's source.
	Root string
	// StateDir holds everything the run makes (see state).
	StateDir string
	// BinPath lists the directories of the control-plane binaries, as
	// hack/controlplane.sh --all prints them.
	BinPath string
	// ClusterName names the kwokctl cluster.
	ClusterName string
	// Zones and NodesPerZone shape the fake nodes.
	Zones, NodesPerZone int
	// Quickstart applies the quickstart Cluster and Backup once the
	// provider runs.
	Quickstart bool
	// AsPackage installs the provider's kinds as Crossplane's package
	// manager does (manifest.AsPackage): the ProviderConfig kinds as CRDs
	// at once, every other kind as an inactive ManagedResourceDefinition
	// once Crossplane runs (StartCrossplane), for an activation policy to
	// activate. Until then the provider runs with no API of those kinds.
	AsPackage bool
	// MetricsAddress is where the provider serves its metrics, a free
	// port of 127.0.0.1 when empty (e.g.
	// 127.0.0.1:8080); empty serves none.
	MetricsAddress string
	// ProviderArgs are further flags of the provider (e.g. --enable-pprof).
	ProviderArgs []string
	// Out receives progress for a person.
	Out io.Writer
}

// DefaultOptions are those of `make run`, with the state under the cache
// directory hack/controlplane.sh uses.
func DefaultOptions() Options {
	return Options{
		Root:         ".",
		StateDir:     filepath.Join(CacheDir(), "run"),
		ClusterName:  "fdb-quickstart",
		Zones:        5, // a triple cluster puts its five coordinators in five zones
		NodesPerZone: 2,
		Quickstart:   true,
		Out:          os.Stdout,
	}
}

// CacheDir is $PROVIDER_FDB_CACHE, or provider-foundationdb in the user's
// cache directory, as in hack/controlplane.sh.
func CacheDir() string {
	if d := os.Getenv("PROVIDER_FDB_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "provider-foundationdb")
}

// Run is a started local run.
type Run struct {
	Client  client.Client
	opts    Options
	st      state
	cluster *localcluster.Cluster
	stopBg  context.CancelFunc
	bgDone  chan struct{}
	// providerUser is the user the provider acts as: its ServiceAccount.
	providerUser string
	// providerExit receives the provider's exit.
	providerExit <-chan error
	// mrds are the provider's kinds StartCrossplane installs as
	// ManagedResourceDefinitions (Options.AsPackage).
	mrds []*unstructured.Unstructured
	// closeLog closes kwokctl's log once the cluster is deleted.
	closeLog func() error
}

// ProviderExited receives the provider's exit status should it stop on its
// own.
func (r *Run) ProviderExited() <-chan error { return r.providerExit }

// ProviderPID is the provider's process id, 0 when it does not run.
func (r *Run) ProviderPID() int { return readPID(r.st.providerPIDFile()) }

// ProviderLog is the path of the provider's log.
func (r *Run) ProviderLog() string { return r.st.providerLog() }

// Kubeconfig is the path of the run's kubeconfig.
func (r *Run) Kubeconfig() string { return r.cluster.Kubeconfig() }

// step prints what is about to happen and, when it is done, how long it
// took.
func step(out io.Writer, what string, f func() error) error {
	fmt.Fprintf(out, "==> %s\n", what)
	start := time.Now()
	if err := f(); err != nil {
		return err
	}
	fmt.Fprintf(out, "    done in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

func newCluster(o Options, log io.Writer) *localcluster.Cluster {
	return &localcluster.Cluster{Name: o.ClusterName, WorkDir: state(o.StateDir).kwokDir(), Log: log}
}

// Start brings everything up and applies the quickstart; it returns once the
// provider runs. A stale run in the same state directory is cleaned up
// first; a live one is an error. On error, whatever started is stopped.
func Start(ctx context.Context, o Options) (r *Run, err error) {
	st := state(o.StateDir)
	if pid := readPID(st.runPIDFile()); pid != 0 && pid != os.Getpid() {
		return nil, fmt.Errorf("cannot start: another run (pid %d) uses %s; stop it with Ctrl-C there, or `make stop`", pid, o.StateDir)
	}
	bins, err := localcluster.FindBinaries(o.BinPath)
	if err != nil {
		return nil, err
	}
	if leftovers, _ := Processes(o.StateDir); len(leftovers) > 0 || newCluster(o, io.Discard).Exists() {
		if err := step(o.Out, "cleaning up what a killed run left in "+o.StateDir, func() error { return Cleanup(ctx, o) }); err != nil {
			return nil, err
		}
	}
	if err := writePID(st.runPIDFile(), os.Getpid()); err != nil {
		return nil, err
	}
	clusterLog, err := os.Create(st.clusterLog())
	if err != nil {
		return nil, fmt.Errorf("cannot create log: %w", err)
	}
	r = &Run{opts: o, st: st, cluster: newCluster(o, clusterLog), closeLog: clusterLog.Close}
	r.cluster.Binaries = bins
	defer func() {
		if err != nil {
			_ = r.Stop(context.WithoutCancel(ctx))
		}
	}()

	if err := step(o.Out, "building the provider into "+st.providerBin(), func() error {
		return goBuild(ctx, o.Root, st.providerBin(), "./cmd/provider")
	}); err != nil {
		return r, err
	}
	if err := step(o.Out, fmt.Sprintf("starting the local cluster %q (kwokctl, binary runtime; log %s)", o.ClusterName, st.clusterLog()), func() error {
		return r.cluster.Create(ctx)
	}); err != nil {
		return r, err
	}
	if err := step(o.Out, fmt.Sprintf("creating %d fake nodes in %d zones; installing CRDs, the provider's permissions and the default ClusterProviderConfig", o.Zones*o.NodesPerZone, o.Zones), func() error {
		return r.install(ctx)
	}); err != nil {
		return r, err
	}
	if err := step(o.Out, "starting the provider with the FoundationDB simulator (log "+st.providerLog()+")", func() error {
		return r.startProvider()
	}); err != nil {
		return r, err
	}
	if !o.Quickstart {
		return r, nil
	}
	if err := step(o.Out, "applying the quickstart: examples/cluster.yaml and examples/backup.yaml", func() error {
		return r.applyQuickstart(ctx)
	}); err != nil {
		return r, err
	}
	return r, nil
}

// install connects to the cluster, creates its nodes and its default
// storage class (zone-wide volumes), starts the stand-in volume provisioner
// and installs the CRDs, the provider's ServiceAccount, ClusterRole and
// binding, and the ClusterProviderConfig.
func (r *Run) install(ctx context.Context) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", r.Kubeconfig())
	if err != nil {
		return fmt.Errorf("cannot load kubeconfig: %w", err)
	}
	s, err := scheme.New()
	if err != nil {
		return err
	}
	if r.Client, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		return fmt.Errorf("cannot create client: %w", err)
	}
	if err := localcluster.CreateNodes(ctx, r.Client, localcluster.Zones(r.opts.Zones), r.opts.NodesPerZone); err != nil {
		return err
	}
	if err := localcluster.CreateStorageClass(ctx, r.Client); err != nil {
		return err
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	r.stopBg, r.bgDone = stop, make(chan struct{})
	go func() {
		defer close(r.bgDone)
		localcluster.ProvisionVolumes(bg, r.Client, 500*time.Millisecond)
	}()
	crds, err := manifest.ReadCRDs(filepath.Join(r.opts.Root, "package", "crds"))
	if err != nil {
		return err
	}
	if r.opts.AsPackage {
		if crds, r.mrds, err = manifest.AsPackage(crds); err != nil {
			return err
		}
	}
	if err := manifest.ApplyCRDs(ctx, r.Client, crds); err != nil {
		return err
	}
	if r.providerUser, err = manifest.InstallProviderRBAC(ctx, r.Client, r.example("provider")); err != nil {
		return err
	}
	cpc, err := manifest.Read([]string{r.example("providerconfig.yaml")}, "ClusterProviderConfig")
	if err != nil {
		return err
	}
	return manifest.Apply(ctx, r.Client, cpc)
}

func (r *Run) example(name string) string { return filepath.Join(r.opts.Root, "examples", name) }

// CreateBlobCredentials creates the Secret of blob-store credentials the
// examples' Backups name (examples/backup.yaml, the Composition's blob
// store): a blob credentials file for their account (docs/BACKUP.md); the
// simulator does not read it.
func (r *Run) CreateBlobCredentials(ctx context.Context) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: blobCredentials, Namespace: Namespace},
		StringData: map[string]string{"credentials": `{"accounts":{"backup@minio.storage.svc":{"secret":"not-a-real-secret"}}}`},
	}
	if err := r.Client.Create(ctx, secret); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("cannot create secret %s: %w", blobCredentials, err)
	}
	return nil
}

// applyQuickstart makes the quickstart's namespace enforce the "restricted"
// Pod Security Standard, as a hardened cluster's namespaces do (the API
// server's own admission then refuses a pod of the cluster or of its backup
// agents that does not pass it), and applies the example Cluster and
// Backup, the certificate Secret the Cluster names and the Secret the
// Backup names.
func (r *Run) applyQuickstart(ctx context.Context) error {
	ns := &corev1.Namespace{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: Namespace}, ns); err != nil {
		return fmt.Errorf("cannot get namespace %s: %w", Namespace, err)
	}
	metav1.SetMetaDataLabel(&ns.ObjectMeta, EnforcePodSecurity, "restricted")
	if err := r.Client.Update(ctx, ns); err != nil {
		return fmt.Errorf("cannot label namespace %s: %w", Namespace, err)
	}
	if err := r.CreateBlobCredentials(ctx); err != nil {
		return err
	}
	if err := r.CreateTLSSecret(ctx); err != nil {
		return err
	}
	objs, err := manifest.Read([]string{r.example("cluster.yaml"), r.example("backup.yaml")})
	if err != nil {
		return err
	}
	return manifest.Apply(ctx, r.Client, objs)
}

// startProvider runs the provider binary against the cluster, acting as its
// ServiceAccount (providerKubeconfig).
func (r *Run) startProvider() error {
	kubeconfig, err := r.providerKubeconfig()
	if err != nil {
		return err
	}
	// The provider serves its metrics, the databases' among them
	// (NextSteps says where), on a free port unless told one.
	if r.opts.MetricsAddress == "" {
		port, err := freePort()
		if err != nil {
			return err
		}
		r.opts.MetricsAddress = fmt.Sprintf("127.0.0.1:%d", port)
	}
	metrics := r.opts.MetricsAddress
	// The run starts a single replica, which needs no leader election. It
	// keeps --sim-tool-cost's default, real: each call to a simulated
	// database waits what the real tool would take (docs/SIMULATOR.md).
	args := append([]string{"--fdb-backend=sim", "--leader-election=false", "--poll=15s",
		"--metrics-bind-address=" + metrics, "--health-probe-bind-address=0"}, r.opts.ProviderArgs...)
	cmd := exec.Command(r.st.providerBin(), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	r.providerExit, err = startProcess(cmd, r.st.providerLog(), r.st.providerPIDFile())
	return err
}

// startProcess starts cmd with its output in the log file, in its own
// process group, so that a Ctrl-C reaches the run, which stops it in order,
// and dying with the run (Pdeathsig) if the run is killed. It records the
// process's id in the pid file, for Stop and Cleanup. The channel receives
// the process's exit.
func startProcess(cmd *exec.Cmd, logFile, pidFile string) (<-chan error, error) {
	name := filepath.Base(cmd.Path)
	log, err := os.Create(logFile)
	if err != nil {
		return nil, fmt.Errorf("cannot create the log of %s: %w", name, err)
	}
	defer log.Close() //nolint:errcheck // the child holds its own descriptor
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	return exit, writePID(pidFile, cmd.Process.Pid)
}

// providerKubeconfig writes the cluster's kubeconfig with every user acting
// as the provider's ServiceAccount, so that the provider runs with exactly
// the permissions it ships, and returns its path.
func (r *Run) providerKubeconfig() (string, error) {
	cfg, err := clientcmd.LoadFromFile(r.Kubeconfig())
	if err != nil {
		return "", fmt.Errorf("cannot load kubeconfig: %w", err)
	}
	for _, u := range cfg.AuthInfos {
		u.Impersonate = r.providerUser
	}
	if err := clientcmd.WriteToFile(*cfg, r.st.providerKubeconfig()); err != nil {
		return "", fmt.Errorf("cannot write the provider's kubeconfig: %w", err)
	}
	return r.st.providerKubeconfig(), nil
}

// WaitReady reports progress until the quickstart Cluster is Ready.
func (r *Run) WaitReady(ctx context.Context, p *Progress) error {
	return p.ReportUntil(ctx, time.Second, ClusterReady(ClusterName))
}

// Stop stops the provider and the cluster, then any process still running
// from the state directory, and removes the run's pid files. It is safe to
// call on a partly started run.
func (r *Run) Stop(ctx context.Context) error {
	// Crossplane first: it writes what the provider reconciles.
	var errs []error
	for _, f := range []string{r.st.crossplanePIDFile(), r.st.functionPIDFile(), r.st.providerPIDFile()} {
		errs = append(errs, stopProcess(readPID(f), 10*time.Second))
	}
	if r.stopBg != nil {
		r.stopBg()
		<-r.bgDone
	}
	if r.cluster.Binaries != nil {
		errs = append(errs, r.cluster.Delete(ctx))
	}
	if r.closeLog != nil {
		errs = append(errs, r.closeLog())
	}
	pids, err := Processes(r.opts.StateDir)
	errs = append(errs, err)
	for _, pid := range pids {
		fmt.Fprintf(r.opts.Out, "stopping leftover process %d\n", pid)
		errs = append(errs, stopProcess(pid, 10*time.Second))
	}
	for _, f := range []string{r.st.crossplanePIDFile(), r.st.functionPIDFile(), r.st.providerPIDFile(), r.st.runPIDFile()} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Cleanup stops what a run in o.StateDir left running: a live run is asked
// to stop (SIGTERM) and given time to; then Stop does the rest. Without the
// kwokctl binary, the cluster's processes are still stopped, by id.
func Cleanup(ctx context.Context, o Options) error {
	st := state(o.StateDir)
	if pid := readPID(st.runPIDFile()); pid != 0 && pid != os.Getpid() {
		fmt.Fprintf(o.Out, "asking the run (pid %d) to stop\n", pid)
		if err := stopProcess(pid, time.Minute); err != nil {
			return err
		}
	}
	r := &Run{opts: o, st: st, cluster: newCluster(o, io.Discard)}
	if bins, err := localcluster.FindBinaries(o.BinPath); err == nil {
		r.cluster.Binaries = bins
	}
	return r.Stop(ctx)
}

// stopProcess sends SIGTERM, waits up to grace for the process to exit, and
// then sends SIGKILL.
func stopProcess(pid int, grace time.Duration) error {
	if !alive(pid) {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, grace, true, func(context.Context) (bool, error) {
		return !alive(pid), nil
	})
	if err == nil {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return !alive(pid), nil
	}); err != nil {
		return fmt.Errorf("cannot stop process %d: %w", pid, err)
	}
	return nil
}

// goBuild builds a package of the repository into out.
func goBuild(ctx context.Context, root, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot build %s: %w\n%s", pkg, err, b)
	}
	return nil
}
