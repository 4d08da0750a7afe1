package sim

import (
	"context"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errTakeLock       = "cannot take the global lock"
	errReleaseLock    = "cannot release the global lock"
	errUpdateDenyList = "cannot update the lock's deny list"
)

// TakeLock implements fdb.Client: like one transaction on the lock's key, it
// reads the lock and the deny list and writes what fdb.Grant decides. An
// unavailable database cannot be locked.
func (s *Sim) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	if err := s.beginAvailable(ctx, OpLock, errTakeLock); err != nil {
		return fdb.GlobalLock{}, err
	}
	defer s.mu.Unlock()
	s.took(OpLock, "take", r.Holder)
	l, err := fdb.Grant(s.globalLock, s.lockDenied, r)
	if err != nil {
		return fdb.GlobalLock{}, errors.Wrap(err, errTakeLock)
	}
	s.globalLock = &l
	return l, nil
}

// ReleaseLock implements fdb.Client.
func (s *Sim) ReleaseLock(ctx context.Context, holder string) error {
	if err := s.beginAvailable(ctx, OpLock, errReleaseLock); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpLock, "release", holder)
	s.globalLock = fdb.Released(s.globalLock, holder)
	return nil
}

// UpdateLockDenyList implements fdb.Client.
func (s *Sim) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	if err := s.beginAvailable(ctx, OpLock, errUpdateDenyList); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpLock, "deny", fmt.Sprintf("%+v", entries))
	s.lockDenied = fdb.DenyList(s.lockDenied, entries)
	return nil
}

// GlobalLock returns the global lock held, nil when none is, as a test or
// the fault-injection harness sees the lock's key.
func (s *Sim) GlobalLock() *fdb.GlobalLock {
	s.lock()
	defer s.mu.Unlock()
	if s.globalLock == nil {
		return nil
	}
	l := *s.globalLock
	return &l
}
