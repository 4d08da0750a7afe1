// Package podexec runs commands in a pod's container through the API
// server's pods/exec subresource, as `kubectl exec` does.
package podexec

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
)

const (
	errClientset = "cannot create a clientset for pods/exec"
	errExec      = "cannot exec in pod %s"
)

// Exec runs command in a container of a pod, with stdin (nil for none) as
// its standard input, and returns what it wrote to its standard output and
// error; a command that exits non-zero is an error.
type Exec func(ctx context.Context, namespace, pod, container string, command []string, stdin io.Reader) (stdout, stderr string, err error)

// New returns an Exec through the API server of cfg (see NewExecutor).
func New(cfg *rest.Config) (Exec, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, errors.Wrap(err, errClientset)
	}
	return func(ctx context.Context, namespace, pod, container string, command []string, stdin io.Reader) (string, string, error) {
		opts := &corev1.PodExecOptions{Container: container, Command: command, Stdin: stdin != nil, Stdout: true, Stderr: true}
		ex, err := NewExecutor(cfg, cs, namespace, pod, opts)
		if err != nil {
			return "", "", err
		}
		var stdout, stderr bytes.Buffer
		err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: &stdout, Stderr: &stderr})
		return stdout.String(), stderr.String(), errors.Wrapf(err, errExec, pod)
	}, nil
}

// NewExecutor returns the executor of opts in a pod through the API server
// of cfg: over WebSocket, or SPDY where the WebSocket upgrade fails (an
// older API server, a proxy in between), as kubectl does.
func NewExecutor(cfg *rest.Config, cs kubernetes.Interface, namespace, pod string, opts *corev1.PodExecOptions) (remotecommand.Executor, error) {
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(opts, kscheme.ParameterCodec)
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		return nil, errors.Wrapf(err, errExec, pod)
	}
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
	if err != nil {
		return nil, errors.Wrapf(err, errExec, pod)
	}
	ex, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	return ex, errors.Wrapf(err, errExec, pod)
}

// Lazy returns an Exec through the API server of cfg that builds its
// clientset at its first call: a reconcile that opens one and runs nothing
// costs nothing.
func Lazy(cfg *rest.Config) Exec {
	build := sync.OnceValues(func() (Exec, error) { return New(cfg) })
	return func(ctx context.Context, namespace, pod, container string, command []string, stdin io.Reader) (string, string, error) {
		run, err := build()
		if err != nil {
			return "", "", err
		}
		return run(ctx, namespace, pod, container, command, stdin)
	}
}
