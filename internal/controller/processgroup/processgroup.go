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
	"maps"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
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
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Setup adds a controller that reconciles ProcessGroups. The groups of a
// Cluster are also reconciled when what they need of it changes (see
// clusterChanged), not on its every status write; and a group when its pod
// or volume claim in the control plane's own cluster is deleted (a pod
// force-deleted on a failed node is recreated at once; a group being
// removed finishes as soon as its claim is gone, not at its next poll),
// when its pod starts or stops running or its annotations change, when its
// pod's node turns ready or not, is cordoned or uncordoned, or its taints
// change (planned maintenance), when the Cluster's ConfigMap changes, and
// when a status the Cluster read shows its processes changed
// (Options.Nudges). Drift of such a group arrives as events, so a settled
// one is polled only every WatchedPoll (see watched). Groups whose target is
// another cluster notice at their next poll. Create is idempotent: a group
// whose pod was deleted to be recreated makes it again at once, whatever
// the age of the group.
func Setup(mgr ctrl.Manager, o options.Options) error {
	o.Watched = watched(mgr.GetClient())
	return managedkind.Setup(mgr, o, v1alpha1.ProcessGroupGroupVersionKind, &v1alpha1.ProcessGroup{}, &v1alpha1.ProcessGroupList{},
		connect,
		func(b *builder.Builder) *builder.Builder {
			b = b.Watches(&v1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(groupsOf(mgr.GetClient(), client.Object.GetName)),
				builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool { return clusterChanged(e.ObjectOld, e.ObjectNew) }})).
				Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(groupOf), onDeleteOr(podChanged)).
				Watches(&corev1.PersistentVolumeClaim{}, handler.EnqueueRequestsFromMapFunc(groupOf), onDelete).
				Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(groupOf), onDelete).
				Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(groupsOn(mgr.GetClient())), onDeleteOr(nodeChanged)).
				Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(groupsOf(mgr.GetClient(), clusterLabel)), onDeleteOr(dataChanged))
			if o.Nudges != nil {
				b = b.WatchesRawSource(o.Nudges.Source())
			}
			return b
		}, managedkind.IdempotentCreate)
}

// onDeleteOr passes deletions, and updates for which changed holds.
func onDeleteOr(changed func(old, cur client.Object) bool) builder.Predicates {
	return builder.WithPredicates(predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(e event.UpdateEvent) bool { return changed(e.ObjectOld, e.ObjectNew) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	})
}

// onDelete passes only deletions.
var onDelete = onDeleteOr(func(client.Object, client.Object) bool { return false })

// podChanged reports whether a pod changed in what its group observes of
// it without the database: whether it runs, and its annotations (the
// configuration its monitor reports loaded, the spec it was made with).
func podChanged(old, cur client.Object) bool {
	return runs(old) != runs(cur) || !maps.Equal(old.GetAnnotations(), cur.GetAnnotations())
}

// dataChanged reports whether a ConfigMap's data changed: a Cluster's holds
// its cluster file and its monitors' configurations.
func dataChanged(old, cur client.Object) bool {
	o, ok1 := old.(*corev1.ConfigMap)
	n, ok2 := cur.(*corev1.ConfigMap)
	return !ok1 || !ok2 || !maps.Equal(o.Data, n.Data)
}

// clusterLabel is the name of the Cluster an object was made for, "" for
// any other object.
func clusterLabel(o client.Object) string { return o.GetLabels()[workload.LabelCluster] }

// runs reports whether o is a pod that runs, as a group observes it.
func runs(o client.Object) bool {
	p, ok := o.(*corev1.Pod)
	return ok && (&observation{pod: p}).running()
}

// nodeChanged reports whether a node changed in what its groups observe of
// it: whether it is Ready, whether it is cordoned, and its taints (a group
// records NodeTainted as soon as its node announces maintenance).
func nodeChanged(old, cur client.Object) bool {
	o, ok1 := old.(*corev1.Node)
	n, ok2 := cur.(*corev1.Node)
	return !ok1 || !ok2 || ready(old) != ready(cur) || o.Spec.Unschedulable != n.Spec.Unschedulable ||
		!slices.EqualFunc(o.Spec.Taints, n.Spec.Taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value })
}

// ready reports whether o is a ready node.
func ready(o client.Object) bool {
	n, ok := o.(*corev1.Node)
	return ok && workload.NodeReady(n)
}

// watched reports whether drift of a group's pod, volume claim and node
// reaches the controller as the events Setup watches: its provider config
// targets the provider's own cluster (InjectedIdentity) and its Cluster
// sends its pods to the group's namespace, where groupOf finds the group.
// It reads from c's cache; a read that fails counts as not watched. What
// arrives as no event — a pod's spec edited by hand — a watched group
// notices only at its next poll; its processes' changes arrive once its
// Cluster reads a status that shows them.
func watched(c client.Reader) func(resource.Managed) bool {
	return func(mg resource.Managed) bool {
		pg, ok := mg.(*v1alpha1.ProcessGroup)
		if !ok {
			return false
		}
		// The poll-interval hook passes no context; the reads are cached.
		ctx := context.Background()
		if local, err := connector.Local(ctx, c, pg); err != nil || !local {
			return false
		}
		cr := &v1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: pg.GetNamespace(), Name: pg.Spec.ForProvider.ClusterName}, cr); err != nil {
			return false
		}
		return workload.Namespace(cr) == pg.GetNamespace()
	}
}

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

// groupsOn maps a node to the ProcessGroups of the provider's pods on it.
func groupsOn(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		pods := &corev1.PodList{}
		if err := c.List(ctx, pods, client.MatchingLabels{workload.LabelManagedBy: workload.ManagedBy}); err != nil {
			return nil
		}
		var out []reconcile.Request
		for i := range pods.Items {
			if pods.Items[i].Spec.NodeName == o.GetName() {
				out = append(out, groupOf(ctx, &pods.Items[i])...)
			}
		}
		return out
	}
}

// groupsOf maps an object to the ProcessGroups of the Cluster cluster
// names, in the object's namespace: the Cluster itself, or what the
// provider made for it there.
func groupsOf(c client.Reader, cluster func(client.Object) string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		name := cluster(o)
		if name == "" {
			return nil
		}
		groups, err := managedkind.Groups(ctx, c, o.GetNamespace(), name)
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
