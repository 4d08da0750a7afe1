package localrun

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// FailNode fails a node of the run (see localcluster.FailNode) and waits
// until it is NotReady.
func (r *Run) FailNode(ctx context.Context, name string) error {
	return localcluster.FailNode(ctx, r.Client, name)
}

// HealNode heals a node FailNode failed and waits until it is Ready.
func (r *Run) HealNode(ctx context.Context, name string) error {
	return localcluster.HealNode(ctx, r.Client, name)
}

// NodeToFail is the node the next steps suggest failing: the first, by
// name, that runs a storage pod of the quickstart Cluster; and the pods on
// it.
func (r *Run) NodeToFail(ctx context.Context) (string, []string, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(Namespace), client.MatchingLabels{
		workload.LabelCluster: ClusterName, workload.LabelProcessClass: string(v1alpha1.ProcessClassStorage),
	}); err != nil {
		return "", nil, fmt.Errorf("cannot list pods: %w", err)
	}
	var nodes []string
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			nodes = append(nodes, p.Spec.NodeName)
		}
	}
	if len(nodes) == 0 {
		return "", nil, fmt.Errorf("no storage pod of %s/%s runs on a node", Namespace, ClusterName)
	}
	sort.Strings(nodes)
	on, err := localcluster.PodsOn(ctx, r.Client, nodes[0])
	return nodes[0], on, err
}
