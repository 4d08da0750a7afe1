package localcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FailAnnotation, set to "true" on a node, fails it: kwok's stage node-fail
// (stages.yaml) turns its Ready condition False and no stage renews its
// heartbeat or makes it Ready again until the annotation is removed.
const FailAnnotation = "provider-foundationdb.dev/fail"

// ReasonNodeFailed is the reason of the Ready condition of a failed node.
const ReasonNodeFailed = "NodeFailed"

// nodeWait bounds how long FailNode and HealNode wait for kwok; it acts
// within a second or two.
const nodeWait = 2 * time.Minute

// FailCommand is the kubectl command that fails a node.
func FailCommand(node string) string {
	return fmt.Sprintf("kubectl annotate node %s %s=true", node, FailAnnotation)
}

// HealCommand is the kubectl command that heals a node FailCommand failed.
func HealCommand(node string) string {
	return fmt.Sprintf("kubectl annotate node %s %s-", node, FailAnnotation)
}

// FailNode annotates a node as failed and waits until its Ready condition
// is False.
func FailNode(ctx context.Context, c client.Client, name string) error {
	if err := annotate(ctx, c, name, "true"); err != nil {
		return err
	}
	return waitReady(ctx, c, name, corev1.ConditionFalse)
}

// HealNode removes the failed annotation from a node and waits until its
// Ready condition is True.
func HealNode(ctx context.Context, c client.Client, name string) error {
	if err := annotate(ctx, c, name, nil); err != nil {
		return err
	}
	return waitReady(ctx, c, name, corev1.ConditionTrue)
}

// annotate sets the failed annotation of a node to v, or removes it when v
// is nil.
func annotate(ctx context.Context, c client.Client, name string, v any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{FailAnnotation: v}}})
	if err != nil {
		return err
	}
	n := &corev1.Node{}
	n.Name = name
	if err := c.Patch(ctx, n, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("cannot annotate node %s: %w", name, err)
	}
	return nil
}

// waitReady waits until a node's Ready condition has status want.
func waitReady(ctx context.Context, c client.Client, name string, want corev1.ConditionStatus) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, nodeWait, true, func(ctx context.Context) (bool, error) {
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			return false, err
		}
		status, reason := NodeReady(n)
		last = fmt.Sprintf("Ready=%s (%s)", status, reason)
		return status == want, nil
	})
	if err != nil {
		return fmt.Errorf("node %s did not become Ready=%s: %w; last seen %s", name, want, err, last)
	}
	return nil
}

// NodeReady returns the status and reason of a node's Ready condition;
// Unknown when it has none.
func NodeReady(n *corev1.Node) (corev1.ConditionStatus, string) {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status, c.Reason
		}
	}
	return corev1.ConditionUnknown, ""
}

// PodsOn returns the names of the pods on a node, of every namespace,
// sorted.
func PodsOn(ctx context.Context, c client.Client, node string) ([]string, error) {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods); err != nil {
		return nil, fmt.Errorf("cannot list pods: %w", err)
	}
	var out []string
	for _, p := range pods.Items {
		if p.Spec.NodeName == node {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}
