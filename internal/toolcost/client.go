package toolcost

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const errWait = "cannot wait for %s"

// Client is an fdb.Client whose every call costs what its operation costs
// (Of) before it returns: the start of the tool's run first, then the
// operation, then the command's own cost, on a status the more the more
// processes it lists. A context that ends during the start returns its
// error with nothing done, as a tool killed before it connected; one that
// ends later returns its error after the operation took effect, as a tool
// killed after its commit.
type Client struct {
	inner   fdb.Client
	metrics *Metrics
	wait    func(ctx context.Context, d time.Duration) error
}

var _ fdb.Client = &Client{}

// Wrap returns c costing what the tools cost, waiting on clk and counting
// in m.
func Wrap(c fdb.Client, m *Metrics, clk clock.Clock) *Client {
	return &Client{inner: c, metrics: m, wait: sleeper(clk)}
}

// sleeper waits d on clk, or until ctx ends.
func sleeper(clk clock.Clock) func(ctx context.Context, d time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		if d <= 0 {
			return nil
		}
		t := clk.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C():
			return nil
		}
	}
}

// pay counts cost and waits its wall time; start counts a tool run.
func (c *Client) pay(ctx context.Context, op Op, cost Cost, start bool) error {
	c.metrics.record(op, cost, start)
	return errors.Wrapf(c.wait(ctx, cost.Wall), errWait, op)
}

// call runs f as op on c, paying its start before and its run after.
func call[T any](ctx context.Context, c *Client, op Op, f func() (T, error)) (T, error) {
	var zero T
	start, _ := Of(op, 0)
	if err := c.pay(ctx, op, start, Tool(op)); err != nil {
		return zero, err
	}
	v, err := f()
	processes := 0
	if s, ok := any(v).(*fdb.Status); ok && s != nil {
		processes = len(s.Cluster.Processes)
	}
	_, run := Of(op, processes)
	if werr := c.pay(ctx, op, run, false); werr != nil {
		return zero, werr
	}
	return v, err
}

// do is call for an operation that returns only an error.
func do(ctx context.Context, c *Client, op Op, f func() error) error {
	_, err := call(ctx, c, op, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

// Status implements fdb.Client: `fdbcli --exec 'status json'`.
func (c *Client) Status(ctx context.Context) (*fdb.Status, error) {
	return call(ctx, c, OpStatus, func() (*fdb.Status, error) { return c.inner.Status(ctx) })
}

// Configure implements fdb.Client: fdbcli configure.
func (c *Client) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	return do(ctx, c, OpConfigure, func() error { return c.inner.Configure(ctx, cfg, newDatabase) })
}

// Exclude implements fdb.Client: fdbcli exclude no_wait.
func (c *Client) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	return do(ctx, c, OpExclude, func() error { return c.inner.Exclude(ctx, targets) })
}

// Include implements fdb.Client: fdbcli include.
func (c *Client) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	return do(ctx, c, OpInclude, func() error { return c.inner.Include(ctx, targets) })
}

// Kill implements fdb.Client: fdbcli kill, then sleep 5.
func (c *Client) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	return do(ctx, c, OpKill, func() error { return c.inner.Kill(ctx, targets) })
}

// ChangeCoordinators implements fdb.Client: fdbcli coordinators.
func (c *Client) ChangeCoordinators(ctx context.Context, coordinators []fdb.ProcessAddress) (string, error) {
	return call(ctx, c, OpCoordinators, func() (string, error) { return c.inner.ChangeCoordinators(ctx, coordinators) })
}

// ForceRecovery implements fdb.Client: fdbcli force_recovery_with_data_loss.
func (c *Client) ForceRecovery(ctx context.Context, dc string) error {
	return do(ctx, c, OpForceRecovery, func() error { return c.inner.ForceRecovery(ctx, dc) })
}

// SetMaintenance implements fdb.Client: fdbcli maintenance on.
func (c *Client) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	return do(ctx, c, OpMaintenance, func() error { return c.inner.SetMaintenance(ctx, zone, seconds) })
}

// ResetMaintenance implements fdb.Client: fdbcli maintenance off.
func (c *Client) ResetMaintenance(ctx context.Context) error {
	return do(ctx, c, OpMaintenanceOff, func() error { return c.inner.ResetMaintenance(ctx) })
}

// StartBackup implements fdb.Client: fdbbackup start.
func (c *Client) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	return do(ctx, c, OpBackupStart, func() error { return c.inner.StartBackup(ctx, req) })
}

// StopBackup implements fdb.Client: fdbbackup discontinue.
func (c *Client) StopBackup(ctx context.Context, tag string) error {
	return do(ctx, c, OpBackupDiscontinue, func() error { return c.inner.StopBackup(ctx, tag) })
}

// PauseBackups implements fdb.Client: fdbbackup pause.
func (c *Client) PauseBackups(ctx context.Context) error {
	return do(ctx, c, OpBackupPause, func() error { return c.inner.PauseBackups(ctx) })
}

// ResumeBackups implements fdb.Client: fdbbackup resume.
func (c *Client) ResumeBackups(ctx context.Context) error {
	return do(ctx, c, OpBackupResume, func() error { return c.inner.ResumeBackups(ctx) })
}

// ModifyBackup implements fdb.Client: fdbbackup modify.
func (c *Client) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	return do(ctx, c, OpBackupModify, func() error { return c.inner.ModifyBackup(ctx, req) })
}

// BackupStatus implements fdb.Client: fdbbackup status --json.
func (c *Client) BackupStatus(ctx context.Context, tag string) (*fdb.BackupStatus, error) {
	return call(ctx, c, OpBackupStatus, func() (*fdb.BackupStatus, error) { return c.inner.BackupStatus(ctx, tag) })
}

// StartRestore implements fdb.Client: fdbrestore start.
func (c *Client) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	return do(ctx, c, OpRestoreStart, func() error { return c.inner.StartRestore(ctx, req) })
}

// RestoreStatus implements fdb.Client: fdbrestore status.
func (c *Client) RestoreStatus(ctx context.Context, tag string) (*fdb.RestoreStatus, error) {
	return call(ctx, c, OpRestoreStatus, func() (*fdb.RestoreStatus, error) { return c.inner.RestoreStatus(ctx, tag) })
}

// AbortRestore implements fdb.Client: fdbrestore abort.
func (c *Client) AbortRestore(ctx context.Context, tag string) error {
	return do(ctx, c, OpRestoreAbort, func() error { return c.inner.AbortRestore(ctx, tag) })
}

// TakeLock implements fdb.Client: one native-client transaction.
func (c *Client) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	return call(ctx, c, OpTakeLock, func() (fdb.GlobalLock, error) { return c.inner.TakeLock(ctx, r) })
}

// ReleaseLock implements fdb.Client: one native-client transaction.
func (c *Client) ReleaseLock(ctx context.Context, holder string) error {
	return do(ctx, c, OpReleaseLock, func() error { return c.inner.ReleaseLock(ctx, holder) })
}

// UpdateLockDenyList implements fdb.Client: one native-client transaction.
func (c *Client) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	return do(ctx, c, OpLockDenyList, func() error { return c.inner.UpdateLockDenyList(ctx, entries) })
}
