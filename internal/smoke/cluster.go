package smoke

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// enforceLabel is the namespace label that names the Pod Security Standard
// the API server enforces on the namespace's pods.
const enforceLabel = "pod-security.kubernetes.io/enforce"

// Quickstart is the Cluster of examples/cluster.yaml as the smoke creates
// it: named and placed as o says, at o.Version, with o's image repository,
// fault-domain key and storage class when set, and its connection Secret
// named after it. Two settings make the run take seconds rather than
// minutes wherever it runs, and the report says so: the safety policies'
// wait after a recovery before an exclusion or inclusion is lifted for
// this Cluster (spec.forProvider.safety.params), and so is the minimum
// uptime before a restart (automation.minimumUptimeSecondsForBounce).
func Quickstart(o Options) (*v1alpha1.Cluster, error) {
	objs, err := manifest.Read([]string{filepath.Join(o.Root, "examples", "cluster.yaml")}, v1alpha1.ClusterKind)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("cannot find the quickstart: examples/cluster.yaml has %d Clusters", len(objs))
	}
	cr := &v1alpha1.Cluster{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, cr); err != nil {
		return nil, fmt.Errorf("cannot read the quickstart Cluster: %w", err)
	}
	cr.Name, cr.Namespace = o.ClusterName, o.Namespace
	p := &cr.Spec.ForProvider
	p.Version = o.Version
	if o.ImageRepository != "" {
		p.Image.Repository = o.ImageRepository
	}
	if o.FaultDomainKey != "" {
		p.FaultDomain.Key = o.FaultDomainKey
	}
	if o.StorageClass != "" {
		for class, s := range p.Processes {
			s.StorageClassName = ptr.To(o.StorageClass)
			p.Processes[class] = s
		}
	}
	params, err := json.Marshal(map[string]int{"minSecondsSinceRecoveryForExclude": 0, "minSecondsSinceRecoveryForInclude": 0})
	if err != nil {
		return nil, err
	}
	p.Safety.Params = &runtime.RawExtension{Raw: params}
	p.Automation.MinimumUptimeSecondsForBounce = 1
	cr.SetWriteConnectionSecretToReference(&xpv2.LocalSecretReference{Name: o.ClusterName + "-fdb"})
	return cr, nil
}

// smokeCertificateValidity is how long the certificate the smoke makes for
// the quickstart's TLS is valid: a day, longer than any smoke.
const smokeCertificateValidity = 24 * time.Hour

// create makes the namespace enforce the "restricted" Pod Security
// Standard (creating it when missing), makes the certificate Secret the
// quickstart names when there is none, and creates the quickstart Cluster;
// one of that name must not exist, so that the smoke never takes over a
// Cluster it did not make.
func (r *runner) create(ctx context.Context) (string, error) {
	cr, err := Quickstart(r.o)
	if err != nil {
		return "", err
	}
	r.storage = cr.Spec.ForProvider.ProcessCounts.Storage
	ns := &corev1.Namespace{}
	switch err := r.c.Get(ctx, client.ObjectKey{Name: r.o.Namespace}, ns); {
	case kerrors.IsNotFound(err):
		ns.Name = r.o.Namespace
		ns.Labels = map[string]string{enforceLabel: "restricted"}
		if err := r.c.Create(ctx, ns); err != nil {
			return "", fmt.Errorf("cannot create namespace %s: %w", r.o.Namespace, err)
		}
	case err != nil:
		return "", fmt.Errorf("cannot get namespace %s: %w", r.o.Namespace, err)
	default:
		metav1.SetMetaDataLabel(&ns.ObjectMeta, enforceLabel, "restricted")
		if err := r.c.Update(ctx, ns); err != nil {
			return "", fmt.Errorf("cannot label namespace %s: %w", r.o.Namespace, err)
		}
	}
	if t := cr.Spec.ForProvider.TLS; t != nil {
		// The quickstart runs with TLS; with no cert-manager to issue its
		// certificate, the smoke makes one, or keeps the one there.
		secret, err := certs.NewSecret(r.o.Namespace, t.SecretName, r.o.ClusterName, certs.For(time.Now(), smokeCertificateValidity))
		if err != nil {
			return "", err
		}
		if err := r.c.Create(ctx, secret); client.IgnoreAlreadyExists(err) != nil {
			return "", fmt.Errorf("cannot create the certificate Secret %s/%s: %w", r.o.Namespace, t.SecretName, err)
		}
	}
	if err := r.c.Create(ctx, cr); err != nil {
		if kerrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("cannot create Cluster %s/%s: one of that name exists; delete it or choose another name", r.o.Namespace, r.o.ClusterName)
		}
		return "", fmt.Errorf("cannot create Cluster %s/%s: %w", r.o.Namespace, r.o.ClusterName, err)
	}
	c := cr.Spec.ForProvider.ProcessCounts
	return fmt.Sprintf("%s/%s: %s %s, %d storage, %d log, %d stateless, fault domains by %s; policy waits after a recovery and the minimum uptime before a restart lifted for this Cluster",
		r.o.Namespace, r.o.ClusterName, cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode, cr.Spec.ForProvider.Version,
		c.Storage, c.Log, c.Stateless, cr.Spec.ForProvider.FaultDomain.Key), nil
}

func (r *runner) clusterKey() client.ObjectKey {
	return client.ObjectKey{Namespace: r.o.Namespace, Name: r.o.ClusterName}
}

// settled describes the Cluster and holds when it is Ready and up to date
// with want storage process groups, each with a pod, and no pod of a
// storage group that is gone.
func (r *runner) settled(ctx context.Context, want int) (bool, string, error) {
	cr := &v1alpha1.Cluster{}
	if err := r.c.Get(ctx, r.clusterKey(), cr); err != nil {
		return false, "", fmt.Errorf("cannot get Cluster %s: %w", r.o.ClusterName, err)
	}
	groups, err := r.seen.groups(ctx)
	if err != nil {
		return false, "", err
	}
	pods, err := r.seen.pods(ctx)
	if err != nil {
		return false, "", err
	}
	storage, storagePods := 0, 0
	for _, g := range groups {
		if g.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage {
			storage++
		}
	}
	for _, p := range pods {
		if p.Labels[workload.LabelProcessClass] == string(v1alpha1.ProcessClassStorage) {
			storagePods++
		}
	}
	ready, upToDate := cr.GetCondition(xpv2.TypeReady), cr.GetCondition(xpv2.TypeUpToDate)
	why := fmt.Sprintf("%d process groups (%d storage), %d pods (%d storage), running %q; UpToDate %s; Ready %s %s",
		len(groups), storage, len(pods), storagePods, cr.Status.AtProvider.RunningVersion, upToDate.Status, ready.Status, ready.Reason)
	if ready.Status != corev1.ConditionTrue && ready.Message != "" {
		why += ": " + ready.Message
	}
	done := storage == want && storagePods == want && ready.Status == corev1.ConditionTrue && upToDate.Status == corev1.ConditionTrue
	return done, why, nil
}

// waitReady waits until the new Cluster is Ready with its storage groups.
func (r *runner) waitReady(ctx context.Context) (string, error) {
	if err := r.waitFor(ctx, r.o.Timeouts.Ready, func(ctx context.Context) (bool, string, error) { return r.settled(ctx, r.storage) }); err != nil {
		return "", err
	}
	cr := &v1alpha1.Cluster{}
	if err := r.c.Get(ctx, r.clusterKey(), cr); err != nil {
		return "", fmt.Errorf("cannot get Cluster %s: %w", r.o.ClusterName, err)
	}
	h := cr.Status.AtProvider.Health
	return fmt.Sprintf("available %t, fault tolerance %d, coordinators %v", h.Available, h.FaultTolerance, cr.Status.AtProvider.Coordinators), nil
}

// patch merge-patches the Cluster's spec.forProvider.
func (r *runner) patch(ctx context.Context, forProvider map[string]any) error {
	b, err := json.Marshal(map[string]any{"spec": map[string]any{"forProvider": forProvider}})
	if err != nil {
		return err
	}
	cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: r.o.Namespace, Name: r.o.ClusterName}}
	if err := r.c.Patch(ctx, cr, client.RawPatch(types.MergePatchType, b)); err != nil {
		return fmt.Errorf("cannot patch Cluster %s: %w", r.o.ClusterName, err)
	}
	return nil
}

// scaleDown lowers the storage count by one and waits until the removed
// group and its pod are gone and the Cluster is Ready and up to date.
func (r *runner) scaleDown(ctx context.Context) (string, error) {
	want := r.storage - 1
	if err := r.patch(ctx, map[string]any{"processCounts": map[string]any{"storage": want}}); err != nil {
		return "", err
	}
	if err := r.waitFor(ctx, r.o.Timeouts.ScaleDown, func(ctx context.Context) (bool, string, error) { return r.settled(ctx, want) }); err != nil {
		return "", err
	}
	r.storage = want
	return fmt.Sprintf("storage %d -> %d", want+1, want), nil
}

// upgrade sets the new version and waits until the database runs it and
// the Cluster is Ready and up to date.
func (r *runner) upgrade(ctx context.Context) (string, error) {
	if err := r.patch(ctx, map[string]any{"version": r.o.UpgradeTo}); err != nil {
		return "", err
	}
	var running string
	err := r.waitFor(ctx, r.o.Timeouts.Upgrade, func(ctx context.Context) (bool, string, error) {
		done, why, err := r.settled(ctx, r.storage)
		cr := &v1alpha1.Cluster{}
		if err == nil {
			err = r.c.Get(ctx, r.clusterKey(), cr)
		}
		running = cr.Status.AtProvider.RunningVersion
		return done && running == r.o.UpgradeTo, why, err
	})
	if err != nil {
		return "", err
	}
	return "the database runs " + running, nil
}

// delete deletes the Cluster and waits until it, its process groups and
// every object the provider made for it (pods, volume claims, ConfigMap,
// headless Service: all labelled with the Cluster's name) are gone.
func (r *runner) delete(ctx context.Context) (string, error) {
	cr := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: r.o.Namespace, Name: r.o.ClusterName}}
	if err := r.c.Delete(ctx, cr); err != nil {
		return "", fmt.Errorf("cannot delete Cluster %s: %w", r.o.ClusterName, err)
	}
	err := r.waitFor(ctx, r.o.Timeouts.Delete, func(ctx context.Context) (bool, string, error) {
		left, err := r.left(ctx)
		if err != nil {
			return false, "", err
		}
		if len(left) == 0 {
			return true, "everything is gone", nil
		}
		return false, fmt.Sprintf("left: %v", left), nil
	})
	if err != nil {
		return "", err
	}
	return "the Cluster, its process groups, pods, volume claims, ConfigMap and Service are gone", nil
}

// left counts what is left of the Cluster, by kind.
func (r *runner) left(ctx context.Context) (map[string]int, error) {
	left := map[string]int{}
	switch err := r.c.Get(ctx, r.clusterKey(), &v1alpha1.Cluster{}); {
	case err == nil:
		left["Cluster"] = 1
	case !kerrors.IsNotFound(err):
		return nil, fmt.Errorf("cannot get Cluster %s: %w", r.o.ClusterName, err)
	}
	lists := map[string]client.ObjectList{
		"ProcessGroup": &v1alpha1.ProcessGroupList{}, "Pod": &corev1.PodList{}, "PersistentVolumeClaim": &corev1.PersistentVolumeClaimList{},
		"ConfigMap": &corev1.ConfigMapList{}, "Service": &corev1.ServiceList{},
	}
	for kind, l := range lists {
		if err := r.c.List(ctx, l, client.InNamespace(r.o.Namespace), client.MatchingLabels{workload.LabelCluster: r.o.ClusterName}); err != nil {
			return nil, fmt.Errorf("cannot list %s: %w", kind, err)
		}
		if n := meta.LenList(l); n > 0 {
			left[kind] = n
		}
	}
	return left, nil
}
