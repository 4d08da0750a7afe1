// Package processgroup is the ProcessGroup controller. Its external client
// observes the group's pod, volume claim and processes (from the
// FoundationDB status, read once per reconcile), records FoundationDB
// operator style conditions, creates the volume claim and pod, recreates a
// pod whose spec drifted (one fault domain at a time), and removes the group
// only once the cluster excluded it and it holds no data, serves no role and
// is no coordinator — as the safety policies confirm.
package processgroup

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Setup adds a controller that reconciles ProcessGroups. The groups of a
// Cluster are also reconciled when what they need of it changes (see
// clusterChanged), not on its every status write; and a group when its pod
// or volume claim in the control plane's own cluster is deleted (a pod
// force-deleted on a failed node is recreated at once; a group being
// removed finishes as soon as its claim is gone, not at its next poll).
// Groups whose target is another cluster notice at their next poll. Create
// is idempotent: a group whose pod was deleted to be recreated makes it
// again at once, whatever the age of the group.
func Setup(mgr ctrl.Manager, o options.Options) error {
	return managedkind.Setup(mgr, o, v1alpha1.ProcessGroupGroupVersionKind, &v1alpha1.ProcessGroup{}, &v1alpha1.ProcessGroupList{},
		connect,
		func(b *builder.Builder) *builder.Builder {
			return b.Watches(&v1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(groupsOf(mgr.GetClient())),
				builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool { return clusterChanged(e.ObjectOld, e.ObjectNew) }})).
				Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(groupOf), onDelete).
				Watches(&corev1.PersistentVolumeClaim{}, handler.EnqueueRequestsFromMapFunc(groupOf), onDelete)
		}, managedkind.IdempotentCreate)
}

// onDelete passes only deletions.
var onDelete = builder.WithPredicates(predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
})

// groupOf maps a pod or volume claim the provider made for a group to the
// group's ProcessGroup, in the object's namespace unless the Cluster sends
// its pods to another (then no group matches and nothing happens).
func groupOf(_ context.Context, o client.Object) []reconcile.Request {
	name := workload.GroupObjectName(o)
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: name}}}
}

// clusterChanged reports whether a Cluster changed in what its groups act
// on: its spec (generation), its deletion, or its disruption grant.
func clusterChanged(old, cur client.Object) bool {
	o, ok1 := old.(*v1alpha1.Cluster)
	n, ok2 := cur.(*v1alpha1.Cluster)
	if !ok1 || !ok2 {
		return true
	}
	return o.GetGeneration() != n.GetGeneration() ||
		(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) ||
		!equality.Semantic.DeepEqual(o.Status.AtProvider.Disruption, n.Status.AtProvider.Disruption)
}

// groupsOf maps a Cluster to its ProcessGroups.
func groupsOf(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		groups, err := managedkind.Groups(ctx, c, o.GetNamespace(), o.GetName())
		if err != nil {
			return nil
		}
		out := make([]reconcile.Request, len(groups))
		for i := range groups {
			out[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&groups[i])}
		}
		return out
	}
}

// newConnector returns the connector, which finds the group's Cluster and opens a session on its target
// cluster and database. A group whose Cluster is gone works against a
// stand-in with the Cluster's name, so its pod and volume can still be
// deleted.
func newConnector(d managedkind.Deps) *managedkind.BelongingConnector[*v1alpha1.ProcessGroup] {
	return &managedkind.BelongingConnector[*v1alpha1.ProcessGroup]{
		Deps:        d,
		ClusterName: func(pg *v1alpha1.ProcessGroup) string { return pg.Spec.ForProvider.ClusterName },
		New: func(d managedkind.Deps, b *managedkind.Belonging) managed.TypedExternalClient[*v1alpha1.ProcessGroup] {
			return &external{Deps: d, session: b.Session, cluster: b.Cluster, clusterGone: b.ClusterGone, consent: b.TeardownConsent}
		},
	}
}
