package chaos

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// deletionGatedBy are the actions whose allowing decision, naming the
// group, lets the provider delete a group's object of each resource; an
// allowing DeleteCluster naming its Cluster lets it delete any of them. A
// resource not here (a volume) the provider never deletes.
var deletionGatedBy = map[string][]v1alpha1.ActionType{
	"pods": {v1alpha1.ActionDeletePod, v1alpha1.ActionForceDeletePod,
		v1alpha1.ActionRemoveProcessGroup, v1alpha1.ActionRemoveUnreachableProcessGroup},
	"persistentvolumeclaims": {v1alpha1.ActionRemoveProcessGroup, v1alpha1.ActionRemoveUnreachableProcessGroup},
}

// kindOf is the kind of each audited resource in the history.
var kindOf = map[string]schema.GroupVersionKind{"pods": podKind, "persistentvolumeclaims": pvcKind}

// checkDeletions: every pod, volume claim and volume the provider deleted,
// as the API server's audit log recorded it (not as the provider's client
// or journal saw it), was allowed by a decision in force on one of the
// run's managed resources (decisionsInForce) of an action that gates the
// deletion, naming the object's group, or a deletion of its Cluster
// naming the Cluster.
func (r *run) checkDeletions(writes []write) {
	events, err := r.audit.Next()
	if err != nil {
		r.violate("ungated-deletion", err.Error())
		return
	}
	var decisions []*fdbv1alpha1.PolicyDecision
	for _, ev := range events {
		ref := ev.ObjectRef
		if ev.Stage != auditv1.StageResponseComplete || ref == nil || ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != r.env.ProviderUser ||
			ev.ResponseStatus == nil || ev.ResponseStatus.Code/100 != 2 || (ref.Namespace != r.ns && ref.Namespace != "") {
			continue
		}
		if decisions == nil {
			decisions = r.decisionsInForce(writes)
		}
		r.report.Checks++
		cluster, id := r.groupOfDeleted(ref)
		actions := deletionGatedBy[ref.Resource]
		if !slices.ContainsFunc(decisions, func(d *fdbv1alpha1.PolicyDecision) bool {
			return slices.Contains(allowing, d.Result) && cluster != "" &&
				(slices.Contains(actions, v1alpha1.ActionType(d.Action)) && slices.Contains(d.Targets, id) ||
					len(actions) > 0 && d.Action == string(v1alpha1.ActionDeleteCluster) && slices.Contains(d.Targets, cluster))
		}) {
			r.violate("ungated-deletion", fmt.Sprintf("the provider deleted %s %s (group %q of Cluster %q) with no decision in force that allows it",
				ref.Resource, ref.Name, id, cluster))
		}
	}
}

// groupOfDeleted returns the Cluster and process group of the object ref
// names, as the newest snapshot that holds it labels it.
func (r *run) groupOfDeleted(ref *auditv1.ObjectReference) (cluster, id string) {
	gvk, ok := kindOf[ref.Resource]
	if !ok {
		return "", ""
	}
	key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
	for i := len(r.hist.snaps) - 1; i >= 0; i-- {
		if o := r.hist.snaps[i].find(gvk, key); o != nil {
			return o.GetLabels()[workload.LabelCluster], o.GetLabels()[workload.LabelProcessGroup]
		}
	}
	return "", ""
}
