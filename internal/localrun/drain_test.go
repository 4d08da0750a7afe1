package localrun_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// drainOneDomainAtATime drains two nodes of the live Cluster's fault
// domains as `kubectl drain` does (cordon, then the eviction API for each
// pod) against the cluster's kube-controller-manager, whose disruption
// controller keeps the Cluster's PodDisruptionBudget: the first node's pod
// is evicted (its whole zone cordoned, so that it stays away); the second
// node's is refused (429) while the first pod is away, and the Cluster's
// status says no disruption is allowed; once the first zone is uncordoned
// and its pod runs again, the second is evicted.
func drainOneDomainAtATime(ctx context.Context, t *testing.T, r *localrun.Run, key client.ObjectKey) {
	c := r.Client
	byNode := map[string][]corev1.Pod{}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
		}
	}
	var nodes []string
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	if len(nodes) < 2 {
		t.Fatalf("the Cluster's pods run on %d nodes, want two to drain", len(nodes))
	}
	allowed := func(want int32) {
		t.Helper()
		b := &policyv1.PodDisruptionBudget{}
		var last string
		err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			if err := c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: key.Name}, b); err != nil {
				last = err.Error()
				return false, nil
			}
			last = fmt.Sprintf("%+v", b.Status)
			return b.Status.ObservedGeneration == b.Generation && b.Status.DisruptionsAllowed == want, nil
		})
		if err != nil {
			t.Fatalf("the PodDisruptionBudget allows no %d disruptions: %s", want, last)
		}
	}
	evict := func(p corev1.Pod) error {
		return c.SubResource("eviction").Create(ctx, &p, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}})
	}
	cordon := func(node string, on bool) {
		t.Helper()
		patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%t}}`, on)
		if err := c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	// The first pod's zone is cordoned whole, as a drain of its only
	// node would leave it: its group recreates the pod at once, and on
	// another node of the zone it would run again within seconds, before
	// the Cluster's next reconcile could see the budget exhausted.
	zone := func(node string) []string {
		t.Helper()
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
			t.Fatal(err)
		}
		list := &corev1.NodeList{}
		if err := c.List(ctx, list, client.MatchingLabels{corev1.LabelTopologyZone: n.Labels[corev1.LabelTopologyZone]}); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, z := range list.Items {
			out = append(out, z.Name)
		}
		return out
	}
	firstZone := zone(nodes[0])
	// The second node is the first of another zone.
	i := slices.IndexFunc(nodes, func(n string) bool { return !slices.Contains(firstZone, n) })
	if i < 0 {
		t.Fatalf("the Cluster's pods run in one zone only (%v), want two to drain", nodes)
	}
	nodes[1] = nodes[i]
	first, second := byNode[nodes[0]][0], byNode[nodes[1]][0]

	allowed(1)
	for _, n := range firstZone {
		cordon(n, true)
		defer cordon(n, false)
	}
	if err := evict(first); err != nil {
		t.Fatalf("cannot evict %s from %s, the first node drained: %v", first.Name, nodes[0], err)
	}
	cordon(nodes[1], true)
	defer cordon(nodes[1], false)
	if err := evict(second); !kerrors.IsTooManyRequests(err) {
		t.Fatalf("evicting %s from %s while %s is away: %v, want refused by the PodDisruptionBudget (429)", second.Name, nodes[1], first.Name, err)
	}
	cr := &v1alpha1.Cluster{}
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, key, cr); err != nil {
			return false, err
		}
		b := cr.Status.AtProvider.DisruptionBudget
		return b != nil && b.DisruptionsAllowed == 0, nil
	})
	if err != nil {
		t.Errorf("the Cluster's status does not show the budget exhausted: %+v", cr.Status.AtProvider.DisruptionBudget)
	}
	t.Logf("%s evicted from %s; %s refused on %s; Cluster: %+v", first.Name, nodes[0], second.Name, nodes[1], cr.Status.AtProvider.DisruptionBudget)

	for _, n := range firstZone {
		cordon(n, false)
	}
	allowed(1)
	if err := evict(second); err != nil {
		t.Fatalf("cannot evict %s from %s once %s runs again: %v", second.Name, nodes[1], first.Name, err)
	}
	cordon(nodes[1], false)
	allowed(1)
}
