package sim

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errReach = "cannot reach the database"
	// reasonNoQuorum is why a client reaches no database: fdbcli waits
	// for the coordinators until its --timeout ("Specified timeout
	// reached", fdb.ErrTimeout).
	reasonNoQuorum = "no quorum of its coordinators reachable with the client's TLS settings"
	// reasonTLSUnconfigured is fdbcli's refusal, from 7.2 on, to start
	// without TLS settings when every coordinator is a TLS address
	// (checkTlsConfigAgainstCoordAddrs, fdbcli/fdbcli.actor.cpp at 7.3.63).
	reasonTLSUnconfigured = "fdbcli is not configured with TLS, but all of the coordinators have TLS addresses."
	// reasonCoordinatorUnreachable is what fdbcli's coordinators command
	// prints when the client cannot reach a new coordinator
	// (CoordinatorsResult::COORDINATOR_UNREACHABLE,
	// fdbclient/ManagementAPI.actor.cpp at 7.3.63).
	reasonCoordinatorUnreachable = "One of the specified coordinators is unreachable"
)

// Client is the simulated database as one client sees it: a client that
// holds a cluster file and TLS credentials (or none) and connects anew for
// each command, as the provider's fdbcli does. It reaches the database
// only when it reaches a quorum of the coordinators of its cluster file
// (or, when that file names earlier coordinators, one of them, which
// forwards it, then a quorum of the current ones): a plain-text client
// reaches only plain-text addresses, and a TLS connection needs the client
// and the coordinator's process to verify each other at the simulator's
// time. Otherwise its status is that of a client without a quorum
// (client.coordinators[].reachable false, quorum_not_reachable) and every
// other call fails with fdb.ErrTimeout, as fdbcli waits until its timeout;
// an fdbcli of 7.2 or later without TLS settings refuses every command
// when all the coordinators are TLS addresses. The methods of Sim that
// are not fdb.Client's act on the database itself.
type Client struct {
	*Sim
	file       fdb.ConnectionString
	creds      *credentials
	configured bool
}

// As returns the database as a client sees it that holds cluster file
// connectionString (the current one when empty) and TLS credentials tls
// (nil: none, plain text only). Credentials that do not load (a key that
// is not the certificate's, rules that do not parse) reach no TLS address.
func (s *Sim) As(connectionString string, tls *fdb.TLSCredentials) *Client {
	file, _ := fdb.ParseConnectionString(connectionString)
	creds, _ := fromTLSCredentials(tls)
	configured := tls != nil && (len(tls.Certificate) > 0 || len(tls.Key) > 0 || len(tls.CA) > 0)
	return &Client{Sim: s, file: file, creds: creds, configured: configured}
}

// view returns the coordinators the client talks to and whether it
// reaches each, and an error when its tools refuse to start; the caller
// holds the lock.
func (c *Client) view() ([]fdb.ProcessAddress, func(fdb.ProcessAddress) bool, error) {
	s := c.Sim
	reach := func(a fdb.ProcessAddress) bool { return s.clientReaches(c.creds, a) }
	file := c.file
	if len(file.Coordinators) == 0 {
		file = s.conn
	}
	if !c.configured && checksTLSConfiguration(s.protocol) && !slices.ContainsFunc(file.Coordinators, func(a fdb.ProcessAddress) bool { return !a.TLS() }) {
		return nil, nil, errors.New(reasonTLSUnconfigured)
	}
	switch {
	case file.String() == s.conn.String():
		return s.conn.Coordinators, reach, nil
	case slices.ContainsFunc(s.forwarded, func(old fdb.ConnectionString) bool { return old.String() == file.String() }) &&
		slices.ContainsFunc(file.Coordinators, reach):
		return s.conn.Coordinators, reach, nil
	}
	// Coordinators of another database know nothing of this one.
	return file.Coordinators, func(fdb.ProcessAddress) bool { return false }, nil
}

// checksTLSConfiguration reports whether the fdbcli of protocol
// (major.minor) refuses to start without TLS settings when every
// coordinator is a TLS address: 7.2 and later.
func checksTLSConfiguration(protocol string) bool {
	return protocolAtLeast(protocol, 7, 2)
}

// gate fails unless the client reaches the database now.
func (c *Client) gate() error {
	c.lock()
	defer c.mu.Unlock()
	coordinators, reach, err := c.view()
	if err != nil {
		return errors.Wrap(err, errReach)
	}
	n := 0
	for _, a := range coordinators {
		if reach(a) {
			n++
		}
	}
	if len(coordinators) == 0 || n < quorum(len(coordinators)) {
		return errors.Wrapf(fdb.ErrTimeout, "%s: %s", errReach, reasonNoQuorum)
	}
	return nil
}

// Status implements fdb.Client: the status as the client sees it.
func (c *Client) Status(ctx context.Context) (*fdb.Status, error) {
	if err := c.begin(ctx, OpStatus); err != nil {
		return nil, errors.Wrap(err, errGetStatus)
	}
	defer c.mu.Unlock()
	coordinators, reach, err := c.view()
	if err != nil {
		return nil, errors.Wrap(err, errGetStatus)
	}
	return c.degrade(c.statusFor(coordinators, reach)), nil
}

// StatusJSON returns the status as the client's `status json` prints it.
func (c *Client) StatusJSON(ctx context.Context) ([]byte, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(st, "", "  ")
	return out, errors.Wrap(err, errMarshalStatus)
}

// Configure implements fdb.Client.
func (c *Client) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.Configure(ctx, cfg, newDatabase)
}

// Exclude implements fdb.Client.
func (c *Client) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.Exclude(ctx, targets)
}

// Include implements fdb.Client.
func (c *Client) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.Include(ctx, targets)
}

// Kill implements fdb.Client.
func (c *Client) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.Kill(ctx, targets)
}

// ChangeCoordinators implements fdb.Client: the client itself must reach
// every new coordinator, as fdbcli's coordinators command asks each of
// them before it changes anything.
func (c *Client) ChangeCoordinators(ctx context.Context, addrs []fdb.ProcessAddress) (string, error) {
	if err := c.gate(); err != nil {
		return "", err
	}
	c.lock()
	unreachable := slices.ContainsFunc(addrs, func(a fdb.ProcessAddress) bool { return !c.clientReaches(c.creds, a) })
	c.mu.Unlock()
	if unreachable {
		return "", errors.Errorf("%s: %s", errChangeCoordinators, reasonCoordinatorUnreachable)
	}
	return c.Sim.ChangeCoordinators(ctx, addrs)
}

// ForceRecovery implements fdb.Client.
func (c *Client) ForceRecovery(ctx context.Context, dc string) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.ForceRecovery(ctx, dc)
}

// SetMaintenance implements fdb.Client.
func (c *Client) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.SetMaintenance(ctx, zone, seconds)
}

// ResetMaintenance implements fdb.Client.
func (c *Client) ResetMaintenance(ctx context.Context) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.ResetMaintenance(ctx)
}

// StartBackup implements fdb.Client.
func (c *Client) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.StartBackup(ctx, req)
}

// StopBackup implements fdb.Client.
func (c *Client) StopBackup(ctx context.Context, tag string) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.StopBackup(ctx, tag)
}

// PauseBackups implements fdb.Client.
func (c *Client) PauseBackups(ctx context.Context) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.PauseBackups(ctx)
}

// ResumeBackups implements fdb.Client.
func (c *Client) ResumeBackups(ctx context.Context) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.ResumeBackups(ctx)
}

// ModifyBackup implements fdb.Client.
func (c *Client) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.ModifyBackup(ctx, req)
}

// BackupStatus implements fdb.Client.
func (c *Client) BackupStatus(ctx context.Context, tag string) (*fdb.BackupStatus, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Sim.BackupStatus(ctx, tag)
}

// StartRestore implements fdb.Client.
func (c *Client) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.StartRestore(ctx, req)
}

// RestoreStatus implements fdb.Client.
func (c *Client) RestoreStatus(ctx context.Context, tag string) (*fdb.RestoreStatus, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Sim.RestoreStatus(ctx, tag)
}

// AbortRestore implements fdb.Client.
func (c *Client) AbortRestore(ctx context.Context, tag string) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.AbortRestore(ctx, tag)
}

// TakeLock implements fdb.Locker.
func (c *Client) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	if err := c.gate(); err != nil {
		return fdb.GlobalLock{}, err
	}
	return c.Sim.TakeLock(ctx, r)
}

// ReleaseLock implements fdb.Locker.
func (c *Client) ReleaseLock(ctx context.Context, holder string) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.ReleaseLock(ctx, holder)
}

// UpdateLockDenyList implements fdb.Locker.
func (c *Client) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	if err := c.gate(); err != nil {
		return err
	}
	return c.Sim.UpdateLockDenyList(ctx, entries)
}

var _ fdb.Client = (*Client)(nil)
