package localrun_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// nodeFailure fails a node that runs a storage pod of the live Cluster (as
// `make run` suggests: kwok's stage node-fail turns it NotReady), checks that
// it stays NotReady with its heartbeat no longer renewed and that the
// control plane stops scheduling onto it; then (PodsMoveAndClusterRecovers)
// that the Cluster force-deletes the pods that were on it, they start again
// on other nodes and the Cluster is Ready with the fault tolerance it had.
// Last it heals the node and sees it, and the Cluster, Ready.
func nodeFailure(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	ftBefore := cr.Status.AtProvider.Health.FaultTolerance
	node, onNode, err := r.NodeToFail(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victims, storage, err := clusterPodsOn(ctx, c, key, node)
	if err != nil {
		t.Fatal(err)
	}
	if !storage {
		t.Fatalf("node %s runs no storage pod of %s: %v", node, key.Name, onNode)
	}
	t.Logf("failing node %s, which runs %v; fault tolerance before: %d", node, onNode, ftBefore)

	// A group on the node is replaced by one of another name (and DNS
	// name): a coordinator that was on the node moves, which the default
	// policy allows only 120 s after the recovery the failure caused. Here
	// it may move at once.
	params := []byte(`{"spec":{"forProvider":{"safety":{"params":{"minSecondsSinceRecoveryForCoordinatorChange":0}}}}}`)
	if err := c.Patch(ctx, cr, client.RawPatch(types.MergePatchType, params)); err != nil {
		t.Fatal(err)
	}

	fates, stopWatch, err := watchPodFates(ctx, r, key)
	if err != nil {
		t.Fatal(err)
	}
	defer stopWatch()

	healed := false
	defer func() {
		if !healed {
			if err := r.HealNode(context.WithoutCancel(ctx), node); err != nil {
				t.Errorf("cannot heal node %s: %v", node, err)
			}
		}
	}()
	start := time.Now()
	if err := r.FailNode(ctx, node); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %s NotReady %s after its annotation", node, time.Since(start).Round(100*time.Millisecond))

	// kwok's own node stages must leave it alone: NotReady for good, its
	// heartbeat not renewed, and the scheduler kept off it.
	n := &corev1.Node{}
	if err := c.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	heartbeat := readyCondition(n).LastHeartbeatTime
	var last string
	stable := time.Now().Add(10 * time.Second)
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		if err := c.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
			return false, err
		}
		rc := readyCondition(n)
		if rc.Status != corev1.ConditionFalse || rc.Reason != localcluster.ReasonNodeFailed {
			return false, fmt.Errorf("the failed node %s is Ready=%s (%s) again", node, rc.Status, rc.Reason)
		}
		if !rc.LastHeartbeatTime.Equal(&heartbeat) {
			return false, fmt.Errorf("the heartbeat of the failed node %s was renewed: %s, then %s", node, heartbeat, rc.LastHeartbeatTime)
		}
		tainted := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
			return t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule
		})
		last = fmt.Sprintf("taints %v", n.Spec.Taints)
		return tainted && time.Now().After(stable), nil
	})
	if err != nil {
		t.Fatalf("node %s did not stay failed and tainted %s: %v; %s", node, corev1.TaintNodeNotReady, err, last)
	}
	t.Logf("node %s stayed NotReady for 10 s without a heartbeat, tainted %s:NoSchedule", node, corev1.TaintNodeNotReady)

	t.Run("PodsMoveAndClusterRecovers", func(t *testing.T) {
		podsMove(ctx, t, r, p, key, node, start, victims, fates, ftBefore)
	})

	start = time.Now()
	if err := r.HealNode(ctx, node); err != nil {
		t.Fatal(err)
	}
	healed = true
	t.Logf("node %s Ready %s after its annotation was removed", node, time.Since(start).Round(100*time.Millisecond))
	err = wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		if err := c.Get(ctx, key, cr); err != nil {
			return false, err
		}
		ft := cr.Status.AtProvider.Health.FaultTolerance
		last = fmt.Sprintf("Ready %s, fault tolerance %d", cr.GetCondition(xpv2.TypeReady).Status, ft)
		return cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && ft == ftBefore, nil
	})
	if err != nil {
		t.Fatalf("the Cluster is not Ready with fault tolerance %d after node %s healed: %s; provider log %s", ftBefore, node, last, r.ProviderLog())
	}
}

// podsMove waits until every pod of the Cluster that was on the failed node
// was force-deleted and runs again on another node, and the Cluster is
// Ready with fault tolerance ftBefore, the node still failed; it logs how
// long after the node was failed (annotated at failedAt) its pods were
// force-deleted and ran elsewhere.
func podsMove(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey,
	node string, failedAt time.Time, victims map[string]types.UID, fates *podFates, ftBefore int) {
	c := r.Client
	var last string
	moved := map[string]string{}
	lowest := ftBefore
	err := wait.PollUntilContextTimeout(ctx, time.Second, 4*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		var waiting []string
		for name, uid := range victims {
			pod := &corev1.Pod{}
			err := c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: name}, pod)
			switch {
			case kerrors.IsNotFound(err):
				waiting = append(waiting, name+" gone, not recreated")
				continue
			case err != nil:
				return false, err
			}
			switch {
			case pod.UID == uid:
				waiting = append(waiting, name+" still the old pod")
			case pod.Spec.NodeName == node:
				return false, fmt.Errorf("pod %s was recreated on the failed node %s", name, node)
			case pod.Status.Phase != corev1.PodRunning || pod.Status.PodIP == "" || pod.DeletionTimestamp != nil:
				waiting = append(waiting, fmt.Sprintf("%s recreated on %s, %s", name, pod.Spec.NodeName, pod.Status.Phase))
			default:
				if _, ok := moved[name]; !ok {
					moved[name] = fates.movedAfter(uid, pod.UID, failedAt)
				}
			}
		}
		cr := &v1alpha1.Cluster{}
		if err := c.Get(ctx, key, cr); err != nil {
			return false, err
		}
		ready, ft := cr.GetCondition(xpv2.TypeReady).Status, cr.Status.AtProvider.Health.FaultTolerance
		lowest = min(lowest, ft)
		slices.Sort(waiting)
		last = fmt.Sprintf("pods waiting: %v; Cluster Ready %s, fault tolerance %d", waiting, ready, ft)
		return len(waiting) == 0 && ready == corev1.ConditionTrue && ft == ftBefore, nil
	})
	if err != nil {
		t.Fatalf("the pods of the failed node %s did not move and the Cluster did not recover: %v; %s; provider log %s", node, err, last, r.ProviderLog())
	}
	t.Logf("after node %s was failed: pods force-deleted and running again elsewhere %v; the Cluster Ready with fault tolerance %d by %s (lowest seen since this check began: %d)",
		node, moved, ftBefore, time.Since(failedAt).Round(time.Second), lowest)

	// A failed node's kubelet never confirms a graceful deletion (kwok,
	// which still runs the pod stages of a failed node, would): the pods
	// must have been force-deleted.
	for name, uid := range victims {
		graceful, gone, open := fates.of(uid)
		switch {
		case !open:
			t.Logf("the pod watch ended early; how %s went is unknown", name)
		case !gone:
			t.Errorf("no deletion of pod %s (%s) was seen", name, uid)
		case graceful:
			t.Errorf("pod %s was deleted gracefully: a failed node's kubelet would never confirm that; the Cluster must force-delete it", name)
		}
	}
	n := &corev1.Node{}
	if err := c.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	if rc := readyCondition(n); rc.Status != corev1.ConditionFalse {
		t.Errorf("node %s is Ready=%s again before it was healed", node, rc.Status)
	}
}

// clusterPodsOn returns the name and UID of each pod of the Cluster's
// groups on node, and whether one of them is a storage pod.
func clusterPodsOn(ctx context.Context, c client.Client, key client.ObjectKey, node string) (map[string]types.UID, bool, error) {
	l := &corev1.PodList{}
	if err := c.List(ctx, l, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
		return nil, false, fmt.Errorf("cannot list pods: %w", err)
	}
	out, storage := map[string]types.UID{}, false
	for _, o := range l.Items {
		if o.Spec.NodeName == node {
			out[o.Name] = o.UID
			storage = storage || o.Labels[workload.LabelProcessClass] == string(v1alpha1.ProcessClassStorage)
		}
	}
	return out, storage, nil
}

// readyCondition is a node's Ready condition, or an empty one.
func readyCondition(n *corev1.Node) corev1.NodeCondition {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c
		}
	}
	return corev1.NodeCondition{}
}

// podFates records, from a watch of the Cluster's pods, which pods were
// marked for a graceful deletion (a grace period above 0) and which were
// deleted.
type podFates struct {
	mu       sync.Mutex
	graceful map[types.UID]bool
	gone     map[types.UID]bool
	// goneAt is when each pod was deleted; runningAt when each pod was
	// first seen Running with an address.
	goneAt    map[types.UID]time.Time
	runningAt map[types.UID]time.Time
	closed    bool
}

// movedAfter says how long after since old was deleted and how long after
// since now, its successor new first ran.
func (f *podFates) movedAfter(old, now types.UID, since time.Time) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("deleted after %s, running again after %s",
		f.goneAt[old].Sub(since).Round(time.Millisecond), f.runningAt[now].Sub(since).Round(time.Millisecond))
}

// of reports whether the pod uid was marked for a graceful deletion, whether
// it was deleted, and whether the watch still runs.
func (f *podFates) of(uid types.UID) (graceful, gone, open bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.graceful[uid], f.gone[uid], !f.closed
}

// watchPodFates watches the Cluster's pods until stop is called.
func watchPodFates(ctx context.Context, r *localrun.Run, key client.ObjectKey) (*podFates, func(), error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", r.Kubeconfig())
	if err != nil {
		return nil, nil, err
	}
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: r.Client.Scheme()})
	if err != nil {
		return nil, nil, err
	}
	w, err := wc.Watch(ctx, &corev1.PodList{}, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot watch pods: %w", err)
	}
	f := &podFates{graceful: map[types.UID]bool{}, gone: map[types.UID]bool{}, goneAt: map[types.UID]time.Time{}, runningAt: map[types.UID]time.Time{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			f.mu.Lock()
			if _, seen := f.runningAt[pod.UID]; !seen && ev.Type != watch.Deleted && pod.Status.Phase == corev1.PodRunning && pod.Status.PodIP != "" {
				f.runningAt[pod.UID] = time.Now()
			}
			switch ev.Type {
			case watch.Modified:
				// A force-deletion marks the pod too, with a grace
				// period of 0, just before it deletes it.
				if g := pod.DeletionGracePeriodSeconds; pod.DeletionTimestamp != nil && (g == nil || *g > 0) {
					f.graceful[pod.UID] = true
				}
			case watch.Deleted:
				f.gone[pod.UID] = true
				f.goneAt[pod.UID] = time.Now()
			}
			f.mu.Unlock()
		}
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
	}()
	return f, func() { w.Stop(); <-done }, nil
}
