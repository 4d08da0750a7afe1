package controllertest

import (
	"context"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// AdminCalls are what the provider asked of one Cluster's database so far:
// the sessions it opened on it (one per reconcile of a resource of the
// Cluster that found a cluster file) and its admin calls that reached the
// database, by operation (a status read the sessions share counts once).
type AdminCalls struct {
	Sessions int
	Calls    map[sim.Op]int
	// KilledBeforeLoad are the pods a kill restarted processes of while
	// their monitor did not report running the configuration the ConfigMap
	// held for them (workload.ConfigurationLoaded), read from the API
	// server as the kill was made: each would restart on another.
	KilledBeforeLoad []string
}

// adminCounter reaches the databases through FDB and counts, per Cluster,
// the sessions and admin calls the provider makes.
type adminCounter struct {
	connector.FDB

	mu    sync.Mutex
	calls map[client.ObjectKey]*AdminCalls
}

// Client opens a session on c's database whose admin calls are counted.
func (a *adminCounter) Client(ctx context.Context, target connector.Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, blob *v1alpha1.BlobStore, tls *fdb.TLSCredentials) (fdb.Client, error) {
	db, err := a.FDB.Client(ctx, target, c, cm, blob, tls)
	if err != nil {
		return nil, err
	}
	key := client.ObjectKeyFromObject(c)
	a.of(key, func(n *AdminCalls) { n.Sessions++ })
	return &countingClient{db: db, count: func(op sim.Op) { a.of(key, func(n *AdminCalls) { n.Calls[op]++ }) },
		unloaded: func(ctx context.Context, targets []fdb.ProcessAddress) {
			if pods := unloadedPods(ctx, target, c, cm, targets); len(pods) > 0 {
				a.of(key, func(n *AdminCalls) { n.KilledBeforeLoad = append(n.KilledBeforeLoad, pods...) })
			}
		}}, nil
}

// of changes the counts of the Cluster with key under the lock.
func (a *adminCounter) of(key client.ObjectKey, change func(*AdminCalls)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.calls[key]
	if n == nil {
		n = &AdminCalls{Calls: map[sim.Op]int{}}
		a.calls[key] = n
	}
	change(n)
}

// AdminCalls returns what the provider asked of cr's database so far.
func (h *Harness) AdminCalls(cr *v1alpha1.Cluster) AdminCalls {
	out := AdminCalls{Calls: map[sim.Op]int{}}
	h.admin.of(client.ObjectKeyFromObject(cr), func(n *AdminCalls) {
		out = AdminCalls{Sessions: n.Sessions, Calls: maps.Clone(n.Calls), KilledBeforeLoad: slices.Clone(n.KilledBeforeLoad)}
	})
	return out
}

// unloadedPods are the running pods of cluster c, among those with a
// process at one of targets, whose monitor does not report running the
// configuration ConfigMap cm holds for it; none when the pods cannot be
// listed.
func unloadedPods(ctx context.Context, target connector.Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, targets []fdb.ProcessAddress) []string {
	pods := &corev1.PodList{}
	if target.List(ctx, pods, client.InNamespace(workload.Namespace(c)), client.MatchingLabels{workload.LabelCluster: c.GetName()}) != nil {
		return nil
	}
	hosts := map[string]bool{}
	for _, t := range targets {
		hosts[t.Host()] = true
	}
	var out []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && hosts[workload.PublicIP(p)] && !workload.ConfigurationLoaded(p, cm.Data) {
			out = append(out, p.Name)
		}
	}
	return out
}

// countingClient counts every admin call before it makes it on db, and
// records the kills of processes whose monitor had not loaded its
// configuration (unloaded).
type countingClient struct {
	db       fdb.Client
	count    func(sim.Op)
	unloaded func(context.Context, []fdb.ProcessAddress)
}

func (c *countingClient) Status(ctx context.Context) (*fdb.Status, error) {
	c.count(sim.OpStatus)
	return c.db.Status(ctx)
}

func (c *countingClient) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	c.count(sim.OpConfigure)
	return c.db.Configure(ctx, cfg, newDatabase)
}

func (c *countingClient) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	c.count(sim.OpExclude)
	return c.db.Exclude(ctx, targets)
}

func (c *countingClient) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	c.count(sim.OpInclude)
	return c.db.Include(ctx, targets)
}

func (c *countingClient) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	c.count(sim.OpKill)
	c.unloaded(ctx, targets)
	return c.db.Kill(ctx, targets)
}

func (c *countingClient) ChangeCoordinators(ctx context.Context, coordinators []fdb.ProcessAddress) (string, error) {
	c.count(sim.OpCoordinators)
	return c.db.ChangeCoordinators(ctx, coordinators)
}

func (c *countingClient) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	c.count(sim.OpMaintenance)
	return c.db.SetMaintenance(ctx, zone, seconds)
}

func (c *countingClient) ForceRecovery(ctx context.Context, dc string) error {
	c.count(sim.OpForceRecovery)
	return c.db.ForceRecovery(ctx, dc)
}

func (c *countingClient) ResetMaintenance(ctx context.Context) error {
	c.count(sim.OpMaintenance)
	return c.db.ResetMaintenance(ctx)
}

func (c *countingClient) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	c.count(sim.OpStartBackup)
	return c.db.StartBackup(ctx, req)
}

func (c *countingClient) StopBackup(ctx context.Context, tag string) error {
	c.count(sim.OpStopBackup)
	return c.db.StopBackup(ctx, tag)
}

func (c *countingClient) PauseBackups(ctx context.Context) error {
	c.count(sim.OpPauseBackups)
	return c.db.PauseBackups(ctx)
}

func (c *countingClient) ResumeBackups(ctx context.Context) error {
	c.count(sim.OpResumeBackups)
	return c.db.ResumeBackups(ctx)
}

func (c *countingClient) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	c.count(sim.OpModifyBackup)
	return c.db.ModifyBackup(ctx, req)
}

func (c *countingClient) BackupStatus(ctx context.Context, tag string) (*fdb.BackupStatus, error) {
	c.count(sim.OpBackupStatus)
	return c.db.BackupStatus(ctx, tag)
}

func (c *countingClient) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	c.count(sim.OpStartRestore)
	return c.db.StartRestore(ctx, req)
}

func (c *countingClient) RestoreStatus(ctx context.Context, tag string) (*fdb.RestoreStatus, error) {
	c.count(sim.OpRestoreStatus)
	return c.db.RestoreStatus(ctx, tag)
}

func (c *countingClient) AbortRestore(ctx context.Context, tag string) error {
	c.count(sim.OpAbortRestore)
	return c.db.AbortRestore(ctx, tag)
}

func (c *countingClient) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	c.count(sim.OpLock)
	return c.db.TakeLock(ctx, r)
}

func (c *countingClient) ReleaseLock(ctx context.Context, holder string) error {
	c.count(sim.OpLock)
	return c.db.ReleaseLock(ctx, holder)
}

func (c *countingClient) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	c.count(sim.OpLock)
	return c.db.UpdateLockDenyList(ctx, entries)
}
