package localcluster

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Cluster is a kwokctl cluster whose components run as processes.
type Cluster struct {
	// Name of the kwokctl cluster.
	Name string
	// WorkDir is kwokctl's work directory (KWOK_WORKDIR): the cluster's
	// configuration, PKI, etcd data, logs and pid files live under it.
	WorkDir string
	// Binaries run the cluster.
	Binaries Binaries
	// Log receives kwokctl's output.
	Log io.Writer
}

// Dir is the cluster's own directory under the work directory.
func (c *Cluster) Dir() string { return filepath.Join(c.WorkDir, "clusters", c.Name) }

// Kubeconfig is the path of the kubeconfig kwokctl writes for the cluster.
func (c *Cluster) Kubeconfig() string { return filepath.Join(c.Dir(), "kubeconfig.yaml") }

// stages are the kwok stages of the cluster: kwok's defaults, with the
// node stages leaving alone a node failed on purpose, and node-fail (see
// FailNode).
//
//go:embed stages.yaml
var stages []byte

// StagesFile is where Create writes the stages it hands kwokctl.
func (c *Cluster) StagesFile() string { return filepath.Join(c.WorkDir, c.Name+"-stages.yaml") }

// Exists reports whether kwokctl has a cluster of this name in the work
// directory, running or not.
func (c *Cluster) Exists() bool {
	_, err := os.Stat(c.Dir())
	return err == nil
}

// Create starts the cluster and waits until its API server answers. kwokctl
// detaches the components (each in its own session), so they outlive this
// process: call Delete to stop them. The kwok controller runs the stages of
// stages.yaml instead of its built-in ones.
func (c *Cluster) Create(ctx context.Context) error {
	version, err := kubeVersion(ctx, c.Binaries[KubeAPIServer])
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.WorkDir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", c.WorkDir, err)
	}
	if err := os.WriteFile(c.StagesFile(), stages, 0o644); err != nil {
		return fmt.Errorf("cannot write the kwok stages: %w", err)
	}
	return c.kwokctl(ctx, version, "create", "cluster",
		"--config", c.StagesFile(),
		"--runtime", "binary",
		"--etcd-binary", c.Binaries[Etcd],
		"--kube-apiserver-binary", c.Binaries[KubeAPIServer],
		"--kube-controller-manager-binary", c.Binaries[KubeControllerManager],
		"--kube-scheduler-binary", c.Binaries[KubeScheduler],
		"--kwok-controller-binary", c.Binaries[Kwok],
		"--quiet-pull",
		"--wait", "2m",
	)
}

// Delete stops every component and removes the cluster's directory. It is a
// no-op for a cluster that does not exist.
func (c *Cluster) Delete(ctx context.Context) error {
	if err := os.Remove(c.StagesFile()); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("cannot remove the kwok stages: %w", err)
	}
	if !c.Exists() {
		return nil
	}
	return c.kwokctl(ctx, "", "delete", "cluster")
}

func (c *Cluster) kwokctl(ctx context.Context, version string, args ...string) error {
	cmd := exec.CommandContext(ctx, c.Binaries[Kwokctl], append(args, "--name", c.Name)...)
	cmd.Env = append(os.Environ(),
		"KWOK_WORKDIR="+c.WorkDir,
		// kwokctl would download kubectl for some commands: give it ours.
		"KWOK_KUBECTL_BINARY="+c.Binaries[Kubectl],
		// kwokctl adds a context for the cluster to $KUBECONFIG and removes
		// it on delete: keep that in the work directory, away from the
		// user's kubeconfig.
		"KUBECONFIG="+filepath.Join(c.WorkDir, "kubeconfig"),
	)
	if version != "" {
		cmd.Env = append(cmd.Env, "KWOK_KUBE_VERSION="+version)
	}
	var out bytes.Buffer
	w := io.Writer(&out)
	if c.Log != nil {
		w = io.MultiWriter(&out, c.Log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cannot run kwokctl %s: %w\n%s", strings.Join(args, " "), err, lastLines(out.String(), 20))
	}
	return nil
}

var versionRE = regexp.MustCompile(`v\d+\.\d+\.\d+`)

// kubeVersion asks a Kubernetes binary its version, e.g. v1.35.3; kwokctl
// needs it to configure components built from source.
func kubeVersion(ctx context.Context, binary string) (string, error) {
	out, err := exec.CommandContext(ctx, binary, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("cannot read the version of %s: %w", binary, err)
	}
	v := versionRE.FindString(string(out))
	if v == "" {
		return "", fmt.Errorf("cannot read the version of %s: no version in %q", binary, out)
	}
	return v, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
