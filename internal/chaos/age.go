package chaos

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const errAge = "cannot age a creation annotation"

// creationGrace is crossplane-runtime's default creation grace period,
// which the Cluster and ProcessGroup reconcilers keep.
const creationGrace = 30 * time.Second

// longAgo is the wall-clock time an aged creation annotation records.
var longAgo = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// ageCreations lets crossplane-runtime's creation grace period pass in
// virtual time. The reconciler measures it against the wall clock from the
// external-create-succeeded annotation, and a run covers minutes of
// virtual time in seconds: without this, the grace would never pass (a
// Cluster deleted after its creation would wait forever) and whether it
// had would depend on the machine's speed. Once the annotation is older
// than the grace in virtual time, the harness rewrites it to long ago — a
// fixed time, so that replays write the same.
func (r *run) ageCreations(ctx context.Context) error {
	now := r.clock.Now()
	for _, k := range []schema.GroupVersionKind{clusterKind, groupKind} {
		for _, o := range r.hist.latest()[k] {
			t := meta.GetExternalCreateSucceeded(o)
			if t.IsZero() || t.Equal(longAgo) {
				continue
			}
			first, seen := r.created[o.GetUID()]
			if !seen {
				r.created[o.GetUID()] = now
				continue
			}
			if now.Sub(first) < creationGrace {
				continue
			}
			patch := client.MergeFrom(o.DeepCopyObject().(client.Object))
			aged := o.DeepCopyObject().(client.Object)
			meta.SetExternalCreateSucceeded(aged, longAgo)
			if err := r.kube.Patch(ctx, aged, patch); client.IgnoreNotFound(err) != nil {
				return errors.Wrap(err, errAge)
			}
		}
	}
	return nil
}
