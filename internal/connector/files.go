package connector

import (
	"context"
	"io"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/coordination"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/podexec"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errNoRESTConfig  = "cannot exec in the target cluster's pods: no REST config reaches its API server"
	errPodNotRunning = "cannot exec in pod %s: it is not running"
)

// Changing the pods' files runs commands in their main containers.
// +kubebuilder:rbac:groups="",resources=pods/exec,verbs=create;get

// Files changes the files of the pods of target through pods/exec.
func (t ToolsFDB) Files(target Target, _ *corev1.ConfigMap) coordination.Files {
	if target.Config == nil {
		return coordination.Exec{Run: func(context.Context, string, string, string, []string, io.Reader) (string, string, error) {
			return "", "", errors.New(errNoRESTConfig)
		}}
	}
	return coordination.Exec{Run: podexec.Lazy(target.Config)}
}

// Files changes the files of the simulated processes of cm's database: a
// pod's processes are those of its group, and a change reaches them only
// while the pod runs, as an exec does.
func (s SimFDB) Files(_ Target, cm *corev1.ConfigMap) coordination.Files {
	return simFiles{db: s.Registry.Open(string(cm.GetUID()), cm.Data[workload.KeyClusterFile])}
}

// simFiles is coordination.Files on a simulated database.
type simFiles struct{ db *sim.Sim }

func (f simFiles) CopyCoordinationFiles(_ context.Context, from, to coordination.Process) error {
	for _, p := range []*corev1.Pod{from.Pod, to.Pod} {
		if !workload.PodRunning(p) {
			return errors.Errorf(errPodNotRunning, p.Name)
		}
	}
	return f.db.CopyCoordinationFiles(processID(from.Pod, from.Number), processID(to.Pod, to.Number))
}

func (f simFiles) RestartOn(_ context.Context, p *corev1.Pod, cs string) error {
	if !workload.PodRunning(p) {
		return errors.Errorf(errPodNotRunning, p.Name)
	}
	for n := 1; n <= workload.ProcessCount(p); n++ {
		if err := f.db.RestartOnClusterFile(processID(p, n), cs); err != nil {
			return err
		}
	}
	return nil
}

// processID is the simulated process n of pod p.
func processID(p *corev1.Pod, n int) string {
	return fdb.ProcessID(p.Labels[workload.LabelProcessGroup], n, workload.ProcessCount(p))
}
