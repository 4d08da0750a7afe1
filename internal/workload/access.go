package workload

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MonitorServiceAccount names the ServiceAccount the provider makes in
// each target namespace for fdb-kubernetes-monitor, and the Role and
// RoleBinding that let it read and annotate its own pod. The monitor
// builds an in-cluster client, waits for an informer on its pod (a list
// and watch by name) to sync before it starts any fdbserver, gets the pod,
// and patches the annotations that say which configuration it loaded
// (apple/foundationdb fdbkubernetesmonitor/kubernetes.go, setupCache,
// createPodClient and updateAnnotationsOnPod, at 7.1.67 and 7.3.63): with
// a namespace's default account that is denied, and no process starts.
// The three are shared by every Cluster of the namespace and kept when a
// Cluster goes.
const MonitorServiceAccount = "fdb-kubernetes-monitor"

// MonitorVerbs are the verbs on pods the monitor uses, and all its Role
// grants.
var MonitorVerbs = []string{"get", "list", "watch", "patch"}

// accessLabels mark the monitor's account and its permissions as the
// provider's; they belong to no one Cluster.
func accessLabels() map[string]string { return map[string]string{LabelManagedBy: ManagedBy} }

// MonitorAccount is the monitor's ServiceAccount in namespace ns.
func MonitorAccount(ns string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: MonitorServiceAccount, Namespace: ns, Labels: accessLabels()}}
}

// MonitorRole is the Role that grants MonitorVerbs on the pods of
// namespace ns.
func MonitorRole(ns string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: MonitorServiceAccount, Namespace: ns, Labels: accessLabels()},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: MonitorVerbs}},
	}
}

// MonitorRoleBinding binds MonitorRole to MonitorAccount in namespace ns.
func MonitorRoleBinding(ns string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: MonitorServiceAccount, Namespace: ns, Labels: accessLabels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: MonitorServiceAccount},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: MonitorServiceAccount, Namespace: ns}},
	}
}
