package chaos

import (
	"context"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/coordination"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const errGetLiveCluster = "cannot read the Cluster the simulator learns its processes for"

// backend is the FoundationDB the provider reaches: the simulator, which
// learns its processes from the API server as it is (FoundationDB knows
// which processes run, whatever the provider's caches say), keyed by the
// order in which clusters' ConfigMaps appear (UIDs differ from run to run;
// the order does not).
type backend struct {
	sims connector.SimFDB
	live client.Client
	// keys are the deterministic simulator keys by ConfigMap UID.
	keys map[types.UID]string
	// alive reports whether the provider that asks is still running.
	alive func() bool
	// used records, by Cluster name, the database the provider last
	// reached for it (nil: not recorded).
	used map[string]*sim.Sim
	// reads records the status reads of the provider incarnation.
	reads *statusReads
}

// Client returns the simulator of c behind the admin-client faults, after
// syncing it with the API server's pods, claims and agents.
func (b *backend) Client(ctx context.Context, _ connector.Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, _ *v1alpha1.BlobStore, _ *fdb.TLSCredentials) (fdb.Client, error) {
	if !b.alive() {
		return nil, errors.New(errCrashed)
	}
	db, err := b.sync(ctx, c, cm)
	if err != nil {
		return nil, err
	}
	if b.used != nil {
		b.used[c.GetName()] = db
	}
	file := cm.Data[workload.KeyClusterFile]
	b.reads.reached(c.GetName(), file)
	return &faultyClient{Client: db, alive: b.alive, read: func() { b.reads.read(file) }}, nil
}

// Files changes the files of the simulated processes of cm's database,
// refused once the provider that asks crashed.
func (b *backend) Files(target connector.Target, cm *corev1.ConfigMap) coordination.Files {
	keyed := cm.DeepCopy()
	keyed.UID = types.UID(b.key(cm))
	return aliveFiles{Files: b.sims.Files(target, keyed), alive: b.alive}
}

// aliveFiles is coordination.Files that fails altogether once the provider
// that holds it crashed.
type aliveFiles struct {
	coordination.Files
	alive func() bool
}

func (f aliveFiles) CopyCoordinationFiles(ctx context.Context, from, to coordination.Process) error {
	if !f.alive() {
		return errors.New(errCrashed)
	}
	return f.Files.CopyCoordinationFiles(ctx, from, to)
}

func (f aliveFiles) RestartOn(ctx context.Context, p *corev1.Pod, cs string) error {
	if !f.alive() {
		return errors.New(errCrashed)
	}
	return f.Files.RestartOn(ctx, p, cs)
}

// sync tells the simulator of cm what runs now, as the API server says,
// and returns it.
func (b *backend) sync(ctx context.Context, c *v1alpha1.Cluster, cm *corev1.ConfigMap) (*sim.Sim, error) {
	live := &v1alpha1.Cluster{}
	switch err := b.live.Get(ctx, client.ObjectKeyFromObject(c), live); {
	case err == nil:
		c = live
	case client.IgnoreNotFound(err) != nil:
		return nil, errors.Wrap(err, errGetLiveCluster)
	}
	keyed := cm.DeepCopy()
	keyed.UID = types.UID(b.key(cm))
	// The client syncs the database; which credentials it would present
	// does not matter to that.
	if _, err := b.sims.Client(ctx, connector.Target{Client: b.live, Live: b.live}, c, keyed, nil, nil); err != nil {
		return nil, err
	}
	return b.sims.Sim(keyed), nil
}

// key returns the simulator key of cm: the key of the database its
// cluster file reaches (a ConfigMap written again after it was lost, or
// the ConfigMap of a Cluster that joined another data center's database),
// else its name and the number of ConfigMaps keyed before it. A key is
// kept once cm holds a cluster file: before, a joining Cluster's ConfigMap
// reaches nothing yet.
func (b *backend) key(cm *corev1.ConfigMap) string {
	if k, ok := b.keys[cm.GetUID()]; ok {
		return k
	}
	file := cm.Data[workload.KeyClusterFile]
	k, ok := b.sims.Registry.KeyAt(file)
	if !ok {
		k = fmt.Sprintf("%s#%d", cm.GetName(), len(b.keys))
	}
	if file != "" {
		b.keys[cm.GetUID()] = k
	}
	return k
}

// faultyClient is a simulated database's admin client that fails
// altogether once the provider that holds it crashed: a dead process makes
// no more calls.
type faultyClient struct {
	fdb.Client
	alive func() bool
	// read notes a status read that succeeded.
	read func()
}

func (f *faultyClient) check(string) error {
	if !f.alive() {
		return errors.New(errCrashed)
	}
	return nil
}

func (f *faultyClient) Status(ctx context.Context) (*fdb.Status, error) {
	if err := f.check("status json"); err != nil {
		return nil, err
	}
	st, err := f.Client.Status(ctx)
	if err == nil {
		f.read()
	}
	return st, err
}

func (f *faultyClient) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	if err := f.check("configure"); err != nil {
		return err
	}
	return f.Client.Configure(ctx, cfg, newDatabase)
}

func (f *faultyClient) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := f.check("exclude"); err != nil {
		return err
	}
	return f.Client.Exclude(ctx, targets)
}

func (f *faultyClient) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := f.check("include"); err != nil {
		return err
	}
	return f.Client.Include(ctx, targets)
}

func (f *faultyClient) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	if err := f.check("kill"); err != nil {
		return err
	}
	return f.Client.Kill(ctx, targets)
}

func (f *faultyClient) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	if err := f.check("maintenance"); err != nil {
		return err
	}
	return f.Client.SetMaintenance(ctx, zone, seconds)
}

func (f *faultyClient) ResetMaintenance(ctx context.Context) error {
	if err := f.check("maintenance"); err != nil {
		return err
	}
	return f.Client.ResetMaintenance(ctx)
}

func (f *faultyClient) ForceRecovery(ctx context.Context, dc string) error {
	if err := f.check("force_recovery"); err != nil {
		return err
	}
	return f.Client.ForceRecovery(ctx, dc)
}

func (f *faultyClient) ChangeCoordinators(ctx context.Context, coordinators []fdb.ProcessAddress) (string, error) {
	if err := f.check("coordinators"); err != nil {
		return "", err
	}
	return f.Client.ChangeCoordinators(ctx, coordinators)
}
