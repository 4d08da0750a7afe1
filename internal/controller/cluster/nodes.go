package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const reasonForceDeleted event.Reason = "ForceDeletedPods"

// failedNodeStep force-deletes (grace period 0), in one step, the process
// group pods of the cluster on the first node (by name) that is not Ready, so that they
// reschedule now instead of after Kubernetes' eviction timeout (300 s by
// default); a pod whose volume cannot follow (a node-local volume) stays
// Pending until its group is replaced. It is level-triggered: a provider
// that starts while a node is down acts too. Gated as ForceDeletePod with
// what the default policy needs: the node is not Ready, and how many of the
// pods' processes still report in this reconcile's status (a node cut off
// from Kubernetes but not from FoundationDB still runs them), counted only
// from a status whose view is complete (fdb.ReportingOf). A pod without
// a volume stays while the status cannot show that no log data it may keep
// is still needed (keptLogData): a stateless process recruited as a
// transaction log keeps that data in the pod, which a node back from a
// short outage still has and a force-deleted pod has not.
func failedNodeStep(_ *v1alpha1.Cluster, o *observation) *clusterStep {
	byNode := map[string][]*corev1.Pod{}
	for _, pod := range o.pods {
		if n := o.nodes[pod.Spec.NodeName]; n != nil && !workload.NodeReady(n) && pod.Labels[workload.LabelProcessGroup] != "" && !o.keptLogData(pod) {
			byNode[n.Name] = append(byNode[n.Name], pod)
		}
	}
	if len(byNode) == 0 {
		return nil
	}
	node := slices.Sorted(maps.Keys(byNode))[0]
	pods := byNode[node]
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	var ids, names []string
	for _, pod := range pods {
		ids = append(ids, pod.Labels[workload.LabelProcessGroup])
		names = append(names, pod.Name)
	}
	details := map[string]any{policy.DetailNodeReady: false}
	// Only a status whose view is complete counts them; without the count
	// the default policy denies.
	reporting, known := 0, true
	for i, pod := range pods {
		n, ok := fdb.ReportingOf(o.status, ids[i], workload.PublicIP(pod))
		reporting, known = reporting+n, known && ok
	}
	if known {
		details[policy.DetailReportingProcesses] = reporting
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonForceDeleted,
			Message: fmt.Sprintf("force-deleted pods %s on NotReady node %s so that they reschedule", strings.Join(names, ", "), node),
			Action: &policy.Action{Type: apiv1alpha1.ActionForceDeletePod, Targets: ids, Reason: "node " + node + " is not Ready",
				Details: details},
		},
		Kind: kindForceDeletePods, Pods: pods,
	}
}

// keptLogData reports whether pod, on a node that is not Ready, may keep
// transaction-log data the database still needs: it has no volume (its
// data lives and dies with it), and this reconcile's status does not show
// that none of the log generations still active has a log on it. A status
// whose view is complete (fdb.ViewIncompleteBecause) with one active
// generation shows that; with more, the generations it lists
// (cluster.logs) must be all of them, and none may name the pod's address.
func (o *observation) keptLogData(pod *corev1.Pod) bool {
	if workload.HasVolume(pod) {
		return false
	}
	s := o.status
	switch {
	case s == nil || fdb.ViewIncompleteBecause(s) != "":
		return true
	case s.Cluster.RecoveryState.ActiveGenerations <= 1:
		return false
	case len(s.Cluster.Logs) < s.Cluster.RecoveryState.ActiveGenerations:
		return true
	}
	for _, g := range s.Cluster.Logs {
		for _, l := range g.LogInterfaces {
			if ip := workload.PublicIP(pod); ip == "" || fdb.ProcessAddress(l.Address).Host() == ip {
				return true
			}
		}
	}
	return false
}
