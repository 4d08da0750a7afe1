package sim

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errStartBackup         = "cannot start backup"
	errStopBackup          = "cannot stop backup"
	errPauseBackups        = "cannot pause backups"
	errResumeBackups       = "cannot resume backups"
	errModifyBackup        = "cannot modify backup"
	errGetBackupStatus     = "cannot get backup status"
	errStartRestore        = "cannot start restore"
	errGetRestoreStatus    = "cannot get restore status"
	errAbortRestore        = "cannot abort restore"
	errSetBackupAgents     = "cannot set backup agents"
	reasonNoURL            = "no backup URL"
	reasonNoSnapshotPeriod = "snapshot period must be positive"
)

const (
	defaultSnapshotPeriod = 864000
	// restorableLag is how far the restorable version trails the commit
	// version while a backup runs: mutation logs are flushed every few
	// seconds.
	restorableLag = 5 * versionsPerTick
	// blockBytes is the size of a restore block.
	blockBytes = 1 << 20
	// restoreStartTicks is how long a restore stays starting.
	restoreStartTicks = 2
)

// backup is a continuous backup on one tag.
type backup struct {
	url               string
	period            int64
	state             fdb.BackupState
	snapshotBytes     int64 // size of the current snapshot
	written           int64 // bytes of the current snapshot written
	rangeBytes        int64 // bytes of all completed snapshots
	restorable        bool
	restorableVersion int64
	stopping          bool
}

func (b *backup) running() bool {
	return b.state == fdb.BackupRunning || b.state == fdb.BackupRunningDifferentially
}

// restore is a restore on one tag.
type restore struct {
	state     fdb.RestoreState
	enteredAt time.Time
	total     int64
	written   int64
}

// SetBackupAgents sets how many backup agents run for the cluster.
func (s *Sim) SetBackupAgents(n int) error {
	if n < 0 {
		return errors.Errorf("%s: negative count %d", errSetBackupAgents, n)
	}
	s.lock()
	defer s.mu.Unlock()
	s.agents = n
	s.evaluate()
	return nil
}

// agentsWorking reports whether backup agents make progress.
func (s *Sim) agentsWorking() bool {
	return s.agents > 0 && !s.backupsPaused && s.available()
}

// snapshotRate returns the bytes per tick the current snapshot of b
// progresses: paced to finish within the snapshot period, capped by the
// agents' throughput.
func (s *Sim) snapshotRate(b *backup) int64 {
	pace := (b.snapshotBytes + b.period - 1) / b.period
	return min(pace, int64(s.agents)*s.opts.AgentRate)
}

// backupTags returns the backup tags, sorted.
func (s *Sim) backupTags() []string { return slices.Sorted(maps.Keys(s.backups)) }

// restoreTags returns the restore tags, sorted.
func (s *Sim) restoreTags() []string { return slices.Sorted(maps.Keys(s.restores)) }

// backupEvents returns when snapshots complete and restores change state.
func (s *Sim) backupEvents() []time.Time {
	var out []time.Time
	if s.agentsWorking() {
		for _, tag := range s.backupTags() {
			if b := s.backups[tag]; b.running() {
				rate := s.snapshotRate(b)
				out = append(out, s.now.Add(time.Duration((b.snapshotBytes-b.written+rate-1)/rate)*tick))
			}
		}
	}
	if s.agents > 0 && s.available() {
		for _, tag := range s.restoreTags() {
			switch r := s.restores[tag]; r.state {
			case fdb.RestoreQueued:
				out = append(out, r.enteredAt.Add(tick))
			case fdb.RestoreStarting:
				out = append(out, r.enteredAt.Add(restoreStartTicks*tick))
			case fdb.RestoreRunning:
				rate := int64(s.agents) * s.opts.AgentRate
				out = append(out, s.now.Add(time.Duration((r.total-r.written+rate-1)/rate)*tick))
			}
		}
	}
	return out
}

// progressBackups writes snapshot and restore data for ticks.
func (s *Sim) progressBackups(ticks int64) {
	if s.agentsWorking() {
		for _, tag := range s.backupTags() {
			if b := s.backups[tag]; b.running() {
				b.written = min(b.snapshotBytes, b.written+ticks*s.snapshotRate(b))
				if b.restorable {
					b.restorableVersion = max(b.restorableVersion, s.version-restorableLag)
				}
			}
		}
	}
	if s.agents > 0 {
		for _, tag := range s.restoreTags() {
			if r := s.restores[tag]; r.state == fdb.RestoreRunning {
				r.written = min(r.total, r.written+ticks*int64(s.agents)*s.opts.AgentRate)
			}
		}
	}
}

// completeBackups finishes snapshots and moves restores along.
func (s *Sim) completeBackups() {
	for _, tag := range s.backupTags() {
		b := s.backups[tag]
		if !b.running() || b.written < b.snapshotBytes {
			continue
		}
		b.restorable = true
		b.restorableVersion = s.version
		b.rangeBytes += b.snapshotBytes
		b.written = 0
		b.state = fdb.BackupRunningDifferentially
		if b.stopping {
			b.state = fdb.BackupCompleted
			continue
		}
		b.snapshotBytes = max(s.totalKV(), 1)
	}
	if s.agents == 0 || !s.available() {
		return
	}
	for _, tag := range s.restoreTags() {
		r := s.restores[tag]
		switch {
		case r.state == fdb.RestoreQueued && !s.now.Before(r.enteredAt.Add(tick)):
			r.state, r.enteredAt = fdb.RestoreStarting, s.now
		case r.state == fdb.RestoreStarting && !s.now.Before(r.enteredAt.Add(restoreStartTicks*tick)):
			r.state, r.enteredAt = fdb.RestoreRunning, s.now
		case r.state == fdb.RestoreRunning && r.written >= r.total:
			r.state, r.enteredAt = fdb.RestoreCompleted, s.now
		}
	}
}

// beginAvailable is begin plus a check that the database is available.
func (s *Sim) beginAvailable(ctx context.Context, op Op, msg string) error {
	if err := s.begin(ctx, op); err != nil {
		return errors.Wrap(err, msg)
	}
	if !s.available() {
		s.mu.Unlock()
		return errors.Wrap(fdb.ErrUnavailable, msg)
	}
	return nil
}

// StartBackup implements fdb.Client.
func (s *Sim) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	if req.URL == "" {
		return errors.Wrap(errors.New(reasonNoURL), errStartBackup)
	}
	if err := s.beginAvailable(ctx, OpStartBackup, errStartBackup); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpStartBackup, req.Tag, req.URL)
	tag := fdb.Tag(req.Tag)
	if b, ok := s.backups[tag]; ok && b.running() {
		return errors.Wrapf(fdb.ErrAlreadyExists, "%s: a backup runs on tag %q", errStartBackup, tag)
	}
	period := int64(req.SnapshotPeriodSeconds)
	if period <= 0 {
		period = defaultSnapshotPeriod
	}
	s.backups[tag] = &backup{url: req.URL, period: period, state: fdb.BackupRunning, snapshotBytes: max(s.totalKV(), 1)}
	return nil
}

// runningBackup returns the running backup on tag or ErrNotFound.
func (s *Sim) runningBackup(tag, msg string) (*backup, error) {
	b, ok := s.backups[fdb.Tag(tag)]
	if !ok || !b.running() {
		return nil, errors.Wrapf(fdb.ErrNotFound, "%s: no backup runs on tag %q", msg, fdb.Tag(tag))
	}
	return b, nil
}

// StopBackup implements fdb.Client: the backup completes after its current
// snapshot.
func (s *Sim) StopBackup(ctx context.Context, tag string) error {
	if err := s.beginAvailable(ctx, OpStopBackup, errStopBackup); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpStopBackup, tag)
	b, err := s.runningBackup(tag, errStopBackup)
	if err != nil {
		return err
	}
	b.stopping = true
	return nil
}

// PauseBackups implements fdb.Client.
func (s *Sim) PauseBackups(ctx context.Context) error {
	return s.setBackupsPaused(ctx, true, OpPauseBackups, errPauseBackups)
}

// ResumeBackups implements fdb.Client.
func (s *Sim) ResumeBackups(ctx context.Context) error {
	return s.setBackupsPaused(ctx, false, OpResumeBackups, errResumeBackups)
}

func (s *Sim) setBackupsPaused(ctx context.Context, paused bool, op Op, msg string) error {
	if err := s.beginAvailable(ctx, op, msg); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(op)
	s.backupsPaused = paused
	return nil
}

// ModifyBackup implements fdb.Client.
func (s *Sim) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	if req.SnapshotPeriodSeconds <= 0 {
		return errors.Wrap(errors.New(reasonNoSnapshotPeriod), errModifyBackup)
	}
	if err := s.beginAvailable(ctx, OpModifyBackup, errModifyBackup); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpModifyBackup, req.Tag, strconv.Itoa(req.SnapshotPeriodSeconds))
	b, err := s.runningBackup(req.Tag, errModifyBackup)
	if err != nil {
		return err
	}
	b.period = int64(req.SnapshotPeriodSeconds)
	return nil
}

// BackupStatus implements fdb.Client.
func (s *Sim) BackupStatus(ctx context.Context, tag string) (*fdb.BackupStatus, error) {
	if err := s.beginAvailable(ctx, OpBackupStatus, errGetBackupStatus); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	tag = fdb.Tag(tag)
	b, ok := s.backups[tag]
	if !ok {
		return nil, errors.Wrapf(fdb.ErrNotFound, "%s: no backup on tag %q", errGetBackupStatus, tag)
	}
	st := &fdb.BackupStatus{
		Tag:                   tag,
		URL:                   b.url,
		State:                 b.state,
		Running:               b.running(),
		Restorable:            b.restorable,
		AgentsPaused:          s.backupsPaused,
		SnapshotPeriodSeconds: int(b.period),
	}
	if b.restorable {
		st.LatestRestorableVersion = b.restorableVersion
	}
	if b.running() {
		st.SnapshotProgress = float64(b.written) * 100 / float64(b.snapshotBytes)
	}
	return st, nil
}

// StartRestore implements fdb.Client. The restore is queued until backup
// agents pick it up.
func (s *Sim) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	if req.URL == "" {
		return errors.Wrap(errors.New(reasonNoURL), errStartRestore)
	}
	if err := s.beginAvailable(ctx, OpStartRestore, errStartRestore); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpStartRestore, req.Tag, req.URL)
	tag := fdb.Tag(req.Tag)
	if r, ok := s.restores[tag]; ok && !r.state.Terminal() {
		return errors.Wrapf(fdb.ErrAlreadyExists, "%s: a restore runs on tag %q", errStartRestore, tag)
	}
	s.restores[tag] = &restore{state: fdb.RestoreQueued, enteredAt: s.now, total: s.opts.RestoreBytes}
	return nil
}

// RestoreStatus implements fdb.Client.
func (s *Sim) RestoreStatus(ctx context.Context, tag string) (*fdb.RestoreStatus, error) {
	if err := s.beginAvailable(ctx, OpRestoreStatus, errGetRestoreStatus); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	tag = fdb.Tag(tag)
	r, ok := s.restores[tag]
	if !ok {
		return nil, errors.Wrapf(fdb.ErrNotFound, "%s: no restore on tag %q", errGetRestoreStatus, tag)
	}
	return &fdb.RestoreStatus{
		Tag:          tag,
		State:        r.state,
		BlocksDone:   r.written / blockBytes,
		BlocksTotal:  (r.total + blockBytes - 1) / blockBytes,
		BytesWritten: r.written,
	}, nil
}

// AbortRestore implements fdb.Client. Aborting a finished restore changes
// nothing.
func (s *Sim) AbortRestore(ctx context.Context, tag string) error {
	if err := s.beginAvailable(ctx, OpAbortRestore, errAbortRestore); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpAbortRestore, tag)
	tag = fdb.Tag(tag)
	r, ok := s.restores[tag]
	if !ok {
		return errors.Wrapf(fdb.ErrNotFound, "%s: no restore on tag %q", errAbortRestore, tag)
	}
	if !r.state.Terminal() {
		r.state, r.enteredAt = fdb.RestoreAborted, s.now
	}
	return nil
}
