package localcluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// provisionedBy marks the volumes the stand-in provisioner made.
const provisionedBy = "pv.kubernetes.io/provisioned-by"

// provisionerName is the value of provisionedBy on those volumes.
const provisionerName = "localcluster.foundationdb.crossplane.io"

// StorageClassName is the cluster's default storage class. Its volumes are
// zone-wide, like a cloud's network disks: a claim is bound once the
// scheduler chose a node for its first pod (WaitForFirstConsumer), to a
// volume that every node of that node's zone can use, and no other.
const StorageClassName = "zonal"

// selectedNode is the annotation by which the scheduler tells a claim's
// provisioner the node of its first pod.
const selectedNode = "volume.kubernetes.io/selected-node"

// StorageClass is the cluster's default storage class, StorageClassName.
func StorageClass() *storagev1.StorageClass {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        StorageClassName,
			Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"},
		},
		Provisioner:       provisionerName,
		VolumeBindingMode: &wait,
	}
}

// CreateStorageClass creates the cluster's default storage class, so that
// the claims made afterwards without a class get it.
func CreateStorageClass(ctx context.Context, c client.Client) error {
	if err := c.Create(ctx, StorageClass()); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("cannot create storage class %s: %w", StorageClassName, err)
	}
	return nil
}

// Volume is the volume the stand-in provisioner makes for a pending claim:
// pre-bound to it through claimRef (kube-controller-manager's volume binder
// then binds the pair), as large as asked, of the claim's class, backed by a
// host path that nothing mounts since no container runs. With a zone, only
// nodes of that zone can use it; without, every node can.
func Volume(pvc *corev1.PersistentVolumeClaim, zone string) *corev1.PersistentVolume {
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	hostPathType := corev1.HostPathDirectoryOrCreate
	pv := &corev1.PersistentVolume{
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
	if zone != "" {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: ZoneLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{zone},
			}}}},
		}}
	}
	return pv
}

// ProvisionVolumes stands in for a storage provisioner until ctx ends: every
// period it makes a volume for each pending claim and deletes the volumes it
// made whose claim is gone (they are Retain, so nothing else would). A claim
// of StorageClassName gets a volume of the zone of the node the scheduler
// chose for its first pod; a claim of another class or none, one that
// every node can use, at once.
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
		zone := ""
		if pvc.Spec.StorageClassName != nil && *pvc.Spec.StorageClassName == StorageClassName {
			node := &corev1.Node{}
			if name := pvc.Annotations[selectedNode]; name == "" || c.Get(ctx, client.ObjectKey{Name: name}, node) != nil {
				continue // no pod scheduled yet
			}
			if zone = node.Labels[ZoneLabel]; zone == "" {
				continue
			}
		}
		_ = c.Create(ctx, Volume(pvc, zone))
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
