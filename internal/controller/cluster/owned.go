package cluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// getOptional reads the object named key into obj: obj when it exists,
// the zero T (nil) when it does not.
func getOptional[T client.Object](ctx context.Context, r client.Reader, key client.ObjectKey, obj T, msg string) (T, error) {
	var none T
	switch err := r.Get(ctx, key, obj); {
	case kerrors.IsNotFound(err):
		return none, nil
	case err != nil:
		return none, errors.Wrap(err, msg)
	}
	return obj, nil
}

// ownedByProvider reports whether the provider wrote obj, an object read
// under a Cluster's name in its target namespace: obj carries the
// provider's labels, which one written for another Cluster could only
// have under that Cluster's own name. One of the same name the provider
// did not write is not the provider's to take away.
func ownedByProvider(obj client.Object) bool {
	return obj.GetLabels()[workload.LabelManagedBy] == workload.ManagedBy && obj.GetLabels()[workload.LabelCluster] != ""
}

// writeObject runs a step on an object of the Cluster's in its target
// namespace: deletes it (del), naming the UID it was planned with so that
// one made anew since stays; creates it (no resource version); or updates
// it. msg names the object for the error.
func writeObject(ctx context.Context, c client.Client, obj client.Object, del bool, msg string) error {
	switch {
	case del:
		uid := obj.GetUID()
		return errors.Wrap(client.IgnoreNotFound(c.Delete(ctx, obj, client.Preconditions{UID: &uid})), "cannot delete "+msg)
	case obj.GetResourceVersion() == "":
		return errors.Wrap(client.IgnoreAlreadyExists(c.Create(ctx, obj)), "cannot write "+msg)
	}
	return errors.Wrap(c.Update(ctx, obj), "cannot write "+msg)
}

// deleteOwned deletes obj, read in this reconcile, with the database, if
// the provider wrote it.
func deleteOwned(ctx context.Context, c client.Client, obj client.Object, msg string) error {
	if !ownedByProvider(obj) {
		return nil
	}
	return errors.Wrap(client.IgnoreNotFound(c.Delete(ctx, obj)), "cannot delete "+msg)
}
