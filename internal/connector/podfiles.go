package connector

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const errGetProcessSecret = "cannot get the TLS Secret of the processes"

// podFiles are the TLS files a pod's processes can read, by path: what the
// kubelet projects into its main container from the processes' certificate
// Secret and from the cluster's ConfigMap's CA file (workload.KeyTLSCA).
type podFiles map[string][]byte

// content is the files in one string, path by path, for comparing them and
// drawing the kubelet's delay.
func (f podFiles) content() string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(f)) {
		b.WriteString(p)
		b.WriteByte(0)
		b.Write(f[p])
		b.WriteByte(0)
	}
	return b.String()
}

// certificateFiles are the TLS files each pod's volumes would hold now, by
// pod UID: the items of a Secret volume of the processes' certificate
// Secret (spec.forProvider.tls.secretName, read from the target
// namespace; a Secret that is gone holds nothing) and the KeyTLSCA items
// of a ConfigMap volume, with data the ConfigMap's data, at the main
// container's mount paths. A Cluster without tls settings has none.
func certificateFiles(ctx context.Context, target client.Reader, c *v1alpha1.Cluster, pods []corev1.Pod, data map[string]string) (map[types.UID]podFiles, error) {
	t := c.Spec.ForProvider.TLS
	if t == nil {
		return nil, nil
	}
	secret := &corev1.Secret{}
	if err := target.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(c), Name: t.SecretName}, secret); err != nil && !kerrors.IsNotFound(err) {
		return nil, errors.Wrap(err, errGetProcessSecret)
	}
	out := map[types.UID]podFiles{}
	for i := range pods {
		if f := projectedFiles(&pods[i], t.SecretName, secret.Data, data); len(f) > 0 {
			out[pods[i].UID] = f
		}
	}
	return out, nil
}

// projectedFiles are the files pod p's main container finds at its mounts
// of Secret secretName (holding secret) and of the ConfigMap's
// workload.KeyTLSCA (data), as the kubelet projects volume items: each
// item's key at the mount path joined with the item's path, every key of
// a Secret volume that names no items.
func projectedFiles(p *corev1.Pod, secretName string, secret map[string][]byte, data map[string]string) podFiles {
	main := workload.MainContainer(p)
	if main == nil {
		return nil
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range p.Spec.Volumes {
		volumes[v.Name] = v
	}
	out := podFiles{}
	for _, m := range main.VolumeMounts {
		v := volumes[m.Name]
		switch {
		case v.Secret != nil && v.Secret.SecretName == secretName:
			items := v.Secret.Items
			if len(items) == 0 {
				for _, k := range slices.Sorted(maps.Keys(secret)) {
					items = append(items, corev1.KeyToPath{Key: k, Path: k})
				}
			}
			for _, it := range items {
				if b, ok := secret[it.Key]; ok {
					out[path.Join(m.MountPath, it.Path)] = b
				}
			}
		case v.ConfigMap != nil:
			for _, it := range v.ConfigMap.Items {
				if s, ok := data[it.Key]; ok && it.Key == workload.KeyTLSCA {
					out[path.Join(m.MountPath, it.Path)] = []byte(s)
				}
			}
		}
	}
	return out
}

// filesDelivery is a change of a pod's TLS files the kubelet writes at a
// time.
type filesDelivery struct {
	files podFiles
	at    time.Time
}

// deliverFiles plays the kubelet's part for pod p's TLS files at time now,
// as deliver does for its monitor configuration: Secrets and ConfigMaps
// reach the volumes of running pods through the same sync loop and cache
// (Kubernetes documentation, Secrets, "Mounted Secrets are updated
// automatically").
func (st *podState) deliverFiles(p *corev1.Pod, current podFiles, now time.Time, seed uint64) {
	switch {
	case current.content() == st.files.content():
		st.filesPending = nil
		return
	case st.filesPending == nil:
		st.filesPending = &filesDelivery{files: current, at: now.Add(kubeletDelay(seed, p, current.content()))}
	default:
		st.filesPending.files = current
	}
	if !now.Before(st.filesPending.at) {
		st.files, st.filesPending = st.filesPending.files, nil
	}
}
