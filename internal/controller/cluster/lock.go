package cluster

import (
	"slices"
	"strings"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Reasons of the global lock's steps.
const (
	reasonReleasedLock  = "ReleasedGlobalLock"
	reasonDisabledLocks = "DisabledGlobalLock"
	reasonDenyList      = "UpdatedGlobalLockDenyList"
)

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

// disableLocksStep disables the global lock for a Cluster that shares its
// database and asks for it (spec.forProvider.locks.disableLocks), once the
// safety policies allow it (DisableLocks; the default fdb-locks wants the
// acknowledgement annotation and no other holder of the lock): it records
// atProvider.locksDisabled, which managedkind.LockOf honours. It comes
// before every step that could take the lock, so that a Cluster waiting for
// the lock can be let go without it. Without a status there is nothing to
// decide on (DisableLocks needs one) and no lock to take: it waits for one
// without holding back the steps that make the database, which take no
// lock — a Cluster created with locks disabled makes its database first.
func disableLocksStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !cr.Spec.ForProvider.Locks.DisableLocks || cr.Status.AtProvider.LocksDisabled || !managedkind.SharesDatabase(cr) || o.status == nil {
		return nil
	}
	id, holder := managedkind.LockID(cr), ""
	if l := cr.Status.AtProvider.GlobalLock; l != nil && l.Holder != id && o.now.Before(l.Until.Time) {
		holder = l.Holder
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonDisabledLocks,
			Message: "disabled the global lock: this Cluster acts without it, possibly at the same time as its database's other Clusters",
			Action: &policy.Action{Type: apiv1alpha1.ActionDisableLocks, Targets: []string{id}, Reason: "spec.forProvider.locks.disableLocks",
				Details: map[string]any{policy.DetailLockHolder: holder, policy.DetailLocksAcknowledged: cr.GetAnnotations()[policy.AnnotationAllowDisableLocks] == "true"}},
		},
		Kind: kindDisableLocks,
	}
}

// denyListStep writes spec.forProvider.locks.denyList to the database, where
// every instance's request for the lock reads it (fdb.Grant), when it
// differs from what this Cluster last wrote (atProvider.lockDenyList). It
// is not gated: it changes who may take the lock, not the database, and a
// denied holder only loses the lock at its next request; it comes right
// after disableLocksStep, before any step that could wait for the lock a
// denied instance holds.
func denyListStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	want := cr.Spec.ForProvider.Locks.DenyList
	if !managedkind.SharesDatabase(cr) || o.status == nil || slices.Equal(want, cr.Status.AtProvider.LockDenyList) {
		return nil
	}
	var names []string
	for _, e := range want {
		if e.Allow {
			names = append(names, e.ID+" allowed")
		} else {
			names = append(names, e.ID+" denied")
		}
	}
	return &clusterStep{Step: step.Step{Reason: reasonDenyList, Message: "wrote the global lock's deny list: " + strings.Join(names, ", ")}, Kind: kindUpdateDenyList}
}
