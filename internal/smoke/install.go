package smoke

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
)

// ProviderName names the provider's Deployment, as examples/provider names
// its ServiceAccount and ClusterRole.
const ProviderName = "provider-foundationdb"

// The provider's ports: its metrics and its health probes (cmd/provider's
// defaults).
const (
	metricsPort = 8080
	healthPort  = 8081
)

// install gets the provider onto the cluster (Options.Install) and waits
// until its kinds are served and, when it installed it, its Deployment is
// available; either way it applies the default ClusterProviderConfig
// (examples/providerconfig.yaml) the quickstart uses.
func (r *runner) install(ctx context.Context) (string, error) {
	var note string
	switch r.o.Install {
	case InstallDeployment:
		if r.o.ProviderImage == "" {
			return "", fmt.Errorf("cannot install the provider: no image given")
		}
		if err := manifest.InstallCRDs(ctx, r.c, filepath.Join(r.o.Root, "package", "crds")); err != nil {
			return "", err
		}
		user, err := manifest.InstallProviderRBAC(ctx, r.c, filepath.Join(r.o.Root, "examples", "provider"))
		if err != nil {
			return "", err
		}
		d, err := ProviderDeployment(user, r.o.ProviderImage)
		if err != nil {
			return "", err
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			return "", fmt.Errorf("cannot convert deployment %s: %w", d.Name, err)
		}
		delete(u, "status")
		if err := manifest.Apply(ctx, r.c, []*unstructured.Unstructured{{Object: u}}); err != nil {
			return "", err
		}
		if err := r.waitFor(ctx, r.o.Timeouts.Install, func(ctx context.Context) (bool, string, error) {
			return deploymentAvailable(ctx, r.c, client.ObjectKeyFromObject(d))
		}); err != nil {
			return "", err
		}
		note = fmt.Sprintf("Deployment %s/%s of %s (--fdb-backend=real) as %s", d.Namespace, d.Name, r.o.ProviderImage, user)
		if r.o.Mode == Local {
			note += "; its pod runs no container here: the provider runs beside the cluster on the simulator"
		}
	case InstallExisting:
		note = "the provider installed beforehand"
	default:
		return "", fmt.Errorf("cannot install the provider: unknown way %q", r.o.Install)
	}
	if err := manifest.WaitServed(ctx, r.c, v1alpha1.ClusterGroupVersionKind, r.o.Timeouts.Install); err != nil {
		return "", fmt.Errorf("the provider's kinds are not served (on a Crossplane cluster, activate them: README, Activating the provider's kinds): %w", err)
	}
	cpc, err := manifest.Read([]string{filepath.Join(r.o.Root, "examples", "providerconfig.yaml")}, apiv1alpha1.ClusterProviderConfigKind)
	if err != nil {
		return "", err
	}
	return note, manifest.Apply(ctx, r.c, cpc)
}

// ProviderDeployment is the provider's Deployment: one replica of image,
// run as the ServiceAccount whose user name (system:serviceaccount:<ns>:<name>,
// manifest.InstallProviderRBAC) is user, in its namespace, with
// --fdb-backend=real. The pod passes the "restricted" Pod Security
// Standard; its root file system is read-only, and /tmp, where the
// provider writes the cluster files and blob credentials it hands the
// FoundationDB tools, is an emptyDir.
func ProviderDeployment(user, image string) (*appsv1.Deployment, error) {
	parts := strings.Split(user, ":")
	if len(parts) != 4 || parts[0] != "system" || parts[1] != "serviceaccount" {
		return nil, fmt.Errorf("cannot run the provider as %q: not a ServiceAccount's user name", user)
	}
	ns, account := parts[2], parts[3]
	labels := map[string]string{"app.kubernetes.io/name": ProviderName}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(healthPort)}}}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: ProviderName, Namespace: ns, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			// One provider at a time: the new one waits for the old
			// one's leader-election lease anyway.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName: account,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:  "provider",
						Image: image,
						Args:  []string{"--fdb-backend=real"},
						Ports: []corev1.ContainerPort{
							{Name: "metrics", ContainerPort: metricsPort}, {Name: "health", ContainerPort: healthPort},
						},
						ReadinessProbe: probe("/readyz"),
						LivenessProbe:  probe("/healthz"),
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi"),
						}},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						VolumeMounts: []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
					}},
					Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}, nil
}

// deploymentAvailable holds when the Deployment's current generation has
// all its replicas updated and available.
func deploymentAvailable(ctx context.Context, c client.Client, key client.ObjectKey) (bool, string, error) {
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, key, d); err != nil {
		if kerrors.IsNotFound(err) {
			return false, "the Deployment is not there yet", nil
		}
		return false, "", fmt.Errorf("cannot get deployment %s: %w", key.Name, err)
	}
	want := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	why := fmt.Sprintf("Deployment %s: %d of %d replicas updated, %d available", key.Name, s.UpdatedReplicas, want, s.AvailableReplicas)
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.AvailableReplicas >= want, why, nil
}
