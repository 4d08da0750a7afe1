package statuscache

import (
	"context"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Client is an admin client whose status reads go through the cache and
// whose changes mark its key changed.
type Client struct {
	fdb.Client
	cache  *Cache
	key    string
	maxAge time.Duration
	// own is whether the last status came from a read of this client's.
	own bool
}

// Status returns the database's status, shared as Cache.Client says.
func (c *Client) Status(ctx context.Context) (*fdb.Status, error) {
	own := false
	s, err := c.cache.Status(ctx, c.key, c.maxAge, func(ctx context.Context) (*fdb.Status, error) {
		own = true
		return c.Client.Status(ctx)
	})
	c.own = own
	return s, err
}

// ReadHere reports whether the last status came from a read of this
// client's own, not one it shared.
func (c *Client) ReadHere() bool { return c.own }

// changed marks the key changed once a call that may change the database
// returned, whether it failed or not: a failed call may have done part of
// its work.
func (c *Client) changed() { c.cache.Changed(c.key) }

func (c *Client) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	defer c.changed()
	return c.Client.Configure(ctx, cfg, newDatabase)
}

func (c *Client) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	defer c.changed()
	return c.Client.Exclude(ctx, targets)
}

func (c *Client) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	defer c.changed()
	return c.Client.Include(ctx, targets)
}

func (c *Client) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	defer c.changed()
	return c.Client.Kill(ctx, targets)
}

func (c *Client) ChangeCoordinators(ctx context.Context, coordinators []fdb.ProcessAddress) (string, error) {
	defer c.changed()
	return c.Client.ChangeCoordinators(ctx, coordinators)
}

func (c *Client) ForceRecovery(ctx context.Context, dc string) error {
	defer c.changed()
	return c.Client.ForceRecovery(ctx, dc)
}

func (c *Client) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	defer c.changed()
	return c.Client.SetMaintenance(ctx, zone, seconds)
}

func (c *Client) ResetMaintenance(ctx context.Context) error {
	defer c.changed()
	return c.Client.ResetMaintenance(ctx)
}

func (c *Client) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	defer c.changed()
	return c.Client.StartBackup(ctx, req)
}

func (c *Client) StopBackup(ctx context.Context, tag string) error {
	defer c.changed()
	return c.Client.StopBackup(ctx, tag)
}

func (c *Client) PauseBackups(ctx context.Context) error {
	defer c.changed()
	return c.Client.PauseBackups(ctx)
}

func (c *Client) ResumeBackups(ctx context.Context) error {
	defer c.changed()
	return c.Client.ResumeBackups(ctx)
}

func (c *Client) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	defer c.changed()
	return c.Client.ModifyBackup(ctx, req)
}

func (c *Client) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	defer c.changed()
	return c.Client.StartRestore(ctx, req)
}

func (c *Client) AbortRestore(ctx context.Context, tag string) error {
	defer c.changed()
	return c.Client.AbortRestore(ctx, tag)
}

func (c *Client) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	defer c.changed()
	return c.Client.TakeLock(ctx, r)
}

func (c *Client) ReleaseLock(ctx context.Context, holder string) error {
	defer c.changed()
	return c.Client.ReleaseLock(ctx, holder)
}

func (c *Client) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	defer c.changed()
	return c.Client.UpdateLockDenyList(ctx, entries)
}
