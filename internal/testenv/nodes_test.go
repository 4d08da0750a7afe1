package testenv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var env *Env

func TestMain(m *testing.M) { Main(m, &env) }

// TestNodesReadyDeployments checks the deployment-controller stand-in: a
// Deployment reports spec.replicas ready and available, follows scaling,
// and one being deleted is left alone.
func TestNodesReadyDeployments(t *testing.T) {
	Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := env.Client
	if _, err := StartNodes(ctx, c, []string{"zone-a"}, 1); err != nil {
		t.Fatal(err)
	}
	ns := "nodes"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	three := int32(3)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agents", Finalizers: []string{"test/keep"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &three,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agents"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agents"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "foundationdb/foundationdb:7.3.63"}}},
			},
		},
	}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	ready := func(want int32) {
		t.Helper()
		got := appsv1.DeploymentStatus{}
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
				return false, err
			}
			got = d.Status
			s := d.Status
			return s.ObservedGeneration == d.Generation && s.Replicas == want && s.ReadyReplicas == want && s.AvailableReplicas == want && s.UpdatedReplicas == want, nil
		})
		if err != nil {
			t.Fatalf("want %d replicas ready: %v; status %+v", want, err, got)
		}
	}
	ready(3)

	one := int32(1)
	d.Spec.Replicas = &one
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	ready(1)

	// A Deployment being deleted keeps the status it had.
	if err := c.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	d.Status.ReadyReplicas, d.Status.AvailableReplicas = 0, 0
	if err := c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // four periods of the stand-in
	if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	if d.Status.ReadyReplicas != 0 {
		t.Errorf("a Deployment being deleted became ready: %+v", d.Status)
	}
	d.Finalizers = nil
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(fmt.Errorf("cannot release the Deployment: %w", err))
	}
}

// TestEvictedPodStaysFailed checks the kubelet stand-in against a pod in a
// terminal phase: a pod Evict failed is never started again, as no kubelet
// runs such a pod again; deleted, it goes, and a new pod of its name runs.
func TestEvictedPodStaysFailed(t *testing.T) {
	Require(t, env)
	ctx, c := context.Background(), env.Client
	n, newPod, pass := standIn(t, "zone-evict", "evict")
	p := newPod("zone-evict")
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	phase := func() (corev1.PodPhase, string) {
		t.Helper()
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			t.Fatal(err)
		}
		return p.Status.Phase, p.Status.Reason
	}
	pass(2)
	if got, _ := phase(); got != corev1.PodRunning {
		t.Fatalf("pod %s before the eviction, want Running", got)
	}
	if err := n.Evict(ctx, client.ObjectKeyFromObject(p)); err != nil {
		t.Fatal(err)
	}
	pass(3)
	if got, reason := phase(); got != corev1.PodFailed || reason != "Evicted" {
		t.Errorf("evicted pod %s (%s) after three passes, want Failed (Evicted): a kubelet never runs a terminal pod again", got, reason)
	}
	if err := c.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	pass(1)
	p = newPod("zone-evict")
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	pass(2)
	if got, _ := phase(); got != corev1.PodRunning {
		t.Errorf("new pod of the evicted one's name %s, want Running", got)
	}
}

// TestUnschedulablePodSaysWhy checks the scheduler stand-in against a pod
// no node fits: it stays Pending with its PodScheduled condition False,
// reason Unschedulable, counting why, as kube-scheduler says it.
func TestUnschedulablePodSaysWhy(t *testing.T) {
	Require(t, env)
	ctx, c := context.Background(), env.Client
	_, newPod, pass := standIn(t, "zone-unschedulable", "unschedulable")
	p := newPod("zone-nowhere")
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	pass(2)
	if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	var got corev1.PodCondition
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			got = cond
		}
	}
	if p.Spec.NodeName != "" || got.Status != corev1.ConditionFalse || got.Reason != corev1.PodReasonUnschedulable || !strings.Contains(got.Message, "no node matches the Pod's node selector") {
		t.Errorf("pod no node fits: node %q, PodScheduled %+v; want unbound, False, Unschedulable, saying why", p.Spec.NodeName, got)
	}
}

// standIn makes a node in zone of its own and namespace ns, for a test of
// the stand-in driven one Pass at a time, and returns it with a function
// that makes a pod there for nodes of zone want, and one that runs passes.
func standIn(t *testing.T, zone, ns string) (n *Nodes, newPod func(want string) *corev1.Pod, pass func(times int)) {
	t.Helper()
	ctx, c := context.Background(), env.Client
	n, err := CreateNodes(ctx, c, []string{zone}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	newPod = func(want string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-storage-1"},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{ZoneLabel: want},
				Containers:   []corev1.Container{{Name: "foundationdb", Image: "foundationdb/foundationdb:7.3.63"}},
			},
		}
	}
	pass = func(times int) {
		t.Helper()
		for range times {
			if err := n.Pass(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	return n, newPod, pass
}

// TestTaintsAndCordonsKeepPodsOff checks the scheduler stand-in against
// kube-scheduler's NodeUnschedulable and TaintToleration filters: a pod
// stays Pending, saying why, on a zone whose node is cordoned or carries a
// NoSchedule taint it does not tolerate, and lands once it tolerates the
// taint.
func TestTaintsAndCordonsKeepPodsOff(t *testing.T) {
	Require(t, env)
	ctx, c := context.Background(), env.Client
	cases := map[string]struct {
		node        func(*corev1.Node)
		tolerations []corev1.Toleration
		want        string
	}{
		"Cordoned": {
			node: func(n *corev1.Node) { n.Spec.Unschedulable = true },
			want: "1 node(s) were unschedulable",
		},
		"Tainted": {
			node: func(n *corev1.Node) {
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule})
			},
			want: "1 node(s) had untolerated taints",
		},
		"TaintTolerated": {
			node: func(n *corev1.Node) {
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule})
			},
			tolerations: []corev1.Toleration{{Key: "example.org/maintenance", Operator: corev1.TolerationOpExists}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			zone := "zone-" + strings.ToLower(name)
			_, newPod, pass := standIn(t, zone, strings.ToLower(name))
			nodes := &corev1.NodeList{}
			if err := c.List(ctx, nodes, client.MatchingLabels{ZoneLabel: zone}); err != nil || len(nodes.Items) != 1 {
				t.Fatalf("the stand-in's node of %s: %v, %d nodes", zone, err, len(nodes.Items))
			}
			node := &nodes.Items[0]
			tc.node(node)
			if err := c.Update(ctx, node); err != nil {
				t.Fatal(err)
			}
			p := newPod(zone)
			p.Spec.Tolerations = tc.tolerations
			if err := c.Create(ctx, p); err != nil {
				t.Fatal(err)
			}
			pass(2)
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if p.Spec.NodeName != node.Name {
					t.Errorf("pod tolerating the taint bound to %q, want %s; %+v %+v", p.Spec.NodeName, node.Name, p.Status.Conditions, p.Spec.Tolerations)
				}
				return
			}
			var got corev1.PodCondition
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodScheduled {
					got = cond
				}
			}
			if p.Spec.NodeName != "" || got.Reason != corev1.PodReasonUnschedulable || !strings.Contains(got.Message, tc.want) {
				t.Errorf("pod on a %s node: node %q, PodScheduled %+v; want unbound, Unschedulable, saying %q", name, p.Spec.NodeName, got, tc.want)
			}
		})
	}
}

// TestClaimBeingDeletedKeepsPodPending checks the stand-in against
// kube-scheduler's VolumeBinding filter and the pvc-protection controller:
// a pod whose claim is being deleted, or gone, stays Pending and says so;
// an unscheduled pod does not hold the claim's finalizer, so the claim
// goes; and the pod lands once its claim is made anew (chaos seed 191 at
// 2f9fcd8: the stand-in started a pod on its lost disk's claim, which then
// never went, and the group never made a claim marked new).
func TestClaimBeingDeletedKeepsPodPending(t *testing.T) {
	Require(t, env)
	ctx, c := context.Background(), env.Client
	_, newPod, pass := standIn(t, "zone-claim", "claim")
	claim := func() *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "claim", Name: "db-storage-1-data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}
	}
	podWithClaim := func() *corev1.Pod {
		p := newPod("zone-claim")
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "db-storage-1-data"}}}}
		return p
	}
	scheduled := func(p *corev1.Pod) (string, string) {
		t.Helper()
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			t.Fatal(err)
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
				return p.Spec.NodeName, cond.Message
			}
		}
		return p.Spec.NodeName, ""
	}
	pvc, p := claim(), podWithClaim()
	for _, o := range []client.Object{pvc, p} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	pass(2)
	if node, why := scheduled(p); node == "" {
		t.Fatalf("pod with its claim unscheduled (%s), want it bound", why)
	}
	// A lost disk: the claim and the pod are deleted, and a new pod is made
	// before the claim went (it holds the pvc-protection finalizer).
	if err := c.Delete(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, p, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(p), &corev1.Pod{})), nil
	}); err != nil {
		t.Fatalf("the old pod did not go: %v", err)
	}
	p = podWithClaim()
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	pass(1)
	if node, why := scheduled(p); node != "" || !strings.Contains(why, `persistentvolumeclaim "db-storage-1-data" is being deleted`) {
		t.Errorf("new pod of a claim being deleted: node %q, unschedulable %q; want Pending, saying the claim is being deleted", node, why)
	}
	pass(2)
	if err := c.Get(ctx, client.ObjectKeyFromObject(pvc), &corev1.PersistentVolumeClaim{}); !kerrors.IsNotFound(err) {
		t.Errorf("claim used by no scheduled pod: %v, want it gone", err)
	}
	if node, why := scheduled(p); node != "" || !strings.Contains(why, `persistentvolumeclaim "db-storage-1-data" not found`) {
		t.Errorf("pod of a claim gone: node %q, unschedulable %q; want Pending, saying the claim is not found", node, why)
	}
	if err := c.Create(ctx, claim()); err != nil {
		t.Fatal(err)
	}
	pass(2)
	if node, why := scheduled(p); node == "" {
		t.Errorf("pod of a claim made anew unscheduled (%s), want it bound", why)
	}
}
