// Package localcluster runs a Kubernetes cluster on this machine for `make
// run`: kwokctl starts etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and the kwok controller as plain processes from the binaries
// hack/controlplane.sh --all builds, fake nodes spread over zones take the
// pods (kwok marks them Running with an IP), and a stand-in provisioner binds
// each volume claim to a zone-wide volume. A node can be failed and healed
// (FailNode, HealNode): kwok runs its own stages (stages.yaml). Nothing is
// downloaded and no container runs.
package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Binary names, as hack/controlplane.sh --all builds them.
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
	KubeScheduler         = "kube-scheduler"
	Kubectl               = "kubectl"
	Kwok                  = "kwok"
	Kwokctl               = "kwokctl"
)

// required are the binaries a cluster needs.
var required = []string{Etcd, KubeAPIServer, KubeControllerManager, KubeScheduler, Kubectl, Kwok, Kwokctl}

// Binaries maps each required binary name to its path.
type Binaries map[string]string

// FindBinaries looks every required binary up in a PATH-style list of
// directories, such as the one hack/controlplane.sh --all prints, and says
// which are missing.
func FindBinaries(pathList string) (Binaries, error) {
	b := Binaries{}
	var missing []string
	for _, name := range required {
		if b[name] = LookPath(pathList, name); b[name] == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("cannot find %s in %q; build them with hack/controlplane.sh --all", strings.Join(missing, ", "), pathList)
	}
	return b, nil
}

// LookPath returns the path of the executable name in the first directory of
// a PATH-style list that has one, "" when none has.
func LookPath(pathList, name string) string {
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Dirs are the directories that hold the binaries, in a stable order, for
// PATH.
func (b Binaries) Dirs() []string {
	seen := map[string]bool{}
	var dirs []string
	for _, name := range required {
		d := filepath.Dir(b[name])
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}
