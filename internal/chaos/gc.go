package chaos

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	errCollect  = "cannot delete an object whose owners are gone"
	errPodGC    = "cannot delete a pod of a node that is gone"
	errLoseNode = "cannot delete a lost node"
)

// nodeGone is how long after it was lost a node's object is deleted, as the
// cloud's node lifecycle controller does once the machine is gone.
const nodeGone = 5 * time.Minute

// collectGarbage stands in for Kubernetes' garbage collector, which envtest
// does not run: it deletes (in the background) every object of a watched
// kind all of whose owners of watched kinds are gone — the ProcessGroups
// of a Cluster that was deleted or orphaned, for one.
func (r *run) collectGarbage(ctx context.Context) error {
	now := r.hist.latest()
	exists := map[types.UID]bool{}
	watched := map[string]bool{}
	for _, k := range watchedKinds {
		watched[k.Kind] = true
		for _, o := range now[k] {
			exists[o.GetUID()] = true
		}
	}
	for _, k := range watchedKinds {
		for _, o := range now[k] {
			if !orphaned(o, exists, watched) || o.GetDeletionTimestamp() != nil {
				continue
			}
			owner := o.GetOwnerReferences()[0]
			r.log("garbage-collect a %s of %s %s", k.Kind, owner.Kind, owner.Name) // names of some kinds are UIDs
			if err := r.kube.Delete(ctx, o, client.PropagationPolicy("Background")); client.IgnoreNotFound(err) != nil {
				return errors.Wrap(err, errCollect)
			}
		}
	}
	return nil
}

// collectPods stands in for the pod garbage collector: it force-deletes
// the pods bound to a node that no longer exists.
func (r *run) collectPods(ctx context.Context) error {
	now := r.hist.latest()
	for _, o := range now[podKind] {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName == "" || now.find(nodeKind, client.ObjectKey{Name: p.Spec.NodeName}) != nil {
			continue
		}
		r.log("pod-gc %s", p.Name)
		if err := r.kube.Delete(ctx, p, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			return errors.Wrap(err, errPodGC)
		}
	}
	return nil
}

// removeLostNode deletes the lost node's object once it has been gone for
// nodeGone.
func (r *run) removeLostNode(ctx context.Context) error {
	if r.lostNode == "" || r.clock.Now().Sub(r.lostAt) < nodeGone {
		return nil
	}
	r.log("deleted node %s", r.lostNode)
	node := &corev1.Node{}
	node.SetName(r.lostNode)
	r.lostNode = ""
	return errors.Wrap(client.IgnoreNotFound(r.kube.Delete(ctx, node)), errLoseNode)
}

// orphaned reports whether o has owners and every one of them is of a
// watched kind and gone.
func orphaned(o client.Object, exists map[types.UID]bool, watched map[string]bool) bool {
	refs := o.GetOwnerReferences()
	for _, ref := range refs {
		if !watched[ref.Kind] || exists[ref.UID] {
			return false
		}
	}
	return len(refs) > 0
}
