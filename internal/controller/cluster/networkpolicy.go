package cluster

import (
	"context"
	"maps"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
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

const (
	errGetNetworkPolicy    = "cannot get the cluster's NetworkPolicy"
	errWriteNetworkPolicy  = "cannot write the cluster's NetworkPolicy"
	errDeleteNetworkPolicy = "cannot delete the cluster's NetworkPolicy"
)

// A Cluster reads, writes and deletes its NetworkPolicy in the target
// namespace (spec.forProvider.networkPolicy).
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete

// observeNetworkPolicy reads the cluster's NetworkPolicy; none is nil.
func (o *observation) observeNetworkPolicy(ctx context.Context, target client.Reader, cr *v1alpha1.Cluster) error {
	np := &networkingv1.NetworkPolicy{}
	switch err := target.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.NetworkPolicyName(cr)}, np); {
	case err == nil:
		o.networkPolicy = np
	case !kerrors.IsNotFound(err):
		return errors.Wrap(err, errGetNetworkPolicy)
	}
	return nil
}

// networkPolicyStep creates the cluster's NetworkPolicy
// (workload.NetworkPolicy) when the Cluster enables it, puts back what of
// it differs from what it must say (its ports follow the densest pod, the
// spec's and the existing groups', as the ConfigMap's monitor
// configurations do), and deletes it once the Cluster no longer enables
// it. Only a policy that carries the Cluster's labels is deleted: one of
// the same name the provider did not write is not the provider's to take
// away.
func networkPolicyStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	cur := o.networkPolicy
	if !cr.Spec.ForProvider.NetworkPolicyEnabled() {
		if cur == nil || cur.DeletionTimestamp != nil || !ownedNetworkPolicy(cur) {
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

// ownedNetworkPolicy reports whether the provider wrote np, the policy
// observeNetworkPolicy read under the Cluster's name in its target
// namespace: np carries the provider's labels, which a policy written for
// another Cluster could only have under that Cluster's own name.
func ownedNetworkPolicy(np *networkingv1.NetworkPolicy) bool {
	return np.Labels[workload.LabelManagedBy] == workload.ManagedBy && np.Labels[workload.LabelCluster] != ""
}

// deleteNetworkPolicy deletes, with the database, the NetworkPolicy this
// reconcile observed if the provider wrote it.
func (e *external) deleteNetworkPolicy(ctx context.Context) error {
	np := e.obs.networkPolicy
	if np == nil || !ownedNetworkPolicy(np) {
		return nil
	}
	return errors.Wrap(client.IgnoreNotFound(e.session.Target.Delete(ctx, np)), errDeleteNetworkPolicy)
}

// writeNetworkPolicy runs a step of the NetworkPolicy: creates it (no
// resource version), updates it, or deletes it, naming the UID it was
// planned with so that a policy made anew since stays.
func (e *external) writeNetworkPolicy(ctx context.Context, s *clusterStep) error {
	np := s.NetworkPolicy
	switch {
	case s.Kind == kindDeleteNetworkPolicy:
		err := e.session.Target.Delete(ctx, np, client.Preconditions{UID: &np.UID})
		return errors.Wrap(client.IgnoreNotFound(err), errDeleteNetworkPolicy)
	case np.ResourceVersion == "":
		return errors.Wrap(client.IgnoreAlreadyExists(e.session.Target.Create(ctx, np)), errWriteNetworkPolicy)
	}
	return errors.Wrap(e.session.Target.Update(ctx, np), errWriteNetworkPolicy)
}
