package cluster

import (
	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
)

const reasonReleasedLock = "ReleasedGlobalLock"

// releaseLockStep releases the global lock this Cluster holds (as its
// status saw it last, unexpired) once it has nothing left to do, so that
// the Clusters of the database's other data centers need not wait for it
// to expire. Releasing takes nothing from anyone (fdb.Released): it is not
// gated. Without a status the database may not be reachable; the lock then
// expires on its own.
func releaseLockStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	l := cr.Status.AtProvider.GlobalLock
	if l == nil || l.Holder != managedkind.LockID(cr) || !o.now.Before(l.Until.Time) || o.status == nil {
		return nil
	}
	return &clusterStep{Step: step.Step{Reason: reasonReleasedLock, Message: "released the global lock: nothing left to do"}, Kind: kindReleaseLock}
}
