package connector

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const errReviewAccess = "cannot ask the API server whether a pod's monitor may read its pod"

// The simulator asks the API server whether each pod's ServiceAccount may
// do what fdb-kubernetes-monitor does with its pod before any fdbserver
// starts, as a real monitor finds out by trying.
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// monitorMayStart reports whether pod p's monitor can start: the monitor
// builds an in-cluster client from the pod's ServiceAccount token, waits
// for an informer on its own pod (list and watch by name) to sync, gets
// the pod and annotates it (patch) before it starts any fdbserver
// (apple/foundationdb fdbkubernetesmonitor/kubernetes.go, setupCache and
// createPodClient, at 7.1.67 and 7.3.63); denied, it exits, and the kubelet
// restarts it to try again (monitors asks again on its next look; a
// started monitor runs on whatever happens to the permissions after). So
// the pod must mount its ServiceAccount's token (without it the in-cluster
// client cannot be built), and that account may do each of
// workload.MonitorVerbs on the pod, asked of the API server
// (SubjectAccessReview). The account authenticates as its user
// name and groups (kubernetes staging/src/k8s.io/apiserver/pkg/
// authentication/serviceaccount/util.go at v1.35). A main container
// whose command the image does not have (a CrashLoop drill's) fails as it
// starts and runs no monitor at all (workload.MonitorStarts).
func monitorMayStart(ctx context.Context, target client.Client, p *corev1.Pod) (bool, error) {
	if !ptr.Deref(p.Spec.AutomountServiceAccountToken, true) || !workload.MonitorStarts(p) {
		return false, nil
	}
	account := p.Spec.ServiceAccountName
	if account == "" {
		account = "default"
	}
	for _, verb := range workload.MonitorVerbs {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + p.Namespace + ":" + account,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + p.Namespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: p.Namespace, Verb: verb, Resource: "pods", Name: p.Name,
			},
		}}
		if err := target.Create(ctx, review); err != nil {
			return false, errors.Wrap(err, errReviewAccess)
		}
		if !review.Status.Allowed {
			return false, nil
		}
	}
	return true, nil
}

// dataWritable reports whether the processes of pod p can write their data
// directory, where --datadir and --cluster_file point: they run as the
// main container's user (its security context's, else the pod's, else
// the image's fdb user, workload.FDBUser). An empty directory is
// writable by all (the kubelet makes it 0777: kubernetes
// pkg/volume/emptydir/empty_dir.go at v1.35); a volume claim's root is
// root's, 0755, unless the pod has an fsGroup, which the kubelet gives the
// volume's files group ownership and group write to, and adds to every
// container's groups (pkg/volume/volume_linux.go SetVolumeOwnership);
// with nothing mounted there, the image's own volume at /var/fdb/data
// (VOLUME in apple/foundationdb packaging/docker/Dockerfile at 7.3.63) is
// made root's by containerd and CRI-O. root writes anything not mounted
// read-only. Any other kind of volume is not known to be writable.
func dataWritable(p *corev1.Pod) bool {
	mount, vol := workload.DataVolume(p)
	uid := ptr.Deref(p.Spec.SecurityContext, corev1.PodSecurityContext{}).RunAsUser
	if main := workload.MainContainer(p); main != nil && main.SecurityContext != nil && main.SecurityContext.RunAsUser != nil {
		uid = main.SecurityContext.RunAsUser
	}
	root := ptr.Deref(uid, workload.FDBUser) == 0
	switch {
	case mount != nil && mount.ReadOnly:
		return false
	case root:
		return true
	case vol == nil:
		return false
	case vol.EmptyDir != nil:
		return true
	case vol.PersistentVolumeClaim != nil:
		return p.Spec.SecurityContext != nil && p.Spec.SecurityContext.FSGroup != nil
	}
	return false
}
