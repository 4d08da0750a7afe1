package processgroup

import (
	"context"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

func TestWatched(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	ns := "watched"
	cluster := func(name, target string) *fdbv1alpha1.Cluster {
		return &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: "7.3.63", TargetNamespace: target}}}
	}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "watched-local"}, Spec: v1alpha1.ProviderConfigSpec{
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "remote"}, Spec: v1alpha1.ProviderConfigSpec{
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret, CommonCredentialSelectors: xpv2.CommonCredentialSelectors{
				SecretRef: &xpv2.SecretKeySelector{SecretReference: xpv2.SecretReference{Namespace: ns, Name: "kubeconfig"}, Key: "kubeconfig"}}}}},
		cluster("here", ""),
		cluster("named-here", ns),
		cluster("elsewhere", "pods"),
	} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	local := &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: "watched-local"}
	cases := map[string]struct {
		reason  string
		config  *xpv2.ProviderConfigReference
		cluster string
		want    bool
	}{
		"LocalInItsNamespace": {
			reason: "A group on the provider's own cluster whose pods live in its namespace is watched.",
			config: local, cluster: "here", want: true,
		},
		"LocalTargetNamespaceItsOwn": {
			reason: "A target namespace that is the group's own is the same.",
			config: local, cluster: "named-here", want: true,
		},
		"LocalOtherNamespace": {
			reason: "Pods in another namespace are not mapped to the group: not watched.",
			config: local, cluster: "elsewhere",
		},
		"RemoteCluster": {
			reason: "A group on another cluster is not watched.",
			config: &xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: "remote"}, cluster: "here",
		},
		"MissingConfig": {
			reason: "A group whose config cannot be read is not watched.",
			config: &xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: "absent"}, cluster: "here",
		},
		"MissingCluster": {
			reason: "A group whose Cluster cannot be read is not watched.",
			config: local, cluster: "absent",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pg := &fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g"},
				Spec: fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{ClusterReference: fdbv1alpha1.ClusterReference{ClusterName: tc.cluster}}}}
			pg.SetProviderConfigReference(tc.config)
			if diff := cmp.Diff(tc.want, watched(env.Client)(pg)); diff != "" {
				t.Errorf("\n%s\nwatched(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestNodeChanged: a node wakes its groups when it turns Ready or not, is
// cordoned or uncordoned, or its taints change; its heartbeats do not.
func TestNodeChanged(t *testing.T) {
	node := func(ready, cordoned bool, taints ...corev1.Taint) *corev1.Node {
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		return &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: cordoned, Taints: taints},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
	}
	maintenance := corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule}
	heartbeat := node(true, false)
	heartbeat.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
	cases := map[string]struct {
		old, cur *corev1.Node
		want     bool
	}{
		"Heartbeat":   {node(true, false), heartbeat, false},
		"NotReady":    {node(true, false), node(false, false), true},
		"Cordoned":    {node(true, false), node(true, true), true},
		"Tainted":     {node(true, false), node(true, false, maintenance), true},
		"Untainted":   {node(true, false, maintenance), node(true, false), true},
		"SameTaints":  {node(true, false, maintenance), node(true, false, maintenance), false},
		"TaintValue":  {node(true, false, maintenance), node(true, false, corev1.Taint{Key: maintenance.Key, Value: "soon", Effect: maintenance.Effect}), true},
		"TaintEffect": {node(true, false, maintenance), node(true, false, corev1.Taint{Key: maintenance.Key, Effect: corev1.TaintEffectNoExecute}), true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, nodeChanged(tc.old, tc.cur)); diff != "" {
				t.Errorf("nodeChanged: -want, +got:\n%s", diff)
			}
		})
	}
}
