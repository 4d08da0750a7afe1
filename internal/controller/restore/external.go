package restore

import (
	"context"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errNoDatabase    = "cannot start the restore: the destination cluster has no database yet"
	errRestoreStatus = "cannot get the restore's status"
	errStartRestore  = "cannot start the restore"
	errAbortRestore  = "cannot abort the restore"

	msgRecordGone   = "FoundationDB no longer reports the restore on tag %q; it is not started again"
	msgNoAgents     = "no backup agents run for cluster %s: restores need them, and a Backup of the cluster provides them"
	msgAborted      = "the restore was aborted"
	msgStartPending = "the restore is to start"
	msgUnknown      = "FoundationDB reports the restore in state %q"

	reasonStarted event.Reason = "StartedRestore"
	reasonAborted event.Reason = "AbortedRestore"
)

// external works against one Restore's restore during one reconcile.
type external struct {
	managedkind.Deps
	session *connector.Session
	cluster *v1alpha1.Cluster

	// obs is what Observe saw.
	obs observation
}

// tag is the restore tag of a Restore: its external name, which is its name
// unless set otherwise. Each Restore has a tag of its own, so restores of
// different Restores into one cluster do not mistake each other's state for
// their own.
func tag(r *v1alpha1.Restore) string {
	if n := meta.GetExternalName(r); n != "" {
		return n
	}
	return r.GetName()
}

// request is the restore a Restore asks for.
func request(r *v1alpha1.Restore) fdb.RestoreRequest {
	p := r.Spec.ForProvider
	req := fdb.RestoreRequest{URL: workload.BlobStoreURL(p.BlobStore, r.GetName()), Tag: tag(r)}
	for _, kr := range p.KeyRanges {
		req.KeyRanges = append(req.KeyRanges, fdb.KeyRange{Begin: kr.Start, End: kr.End})
	}
	if p.BackupVersion != nil {
		req.Version = *p.BackupVersion
	}
	return req
}

// progress is a restore's progress in percent: the share of its blocks
// written, 100 once completed.
func progress(s *fdb.RestoreStatus) int {
	switch {
	case s.State == fdb.RestoreCompleted:
		return 100
	case s.BlocksTotal <= 0:
		return 0
	}
	return int(min(max(s.BlocksDone*100/s.BlocksTotal, 0), 100))
}

// state is the Restore state of a FoundationDB restore state; ok is false
// for a state the API does not know.
func state(s fdb.RestoreState) (v1alpha1.RestoreState, bool) {
	switch st := v1alpha1.RestoreState(s); st {
	case v1alpha1.RestoreQueued, v1alpha1.RestoreStarting, v1alpha1.RestoreRunning, v1alpha1.RestoreCompleted, v1alpha1.RestoreAborted:
		return st, true
	}
	return "", false
}

// Observe reads the restore's state from the destination database and
// fills atProvider. It writes nothing. A restore exists once FoundationDB
// reports it, and one that is still to start is reported as existing but
// not up to date, so that Update starts it; a Restore that started one
// keeps existing when the record disappears, so that it is never started
// twice. While the Restore is being
// deleted, a finished (completed or aborted) restore counts as gone. The
// restore's figures go to the database metrics while it exists.
func (e *external) Observe(ctx context.Context, r *v1alpha1.Restore) (managed.ExternalObservation, error) {
	o, err := e.observe(ctx, r)
	switch {
	case err != nil:
	case o.ResourceExists:
		e.Metrics.Restore(r)
	default:
		e.Metrics.Forget(dbmetrics.KindRestore, r.GetNamespace(), r.GetName())
	}
	return o, err
}

func (e *external) observe(ctx context.Context, r *v1alpha1.Restore) (managed.ExternalObservation, error) {
	deleting, started := meta.WasDeleted(r), r.Status.AtProvider.State != ""
	e.obs.database = e.session.FDB != nil
	if e.obs.database {
		// The evidence of both gated steps: read once, nil when unreadable.
		e.obs.status, _ = e.session.FDB.Status(ctx)
	}
	if e.session.FDB == nil {
		if deleting || !started {
			return managed.ExternalObservation{}, nil
		}
		r.SetConditions(xpv2.Unavailable().WithMessage("the destination cluster has no database"), xpv2.ObserveMatched())
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	rs, err := e.session.FDB.RestoreStatus(ctx, tag(r))
	switch {
	case errors.Is(err, fdb.ErrNotFound) && deleting:
		return managed.ExternalObservation{}, nil
	case errors.Is(err, fdb.ErrNotFound) && !started:
		// The restore is to start: Update starts it once the policies
		// allow it, and records their decision (a failed Create would lose
		// it: the runtime refreshes the resource to mark the failure).
		r.SetConditions(xpv2.Creating().WithMessage(msgStartPending), xpv2.UpdateRequested().WithMessage(msgStartPending))
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: false}, nil
	case errors.Is(err, fdb.ErrNotFound):
		r.SetConditions(xpv2.Unavailable().WithMessage(fmt.Sprintf(msgRecordGone, tag(r))), xpv2.ObserveMatched())
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	case err != nil:
		return managed.ExternalObservation{}, errors.Wrap(err, errRestoreStatus)
	}
	e.obs.restore = rs
	if deleting && rs.State.Terminal() {
		return managed.ExternalObservation{}, nil
	}

	at := &r.Status.AtProvider
	st, known := state(rs.State)
	if known {
		at.State = st
	}
	at.Progress = progress(rs)
	at.URL = workload.BlobStoreStatusURL(r.Spec.ForProvider.BlobStore, r.GetName())

	switch {
	case !known:
		r.SetConditions(xpv2.Unavailable().WithMessage(fmt.Sprintf(msgUnknown, rs.State)))
	case st == v1alpha1.RestoreCompleted:
		r.SetConditions(xpv2.Available())
	case st == v1alpha1.RestoreAborted:
		r.SetConditions(xpv2.Unavailable().WithMessage(msgAborted))
	default:
		msg := fmt.Sprintf("the restore is %s, %d%% done", st, at.Progress)
		if s := e.obs.status; s != nil && s.Cluster.Layers.Backup.InstancesRunning == 0 {
			msg += "; " + fmt.Sprintf(msgNoAgents, e.cluster.GetName())
		}
		r.SetConditions(xpv2.Creating().WithMessage(msg))
	}
	r.SetConditions(xpv2.ObserveMatched())
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
}

// Create does not start anything: without a database the Restore waits
// (Observe reports a restore to start once there is one, and Update starts
// it).
func (e *external) Create(context.Context, *v1alpha1.Restore) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, errors.New(errNoDatabase)
}

// Update starts the restore once the safety policies allow it. They see
// whether the destination database holds data (its status read in this
// reconcile reports a key-value size above zero) and whether the Restore
// allows a destination that does. A Restore's spec cannot change once it is
// created, so there is nothing else to update.
func (e *external) Update(ctx context.Context, r *v1alpha1.Restore) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, e.take(ctx, r, func(ctx context.Context) error {
		if err := e.session.FDB.StartRestore(ctx, request(r)); err != nil && !errors.Is(err, fdb.ErrAlreadyExists) {
			return errors.Wrap(err, errStartRestore)
		}
		return nil
	})
}

// Delete aborts a restore that has not finished, once the safety policies
// allow it. A finished restore is left as it is.
func (e *external) Delete(ctx context.Context, r *v1alpha1.Restore) (managed.ExternalDelete, error) {
	return managed.ExternalDelete{}, e.take(ctx, r, func(ctx context.Context) error {
		if err := e.session.FDB.AbortRestore(ctx, tag(r)); err != nil && !errors.Is(err, fdb.ErrNotFound) {
			return errors.Wrap(err, errAbortRestore)
		}
		return nil
	})
}

// Disconnect releases nothing: sessions hold no connections.
func (e *external) Disconnect(context.Context) error { return nil }

// take takes the step the planner calls for through the gate-and-record
// path, with the status read in this reconcile as evidence.
func (e *external) take(ctx context.Context, r *v1alpha1.Restore, run func(context.Context) error) error {
	s := next(r, e.cluster.GetName(), e.obs)
	return e.Take(ctx, r, managedkind.Evidence{Cluster: e.cluster, Status: e.obs.status, Changed: e.session.Changed, Firsthand: e.session.Firsthand}, s, run)
}
