package sim

import (
	"cmp"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errFailNext         = "cannot inject failures"
	errIncompleteStatus = "cannot inject incomplete status"
	errOmitRoles        = "cannot inject status without roles"
	errPartialKill      = "cannot inject partial kills"
	errRecover          = "cannot force a recovery"
	reasonUnknownOp     = "unknown operation"
	reasonNegativeCount = "negative count"
	reasonNoError       = "no error given"
	reasonNotCreated    = "the database was never configured"
	reasonPartialKill   = "only %d of %d processes restarted"
)

// Op names an admin operation of fdb.Client, for FailNext.
type Op string

// The admin operations whose calls FailNext can fail.
const (
	OpStatus        Op = "status"
	OpConfigure     Op = "configure"
	OpExclude       Op = "exclude"
	OpInclude       Op = "include"
	OpKill          Op = "kill"
	OpCoordinators  Op = "coordinators"
	OpMaintenance   Op = "maintenance"
	OpStartBackup   Op = "start_backup"
	OpStopBackup    Op = "stop_backup"
	OpPauseBackups  Op = "pause_backups"
	OpResumeBackups Op = "resume_backups"
	OpModifyBackup  Op = "modify_backup"
	OpBackupStatus  Op = "backup_status"
	OpStartRestore  Op = "start_restore"
	OpRestoreStatus Op = "restore_status"
	OpAbortRestore  Op = "abort_restore"
	OpLock          Op = "lock"
	OpForceRecovery Op = "force_recovery"
	// OpCopyCoordinationFiles and OpRestartOnClusterFile are the changes
	// to the pods' files the way back from lost coordinators makes
	// (coordination.go): not admin calls of fdbcli, but changes to the
	// database all the same, recorded beside them.
	OpCopyCoordinationFiles Op = "copy_coordination_files"
	OpRestartOnClusterFile  Op = "restart_on_cluster_file"
)

// ops are the operations FailNext accepts.
var ops = []Op{
	OpStatus, OpConfigure, OpExclude, OpInclude, OpKill, OpCoordinators, OpMaintenance,
	OpStartBackup, OpStopBackup, OpPauseBackups, OpResumeBackups, OpModifyBackup,
	OpBackupStatus, OpStartRestore, OpRestoreStatus, OpAbortRestore, OpLock, OpForceRecovery,
}

// injected is an error the next calls of an operation return.
type injected struct {
	err   error
	calls int
}

// faults are the faults injected into the admin interface, each counted
// down by the calls it affects.
type faults struct {
	fail              map[Op]injected
	incomplete        int // status reads left that are incomplete
	withoutRoles      int // status reads left without process roles
	partialKills      int // kills left that restart half of their targets
	partialKillErr    error
	killMisses        map[string]bool // addresses the next kill does not restart
	killMissErr       error
	exclusionsStalled bool
}

// FailNext makes the next n calls of op fail with err (wrapped, so
// errors.Is(got, err) holds) without any effect, e.g. fdb.ErrTimeout for a
// command that timed out. n = 0 clears the injection.
func (s *Sim) FailNext(op Op, err error, n int) error {
	switch {
	case !slices.Contains(ops, op):
		return errors.Errorf("%s: %s %q", errFailNext, reasonUnknownOp, op)
	case n < 0:
		return errors.Errorf("%s: %s %d", errFailNext, reasonNegativeCount, n)
	case err == nil && n > 0:
		return errors.Errorf("%s: %s", errFailNext, reasonNoError)
	}
	s.lock()
	defer s.mu.Unlock()
	s.faults.fail[op] = injected{err: err, calls: n}
	return nil
}

// injectedFailure consumes one injected failure of op and returns it, or
// nil when none is left.
func (s *Sim) injectedFailure(op Op) error {
	f := s.faults.fail[op]
	if f.calls == 0 {
		return nil
	}
	f.calls--
	s.faults.fail[op] = f
	return f.err
}

// IncompleteStatusNext makes the next n status reads incomplete, as when
// the cluster controller cannot reach the storage and log servers in time:
// cluster.messages holds status_incomplete, storage_servers_error and
// log_servers_error, the processes are listed without their storage and
// log roles, and the data, logs and fault tolerance sections are missing.
// n = 0 clears the injection.
func (s *Sim) IncompleteStatusNext(n int) error {
	if n < 0 {
		return errors.Errorf("%s: %s %d", errIncompleteStatus, reasonNegativeCount, n)
	}
	s.lock()
	defer s.mu.Unlock()
	s.faults.incomplete = n
	return nil
}

// OmitRolesNext makes the next n status reads list every process without
// its roles, and without any message saying that something is missing: a
// reader that takes a missing field for "no role" sees processes that hold
// nothing. n = 0 clears the injection.
func (s *Sim) OmitRolesNext(n int) error {
	if n < 0 {
		return errors.Errorf("%s: %s %d", errOmitRoles, reasonNegativeCount, n)
	}
	s.lock()
	defer s.mu.Unlock()
	s.faults.withoutRoles = n
	return nil
}

// degrade applies the status faults injected for this read.
func (s *Sim) degrade(st *fdb.Status) *fdb.Status {
	if s.faults.incomplete > 0 {
		s.faults.incomplete--
		c := &st.Cluster
		for id, p := range c.Processes {
			p.Roles = slices.DeleteFunc(p.Roles, func(r fdb.ProcessRole) bool { return r.Role == fdb.RoleStorage || r.Role == fdb.RoleLog })
			c.Processes[id] = p
		}
		c.Data, c.Logs, c.FaultTolerance = fdb.DataStatus{}, nil, fdb.FaultTolerance{}
		c.Messages = append(c.Messages,
			fdb.Message{Name: fdb.MessageStatusIncomplete, Description: "Unable to retrieve all status information."},
			fdb.Message{Name: fdb.MessageStorageServersError, Description: "Timed out trying to retrieve storage servers."},
			fdb.Message{Name: fdb.MessageLogServersError, Description: "Timed out trying to retrieve log servers."})
	}
	if s.faults.withoutRoles > 0 {
		s.faults.withoutRoles--
		for id, p := range st.Cluster.Processes {
			p.Roles = nil
			st.Cluster.Processes[id] = p
		}
	}
	return st
}

// PartialKillNext makes the next n kills restart only the first half
// (rounded up, in address order) of their targets and then fail with err
// (wrapped), like a kill that timed out half way. n = 0 clears the
// injection.
func (s *Sim) PartialKillNext(n int, err error) error {
	switch {
	case n < 0:
		return errors.Errorf("%s: %s %d", errPartialKill, reasonNegativeCount, n)
	case err == nil && n > 0:
		return errors.Errorf("%s: %s", errPartialKill, reasonNoError)
	}
	s.lock()
	defer s.mu.Unlock()
	s.faults.partialKills, s.faults.partialKillErr = n, err
	return nil
}

// MissInNextKill makes the next kill restart every target but the
// processes at addrs (IP:port) and then fail with err (wrapped), like a
// kill whose message some processes never received. It lets a test choose
// which processes a failed upgrade kill leaves on the old version, and so
// which protocol the coordinators settle on. No addresses clear the
// injection.
func (s *Sim) MissInNextKill(addrs []fdb.ProcessAddress, err error) error {
	if err == nil && len(addrs) > 0 {
		return errors.Errorf("%s: %s", errPartialKill, reasonNoError)
	}
	s.lock()
	defer s.mu.Unlock()
	s.faults.killMisses, s.faults.killMissErr = map[string]bool{}, err
	for _, a := range addrs {
		s.faults.killMisses[string(a)] = true
	}
	return nil
}

// partialKill returns the victims a kill restarts and the error it
// returns: all of them and nil, unless a partial kill is injected.
func (s *Sim) partialKill(victims []*process) ([]*process, error) {
	if len(s.faults.killMisses) > 0 {
		restarted := slices.DeleteFunc(slices.Clone(victims), func(p *process) bool { return s.faults.killMisses[p.address] })
		err := errors.Wrapf(s.faults.killMissErr, reasonPartialKill, len(restarted), len(victims))
		s.faults.killMisses = nil
		return restarted, err
	}
	if s.faults.partialKills == 0 {
		return victims, nil
	}
	s.faults.partialKills--
	sorted := slices.SortedFunc(slices.Values(victims), func(a, b *process) int { return cmp.Compare(a.address, b.address) })
	half := sorted[:(len(sorted)+1)/2]
	return half, errors.Wrapf(s.faults.partialKillErr, reasonPartialKill, len(half), len(victims))
}

// StallExclusions stops (or, with false, resumes) data movement off
// excluded processes: while stalled, a live excluded process keeps every
// replica it holds, so it keeps its storage role and its exclusion never
// completes. Data is still copied to other processes where replicas are
// missing.
func (s *Sim) StallExclusions(stalled bool) {
	s.lock()
	defer s.mu.Unlock()
	s.faults.exclusionsStalled = stalled
	s.evaluate()
}

// Recover forces a recovery of the transaction system now, as a killed
// master or a knob change would. It fails before the database was
// configured.
func (s *Sim) Recover() error {
	s.lock()
	defer s.mu.Unlock()
	if !s.created {
		return errors.Errorf("%s: %s", errRecover, reasonNotCreated)
	}
	s.triggerRecovery()
	s.evaluate()
	return nil
}
