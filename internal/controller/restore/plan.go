package restore

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// observation is what one reconcile knows of a restore.
type observation struct {
	// database is true when the destination cluster has a database the
	// provider can reach.
	database bool
	// restore is the restore FoundationDB reports on the tag; nil when it
	// reports none.
	restore *fdb.RestoreStatus
	// status is the destination database's status read in this reconcile;
	// nil when it could not be read.
	status *fdb.Status
}

// next plans what a Restore's Create (to start the restore) or Delete (to
// abort it) does: a Restore being deleted aborts a restore that has not
// finished; one not being deleted starts its restore, gated with whether
// the destination holds data. A wait when nothing is to be done. The
// cluster is the destination's name, for the messages.
func next(r *v1alpha1.Restore, cluster string, o observation) step.Step {
	if meta.WasDeleted(r) {
		if o.restore == nil || o.restore.State.Terminal() {
			return step.Wait("the restore is not running")
		}
		msg := fmt.Sprintf("aborting the %s restore on tag %q: the Restore is being deleted", o.restore.State, tag(r))
		return step.Step{Reason: reasonAborted, Message: msg,
			Action: &policy.Action{Type: apiv1alpha1.ActionAbortRestore, Targets: []string{tag(r)}, Reason: msg}}
	}
	if !o.database {
		return step.Wait(errNoDatabase)
	}
	url := workload.BlobStoreStatusURL(r.Spec.ForProvider.BlobStore, r.GetName())
	msg := fmt.Sprintf("restoring %s into cluster %s on tag %q", url, cluster, tag(r))
	details := map[string]any{
		policy.DetailAllowNonEmptyDestination: r.Spec.ForProvider.AllowNonEmptyDestination,
		policy.DetailDestinationHasData:       mayHoldData(o.status),
	}
	return step.Step{Reason: reasonStarted, Message: "started " + msg,
		Action: &policy.Action{Type: apiv1alpha1.ActionStartRestore, Targets: []string{tag(r)}, Reason: msg, Details: details}}
}

// mayHoldData reports whether the destination may hold data: unless a
// complete status shows data distribution's state and a key-value size of
// zero, it may (a missing field is never read as "empty").
func mayHoldData(s *fdb.Status) bool {
	return s == nil || s.Incomplete() || s.Cluster.Data.State.Name == "" || s.Cluster.Data.TotalKVSizeBytes > 0
}
