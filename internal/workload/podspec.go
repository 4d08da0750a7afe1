package workload

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// FDBUser is the user and group the FoundationDB images run as (`USER fdb`,
// uid and gid 4059, in apple/foundationdb packaging/docker/Dockerfile at
// 7.1.67 and 7.3.63): the pods run as it, and their volumes are made
// writable for its group (fsGroup).
const FDBUser int64 = 4059

// podSecurity is the security context of every pod the provider writes
// unless its template says otherwise, field by field: the images' fdb
// user, its group owning the pod's volumes (a new volume claim's root is
// root's and not writable by that user otherwise), and what the
// "restricted" Pod Security Standard asks of a pod (a non-root user, the
// container runtime's default seccomp profile).
func podSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsUser:           ptr.To(FDBUser),
		RunAsGroup:          ptr.To(FDBUser),
		FSGroup:             ptr.To(FDBUser),
		FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
		RunAsNonRoot:        ptr.To(true),
		SeccompProfile:      &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// containerSecurity is the security context of every container the
// provider writes unless its template says otherwise, field by field: what
// the "restricted" Pod Security Standard asks of a container (no privilege
// escalation, every capability dropped) and a read-only root file system,
// as the FoundationDB operator defaults it too (internal/pod_models.go,
// ensureSecurityContextIsPresent): every path the monitor, its sidecar,
// fdbserver and backup_agent write is a volume.
func containerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		ReadOnlyRootFilesystem:   ptr.To(true),
		RunAsNonRoot:             ptr.To(true),
	}
}

// processRequests are the resources the scheduler reserves for one
// fdbserver process of a class unless the pod template's main container
// asks for others: a core and 4 GiB for the classes that keep data (a
// process's memory budget, fdbserver's --memory, defaults to 8 GiB), half
// of that for the others. No limit is set: fdbserver bounds its own
// memory, and a container limit below that budget would kill it.
func processRequests(class v1alpha1.ProcessClass) corev1.ResourceList {
	if class.IsStateful() {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	}
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("2Gi")}
}

// sidecarRequests are what the sidecar, which copies binaries once and
// then waits, asks for.
func sidecarRequests() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")}
}

// times is the request rl for n processes.
func times(rl corev1.ResourceList, n int) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range rl {
		m := q.DeepCopy()
		m.Mul(int64(n))
		out[name] = m
	}
	return out
}

// mergePodSecurity lays the fields a template's pod security context sets
// over the defaults (podSecurity).
func mergePodSecurity(tmpl *corev1.PodSecurityContext) *corev1.PodSecurityContext {
	out := podSecurity()
	if tmpl == nil {
		return out
	}
	t := tmpl.DeepCopy()
	if t.RunAsUser != nil {
		out.RunAsUser = t.RunAsUser
	}
	if t.RunAsGroup != nil {
		out.RunAsGroup = t.RunAsGroup
	}
	if t.FSGroup != nil {
		out.FSGroup = t.FSGroup
	}
	if t.FSGroupChangePolicy != nil {
		out.FSGroupChangePolicy = t.FSGroupChangePolicy
	}
	if t.RunAsNonRoot != nil {
		out.RunAsNonRoot = t.RunAsNonRoot
	}
	if t.SeccompProfile != nil {
		out.SeccompProfile = t.SeccompProfile
	}
	out.SELinuxOptions, out.WindowsOptions, out.AppArmorProfile = t.SELinuxOptions, t.WindowsOptions, t.AppArmorProfile
	out.SupplementalGroups, out.SupplementalGroupsPolicy, out.Sysctls = t.SupplementalGroups, t.SupplementalGroupsPolicy, t.Sysctls
	out.SELinuxChangePolicy = t.SELinuxChangePolicy
	return out
}

// mergeContainerSecurity lays the fields a template's container security
// context sets over the defaults (containerSecurity).
func mergeContainerSecurity(tmpl *corev1.SecurityContext) *corev1.SecurityContext {
	out := containerSecurity()
	if tmpl == nil {
		return out
	}
	t := tmpl.DeepCopy()
	if t.AllowPrivilegeEscalation != nil {
		out.AllowPrivilegeEscalation = t.AllowPrivilegeEscalation
	}
	if t.Capabilities != nil {
		out.Capabilities = t.Capabilities
	}
	if t.ReadOnlyRootFilesystem != nil {
		out.ReadOnlyRootFilesystem = t.ReadOnlyRootFilesystem
	}
	if t.RunAsNonRoot != nil {
		out.RunAsNonRoot = t.RunAsNonRoot
	}
	out.Privileged, out.RunAsUser, out.RunAsGroup, out.ProcMount = t.Privileged, t.RunAsUser, t.RunAsGroup, t.ProcMount
	out.SELinuxOptions, out.WindowsOptions, out.SeccompProfile, out.AppArmorProfile = t.SELinuxOptions, t.WindowsOptions, t.SeccompProfile, t.AppArmorProfile
	return out
}

// mergeContainer merges the template's container of the same name, when
// there is one, into a container the provider built (own). The provider
// owns the name, image, command and arguments, its environment variables,
// volume mounts and ports: the template's are added where they do not
// collide by name (or, for a mount, by path). Resources and the security
// context are the template's field by field over the defaults (requests
// and limits per resource name); probes, lifecycle and every other field
// the template sets are the template's.
func mergeContainer(own corev1.Container, requests corev1.ResourceList, tmpl *corev1.Container) corev1.Container {
	out := own
	if tmpl != nil {
		out = *tmpl.DeepCopy()
		out.Name, out.Image, out.Command, out.Args = own.Name, own.Image, own.Command, own.Args
		if own.ImagePullPolicy != "" {
			out.ImagePullPolicy = own.ImagePullPolicy
		}
		out.Env = mergeByKey(own.Env, out.Env, func(e corev1.EnvVar) string { return e.Name })
		out.VolumeMounts = mergeByKey(own.VolumeMounts, out.VolumeMounts, func(m corev1.VolumeMount) string { return m.Name })
		out.VolumeMounts = mergeByKey(nil, out.VolumeMounts, func(m corev1.VolumeMount) string { return m.MountPath })
		out.Ports = mergeByKey(own.Ports, out.Ports, func(p corev1.ContainerPort) string { return p.Name })
		if out.ReadinessProbe == nil {
			out.ReadinessProbe = own.ReadinessProbe
		}
	}
	res := out.Resources.DeepCopy()
	if res.Requests == nil {
		res.Requests = corev1.ResourceList{}
	}
	for name, q := range requests {
		if _, set := res.Requests[name]; !set {
			if l, limited := res.Limits[name]; limited && l.Cmp(q) < 0 {
				q = l // a request above its limit is refused
			}
			res.Requests[name] = q
		}
	}
	out.Resources = *res
	out.SecurityContext = mergeContainerSecurity(out.SecurityContext)
	return out
}

// mergeByKey is own followed by the items of extra whose key no earlier
// item has: what the provider sets first, the template's additions after.
func mergeByKey[T any](own, extra []T, key func(T) string) []T {
	seen := map[string]bool{}
	out := make([]T, 0, len(own)+len(extra))
	for _, list := range [][]T{own, extra} {
		for _, item := range list {
			if k := key(item); !seen[k] {
				seen[k] = true
				out = append(out, item)
			}
		}
	}
	return out
}

// mergeContainers is the provider's containers (own, in their order, each
// merged with the template's container of its name) followed by the
// template's other containers, each with the default container security
// context under its own but for the read-only root file system, which
// only the FoundationDB images are known to allow.
func mergeContainers(own []corev1.Container, requests map[string]corev1.ResourceList, tmpl []corev1.Container) []corev1.Container {
	byName := map[string]*corev1.Container{}
	for i := range tmpl {
		byName[tmpl[i].Name] = &tmpl[i]
	}
	out := make([]corev1.Container, 0, len(own)+len(tmpl))
	for _, c := range own {
		out = append(out, mergeContainer(c, requests[c.Name], byName[c.Name]))
		delete(byName, c.Name)
	}
	for _, t := range tmpl {
		if _, extra := byName[t.Name]; extra {
			c := *t.DeepCopy()
			ro := c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil
			c.SecurityContext = mergeContainerSecurity(c.SecurityContext)
			if !ro {
				// Whether another image writes its root file system is
				// not known here.
				c.SecurityContext.ReadOnlyRootFilesystem = nil
			}
			out = append(out, c)
		}
	}
	return out
}
