package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

const (
	errProviderConfig = "cannot create the default ClusterProviderConfig"
	errUpdate         = "cannot change %s"
	errNoCoordinator  = "cannot find a coordinator's process group"
	errNoStorageZone  = "cannot find a zone that holds a storage group"
	errNoStorageGroup = "cannot find a storage group"
	errPlatformPolicy = "cannot create the platform's SafetyPolicy"
)

// clusterName is the name of the run's Cluster.
const clusterName = "db"

// A Workload is what a user does to a cluster, one operation at a time.
type Workload struct {
	Name string
	Ops  []Op
	// Clusters are the names of the Clusters the workload makes, each
	// with the index of the provider instance that manages it; none is
	// the one Cluster clusterName under one instance.
	Clusters map[string]int
	// Zones are the run's zones, one stand-in node each; none is the
	// first four of zoneNames.
	Zones []string
	// NodeLabels are the labels a zone's node carries beside its zone
	// and hostname, if any.
	NodeLabels func(zone string) map[string]string
}

// zoneNames are the stand-in nodes' fault domains, one node each: a run
// has the first ones, as many as its workload asks for.
var zoneNames = []string{"zone-a", "zone-b", "zone-c", "zone-d", "zone-e"}

// zones returns the zones of w's runs.
func (w Workload) zones() []string {
	if len(w.Zones) == 0 {
		return zoneNames[:4]
	}
	return w.Zones
}

// An Op is one thing a user does; the run then injects Faults (and
// crashes the provider, when there are any), stops them and waits until
// Converged holds (the Cluster Ready and up to date when nil).
type Op struct {
	Name      string
	Do        func(ctx context.Context, r *run) error
	Faults    []fault
	Converged func(r *run) (bool, string)
}

// Workloads are the scenarios, in the order the seeds take them.
var Workloads = []Workload{
	{Name: "bootstrap", Ops: []Op{bootstrap(true)}},
	{Name: "scale", Ops: []Op{bootstrap(false), scaleStorage(2), scaleStorage(3)}},
	{Name: "node-loss", Ops: []Op{bootstrap(false), replaceLostNode()}},
	{Name: "coordinator-change", Ops: []Op{bootstrap(false), removeCoordinator()}},
	{Name: "knob-bounce", Ops: []Op{bootstrap(false), knob()}},
	{Name: "cluster-delete", Ops: []Op{bootstrap(false), deleteCluster()}},
	{Name: "orphan", Ops: []Op{bootstrap(false), orphan()}},
	{Name: "upgrade", Ops: []Op{bootstrapOn("7.1.66"), upgrade("7.1.67"), upgrade("7.3.63")}},
	{Name: "backup-restore", Ops: []Op{bootstrap(false), backUp(), restoreOverData(), stopBackup()}},
	{Name: "replace", Ops: []Op{bootstrap(false), storageDensity(2), replaceStorageGroup(), storageDensity(1)}},
	{Name: "stranded", Ops: []Op{bootstrapNodeLocal(), strandStorage()}},
	{Name: "rollout", Ops: []Op{bootstrap(false), rollout()}},
	{Name: "platform-policy", Ops: []Op{bootstrapUnderPlatformPolicy(), storageDensity(2)}},
	multiRegion,
	tlsWorkload,
	// The quickstart's shape: triple redundancy over five zones.
	{Name: "triple", Ops: []Op{bootstrapShaped("triple", quickstart, true), rollout()}, Zones: zoneNames},
	// Ten storage groups of two storage servers each.
	{Name: "dense", Ops: []Op{bootstrapShaped("dense", dense, false), replaceStorageGroup(), scaleStorage(12)}},
	threeDataHalls,
	// The storage engine migrated, one storage server at a time.
	{Name: "storage-migration", Ops: []Op{bootstrap(false), migrateStorage("ssd-redwood-1")}},
	maintenance,
	// The storage engine migrated by replacing every storage group.
	{Name: "storage-migration-by-replacement", Ops: []Op{bootstrap(false), migrateStorageByReplacement("ssd-redwood-1")}},
	// The logs migrated to two log servers a pod and back.
	{Name: "log-density", Ops: []Op{bootstrap(false), logDensity(2), logDensity(1)}},
	// A majority of the coordinators' disks lost, and the way back.
	lostCoordinators,
	// Every group moved to a Service IP of its own and back, under faults
	// that delete those Services too.
	{Name: "public-ip-service", Ops: []Op{bootstrap(false), publicIPSource(fdbv1alpha1.PublicIPSourceService), publicIPSource(fdbv1alpha1.PublicIPSourcePod)}},
	// Commit proxies and coordinators on groups of their own classes,
	// made under faults, then rolled.
	{Name: "role-classes", Ops: []Op{bootstrapShaped("role classes", func(c *fdbv1alpha1.Cluster) {
		c.Spec.ForProvider.ProcessCounts.CommitProxy = 2
		c.Spec.ForProvider.ProcessCounts.Coordinator = 3
	}, true), rollout()}},
	// Fault drills, a crash loop and a pod kept from scheduling, each
	// started through the gate and ended by itself, under faults.
	drills,
}

// cluster is the run's Cluster: double redundancy, three storage, three
// log groups and a stateless one (no volume: its zone recreates its pod
// first) over the stand-in zones, with the built-in time thresholds of the
// policies; createCluster shortens them for the runs that do not run on
// the defaults.
func cluster(ns string) *fdbv1alpha1.Cluster {
	return &fdbv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName, Namespace: ns},
		Spec: fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{
			Version:               "7.3.63",
			DatabaseConfiguration: fdbv1alpha1.DatabaseConfiguration{RedundancyMode: fdbv1alpha1.RedundancyDouble, StorageEngine: "ssd-2"},
			ProcessCounts:         fdbv1alpha1.ProcessCounts{Storage: 3, Log: 3, Stateless: 1},
			Automation:            fdbv1alpha1.AutomationOptions{MaxConcurrentReplacements: 1},
		}},
	}
}

// shortened are the policies' time thresholds of a run off the defaults
// (120, 600, 120 and 60 s since the last recovery, 1,800 s of I/O errors):
// a run then takes minutes of virtual time rather than tens.
var shortened = map[string]any{"minSecondsSinceRecoveryForExclude": 30, "minSecondsSinceRecoveryForInclude": 60,
	"minSecondsSinceRecoveryForCoordinatorChange": 30, "minSecondsSinceRecoveryForConfigure": 30, "ioErrorDetectionSeconds": 60}

// createCluster creates c; unless the run runs on the defaults it shortens
// the policies' time thresholds, the minimum uptime before a bounce (600 s
// by default) and the failure detection time (7,200 s).
func (r *run) createCluster(ctx context.Context, c *fdbv1alpha1.Cluster) error {
	if !r.defaults {
		c.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = 60
		c.Spec.ForProvider.Automation.MinimumUptimeSecondsForBounce = 30
		if err := setParams(c, shortened); err != nil {
			return err
		}
	}
	return r.kube.Create(ctx, c)
}

// setParams sets params among the parameters c's policies take.
func setParams(c *fdbv1alpha1.Cluster, params map[string]any) error {
	all := map[string]any{}
	if p := c.Spec.ForProvider.Safety.Params; p != nil {
		if err := json.Unmarshal(p.Raw, &all); err != nil {
			return err
		}
	}
	maps.Copy(all, params)
	raw, err := json.Marshal(all)
	if err != nil {
		return err
	}
	c.Spec.ForProvider.Safety.Params = &runtime.RawExtension{Raw: raw}
	return nil
}

func bootstrap(faulty bool) Op {
	var fs []fault
	if faulty {
		fs = faults
	}
	return Op{Name: "bootstrap", Faults: fs, Do: func(ctx context.Context, r *run) error {
		return r.createCluster(ctx, cluster(r.ns))
	}}
}

// bootstrapShaped creates the run's Cluster in the shape shape gives it,
// under faults when faulty.
func bootstrapShaped(name string, shape func(*fdbv1alpha1.Cluster), faulty bool) Op {
	op := bootstrap(faulty)
	op.Name = "bootstrap " + name
	op.Do = func(ctx context.Context, r *run) error {
		c := cluster(r.ns)
		shape(c)
		return r.createCluster(ctx, c)
	}
	return op
}

// quickstart is examples/cluster.yaml's shape: triple redundancy, five
// storage, four log and two stateless groups (11 pods; five coordinators,
// one a zone).
func quickstart(c *fdbv1alpha1.Cluster) {
	c.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = fdbv1alpha1.RedundancyTriple
	c.Spec.ForProvider.ProcessCounts = fdbv1alpha1.ProcessCounts{Storage: 5, Log: 4, Stateless: 2}
}

// dense runs ten storage groups of two storage servers a pod.
func dense(c *fdbv1alpha1.Cluster) {
	c.Spec.ForProvider.ProcessCounts.Storage = 10
	c.Spec.ForProvider.StorageServersPerPod = 2
}

// bootstrapOn creates the run's Cluster on version, a release the others'
// upgrades start from.
func bootstrapOn(version string) Op {
	return Op{Name: "bootstrap on " + version, Do: func(ctx context.Context, r *run) error {
		c := cluster(r.ns)
		c.Spec.ForProvider.Version = version
		return r.createCluster(ctx, c)
	}}
}

// runLabel marks the cluster-scoped objects a run makes, by its namespace,
// for its teardown.
const runLabel = "chaos.foundationdb.crossplane.io/run"

// bootstrapUnderPlatformPolicy creates the run's Cluster under a platform
// team's SafetyPolicy besides the defaults: examples/safetypolicy.yaml's,
// which denies a storage exclusion while data moves or of more than two
// groups at once. The policy is made for the run (its name carries the
// run's namespace) and the Cluster names it, so it applies to no other
// run's Cluster (a Cluster that names none is under every SafetyPolicy).
// A storage migration then asks to exclude all three storage groups in
// one batch, which the policy denies, and the provider proposes smaller
// batches.
func bootstrapUnderPlatformPolicy() Op {
	return Op{Name: "bootstrap under a platform policy", Do: func(ctx context.Context, r *run) error {
		objs, err := manifest.Read([]string{filepath.Join(testenv.Root(), "examples", "safetypolicy.yaml")}, "SafetyPolicy")
		if err != nil {
			return err
		}
		c := cluster(r.ns)
		for _, o := range objs {
			sp := &v1alpha1.SafetyPolicy{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, sp); err != nil {
				return errors.Wrap(err, errPlatformPolicy)
			}
			sp.SetName(sp.GetName() + "-" + r.ns)
			sp.SetLabels(map[string]string{runLabel: r.ns})
			if err := r.kube.Create(ctx, sp); err != nil {
				return errors.Wrap(err, errPlatformPolicy)
			}
			c.Spec.ForProvider.Safety.Policies = append(c.Spec.ForProvider.Safety.Policies, sp.GetName())
		}
		return r.createCluster(ctx, c)
	}}
}

// bootstrapNodeLocal creates the run's Cluster with node-local storage
// volumes, whose groups are replaced at once when their node fails
// (replaceStrandedVolumesAtOnce).
func bootstrapNodeLocal() Op {
	return Op{Name: "bootstrap with node-local storage", Do: func(ctx context.Context, r *run) error {
		c := cluster(r.ns)
		c.Spec.ForProvider.Processes = map[string]fdbv1alpha1.ProcessSettings{"storage": {StorageClassName: ptr.To(testenv.NodeLocalStorageClass)}}
		if err := setParams(c, map[string]any{"replaceStrandedVolumesAtOnce": true}); err != nil {
			return err
		}
		return r.createCluster(ctx, c)
	}}
}

// strandStorage fails, for the fault window, the node of a zone that
// holds a storage group (the seeded source picks which), when no other
// zone is faulted: a node-local storage group there is stranded, and its
// early replacement races the node's return.
func strandStorage() Op {
	return Op{Name: "fail a storage node", Faults: faults, Do: func(ctx context.Context, r *run) error {
		zone, err := r.storageZone()
		if err != nil {
			return err
		}
		before, err := r.databases(ctx)
		if err != nil {
			return err
		}
		what, err := r.failNode(ctx, before, zone)
		if what == "" {
			what = "zone " + zone + " may not fail now"
		}
		r.log("stranding storage: %s", what)
		return err
	}}
}

// updateCluster changes every live Cluster of the run with change, one
// after the other, retrying conflicts.
func (r *run) updateCluster(ctx context.Context, change func(*fdbv1alpha1.Cluster)) error {
	for _, name := range r.clusters {
		if err := update(ctx, r, &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: name}}, change); err != nil {
			return err
		}
	}
	return nil
}

// update changes the live object named as obj is with change, retrying
// conflicts.
func update[T client.Object](ctx context.Context, r *run, obj T, change func(T)) error {
	return errors.Wrapf(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change(obj)
		return r.kube.Update(ctx, obj)
	}), errUpdate, obj.GetName())
}

func scaleStorage(n int) Op {
	return Op{Name: fmt.Sprintf("scale storage to %d", n), Faults: faults, Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.ProcessCounts.Storage = n })
	}}
}

// storageDensity migrates storage to n storage servers per pod: every
// storage group is replaced by one of the new density.
func storageDensity(n int) Op {
	return Op{Name: fmt.Sprintf("storage density %d", n), Faults: faults, Converged: both(clusterConverged, densityIs(fdbv1alpha1.ProcessClassStorage, n)), Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.StorageServersPerPod = n })
	}}
}

// logDensity migrates the logs to n log servers per pod: every log group
// is replaced by one of the new density.
func logDensity(n int) Op {
	return Op{Name: fmt.Sprintf("log density %d", n), Faults: faults, Converged: both(clusterConverged, densityIs(fdbv1alpha1.ProcessClassLog, n)), Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.LogServersPerPod = n })
	}}
}

// densityIs: every group of class runs n processes per pod.
func densityIs(class fdbv1alpha1.ProcessClass, n int) func(*run) (bool, string) {
	return func(r *run) (bool, string) {
		var wrong []string
		for _, o := range r.hist.latest()[groupKind] {
			pg := o.(*fdbv1alpha1.ProcessGroup)
			if pg.Spec.ForProvider.ProcessClass == class && max(pg.Spec.ForProvider.ProcessesPerPod, 1) != n {
				wrong = append(wrong, fmt.Sprintf("%s (%d)", pg.ID(), pg.Spec.ForProvider.ProcessesPerPod))
			}
		}
		return len(wrong) == 0, fmt.Sprintf("%s groups of another density than %d: %v", class, n, wrong)
	}
}

// replaceStorageGroup asks, in the Cluster's processGroupsToReplace, to
// replace a storage group the seeded source picks.
func replaceStorageGroup() Op {
	return Op{Name: "replace a storage group", Faults: faults, Do: func(ctx context.Context, r *run) error {
		var ids []string
		for _, o := range r.hist.latest()[groupKind] {
			if pg := o.(*fdbv1alpha1.ProcessGroup); pg.Spec.ForProvider.ProcessClass == fdbv1alpha1.ProcessClassStorage {
				ids = append(ids, pg.ID())
			}
		}
		if len(ids) == 0 {
			return errors.New(errNoStorageGroup)
		}
		slices.Sort(ids)
		id := ids[r.pick(len(ids))]
		r.log("asking to replace %s", id)
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.ProcessGroupsToReplace = append(c.Spec.ForProvider.ProcessGroupsToReplace, id)
		})
	}}
}

// upgrade moves to another version: a protocol-incompatible minor release
// is staged in every pod in place, named in the ConfigMap, loaded by every
// monitor and then every process restarts on it in one kill, no pod
// recreated; a patch release rolls the pods zone by zone onto an image of
// the new patch (the monitor runs its image's own fdbserver for any patch of
// the image's protocol).
func upgrade(version string) Op {
	return Op{Name: "upgrade to " + version, Faults: faults, Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.Version = version })
	}}
}

// migrateStorage changes the storage engine: the provider configures it
// with a gradual migration and the perpetual wiggle, and FoundationDB
// replaces the storage servers one at a time; the Cluster is up to date
// once every one runs the new engine.
func migrateStorage(engine string) Op {
	return Op{Name: "migrate the storage engine to " + engine, Faults: faults, Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.DatabaseConfiguration.StorageEngine = engine })
	}}
}

// migrateStorageByReplacement changes the storage engine to engine under
// storageMigrationMethod ReplaceGroups: every storage group is replaced by
// one whose servers are recruited with the new engine.
func migrateStorageByReplacement(engine string) Op {
	return Op{Name: "migrate the storage engine to " + engine + " by replacing groups", Faults: faults, Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.DatabaseConfiguration.StorageEngine = engine
			c.Spec.ForProvider.StorageMigrationMethod = fdbv1alpha1.StorageMigrationReplaceGroups
		})
	}}
}

// publicIPSource moves the cluster's processes to source: every group is
// replaced by one known by that source, under the faults that may also
// delete a group's Service (DeleteService).
func publicIPSource(source fdbv1alpha1.PublicIPSource) Op {
	return Op{Name: "public IP source " + string(source), Faults: append(slices.Clone(faults), fault{"DeleteService", deleteService}), Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.Routing.PublicIPSource = source })
	}}
}

// rollout changes the pod template: every pod is recreated, one fault
// domain at a time, each zone under maintenance while its pods are.
func rollout() Op {
	return Op{Name: "pod template rollout", Faults: faults, Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.Processes = map[string]fdbv1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Value: "fdb", Effect: corev1.TaintEffectNoSchedule}}},
			}}}
		})
	}}
}

func knob() Op {
	return Op{Name: "knob bounce", Faults: faults, Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.Processes = map[string]fdbv1alpha1.ProcessSettings{"general": {CustomParameters: []string{"knob_disable_posix_kernel_aio=1"}}}
		})
	}}
}

// slowMovement is how fast data moves once a node is lost: a node holds
// much data, re-replicating it takes minutes, and nothing it held may go
// before. Re-replicating all of the run's 128 MiB takes 8.5 minutes of the
// 30 or so that the quiet steps span (at 128 KiB/s, the 18 minutes some
// seeds' lost zone needed left the removals too little time to finish).
const slowMovement = 256 << 10

// replaceLostNode loses for good the node of a zone that holds a storage
// group (the seeded source picks which): NotReady, its processes down
// until their groups are removed, re-replication slow; its object is
// deleted five minutes later (the machine is gone) and the pods bound to
// it with it. At once, it deletes the groups of that zone, as a user
// replacing them does.
func replaceLostNode() Op {
	return Op{Name: "lose a node and replace its groups", Faults: faults, Do: func(ctx context.Context, r *run) error {
		zone, err := r.storageZone()
		if err != nil {
			return err
		}
		r.lostZone, r.lostNode, r.lostAt = zone, nodeOf(zone), r.clock.Now()
		if err := r.nodes.SetReady(ctx, r.lostNode, false); err != nil {
			return err
		}
		dbs, err := r.databases(ctx)
		if err != nil {
			return err
		}
		for _, db := range distinct(dbs) {
			_ = db.sim.LoseZone(zone, sim.Forever) // a zone without processes loses nothing
			if err := db.sim.SetMovementRate(slowMovement); err != nil {
				return err
			}
		}
		r.log("lost zone %s", zone)
		for _, o := range r.hist.latest()[groupKind] {
			pg := o.(*fdbv1alpha1.ProcessGroup)
			if pg.Status.AtProvider.FaultDomain != zone {
				continue
			}
			r.log("deleting lost group %s", pg.ID())
			if err := client.IgnoreNotFound(r.kube.Delete(ctx, pg)); err != nil {
				return err
			}
		}
		return nil
	}}
}

// storageZone picks a zone that holds a storage group.
func (r *run) storageZone() (string, error) {
	var zones []string
	for _, o := range r.hist.latest()[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if z := pg.Status.AtProvider.FaultDomain; pg.Spec.ForProvider.ProcessClass == fdbv1alpha1.ProcessClassStorage && z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	if len(zones) == 0 {
		return "", errors.New(errNoStorageZone)
	}
	slices.Sort(zones)
	return zones[r.pick(len(zones))], nil
}

// coordinatorsNow reads the run's database, bypassing the provider's
// admin-client faults, and its connection string: an error when it has no
// status or no coordinators.
func (r *run) coordinatorsNow(ctx context.Context) (*database, fdb.ConnectionString, error) {
	dbs, err := r.databases(ctx)
	if err != nil {
		return nil, fdb.ConnectionString{}, err
	}
	db := dbs[clusterName]
	if db == nil || db.status == nil {
		return nil, fdb.ConnectionString{}, errors.New(errNoCoordinator)
	}
	cs, err := fdb.ParseConnectionString(db.status.Cluster.ConnectionString)
	if err != nil || len(cs.Coordinators) == 0 {
		return nil, fdb.ConnectionString{}, errors.New(errNoCoordinator)
	}
	return db, cs, nil
}

// removeCoordinator deletes the ProcessGroup of a coordinator.
func removeCoordinator() Op {
	return Op{Name: "remove a coordinator's group", Faults: faults, Do: func(ctx context.Context, r *run) error {
		db, cs, err := r.coordinatorsNow(ctx)
		if err != nil {
			return err
		}
		addr := string(cs.Coordinators[r.pick(len(cs.Coordinators))])
		for _, p := range processes(db) {
			if !slices.Contains(p.Names(), addr) {
				continue
			}
			pg := groupOf(r.hist.latest(), clusterName, p.Locality.InstanceID)
			if pg == nil {
				return errors.New(errNoCoordinator)
			}
			r.log("deleting coordinator group %s", pg.ID())
			return r.kube.Delete(ctx, pg)
		}
		return errors.New(errNoCoordinator)
	}}
}

// deleteCluster deletes the Cluster with the default management policies:
// the database goes with it, so its simulator's violations are expected.
func deleteCluster() Op {
	return Op{Name: "delete the Cluster", Faults: transient, Converged: gone(false), Do: func(ctx context.Context, r *run) error {
		for _, k := range r.keys {
			r.exempt(k)
		}
		return r.kube.Delete(ctx, cluster(r.ns))
	}}
}

// orphan drops Delete from the Cluster's management policies, then deletes
// it: the database, its pods and volumes must stay.
func orphan() Op {
	return Op{Name: "orphan the Cluster", Faults: transient, Converged: gone(true), Do: func(ctx context.Context, r *run) error {
		if err := r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
				xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize})
		}); err != nil {
			return err
		}
		return r.kube.Delete(ctx, cluster(r.ns))
	}}
}

// gone: the Cluster is gone, and its ProcessGroups with it; orphaned
// (kept), the groups may stay, and every volume claim stays.
func gone(kept bool) func(r *run) (bool, string) {
	return func(r *run) (bool, string) {
		now := r.hist.latest()
		switch {
		case len(now[clusterKind]) > 0:
			return false, fmt.Sprintf("the Cluster remains (%s) with %d ProcessGroups (%s), %d pods and %d volume claims",
				syncedMessage(now[clusterKind][0]), len(now[groupKind]), firstSynced(now[groupKind]), len(now[podKind]), len(now[pvcKind]))
		case kept && len(now[pvcKind]) < r.volumes:
			return false, fmt.Sprintf("%d of %d volume claims remain after the Cluster was orphaned", len(now[pvcKind]), r.volumes)
		case !kept && len(now[groupKind]) > 0:
			return false, fmt.Sprintf("%d ProcessGroups remain", len(now[groupKind]))
		}
		return true, ""
	}
}

// syncedMessage is the message of a managed resource's Synced condition.
func syncedMessage(o client.Object) string {
	return conditionMessage(o, xpv2.TypeSynced)
}

// conditionMessage is the message of a managed resource's condition.
func conditionMessage(o client.Object, t xpv2.ConditionType) string {
	if mg, ok := o.(interface {
		GetCondition(xpv2.ConditionType) xpv2.Condition
	}); ok {
		return mg.GetCondition(t).Message
	}
	return ""
}

// firstSynced is the Synced message of the first of objs.
func firstSynced(objs []client.Object) string {
	if len(objs) == 0 {
		return ""
	}
	return objs[0].GetName() + ": " + syncedMessage(objs[0])
}

// exempt stops checking the simulator of key: its database was deleted on
// purpose.
func (r *run) exempt(key string) {
	if r.checks.exempt == nil {
		r.checks.exempt = map[string]bool{}
	}
	r.checks.exempt[key] = true
}

// ensureProviderConfig creates the default ClusterProviderConfig the
// managed resources use, once per API server.
func ensureProviderConfig(ctx context.Context, c client.Client) error {
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}}
	if err := c.Create(ctx, cpc); err != nil && !kerrors.IsAlreadyExists(err) {
		return errors.Wrap(err, errProviderConfig)
	}
	return nil
}

// backupName names the run's Backup; its blob store is a stand-in that no
// one reads.
const backupName = "nightly"

// blobStore is where the run's Backup writes and its Restore reads.
var blobStore = fdbv1alpha1.BlobStore{AccountName: "backup@minio.storage.svc:9000", BackupName: backupName}

// backUp starts a continuous backup of the run's Cluster with two agents.
func backUp() Op {
	return Op{Name: "start a backup", Faults: faults, Converged: both(clusterConverged, backupRunning(true)), Do: func(ctx context.Context, r *run) error {
		return r.kube.Create(ctx, &fdbv1alpha1.Backup{
			ObjectMeta: metav1.ObjectMeta{Name: backupName, Namespace: r.ns},
			Spec: fdbv1alpha1.BackupSpec{ForProvider: fdbv1alpha1.BackupParameters{
				ClusterReference: fdbv1alpha1.ClusterReference{ClusterName: clusterName},
				BackupState:      fdbv1alpha1.BackupRunning,
				AgentCount:       2,
				// A stopped backup finishes its current snapshot first;
				// a short period keeps that within the quiet steps.
				SnapshotPeriodSeconds: 120,
				BlobStore:             blobStore,
			}},
		})
	}}
}

// stopBackup stops the backup.
func stopBackup() Op {
	return Op{Name: "stop the backup", Faults: faults, Converged: both(clusterConverged, backupRunning(false)), Do: func(ctx context.Context, r *run) error {
		return update(ctx, r, &fdbv1alpha1.Backup{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: backupName}}, func(b *fdbv1alpha1.Backup) {
			b.Spec.ForProvider.BackupState = fdbv1alpha1.BackupStopped
		})
	}}
}

// restoreOverData asks to restore the backup into the run's database,
// which holds data, without allowing a non-empty destination: whatever the
// faults, the restore must never start (checkRestores), and the Restore
// ends up saying which policy refused it.
func restoreOverData() Op {
	return Op{Name: "restore over data", Faults: faults, Converged: both(clusterConverged, restoreRefused), Do: func(ctx context.Context, r *run) error {
		return r.kube.Create(ctx, &fdbv1alpha1.Restore{
			ObjectMeta: metav1.ObjectMeta{Name: restoreName, Namespace: r.ns},
			Spec: fdbv1alpha1.RestoreSpec{ForProvider: fdbv1alpha1.RestoreParameters{
				ClusterReference: fdbv1alpha1.ClusterReference{ClusterName: clusterName},
				BlobStore:        blobStore,
			}},
		})
	}}
}

// restoreName names the run's Restore.
const restoreName = "over-data"

// both holds when a and b hold; it says why the first that does not.
func both(a, b func(*run) (bool, string)) func(*run) (bool, string) {
	return func(r *run) (bool, string) {
		if ok, why := a(r); !ok {
			return false, why
		}
		return b(r)
	}
}

// backupRunning: the Backup is Ready, with its backup running or not as
// want says.
func backupRunning(want bool) func(*run) (bool, string) {
	return func(r *run) (bool, string) {
		b, _ := r.hist.latest().find(backupKind, client.ObjectKey{Namespace: r.ns, Name: backupName}).(*fdbv1alpha1.Backup)
		if b == nil {
			return false, "the Backup is gone"
		}
		ready := b.GetCondition(xpv2.TypeReady)
		return ready.Status == corev1.ConditionTrue && b.Status.AtProvider.Running == want,
			fmt.Sprintf("Backup Ready=%s (%s), running %v, want %v; Synced: %s", ready.Status, ready.Message, b.Status.AtProvider.Running, want, syncedMessage(b))
	}
}

// restoreRefused: the Restore's last policy decision is fdb-restore's
// denial.
func restoreRefused(r *run) (bool, string) {
	rs, _ := r.hist.latest().find(restoreKind, client.ObjectKey{Namespace: r.ns, Name: restoreName}).(*fdbv1alpha1.Restore)
	if rs == nil {
		return false, "the Restore is gone"
	}
	d := rs.Status.AtProvider.LastPolicyDecision
	if d == nil {
		return false, "the Restore records no policy decision; Synced: " + syncedMessage(rs)
	}
	return d.Result == string(policy.ResultDenied) && strings.HasPrefix(d.Rule, "fdb-restore"),
		fmt.Sprintf("the Restore's last decision: %s %s by %s (%s)", d.Action, d.Result, d.Rule, d.Message)
}
