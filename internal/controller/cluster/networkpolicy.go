package cluster

import (
	"context"
	"maps"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Event reasons of the NetworkPolicy's steps.
const (
	reasonNetworkPolicy        event.Reason = "UpdatedNetworkPolicy"
	reasonNetworkPolicyDeleted event.Reason = "DeletedNetworkPolicy"
)

// The kinds of the NetworkPolicy's steps.
const (
	kindWriteNetworkPolicy  kind = "WriteNetworkPolicy"
	kindDeleteNetworkPolicy kind = "DeleteNetworkPolicy"
)

// What the errors of the NetworkPolicy's steps name.
const (
	errGetNetworkPolicy = "cannot get the cluster's NetworkPolicy"
	msgNetworkPolicy    = "the cluster's NetworkPolicy"
)

// A Cluster reads, writes and deletes its NetworkPolicy in the target
// namespace (spec.forProvider.networkPolicy).
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete

// observeNetworkPolicy reads the cluster's NetworkPolicy; none is nil.
func (o *observation) observeNetworkPolicy(ctx context.Context, target client.Reader, cr *v1alpha1.Cluster) (err error) {
	key := client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.NetworkPolicyName(cr)}
	o.networkPolicy, err = getOptional(ctx, target, key, &networkingv1.NetworkPolicy{}, errGetNetworkPolicy)
	return err
}

// networkPolicyStep creates the cluster's NetworkPolicy
// (workload.NetworkPolicy) when the Cluster enables it, puts back what of
// it differs from what it must say (its ports follow the densest pod, the
// spec's and the existing groups', as the ConfigMap's monitor
// configurations do), and deletes it once the Cluster no longer enables
// it. Only a policy the provider wrote is deleted (ownedByProvider).
func networkPolicyStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	cur := o.networkPolicy
	if !cr.Spec.ForProvider.NetworkPolicyEnabled() {
		if cur == nil || cur.DeletionTimestamp != nil || !ownedByProvider(cur) {
			return nil
		}
		return &clusterStep{
			Step: step.Step{Reason: reasonNetworkPolicyDeleted, Message: "deleted NetworkPolicy " + cur.Name + ": spec.forProvider.networkPolicy is not enabled, so the provider no longer restricts who reaches the database's ports"},
			Kind: kindDeleteNetworkPolicy, NetworkPolicy: cur,
		}
	}
	want := workload.NetworkPolicy(cr, densities(cr, o.groups))
	if cur != nil {
		if equality.Semantic.DeepEqual(cur.Spec, want.Spec) && maps.Equal(cur.Labels, want.Labels) {
			return nil
		}
		cur = cur.DeepCopy()
		cur.Labels, cur.Spec = want.Labels, want.Spec
		want = cur
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonNetworkPolicy, Message: "updated NetworkPolicy " + want.Name + ": the database's ports admit only the Cluster's pods, its backup agents, the provider and the clients spec.forProvider.networkPolicy names"},
		Kind: kindWriteNetworkPolicy, NetworkPolicy: want,
	}
}

// deleteNetworkPolicy deletes, with the database, the NetworkPolicy this
// reconcile observed if the provider wrote it.
func (e *external) deleteNetworkPolicy(ctx context.Context) error {
	if np := e.obs.networkPolicy; np != nil {
		return deleteOwned(ctx, e.session.Target, np, msgNetworkPolicy)
	}
	return nil
}

// writeNetworkPolicy runs a step of the NetworkPolicy (writeObject).
func (e *external) writeNetworkPolicy(ctx context.Context, s *clusterStep) error {
	return writeObject(ctx, e.session.Target, s.NetworkPolicy, s.Kind == kindDeleteNetworkPolicy, msgNetworkPolicy)
}
