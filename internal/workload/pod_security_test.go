package workload

import (
	"fmt"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// restricted evaluates a pod spec with the Pod Security Admission
// library at the "restricted" level of the latest version, as a namespace
// labelled pod-security.kubernetes.io/enforce=restricted admits pods.
func restricted(t *testing.T, meta *metav1.ObjectMeta, spec *corev1.PodSpec) policy.AggregateCheckResult {
	t.Helper()
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return policy.AggregateCheckResults(evaluator.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, meta, spec))
}

// TestEveryPodPassesTheRestrictedPodSecurityStandard evaluates every pod
// the provider writes — each class, one and several processes, in a data
// center and a data hall, with IP addresses in the cluster file, and the
// backup agents' — with the Pod Security Admission library at
// "restricted".
func TestEveryPodPassesTheRestrictedPodSecurityStandard(t *testing.T) {
	clusters := map[string]*v1alpha1.Cluster{
		"Default":  cluster(),
		"Region":   cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.DataCenter = "dc1" }),
		"DataHall": cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.DataHall = "az1" }),
		"IPs":      cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(false) }),
	}
	for cname, c := range clusters {
		for _, class := range v1alpha1.ProcessClasses {
			for _, n := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/%s/%d", cname, class, n), func(t *testing.T) {
					p := Pod(c, group(class, n, "zone-a"), string(class)+"-1")
					if r := restricted(t, &p.ObjectMeta, &p.Spec); !r.Allowed {
						t.Errorf("refused at restricted: %s: %s", r.ForbiddenReason(), r.ForbiddenDetail())
					}
				})
			}
		}
	}
	t.Run("BackupAgents", func(t *testing.T) {
		b := &v1alpha1.Backup{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}}
		b.Spec.ForProvider.BlobStore.CredentialsSecretRef = &xpv2.LocalSecretKeySelector{LocalSecretReference: xpv2.LocalSecretReference{Name: "blob"}, Key: "credentials"}
		d := BackupAgents(cluster(), b)
		if r := restricted(t, &d.Spec.Template.ObjectMeta, &d.Spec.Template.Spec); !r.Allowed {
			t.Errorf("refused at restricted: %s: %s", r.ForbiddenReason(), r.ForbiddenDetail())
		}
	})
}

// TestATemplateCanLeaveTheRestrictedStandard checks that the defaults are
// defaults: a template that asks for root and privilege gets them (and the
// evaluation, which would refuse the pod, can fail).
func TestATemplateCanLeaveTheRestrictedStandard(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](0), RunAsNonRoot: ptr.To(false)},
				Containers:      []corev1.Container{{Name: containerName, SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}},
			},
		}}}
	})
	p := Pod(c, group(v1alpha1.ProcessClassStorage, 1, ""), "storage-1")
	r := restricted(t, &p.ObjectMeta, &p.Spec)
	if diff := cmp.Diff(false, r.Allowed); diff != "" {
		t.Errorf("allowed at restricted: -want, +got:\n%s", diff)
	}
	got := []any{*p.Spec.SecurityContext.RunAsUser, *p.Spec.SecurityContext.FSGroup, *p.Spec.Containers[0].SecurityContext.Privileged, *p.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation}
	if diff := cmp.Diff([]any{int64(0), FDBUser, true, false}, got); diff != "" {
		t.Errorf("runAsUser, fsGroup, privileged, allowPrivilegeEscalation: -want, +got:\n%s", diff)
	}
}

// TestTemplateContainersMergeByName checks that a template container named
// like one of the provider's is merged into it, field by field: a pod with
// two containers of one name is refused by the API server. The template's
// resources and security context win per field over the defaults, its
// environment and mounts are added, and what the provider owns (image,
// arguments, its variables) stays the provider's.
func TestTemplateContainersMergeByName(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"storage": {PodTemplate: &corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{
				{
					Name:  containerName,
					Image: "someone-elses:1.0",
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Gi")},
					},
					SecurityContext: &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr.To(false)},
					Env:             []corev1.EnvVar{{Name: "EXTRA", Value: "1"}, {Name: EnvInstanceID, Value: "hijacked"}},
					VolumeMounts:    []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}},
					LivenessProbe:   &corev1.Probe{InitialDelaySeconds: 7},
				},
				{Name: "log-shipper", Image: "shipper:1"},
			}},
		}}}
	})
	p := Pod(c, group(v1alpha1.ProcessClassStorage, 2, ""), "storage-1")
	var names []string
	for _, ct := range p.Spec.Containers {
		names = append(names, ct.Name)
	}
	if diff := cmp.Diff([]string{containerName, SidecarContainer, "log-shipper"}, names); diff != "" {
		t.Fatalf("containers: -want, +got:\n%s", diff)
	}
	main := p.Spec.Containers[0]
	env := MonitorEnvironment(p)
	got := map[string]any{
		"image":          main.Image,
		"cpu request":    main.Resources.Requests.Cpu().String(),
		"memory request": main.Resources.Requests.Memory().String(),
		"memory limit":   main.Resources.Limits.Memory().String(),
		"readOnlyRoot":   *main.SecurityContext.ReadOnlyRootFilesystem,
		"noEscalation":   !*main.SecurityContext.AllowPrivilegeEscalation,
		"instance":       env[EnvInstanceID],
		"extra":          env["EXTRA"],
		"mounts":         len(main.VolumeMounts),
		"liveness":       main.LivenessProbe.InitialDelaySeconds,
		"shipper ro":     p.Spec.Containers[2].SecurityContext.ReadOnlyRootFilesystem,
		"shipper drop":   p.Spec.Containers[2].SecurityContext.Capabilities.Drop,
	}
	want := map[string]any{
		"image":          "foundationdb/fdb-kubernetes-monitor:7.3.63",
		"cpu request":    "2", // the default for two storage processes
		"memory request": "8Gi",
		"memory limit":   "16Gi",
		"readOnlyRoot":   false,
		"noEscalation":   true,
		"instance":       "storage-1",
		"extra":          "1",
		"mounts":         5,
		"liveness":       int32(7),
		"shipper ro":     (*bool)(nil),
		"shipper drop":   []corev1.Capability{"ALL"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged main container: -want, +got:\n%s", diff)
	}
}

// TestPodsRunAsTheMonitorsAccountWithRequests checks that every pod names
// the monitor's ServiceAccount unless its template names another, asks for
// the default resources of its class and density, runs as the images' fdb
// user with its group owning the volumes, and tells fdbcli where the
// cluster file is.
func TestPodsRunAsTheMonitorsAccountWithRequests(t *testing.T) {
	own := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"log": {PodTemplate: &corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{ServiceAccountName: "users-own"},
		}}}
	})
	cases := map[string]struct {
		cluster *v1alpha1.Cluster
		class   v1alpha1.ProcessClass
		n       int
		want    []any
	}{
		"Storage":             {cluster: cluster(), class: v1alpha1.ProcessClassStorage, n: 1, want: []any{MonitorServiceAccount, "1", "4Gi", FDBUser, FDBUser}},
		"StorageTwoProcesses": {cluster: cluster(), class: v1alpha1.ProcessClassStorage, n: 2, want: []any{MonitorServiceAccount, "2", "8Gi", FDBUser, FDBUser}},
		"Stateless":           {cluster: cluster(), class: v1alpha1.ProcessClassStateless, n: 1, want: []any{MonitorServiceAccount, "500m", "2Gi", FDBUser, FDBUser}},
		"UsersOwnAccount":     {cluster: own, class: v1alpha1.ProcessClassLog, n: 1, want: []any{"users-own", "1", "4Gi", FDBUser, FDBUser}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Pod(tc.cluster, group(tc.class, tc.n, ""), string(tc.class)+"-1")
			req := p.Spec.Containers[0].Resources.Requests
			got := []any{p.Spec.ServiceAccountName, req.Cpu().String(), req.Memory().String(), *p.Spec.SecurityContext.RunAsUser, *p.Spec.SecurityContext.FSGroup}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("account, cpu, memory, user, fsGroup: -want, +got:\n%s", diff)
			}
			// fdbcli run in the container finds the database.
			if diff := cmp.Diff("/var/dynamic-conf/fdb.cluster", MonitorEnvironment(p)["FDB_CLUSTER_FILE"]); diff != "" {
				t.Errorf("FDB_CLUSTER_FILE: -want, +got:\n%s", diff)
			}
		})
	}
}
