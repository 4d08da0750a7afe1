package localrun_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// maintenanceTaint is the taint key the phase announces planned
// maintenance with.
const maintenanceTaint = "example.org/maintenance"

// taintReplacement announces planned maintenance of the node of one storage
// pod the way a platform does before it drains the node: the Cluster names
// the taint key in automation.taintReplacements (duration 0), the node is
// tainted NoSchedule, and every group on it is replaced — new groups
// report, the tainted ones are excluded, drained and removed, no pod is left
// on the node — with the Cluster Ready and up to date again, before any
// drain. The taint and the entry are then taken away.
func taintReplacement(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	pods, err := clusterPods(ctx, c, key)
	if err != nil {
		t.Fatal(err)
	}
	var node string
	for _, pod := range pods {
		if pod.Labels[workload.LabelProcessClass] == string(v1alpha1.ProcessClassStorage) && pod.Spec.NodeName != "" {
			node = pod.Spec.NodeName
			break
		}
	}
	if node == "" {
		t.Fatal("no storage pod runs on a node")
	}
	var tainted []string
	for _, pod := range pods {
		if pod.Spec.NodeName == node {
			tainted = append(tainted, pod.Labels[workload.LabelProcessGroup])
		}
	}
	slices.Sort(tainted)
	patchCluster := func(patch string) {
		t.Helper()
		if err := c.Patch(ctx, &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	taint := func(on bool) {
		t.Helper()
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
			t.Fatal(err)
		}
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == maintenanceTaint })
		if on {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: maintenanceTaint, Effect: corev1.TaintEffectNoSchedule})
		}
		if err := c.Update(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	patchCluster(fmt.Sprintf(`{"spec":{"forProvider":{"automation":{"taintReplacements":[{"key":%q,"durationInSeconds":0}]}}}}`, maintenanceTaint))
	defer patchCluster(`{"spec":{"forProvider":{"automation":{"taintReplacements":null}}}}`)
	taint(true)
	defer taint(false)

	start := time.Now()
	var last string
	err = wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		done, why, err := maintained(ctx, c, key, node, tainted)
		last = why
		return done, err
	})
	if err != nil {
		t.Fatalf("the groups on tainted node %s (%v) were not replaced: %s; provider log %s", node, tainted, last, r.ProviderLog())
	}
	t.Logf("groups %v on tainted node %s replaced in %s", tainted, node, time.Since(start).Round(time.Second))
}

// maintained holds when none of the groups that ran on node is left, no pod
// of the Cluster runs there, and the Cluster is Ready and up to date.
func maintained(ctx context.Context, c client.Client, key client.ObjectKey, node string, tainted []string) (bool, string, error) {
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		return false, "", err
	}
	groups := &v1alpha1.ProcessGroupList{}
	if err := c.List(ctx, groups, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}); err != nil {
		return false, "", err
	}
	var left []string
	for _, g := range groups.Items {
		if slices.Contains(tainted, g.ID()) {
			left = append(left, g.ID())
		}
	}
	pods, err := clusterPods(ctx, c, key)
	if err != nil {
		return false, "", err
	}
	var onNode []string
	for _, pod := range pods {
		if pod.Spec.NodeName == node {
			onNode = append(onNode, pod.Name)
		}
	}
	ready, upToDate := cr.GetCondition(xpv2.TypeReady).Status, cr.GetCondition(xpv2.TypeUpToDate).Status
	why := fmt.Sprintf("groups left %v, pods on the node %v, Ready %s, UpToDate %s", left, onNode, ready, upToDate)
	return len(left) == 0 && len(onNode) == 0 && ready == corev1.ConditionTrue && upToDate == corev1.ConditionTrue, why, nil
}

// clusterPods are the pods of the Cluster's process groups.
func clusterPods(ctx context.Context, c client.Client, key client.ObjectKey) ([]corev1.Pod, error) {
	l := &corev1.PodList{}
	if err := c.List(ctx, l, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
		return nil, fmt.Errorf("cannot list pods: %w", err)
	}
	return l.Items, nil
}
