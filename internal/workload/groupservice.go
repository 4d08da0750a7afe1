package workload

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// GroupService is the Service of a process group known by its Service's
// IP (publicIPSource service): of its pod's name, a cluster IP in front of
// the group's pod alone, on the port of each of its processes (and the TLS
// port, with TLS), published before the pod is ready, since coordinators
// must be reached while the database is still unavailable. Its cluster IP
// outlives the pod: it is the address the group's processes are known by
// (AnnotationPublicIP), whichever pod the group runs, as the FoundationDB
// operator's per-process-group Services are (GetService,
// internal/pod_models.go at v2.33.0). With a podIPFamily it takes an IP of
// that family.
func GroupService(c *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup, groupID string) *corev1.Service {
	d := GroupDensity(pg)
	var ports []corev1.ServicePort
	for n := 1; n <= d.Processes; n++ {
		ports = append(ports, corev1.ServicePort{Name: fmt.Sprintf("fdb-%d", n), Port: int32(fdb.ProcessPort(n))})
		if Listen(c).TLS() {
			ports = append(ports, corev1.ServicePort{Name: fmt.Sprintf("fdb-tls-%d", n), Port: int32(fdb.TLSProcessPort(n))})
		}
	}
	var families []corev1.IPFamily
	switch f := c.Spec.ForProvider.Routing.PodIPFamily; {
	case f == nil:
	case *f == 6:
		families = []corev1.IPFamily{corev1.IPv6Protocol}
	default:
		families = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: PodName(c, groupID), Namespace: Namespace(c), Labels: Labels(c, d.Class, groupID)},
		Spec: corev1.ServiceSpec{
			Type:                     corev1.ServiceTypeClusterIP,
			Selector:                 map[string]string{LabelCluster: c.GetName(), LabelProcessGroup: groupID, LabelManagedBy: ManagedBy},
			Ports:                    ports,
			PublishNotReadyAddresses: true,
			IPFamilies:               families,
		},
	}
}

// ServiceRoutes reports whether Service s sends what reaches its cluster
// IP on port to pod p, as the node's proxy does: s is a cluster IP
// Service with that port whose selector matches p's labels (kube-proxy
// forwards a Service port to the endpoints of the pods its selector
// matches, and PublishNotReadyAddresses makes them endpoints before they
// are ready). A port without a target port forwards to the same port.
func ServiceRoutes(s *corev1.Service, p *corev1.Pod, port int) bool {
	if ServiceIP(s) == "" || len(s.Spec.Selector) == 0 {
		return false
	}
	for k, v := range s.Spec.Selector {
		if p.Labels[k] != v {
			return false
		}
	}
	for _, sp := range s.Spec.Ports {
		if int(sp.Port) == port && (sp.TargetPort.IntValue() == 0 || sp.TargetPort.IntValue() == port) {
			return true
		}
	}
	return false
}

// ServiceIP is the cluster IP of a group's Service svc; "" while it has
// none (nil, being deleted, headless).
func ServiceIP(svc *corev1.Service) string {
	if svc == nil || svc.DeletionTimestamp != nil || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return ""
	}
	return svc.Spec.ClusterIP
}

// StalePublicIP reports whether pod, of group pg known by its Service's
// IP, was made with another IP than its Service svc has now (the Service
// was made anew): its processes cannot be reached at the address they
// advertise until the pod is made anew.
func StalePublicIP(pg *v1alpha1.ProcessGroup, pod *corev1.Pod, svc *corev1.Service) bool {
	ip := ServiceIP(svc)
	return pod != nil && pg.Spec.ForProvider.PublicIPSource.Service() && ip != "" && pod.Annotations[AnnotationPublicIP] != ip
}
