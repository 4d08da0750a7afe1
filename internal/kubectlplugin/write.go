package kubectlplugin

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/nodetaint"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func newReplaceCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "replace CLUSTER GROUP...",
		Short: "Ask the provider to replace process groups",
		Long: `Ask the provider to replace process groups, by their IDs (storage-3): each
gets the annotation ` + v1alpha1.AnnotationReplace + `=true. The provider makes a
new group first, then excludes, drains and removes the old one, each step
under the safety policies (analyze says why one waits).`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: o.completeClusterThenGroups,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.replace(cmd.Context(), args[0], args[1:])
		},
	}
}

func (o *Options) replace(ctx context.Context, name string, ids []string) error {
	return o.annotateGroups(ctx, name, ids, v1alpha1.AnnotationReplace, "true")
}

func newRestartCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "restart CLUSTER GROUP...",
		Short: "Ask the provider to restart the processes of process groups",
		Long: `Ask the provider to restart the processes of process groups, by their IDs:
each gets the annotation ` + v1alpha1.AnnotationRestart + ` with the time now.
The provider kills, together with any other bounce due, every process of
theirs that started before that time, gated as Kill (the fdb-bounce policy
asks for a minimum uptime; analyze says why it waits).`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: o.completeClusterThenGroups,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.annotateGroups(cmd.Context(), args[0], args[1:], v1alpha1.AnnotationRestart, o.now().UTC().Format(time.RFC3339))
		},
	}
}

// annotateGroups sets annotation key to value on the groups of Cluster
// name with ids, once every ID named one.
func (o *Options) annotateGroups(ctx context.Context, name string, ids []string, key, value string) error {
	c, cr, err := o.cluster(ctx, name)
	if err != nil {
		return err
	}
	groups, err := groupsOf(ctx, c, cr)
	if err != nil {
		return err
	}
	var targets []*v1alpha1.ProcessGroup
	for _, id := range ids {
		i := slices.IndexFunc(groups, func(pg v1alpha1.ProcessGroup) bool { return pg.ID() == id })
		if i < 0 {
			return fmt.Errorf("the Cluster %s has no process group %s", name, id)
		}
		targets = append(targets, &groups[i])
	}
	for _, pg := range targets {
		patch := client.MergeFrom(pg.DeepCopy())
		meta.AddAnnotations(pg, map[string]string{key: value})
		if err := c.Patch(ctx, pg, patch); err != nil {
			return fmt.Errorf("cannot annotate ProcessGroup %s: %w", pg.GetName(), err)
		}
		fmt.Fprintf(o.Streams.Out, "annotated ProcessGroup %s/%s (%s) %s=%s\n", pg.GetNamespace(), pg.GetName(), pg.ID(), key, value)
	}
	fmt.Fprintf(o.Streams.Out, "watch: kubectl foundationdb analyze -n %s %s\n", cr.GetNamespace(), name)
	return nil
}

func newCordonCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "cordon NODE...",
		Short: "Cordon nodes and say which process groups the provider will replace off them",
		Long: `Cordon nodes (spec.unschedulable, as kubectl cordon does) and say, for each
process group with a pod on them, whether its Cluster replaces it before the
node is drained: a Cluster does when its automation.taintReplacements names
` + corev1.TaintNodeUnschedulable + ` (or "*"), after the duration given there.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.cordon(cmd.Context(), args)
		},
	}
}

func (o *Options) cordon(ctx context.Context, nodes []string) error {
	c, err := o.client()
	if err != nil {
		return err
	}
	for _, name := range nodes {
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			return fmt.Errorf("cannot get node %s: %w", name, err)
		}
		if !n.Spec.Unschedulable {
			patch := client.MergeFrom(n.DeepCopy())
			n.Spec.Unschedulable = true
			if err := c.Patch(ctx, n, patch); err != nil {
				return fmt.Errorf("cannot cordon node %s: %w", name, err)
			}
		}
		fmt.Fprintf(o.Streams.Out, "node %s cordoned\n", name)
		if err := o.sayReplacements(ctx, c, n); err != nil {
			return err
		}
	}
	return nil
}

// sayReplacements says of each group with a pod on node n whether its
// Cluster will replace it, and when.
func (o *Options) sayReplacements(ctx context.Context, c client.Client, n *corev1.Node) error {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.HasLabels{workload.LabelCluster, workload.LabelProcessGroup}); err != nil {
		return fmt.Errorf("cannot list pods: %w", err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != n.GetName() {
			continue
		}
		cr := &v1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: p.GetNamespace(), Name: p.Labels[workload.LabelCluster]}, cr); err != nil {
			fmt.Fprintf(o.Streams.Out, "  %s: pod %s/%s, no Cluster of it found here (%v)\n", p.Labels[workload.LabelProcessGroup], p.GetNamespace(), p.GetName(), err)
			continue
		}
		m, ok := nodetaint.Of(n, cr.Spec.ForProvider.Automation.TaintReplacements)
		group := fmt.Sprintf("  %s/%s %s", cr.GetNamespace(), cr.GetName(), p.Labels[workload.LabelProcessGroup])
		if !ok {
			fmt.Fprintf(o.Streams.Out, "%s: not replaced: the Cluster's automation.taintReplacements names no %s\n", group, corev1.TaintNodeUnschedulable)
			continue
		}
		fmt.Fprintf(o.Streams.Out, "%s: replaced once the node has been cordoned %s (taint %s), under the safety policies\n", group, m.After.Round(time.Second), m.Key)
	}
	return nil
}

// groupsOf lists the process groups of cr.
func groupsOf(ctx context.Context, c client.Client, cr *v1alpha1.Cluster) ([]v1alpha1.ProcessGroup, error) {
	groups := &v1alpha1.ProcessGroupList{}
	if err := c.List(ctx, groups, client.InNamespace(cr.GetNamespace()), client.MatchingLabels{workload.LabelCluster: cr.GetName()}); err != nil {
		return nil, fmt.Errorf("cannot list the process groups of %s/%s: %w", cr.GetNamespace(), cr.GetName(), err)
	}
	return groups.Items, nil
}

// completeClusterThenGroups completes a Cluster's name, then its groups'
// IDs.
func (o *Options) completeClusterThenGroups(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return o.completeClusters(cmd, args, prefix)
	}
	c, cr, err := o.cluster(cmd.Context(), args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	groups, err := groupsOf(cmd.Context(), c, cr)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var ids []string
	for _, pg := range groups {
		if !slices.Contains(args[1:], pg.ID()) {
			ids = append(ids, pg.ID())
		}
	}
	return ids, cobra.ShellCompDirectiveNoFileComp
}

func newDrillCommand(o *Options) *cobra.Command {
	var name string
	var duration time.Duration
	cmd := &cobra.Command{
		Use:   "drill CLUSTER CrashLoop|NoSchedule|EmptyMonitorConf GROUP...",
		Short: "Ask for a fault drill on process groups",
		Long: `Ask for a fault drill: sets the Cluster's spec.forProvider.drill. The
provider starts it once the safety policies allow it (the default fdb-drill
policy: known groups of one fault domain, an available database at its
desired fault tolerance), puts the fault into the groups' pods, and takes it
out after the duration. CrashLoop: the main container runs a command the
image lacks and fails as it starts; NoSchedule: the pod is made anew with a
node affinity no node matches and stays Pending; EmptyMonitorConf: the pod
is made anew on a monitor configuration that runs no fdbserver.`,
		Args:              cobra.MinimumNArgs(3),
		ValidArgsFunction: o.completeClusters,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.drill(cmd.Context(), args[0], v1alpha1.DrillFault(args[1]), args[2:], name, duration)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "The drill's name; drill-<time now> when unset. A name runs once.")
	cmd.Flags().DurationVar(&duration, "duration", 5*time.Minute, "How long the fault lasts, from 30s to 1h.")
	return cmd
}

func (o *Options) drill(ctx context.Context, name string, fault v1alpha1.DrillFault, ids []string, drillName string, duration time.Duration) error {
	c, cr, err := o.cluster(ctx, name)
	if err != nil {
		return err
	}
	if drillName == "" {
		drillName = "drill-" + strconv.FormatInt(o.now().Unix(), 10)
	}
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Spec.ForProvider.Drill = &v1alpha1.Drill{Name: drillName, Fault: fault, ProcessGroups: ids, DurationSeconds: int(duration / time.Second)}
	if err := c.Patch(ctx, cr, patch); err != nil {
		return fmt.Errorf("cannot ask for the drill: %w", err)
	}
	fmt.Fprintf(o.Streams.Out, "set Cluster %s/%s spec.forProvider.drill: %s, %s in %s for %s\n", cr.GetNamespace(), name, drillName, fault, strings.Join(ids, ", "), duration)
	fmt.Fprintf(o.Streams.Out, "watch: kubectl foundationdb analyze -n %s %s\n", cr.GetNamespace(), name)
	return nil
}
