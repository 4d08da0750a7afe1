package statuscache

import (
	"context"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// client is an admin client whose status reads go through the cache and
// whose changes mark its key changed.
type client struct {
	fdb.Client
	cache  *Cache
	key    string
	maxAge time.Duration
}

func (c *client) Status(ctx context.Context) (*fdb.Status, error) {
	return c.cache.Status(ctx, c.key, c.maxAge, c.Client.Status)
}

// changed marks the key changed once a call that may change the database
// returned, whether it failed or not: a failed call may have done part of
// its work.
func (c *client) changed() { c.cache.Changed(c.key) }

func (c *client) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	defer c.changed()
	return c.Client.Configure(ctx, cfg, newDatabase)
}

func (c *client) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	defer c.changed()
	return c.Client.Exclude(ctx, targets)
}

func (c *client) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	defer c.changed()
	return c.Client.Include(ctx, targets)
}

func (c *client) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	defer c.changed()
	return c.Client.Kill(ctx, targets)
}

func (c *client) ChangeCoordinators(ctx context.Context, coordinators []fdb.ProcessAddress) (string, error) {
	defer c.changed()
	return c.Client.ChangeCoordinators(ctx, coordinators)
}

func (c *client) ForceRecovery(ctx context.Context, dc string) error {
	defer c.changed()
	return c.Client.ForceRecovery(ctx, dc)
}

func (c *client) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	defer c.changed()
	return c.Client.SetMaintenance(ctx, zone, seconds)
}

func (c *client) ResetMaintenance(ctx context.Context) error {
	defer c.changed()
	return c.Client.ResetMaintenance(ctx)
}

func (c *client) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	defer c.changed()
	return c.Client.StartBackup(ctx, req)
}

func (c *client) StopBackup(ctx context.Context, tag string) error {
	defer c.changed()
	return c.Client.StopBackup(ctx, tag)
}

func (c *client) PauseBackups(ctx context.Context) error {
	defer c.changed()
	return c.Client.PauseBackups(ctx)
}

func (c *client) ResumeBackups(ctx context.Context) error {
	defer c.changed()
	return c.Client.ResumeBackups(ctx)
}

func (c *client) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	defer c.changed()
	return c.Client.ModifyBackup(ctx, req)
}

func (c *client) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	defer c.changed()
	return c.Client.StartRestore(ctx, req)
}

func (c *client) AbortRestore(ctx context.Context, tag string) error {
	defer c.changed()
	return c.Client.AbortRestore(ctx, tag)
}

func (c *client) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	defer c.changed()
	return c.Client.TakeLock(ctx, r)
}

func (c *client) ReleaseLock(ctx context.Context, holder string) error {
	defer c.changed()
	return c.Client.ReleaseLock(ctx, holder)
}

func (c *client) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	defer c.changed()
	return c.Client.UpdateLockDenyList(ctx, entries)
}
