package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
)

// How Crossplane core finds a function without its package manager: the
// revisions of a package carry its name in labelPackage, and a revision
// annotated annotationPaused is left alone by core's revision reconciler,
// which would otherwise pull its image.
const (
	labelPackage     = "pkg.crossplane.io/package"
	annotationPaused = "crossplane.io/paused"
)

// CrossplaneLog is the path of Crossplane core's log.
func (r *Run) CrossplaneLog() string { return r.st.crossplaneLog() }

// FunctionLog is the path of the composition function's log.
func (r *Run) FunctionLog() string { return r.st.functionLog() }

// StartCrossplane runs Crossplane core, the command binary, against the
// cluster as a local process, without a package manager or a registry: it
// installs Crossplane's CRDs from the directory crds, runs the composition
// function (cmd/function-fdbdatabase, built from the repository) on a local
// port, and makes it known to core as its package manager would, as the
// active FunctionRevision of the Function in
// examples/composition/function.yaml whose endpoint is that port. Core and
// the function speak mTLS with certificates of a CA made for the run (see
// writeCertificates). Core acts as an administrator, serves no webhooks and
// runs packages externally (it starts no Deployment for them); its metrics
// and health probes take free ports. With Options.AsPackage it also
// installs the provider's inactive ManagedResourceDefinitions. Stop stops
// both.
func (r *Run) StartCrossplane(ctx context.Context, binary, crds string) error {
	fns, err := manifest.Read([]string{r.example("composition/function.yaml")}, "Function")
	if err != nil {
		return err
	}
	if len(fns) != 1 {
		return fmt.Errorf("cannot find the composition function: examples/composition/function.yaml has %d Functions", len(fns))
	}
	fn := fns[0]
	var endpoint string
	if err := step(r.opts.Out, "building the composition function and serving it over mTLS (log "+r.st.functionLog()+")", func() error {
		if err := goBuild(ctx, r.opts.Root, r.st.functionBin(), "./cmd/function-fdbdatabase"); err != nil {
			return err
		}
		if err := writeCertificates(r.st.crossplaneCerts(), r.st.functionCerts()); err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		endpoint = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		cmd := exec.Command(r.st.functionBin(), "--address="+endpoint, "--tls-server-certs-dir="+r.st.functionCerts())
		_, err = startProcess(cmd, r.st.functionLog(), r.st.functionPIDFile())
		return err
	}); err != nil {
		return err
	}
	return step(r.opts.Out, "installing Crossplane's CRDs, registering the function and starting Crossplane core (log "+r.st.crossplaneLog()+")", func() error {
		if err := manifest.InstallCRDs(ctx, r.Client, crds); err != nil {
			return err
		}
		if err := manifest.Apply(ctx, r.Client, r.mrds); err != nil {
			return err
		}
		if err := registerFunction(ctx, r.Client, fn, endpoint); err != nil {
			return err
		}
		metrics, err := freePort()
		if err != nil {
			return err
		}
		probes, err := freePort()
		if err != nil {
			return err
		}
		cmd := exec.Command(binary, "core", "start",
			"--package-runtime=External",
			"--tls-client-certs-dir="+r.st.crossplaneCerts(),
			"--xpkg-cache-dir="+r.st.crossplanePackages(),
			"--metrics-port="+strconv.Itoa(metrics),
			"--health-probe-port="+strconv.Itoa(probes),
		)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+r.Kubeconfig(), "ENABLE_WEBHOOKS=false")
		_, err = startProcess(cmd, r.st.crossplaneLog(), r.st.crossplanePIDFile())
		return err
	})
}

// registerFunction creates the active FunctionRevision of the Function fn
// (a paused one, which core's package manager leaves alone) and gives it
// the endpoint core dials and the composition capability.
func registerFunction(ctx context.Context, c client.Client, fn *unstructured.Unstructured, endpoint string) error {
	image, _, _ := unstructured.NestedString(fn.Object, "spec", "package")
	rev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1",
		"kind":       "FunctionRevision",
		"metadata": map[string]any{
			"name":        fn.GetName() + "-local",
			"labels":      map[string]any{labelPackage: fn.GetName()},
			"annotations": map[string]any{annotationPaused: "true"},
		},
		"spec": map[string]any{"desiredState": "Active", "image": image, "revision": int64(1)},
	}}
	if err := manifest.Apply(ctx, c, []*unstructured.Unstructured{rev}); err != nil {
		return err
	}
	status, err := json.Marshal(map[string]any{"status": map[string]any{"endpoint": endpoint, "capabilities": []string{"composition"}}})
	if err != nil {
		return fmt.Errorf("cannot encode the function's status: %w", err)
	}
	if err := c.Status().Patch(ctx, rev, client.RawPatch(types.MergePatchType, status)); err != nil {
		return fmt.Errorf("cannot set the endpoint of FunctionRevision %s: %w", rev.GetName(), err)
	}
	return nil
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot find a free port: %w", err)
	}
	defer l.Close() //nolint:errcheck // only its port was wanted
	return l.Addr().(*net.TCPAddr).Port, nil
}
