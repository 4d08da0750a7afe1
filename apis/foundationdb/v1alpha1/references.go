package v1alpha1

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reference"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const errResolveCluster = "cannot resolve spec.forProvider.clusterRef or clusterSelector"

// clusterName extracts the name by which a resource refers to a Cluster.
func clusterName(mg resource.Managed) string { return mg.GetName() }

// resolve fills in ref.ClusterName from ref.ClusterRef or ref.ClusterSelector.
func (ref *ClusterReference) resolve(ctx context.Context, c client.Reader, from resource.Managed) error {
	rsp, err := reference.NewAPINamespacedResolver(c, from).Resolve(ctx, reference.NamespacedResolutionRequest{
		CurrentValue: ref.ClusterName,
		Reference:    ref.ClusterRef,
		Selector:     ref.ClusterSelector,
		To:           reference.To{Managed: &Cluster{}, List: &ClusterList{}},
		Extract:      clusterName,
		Namespace:    from.GetNamespace(),
	})
	if err != nil {
		return errors.Wrap(err, errResolveCluster)
	}
	ref.ClusterName = rsp.ResolvedValue
	ref.ClusterRef = rsp.ResolvedReference
	return nil
}

// ResolveReferences of this ProcessGroup.
func (mg *ProcessGroup) ResolveReferences(ctx context.Context, c client.Reader) error {
	return mg.Spec.ForProvider.resolve(ctx, c, mg)
}

// ResolveReferences of this Backup.
func (mg *Backup) ResolveReferences(ctx context.Context, c client.Reader) error {
	return mg.Spec.ForProvider.resolve(ctx, c, mg)
}

// ResolveReferences of this Restore.
func (mg *Restore) ResolveReferences(ctx context.Context, c client.Reader) error {
	return mg.Spec.ForProvider.resolve(ctx, c, mg)
}
