package kubectlplugin

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// clusters returns the Clusters named in the namespace, every Cluster of
// it when none is named, or of every namespace with all.
func (o *Options) clusters(ctx context.Context, c client.Client, names []string, all bool) ([]v1alpha1.Cluster, error) {
	ns, err := o.namespace()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		list := &v1alpha1.ClusterList{}
		opts := []client.ListOption{client.InNamespace(ns)}
		if all {
			opts = nil
		}
		if err := c.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("cannot list Clusters: %w", err)
		}
		return list.Items, nil
	}
	out := make([]v1alpha1.Cluster, 0, len(names))
	for _, name := range names {
		cr := v1alpha1.Cluster{}
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cr)
		if kerrors.IsNotFound(err) {
			return nil, fmt.Errorf("no Cluster %s in namespace %s", name, ns)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot get Cluster %s/%s: %w", ns, name, err)
		}
		out = append(out, cr)
	}
	return out, nil
}

// cluster returns a client and the Cluster name of the namespace.
func (o *Options) cluster(ctx context.Context, name string) (client.Client, *v1alpha1.Cluster, error) {
	c, err := o.client()
	if err != nil {
		return nil, nil, err
	}
	crs, err := o.clusters(ctx, c, []string{name}, false)
	if err != nil {
		return nil, nil, err
	}
	return c, &crs[0], nil
}

// completeClusters completes the names of the namespace's Clusters.
func (o *Options) completeClusters(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	c, err := o.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	list, err := o.clusters(cmd.Context(), c, nil, false)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	names := make([]string, 0, len(list))
	for _, cr := range list {
		names = append(names, cr.GetName())
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
