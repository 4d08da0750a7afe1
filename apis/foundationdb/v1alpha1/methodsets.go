package v1alpha1

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The method sets angryjet generates (zz_generated.managed.go,
// zz_generated.managedlist.go, zz_generated.resolvers.go) are found by the
// types' structure and markers; a type that stops matching fails to compile
// here instead of failing, or skipping its references, at run time.
var (
	_ resource.ModernManaged = &Cluster{}
	_ resource.ModernManaged = &ProcessGroup{}
	_ resource.ModernManaged = &Backup{}
	_ resource.ModernManaged = &Restore{}

	_ resource.ManagedList = &ClusterList{}
	_ resource.ManagedList = &ProcessGroupList{}
	_ resource.ManagedList = &BackupList{}
	_ resource.ManagedList = &RestoreList{}

	_ referencer = &ProcessGroup{}
	_ referencer = &Backup{}
	_ referencer = &Restore{}
)

// referencer is what crossplane-runtime's API reference resolver calls on a
// managed resource that has references.
type referencer interface {
	ResolveReferences(ctx context.Context, c client.Reader) error
}
