package kubectlplugin

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/remotecommand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/podexec"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func newExecCommand(o *Options) *cobra.Command {
	var group string
	var stdin bool
	cmd := &cobra.Command{
		Use:   "exec CLUSTER [-g GROUP] -- COMMAND [ARG...]",
		Short: "Run a command, e.g. fdbcli, in a pod of the Cluster",
		Long: `Run a command in the main container of a running pod of the Cluster (of
group GROUP with -g), whose FDB_CLUSTER_FILE names the database's cluster
file: kubectl foundationdb exec orders -- fdbcli --exec "status minimal".
The pods are those of the kubeconfig's cluster, in the Cluster's target
namespace.`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: o.completeClusters,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return fmt.Errorf("want CLUSTER -- COMMAND")
			}
			return o.exec(cmd.Context(), args[0], group, args[1:], stdin)
		},
	}
	cmd.Flags().StringVarP(&group, "group", "g", "", "The process group whose pod runs the command; any running pod when unset.")
	cmd.Flags().BoolVarP(&stdin, "stdin", "i", false, "Pass standard input to the command.")
	return cmd
}

func (o *Options) exec(ctx context.Context, name, group string, command []string, stdin bool) error {
	c, cr, err := o.cluster(ctx, name)
	if err != nil {
		return err
	}
	pods := &corev1.PodList{}
	ns := workload.Namespace(cr)
	if err := c.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{workload.LabelCluster: name}); err != nil {
		return fmt.Errorf("cannot list the pods of Cluster %s: %w", name, err)
	}
	pod, err := execPod(pods.Items, group)
	if err != nil {
		return fmt.Errorf("the Cluster %s: %w", name, err)
	}
	cfg, err := o.Flags.ToRESTConfig()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("cannot create a clientset: %w", err)
	}
	opts := &corev1.PodExecOptions{Container: workload.MainContainer(pod).Name, Command: command, Stdin: stdin, Stdout: true, Stderr: true}
	ex, err := podexec.NewExecutor(cfg, cs, ns, pod.GetName(), opts)
	if err != nil {
		return err
	}
	streams := remotecommand.StreamOptions{Stdout: o.Streams.Out, Stderr: o.Streams.ErrOut}
	if stdin {
		streams.Stdin = o.Streams.In
	}
	return ex.StreamWithContext(ctx, streams)
}

// execPod is the pod to run a command in: group's, else the first running
// pod (by name) whose containers are all ready, else the first running
// one. Only a running pod with a main container will do.
func execPod(pods []corev1.Pod, group string) (*corev1.Pod, error) {
	slices.SortFunc(pods, func(a, b corev1.Pod) int { return strings.Compare(a.GetName(), b.GetName()) })
	var running []*corev1.Pod
	for i := range pods {
		p := &pods[i]
		if group != "" && p.Labels[workload.LabelProcessGroup] != group {
			continue
		}
		if workload.PodRunning(p) && workload.MainContainer(p) != nil {
			running = append(running, p)
		}
	}
	if len(running) == 0 {
		if group != "" {
			return nil, fmt.Errorf("process group %s has no running pod", group)
		}
		return nil, fmt.Errorf("no pod is running")
	}
	for _, p := range running {
		if allReady(p) {
			return p, nil
		}
	}
	return running[0], nil
}

func allReady(p *corev1.Pod) bool {
	for _, s := range p.Status.ContainerStatuses {
		if !s.Ready {
			return false
		}
	}
	return len(p.Status.ContainerStatuses) > 0
}
