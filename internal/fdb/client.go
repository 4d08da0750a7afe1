// Package fdb defines the administration interface the provider uses to talk
// to one FoundationDB cluster, the typed model of the cluster's machine
// readable status ("status json"), the typed errors every implementation
// returns, and pure helpers that derive facts from a status (which processes
// belong to an instance, the exclusion list).
//
// Implementations live in sub-packages: fdbcli executes the version specific
// fdbcli, fdbbackup and fdbrestore binaries, sim is a deterministic simulator
// and bindings (build tag fdb) uses the native client library.
package fdb

import "context"

// A Client administers one FoundationDB cluster. Every method is synchronous,
// bounded by a timeout and safe to retry: the reconcile loop is the retry.
type Client interface {
	// Status reads the machine readable status once. Callers share one
	// status per reconcile instead of calling Status for every decision.
	Status(ctx context.Context) (*Status, error)

	// Configure changes the database configuration. newDatabase creates
	// the database ("configure new"); it fails with ErrAlreadyExists when
	// the database exists.
	Configure(ctx context.Context, cfg DatabaseConfiguration, newDatabase bool) error

	// Exclude adds targets to the exclusion list without waiting for data
	// to move off them (no_wait).
	Exclude(ctx context.Context, targets []ProcessAddress) error

	// Include removes targets from the exclusion list.
	Include(ctx context.Context, targets []ProcessAddress) error

	// Kill restarts the processes listening on the IP:port targets in one
	// batch, so that the batch costs a single recovery.
	Kill(ctx context.Context, targets []ProcessAddress) error

	// ChangeCoordinators moves the coordinated state to the IP:port
	// coordinators and returns the new connection string.
	ChangeCoordinators(ctx context.Context, coordinators []ProcessAddress) (string, error)

	// ForceRecovery recovers the database in data center dc, the main
	// data center of a region, when it cannot recover on its own
	// (`force_recovery_with_data_loss <dc>`): the mutations only the data
	// centers it cannot reach held are given up.
	ForceRecovery(ctx context.Context, dc string) error

	// SetMaintenance puts a fault domain (zoneid) under maintenance for
	// seconds ("maintenance on <zone> <seconds>"): while it lasts, data
	// distribution does not re-replicate the data of that zone's processes
	// when they go down, as for a planned restart. It replaces any
	// maintenance set before.
	SetMaintenance(ctx context.Context, zone string, seconds int) error

	// ResetMaintenance ends the maintenance ("maintenance off").
	ResetMaintenance(ctx context.Context) error

	// StartBackup starts a continuous backup on a tag; ErrAlreadyExists
	// when a backup already runs on it.
	StartBackup(ctx context.Context, req BackupRequest) error

	// StopBackup discontinues the backup on a tag: it completes once the
	// current snapshot is written. ErrNotFound when none runs.
	StopBackup(ctx context.Context, tag string) error

	// PauseBackups pauses every backup agent of the cluster.
	PauseBackups(ctx context.Context) error

	// ResumeBackups resumes the backup agents paused by PauseBackups.
	ResumeBackups(ctx context.Context) error

	// ModifyBackup changes the snapshot period of the backup on req.Tag.
	ModifyBackup(ctx context.Context, req BackupRequest) error

	// BackupStatus reports the backup on a tag; ErrNotFound when the tag
	// never ran a backup.
	BackupStatus(ctx context.Context, tag string) (*BackupStatus, error)

	// StartRestore starts restoring a backup into the cluster. It returns
	// once the restore is submitted; progress is read with RestoreStatus.
	StartRestore(ctx context.Context, req RestoreRequest) error

	// RestoreStatus reports the restore on a tag; ErrNotFound when the
	// tag never ran a restore.
	RestoreStatus(ctx context.Context, tag string) (*RestoreStatus, error)

	// AbortRestore aborts the restore on a tag.
	AbortRestore(ctx context.Context, tag string) error

	Locker
}

// A Locker manages the global lock (see GlobalLock) of one database.
type Locker interface {
	// TakeLock takes, extends or takes over the global lock for r.Holder
	// in one transaction that reads the lock and the deny list stored in
	// the database and decides with Grant. It returns the lock now held,
	// or a *LockHeldError when another instance holds it or the deny list
	// bars r.Holder.
	TakeLock(ctx context.Context, r LockRequest) (GlobalLock, error)

	// ReleaseLock releases holder's global lock in one transaction; a lock
	// another instance holds stays (Released).
	ReleaseLock(ctx context.Context, holder string) error

	// UpdateLockDenyList adds the entries' IDs to the deny list stored in
	// the database, or removes those whose entry allows them.
	UpdateLockDenyList(ctx context.Context, entries []LockDenyEntry) error
}

// DefaultBackupTag is the tag fdbbackup and fdbrestore use when none is given.
const DefaultBackupTag = "default"

// KeyRange is a range of keys in fdbcli's printable form, Begin inclusive,
// End exclusive.
type KeyRange struct {
	Begin string
	End   string
}

// BackupRequest starts or modifies a continuous backup.
type BackupRequest struct {
	// URL is the backup container, e.g. blobstore://key@host:443/name?bucket=b.
	URL string
	// Tag names the backup; DefaultBackupTag when empty.
	Tag string
	// SnapshotPeriodSeconds is the duration over which one snapshot is
	// written; the tool's default (864000, ten days) when zero.
	SnapshotPeriodSeconds int
	// KeyRanges restricts the backup; the whole user key space when empty.
	KeyRanges []KeyRange
}

// BackupState is the state name fdbbackup reports for a backup tag.
type BackupState string

// Backup states, as named by fdbbackup (`fdbbackup status --json`,
// Status.Name; BackupAgentBase::getStateName in the FoundationDB sources,
// the same in 7.1 and 7.3). A tag that never ran a backup has no state.
const (
	BackupSubmitted             BackupState = "Submitted"
	BackupRunning               BackupState = "Running"
	BackupRunningDifferentially BackupState = "RunningDifferentially"
	BackupCompleted             BackupState = "Completed"
	BackupAborted               BackupState = "Aborted"
	// BackupAborting is a partially aborted backup; it still runs.
	BackupAborting BackupState = "Aborting"
	// BackupErrored is a backup stopped by an error.
	BackupErrored BackupState = "Errored"
)

// Known reports whether fdbbackup names state s.
func (s BackupState) Known() bool {
	switch s {
	case BackupSubmitted, BackupRunning, BackupRunningDifferentially, BackupCompleted, BackupAborted, BackupAborting, BackupErrored:
		return true
	}
	return false
}

// BackupStatus is the state of the backup on one tag.
type BackupStatus struct {
	Tag   string
	URL   string
	State BackupState
	// Running is true while the backup writes data (Running or
	// RunningDifferentially).
	Running bool
	// Restorable is true once a complete snapshot exists.
	Restorable bool
	// AgentsPaused is true while the cluster's backup agents are paused.
	AgentsPaused bool
	// SnapshotPeriodSeconds is the configured snapshot period.
	SnapshotPeriodSeconds int
	// LatestRestorableVersion is the newest version a restore can reach;
	// zero until Restorable.
	LatestRestorableVersion int64
	// SnapshotProgress is the progress of the current snapshot, 0 to 100.
	SnapshotProgress float64
}

// RestoreRequest starts a restore.
type RestoreRequest struct {
	// URL is the backup container to restore from.
	URL string
	// Tag names the restore; DefaultBackupTag when empty.
	Tag string
	// KeyRanges restricts the restore; everything in the backup when empty.
	KeyRanges []KeyRange
	// Version is the version to restore to; the latest restorable one
	// when zero.
	Version int64
}

// RestoreState is the state name fdbrestore reports for a restore tag.
type RestoreState string

// Restore states, as named by fdbrestore (FileBackupAgent::restoreStateText
// in the FoundationDB sources, the same in 7.1 and 7.3). A tag without a
// restore reports "unitialized" (sic), which the clients return as
// ErrNotFound.
const (
	RestoreQueued    RestoreState = "queued"
	RestoreStarting  RestoreState = "starting"
	RestoreRunning   RestoreState = "running"
	RestoreCompleted RestoreState = "completed"
	RestoreAborted   RestoreState = "aborted"
)

// Known reports whether fdbrestore names state s (for a restore that
// exists).
func (s RestoreState) Known() bool {
	switch s {
	case RestoreQueued, RestoreStarting, RestoreRunning, RestoreCompleted, RestoreAborted:
		return true
	}
	return false
}

// Terminal reports whether a restore in state s will not change any more.
func (s RestoreState) Terminal() bool {
	return s == RestoreCompleted || s == RestoreAborted
}

// RestoreStatus is the state of the restore on one tag.
type RestoreStatus struct {
	Tag   string
	State RestoreState
	// BlocksDone and BlocksTotal measure progress.
	BlocksDone  int64
	BlocksTotal int64
	// BytesWritten is the amount of data restored so far.
	BytesWritten int64
}

// Tag returns tag, or DefaultBackupTag when tag is empty.
func Tag(tag string) string {
	if tag == "" {
		return DefaultBackupTag
	}
	return tag
}

// TLSCredentials are what a client presents to the processes of a
// database that speaks TLS and what it trusts of theirs, as PEM: its
// certificate (chain) and key, the CA certificates it trusts, and the peer
// verification rules (--tls-verify-peers; empty for FoundationDB's
// default). A client with credentials reaches plain-text addresses too; a
// client without them reaches only those.
type TLSCredentials struct {
	Certificate, Key, CA []byte
	VerifyPeers          string
}
