// Package testenv starts a real Kubernetes control plane (kube-apiserver and
// etcd, built by hack/controlplane.sh) with the provider's CRDs and
// permissions installed, for integration tests.
//
// The API server authorizes with RBAC and enforces owner-reference
// permissions, as OpenShift does. Test code acts as an administrator
// (Env.Config, Env.Client); the provider's controllers run with
// Env.Provider, which acts as the provider's ServiceAccount bound to the
// ClusterRole shipped in examples/provider, so a permission the provider
// uses but does not ship fails the test that needs it.
//
// The binaries are found through KUBEBUILDER_ASSETS, which `make test` sets.
// Without it the tests that need a control plane skip, unless
// FDB_REQUIRE_CONTROLPLANE is set (as `make test` does), in which case they
// fail: a test run that was meant to reach a real API server never passes by
// skipping it.
package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/go-logr/logr"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
)

// Environment variables that locate and require the control plane.
const (
	AssetsEnv  = "KUBEBUILDER_ASSETS"
	RequireEnv = "FDB_REQUIRE_CONTROLPLANE"
	// LocalRunPathEnv names the directories of the local cluster's
	// binaries, and of Crossplane core's, as hack/controlplane.sh --all
	// --crossplane prints them.
	LocalRunPathEnv = "FDB_LOCALRUN_PATH"
	// CrossplaneCRDsEnv names the directory of Crossplane core's CRDs, as
	// hack/crossplane.sh prints it.
	CrossplaneCRDsEnv = "CROSSPLANE_CRDS"
)

// Env is a running control plane.
type Env struct {
	// Config and Client are an administrator's, for test code.
	Config *rest.Config
	Client client.Client
	// Provider is what the provider's controllers run with: it acts as
	// ProviderUser, the provider's ServiceAccount, with the permissions of
	// its install manifests (ProviderManifests).
	Provider     *rest.Config
	ProviderUser string
	Scheme       *kruntime.Scheme
	// AuditLog is the API server's audit log: every deletion of a pod,
	// volume claim or volume, by whom (AuditReader reads it).
	AuditLog string

	env *envtest.Environment
	dir string
}

// Root is the repository root, found from this file's location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ProviderManifests is the directory of the provider's install manifests:
// its ServiceAccount, ClusterRole (generated from the code) and
// ClusterRoleBinding.
func ProviderManifests() string { return filepath.Join(Root(), "examples", "provider") }

// Available reports whether the control-plane binaries are configured; when
// they are not, it says why.
func Available() (bool, string) {
	dir := os.Getenv(AssetsEnv)
	if dir == "" {
		return false, AssetsEnv + " is not set; run `make test` or export " + AssetsEnv + "=$(hack/controlplane.sh)"
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return false, fmt.Sprintf("%s has no %s: %v", AssetsEnv, bin, err)
		}
	}
	return true, ""
}

// Start starts a control plane with the provider's CRDs and permissions
// installed. The caller must Stop it.
func Start() (*Env, error) {
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: os.Getenv(AssetsEnv),
		CRDDirectoryPaths:     []string{filepath.Join(Root(), "package", "crds")},
		ErrorIfCRDPathMissing: true,
		Scheme:                s,
	}
	// A provider that sets itself as the controller of an object must be
	// allowed to update the owner's finalizers.
	env.ControlPlane.GetAPIServer().Configure().Append("enable-admission-plugins", "OwnerReferencesPermissionEnforcement")
	// A test's etcd need not survive a crash of the machine: without an
	// fsync per write it spends less (the chaos budget 4 % of its CPU).
	env.ControlPlane.Etcd = &envtest.Etcd{}
	env.ControlPlane.Etcd.Configure().Set("unsafe-no-fsync", "true")
	dir, err := os.MkdirTemp("", "testenv-")
	if err != nil {
		return nil, fmt.Errorf("cannot start control plane: %w", err)
	}
	e := &Env{Scheme: s, env: env, dir: dir}
	if e.AuditLog, err = audit(env, dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if e.Config, err = env.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot start control plane: %w", err)
	}
	if e.Client, err = client.New(e.Config, client.Options{Scheme: s}); err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("cannot create client: %w", err)
	}
	if e.ProviderUser, err = manifest.InstallProviderRBAC(context.Background(), e.Client, ProviderManifests()); err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("cannot install the provider's permissions: %w", err)
	}
	e.Provider = rest.CopyConfig(e.Config)
	e.Provider.Impersonate = rest.ImpersonationConfig{UserName: e.ProviderUser}
	return e, nil
}

// Kubeconfig renders the administrator's credentials (Client's) as a
// kubeconfig.
func (e *Env) Kubeconfig(t testing.TB) []byte {
	t.Helper()
	cfg := e.Config
	raw, err := clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: cfg.Host, CertificateAuthorityData: cfg.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"u": {ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}},
		Contexts:       map[string]*clientcmdapi.Context{"x": {Cluster: "c", AuthInfo: "u"}},
		CurrentContext: "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Stop stops the control plane and removes its audit log.
func (e *Env) Stop() error {
	err := e.env.Stop()
	_ = os.RemoveAll(e.dir)
	return err
}

// Main runs a test binary's tests against one control plane shared by the
// package, stored in *env. Use it from TestMain. Without the binaries it
// skips the control-plane tests (they call Require) or fails when
// FDB_REQUIRE_CONTROLPLANE is set.
func Main(m *testing.M, env **Env) {
	ctrllog.SetLogger(logr.Discard())
	if ok, why := Available(); !ok {
		if os.Getenv(RequireEnv) != "" {
			fmt.Fprintln(os.Stderr, "testenv: control plane required but unavailable:", why)
			os.Exit(1)
		}
		skipReason = why
		os.Exit(m.Run())
	}
	e, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(1)
	}
	*env = e
	code := m.Run()
	for _, f := range stopHooks {
		f()
	}
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "testenv: cannot stop control plane:", err)
	}
	os.Exit(code)
}

var (
	skipReason string
	stopHooks  []func()
)

// OnStop runs f after the package's tests, before the control plane stops:
// tests stop the managers they started there, so the API server is not
// stopped under open watches.
func OnStop(f func()) { stopHooks = append(stopHooks, f) }

// Unavailable ends a test that cannot run for want of something the
// environment lacks: it skips, or fails when FDB_REQUIRE_CONTROLPLANE is
// set.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// LogWriter writes each line it gets to the test's log.
type LogWriter struct{ T testing.TB }

// Write logs b, without its trailing newline.
func (w LogWriter) Write(b []byte) (int, error) {
	w.T.Helper()
	w.T.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Getenv returns the environment variable name, which `make test` sets to
// what the command how prints; a test without it is Unavailable.
func Getenv(t testing.TB, name, how string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		Unavailable(t, fmt.Sprintf("%s is not set; run `make test` or export %s=$(%s)", name, name, how))
	}
	return v
}

// Require skips the test when the package runs without a control plane.
func Require(t testing.TB, env *Env) {
	t.Helper()
	if env == nil {
		t.Skip("no control plane: " + skipReason)
	}
}

// RunController starts a manager on the control plane, acting as the
// provider (Env.Provider), with the controller setup adds, using
// crossplane-runtime's default controller options with a silent logger, and
// stops it when the test ends.
func (e *Env) RunController(t *testing.T, setup func(ctrl.Manager, controller.Options) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mgr, err := ctrl.NewManager(e.Provider, ctrl.Options{Scheme: e.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	o := controller.DefaultOptions()
	o.Logger = logging.NewNopLogger()
	if err := setup(mgr, o); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
}
