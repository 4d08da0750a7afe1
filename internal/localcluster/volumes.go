package localcluster

import (
	"context"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// provisionedBy marks the volumes the stand-in provisioner made.
const provisionedBy = "pv.kubernetes.io/provisioned-by"

// provisionerName is the value of provisionedBy on those volumes.
const provisionerName = "localcluster.foundationdb.crossplane.io"

// Volume is the volume the stand-in provisioner makes for a pending claim:
// pre-bound to it through claimRef (kube-controller-manager's volume binder
// then binds the pair), as large as asked, of the claim's class, backed by a
// host path that nothing mounts since no container runs.
func Volume(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	hostPathType := corev1.HostPathDirectoryOrCreate
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "pvc-" + string(pvc.UID),
			Annotations: map[string]string{provisionedBy: provisionerName},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			VolumeMode:                    pvc.Spec.VolumeMode,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: filepath.Join("/var/lib/localcluster", string(pvc.UID)), Type: &hostPathType,
			}},
		},
	}
}

// ProvisionVolumes stands in for a storage provisioner until ctx ends: every
// period it makes a volume for each pending claim and deletes the volumes it
// made whose claim is gone (they are Retain, so nothing else would).
func ProvisionVolumes(ctx context.Context, c client.Client, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// Errors are transient (a claim deleted meanwhile, the API
			// server restarting); the next period retries.
			_ = provisionOnce(ctx, c)
		}
	}
}

func provisionOnce(ctx context.Context, c client.Client) error {
	pvcs := &corev1.PersistentVolumeClaimList{}
	if err := c.List(ctx, pvcs); err != nil {
		return err
	}
	for i := range pvcs.Items {
		pvc := &pvcs.Items[i]
		if pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil || pvc.Status.Phase != corev1.ClaimPending {
			continue
		}
		_ = c.Create(ctx, Volume(pvc))
	}
	pvs := &corev1.PersistentVolumeList{}
	if err := c.List(ctx, pvs); err != nil {
		return err
	}
	for i := range pvs.Items {
		pv := &pvs.Items[i]
		if pv.Annotations[provisionedBy] == provisionerName && pv.Status.Phase == corev1.VolumeReleased {
			_ = c.Delete(ctx, pv)
		}
	}
	return nil
}
