// Package coordination makes the changes to a pod's files that the way back
// from lost coordinators needs, as the operator's kubectl-fdb
// recover-multi-region-cluster makes them
// (FoundationDB/fdb-kubernetes-operator kubectl-fdb/cmd/
// recover_multi_region_cluster.go, v2.33.0): it copies the coordination
// files of a coordinator that kept the coordinated state to the processes
// that become the new coordinators, and restarts a pod's fdbservers on a
// new connection string. Files is its interface; Exec makes the changes in
// the pods' main containers through pods/exec, connector.SimFDB in the
// simulator.
package coordination

import (
	"context"
	"path"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/podexec"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errCopy    = "cannot copy the coordination files from pod %s to pod %s"
	errRestart = "cannot restart the fdbservers of pod %s on the new cluster file"
)

// FileNames are the files a coordinator keeps the coordinated state in,
// in its data directory (apple/foundationdb fdbserver/Coordination.actor.cpp,
// fileCoordinatorPrefix, 7.3.79).
var FileNames = []string{"coordination-0.fdq", "coordination-1.fdq"}

// A Process is one fdbserver of a pod: its number, 1 for a pod of one.
type Process struct {
	Pod    *corev1.Pod
	Number int
}

// Files makes the changes.
type Files interface {
	// CopyCoordinationFiles copies the coordination files of process from
	// to process to.
	CopyCoordinationFiles(ctx context.Context, from, to Process) error
	// RestartOn puts connection string cs into the cluster file of pod
	// p's fdbservers and kills them: their monitor starts them again, on
	// that file.
	RestartOn(ctx context.Context, p *corev1.Pod, cs string) error
}

// Exec makes the changes through pods/exec, in the pods' main containers,
// with a shell and coreutils (sh, cat, mv, printf) and pkill: the
// operator's kubectl-fdb runs /bin/bash, cp, tee, rm and pkill in the same
// container of the same images for the same procedure
// (FoundationDB/fdb-kubernetes-operator internal/kubernetes/kubernetes.go
// and kubectl-fdb/cmd/recover_multi_region_cluster.go, v2.33.0).
type Exec struct {
	Run podexec.Exec
}

// CopyCoordinationFiles reads each file in from's container and writes it
// in to's, through a temporary file renamed into place.
func (e Exec) CopyCoordinationFiles(ctx context.Context, from, to Process) error {
	for _, name := range FileNames {
		content, stderr, err := e.Run(ctx, from.Pod.Namespace, from.Pod.Name, workload.MainContainer(from.Pod).Name,
			[]string{"cat", path.Join(workload.ProcessDataDir(from.Number), name)}, nil)
		if err != nil {
			return errors.Wrapf(errors.Wrapf(err, "reading %s: %s", name, stderr), errCopy, from.Pod.Name, to.Pod.Name)
		}
		if content == "" {
			return errors.Errorf(errCopy+": %s is empty", from.Pod.Name, to.Pod.Name, name)
		}
		target := path.Join(workload.ProcessDataDir(to.Number), name)
		_, stderr, err = e.Run(ctx, to.Pod.Namespace, to.Pod.Name, workload.MainContainer(to.Pod).Name,
			[]string{"sh", "-c", `cat > "$1.tmp" && mv "$1.tmp" "$1"`, "sh", target}, strings.NewReader(content))
		if err != nil {
			return errors.Wrapf(errors.Wrapf(err, "writing %s: %s", target, stderr), errCopy, from.Pod.Name, to.Pod.Name)
		}
	}
	return nil
}

// RestartOn writes cs into the pod's cluster file, through a temporary file
// renamed into place, and kills its fdbservers; a pod where none runs is
// not an error.
func (e Exec) RestartOn(ctx context.Context, p *corev1.Pod, cs string) error {
	script := `printf '%s\n' "$1" > "$2.tmp" && mv "$2.tmp" "$2" && { pkill -x fdbserver || true; }`
	_, stderr, err := e.Run(ctx, p.Namespace, p.Name, workload.MainContainer(p).Name,
		[]string{"sh", "-c", script, "sh", cs, workload.ClusterFilePath}, nil)
	return errors.Wrapf(errors.Wrapf(err, "%s", stderr), errRestart, p.Name)
}
