package managedkind

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// referencer is a managed resource with references to resolve.
type referencer interface {
	resource.Managed
	ResolveReferences(ctx context.Context, r client.Reader) error
}

// quickResolver resolves references the way crossplane-runtime's API
// resolver does, but first tries them on a copy: when resolving changes
// nothing, as on every reconcile after the first, it returns at once.
// crossplane-runtime's resolver compares the whole object before and after
// with go-cmp, which cost half the provider's CPU per reconcile.
type quickResolver struct {
	reader client.Reader
	api    managed.ReferenceResolver
}

// Resolved references are patched onto the resources that have them.
// +kubebuilder:rbac:groups=foundationdb.m.crossplane.io,resources=processgroups;backups;restores,verbs=patch

// newQuickResolver returns a reference resolver that reads with c and
// patches through crossplane-runtime's API resolver when something changed.
func newQuickResolver(c client.Client) managed.ReferenceResolver {
	return quickResolver{reader: c, api: managed.NewAPISimpleReferenceResolver(c)}
}

func (q quickResolver) ResolveReferences(ctx context.Context, mg resource.Managed) error {
	rr, ok := mg.(referencer)
	if !ok {
		return nil
	}
	probe := rr.DeepCopyObject().(referencer)
	if err := probe.ResolveReferences(ctx, q.reader); err == nil && equality.Semantic.DeepEqual(probe, mg) {
		return nil
	}
	return q.api.ResolveReferences(ctx, mg)
}
