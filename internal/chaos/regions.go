package chaos

import (
	"context"
	"fmt"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const errNoSeed = "cannot join the database: the Cluster that made it records no connection string"

// The data centers of the multi-region workload: dc1, the primary, with
// its satellite dc1s, and the remote dc2. Two provider instances manage
// them, one per Kubernetes cluster: instance 0 dc1 and dc1s, instance 1
// dc2 (the stand-in nodes are shared: a node fault takes down that zone
// of every data center at once).
const (
	primaryDC   = "dc1"
	satelliteDC = "dc1s"
	remoteDC    = "dc2"
)

// regionLockSeconds is the global lock's duration in the multi-region
// workload: shorter than the fault window, so that a paused instance's
// lock expires while it is paused and the other may take it.
const regionLockSeconds = 60

var multiRegion = regionWorkload("multi-region", regionCluster)

// regionWorkload is the multi-region workload called name, its Clusters
// made by spec: the primary makes the database, its satellite and the
// remote data center join it, then it fails over to dc2 and back, the
// last three under faults.
func regionWorkload(name string, spec func(ns, dc string) *fdbv1alpha1.Cluster) Workload {
	return Workload{Name: name,
		Ops:      []Op{bootstrapRegions(spec), joinRegions(spec), failover(remoteDC, 0, 1), failover(primaryDC, 1, 0)},
		Clusters: map[string]int{primaryDC: 0, satelliteDC: 0, remoteDC: 1}}
}

// regionFaults are the faults of a multi-region database: every fault of
// one, a data center cut off, and a provider instance paused past its
// lock.
var regionFaults = slices.Concat(faults, []fault{{"LoseDataCenter", loseDataCenter}, {"PauseProvider", pauseProvider}})

// regions are dc1 (with its satellite) and dc2 at the priorities given.
func regions(dc1, dc2 int) []fdbv1alpha1.Region {
	return []fdbv1alpha1.Region{
		{DataCenters: []fdbv1alpha1.RegionDataCenter{{ID: primaryDC, Priority: dc1}, {ID: satelliteDC, Priority: 1, Satellite: true}}, SatelliteRedundancyMode: "one_satellite_double"},
		{DataCenters: []fdbv1alpha1.RegionDataCenter{{ID: remoteDC, Priority: dc2}}},
	}
}

// regionCluster is the Cluster of data center dc in the run's namespace:
// the run's Cluster's settings, two usable regions, dc1 the primary, and
// the logs alone in the satellite.
func regionCluster(ns, dc string) *fdbv1alpha1.Cluster {
	c := cluster(ns)
	c.SetName(dc)
	p := &c.Spec.ForProvider
	p.DataCenter = dc
	p.DatabaseConfiguration.UsableRegions = 2
	p.DatabaseConfiguration.Regions = regions(1, 0)
	p.Locks.DurationSeconds = regionLockSeconds
	if dc == satelliteDC {
		p.ProcessCounts = fdbv1alpha1.ProcessCounts{Log: 3}
	}
	return c
}

// bootstrapRegions creates the primary's Cluster, which makes the
// database.
func bootstrapRegions(spec func(ns, dc string) *fdbv1alpha1.Cluster) Op {
	return bootstrapFirst("bootstrap the primary data center", primaryDC, spec)
}

// bootstrapFirst creates the Cluster called first, which makes the
// database the others join; it converges once it recorded the database's
// connection string (a database that spans several data centers or halls
// waits for the others).
func bootstrapFirst(name, first string, spec func(ns, name string) *fdbv1alpha1.Cluster) Op {
	return Op{Name: name, Converged: madeDatabase(first), Do: func(ctx context.Context, r *run) error {
		return r.createCluster(ctx, spec(r.ns, first))
	}}
}

// madeDatabase: the Cluster called name made its database and recorded
// its connection string.
func madeDatabase(name string) func(*run) (bool, string) {
	return func(r *run) (bool, string) {
		c, _ := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: name}).(*fdbv1alpha1.Cluster)
		if c == nil {
			return false, "the Cluster is gone"
		}
		a := c.Status.AtProvider
		return a.Configured && a.ConnectionString != "", fmt.Sprintf("configured %t, connection string %q; Synced: %s", a.Configured, a.ConnectionString, syncedMessage(c))
	}
}

// joinRegions creates the satellite's and the remote data center's
// Clusters under faults: the database reaches two usable regions, dc1 the
// primary.
func joinRegions(spec func(ns, dc string) *fdbv1alpha1.Cluster) Op {
	op := joinOthers(primaryDC, []string{satelliteDC, remoteDC}, spec)
	op.Name, op.Faults, op.Converged = "join the satellite and the remote data center", regionFaults, both(clusterConverged, primaryIs(primaryDC))
	return op
}

// joinOthers creates the Clusters called others, seeded with the
// connection string the Cluster called first recorded.
func joinOthers(first string, others []string, spec func(ns, name string) *fdbv1alpha1.Cluster) Op {
	return Op{Do: func(ctx context.Context, r *run) error {
		made := &fdbv1alpha1.Cluster{}
		if err := r.kube.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: first}, made); err != nil {
			return err
		}
		seed := made.Status.AtProvider.ConnectionString
		if seed == "" {
			return errors.New(errNoSeed)
		}
		for _, name := range others {
			c := spec(r.ns, name)
			c.Spec.ForProvider.SeedConnectionString = seed
			if err := r.createCluster(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}}
}

// failover gives dc1 and dc2 the priorities given in every Cluster's
// spec, in one step, under faults: the database moves its primary to to.
func failover(to string, dc1, dc2 int) Op {
	return Op{Name: "fail over to " + to, Faults: regionFaults, Converged: both(clusterConverged, primaryIs(to)), Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.DatabaseConfiguration.Regions = regions(dc1, dc2) })
	}}
}

// primaryIs: the database runs two usable regions with its transaction
// system in data center dc, healthy.
func primaryIs(dc string) func(*run) (bool, string) {
	return func(r *run) (bool, string) {
		db := r.used[primaryDC]
		if db == nil {
			return false, "the provider has not reached the database"
		}
		st, err := db.Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		c := st.Cluster
		return c.ActivePrimaryDC == dc && c.Configuration.UsableRegions == 2 && st.Client.DatabaseStatus.Healthy,
			fmt.Sprintf("primary %q (want %q), %d usable regions, healthy %t", c.ActivePrimaryDC, dc, c.Configuration.UsableRegions, st.Client.DatabaseStatus.Healthy)
	}
}

// loseDataCenter cuts a data center the seeded source picks off for the
// fault window, when no zone is faulted or disrupted and every database
// keeps a majority of its coordinators outside it: every process there is
// down, its volumes survive. (Before the others joined, all coordinators
// are in the primary's: losing it then is more than any database
// survives — chaos seed 3303.)
func loseDataCenter(_ context.Context, r *run, before map[string]*database) (string, error) {
	dc := []string{primaryDC, satelliteDC, remoteDC}[r.pick(3)]
	if !quorumOutside(before, dc) || !r.mayFault(before, "dc/"+dc) {
		return "", nil
	}
	lost := false
	for _, db := range distinct(before) {
		lost = db.sim.LoseDataCenter(dc, faultWindow) == nil || lost
	}
	if !lost {
		return "", nil
	}
	return "cut off data center " + dc, nil
}

// quorumOutside reports whether every database's status shows a majority
// of its coordinators reporting from outside data center dc.
func quorumOutside(before map[string]*database, dc string) bool {
	for _, db := range distinct(before) {
		if db.status == nil {
			return false
		}
		cs, err := fdb.ParseConnectionString(db.status.Cluster.ConnectionString)
		if err != nil {
			return false
		}
		outside := 0
		for _, p := range db.status.Cluster.Processes {
			if p.HasRole(fdb.RoleCoordinator) && p.Locality.DCID != dc {
				outside++
			}
		}
		if 2*outside <= len(cs.Coordinators) {
			return false
		}
	}
	return true
}

// pauseProvider pauses a provider instance the seeded source picks for
// the fault window, longer than its global lock lasts.
func pauseProvider(_ context.Context, r *run, _ map[string]*database) (string, error) {
	if len(r.instances) < 2 {
		return "", nil
	}
	in := r.instances[r.pick(len(r.instances))]
	in.pausedUntil = r.clock.Now().Add(faultWindow)
	return fmt.Sprintf("paused %s for %s, longer than its lock's %d s", in.name, faultWindow, regionLockSeconds), nil
}

// checkLock: a step with database-wide effect of a Cluster that shares its
// database runs while that Cluster holds the database's global lock,
// unexpired — so that two provider instances never act at once. It runs
// as the mutation is journaled, with the lock as it is then. A Cluster
// whose locks were disabled (a consented escape hatch) breaks it too: the
// guarantee is gone.
func (r *run) checkLock(m step.Mutation) {
	if m.Step.Action == nil || !managedkind.NeedsLock(*m.Step.Action) {
		return
	}
	c := r.actingCluster(m)
	if c == nil {
		return
	}
	db := r.used[c.GetName()]
	if db == nil || !managedkind.SharesDatabase(c) {
		return // a Cluster alone on its database takes no lock
	}
	r.report.Checks++
	held, id, now := db.GlobalLock(), managedkind.LockID(c), r.clock.Now()
	what := fmt.Sprintf("%s %s took %s (%s) as %s", m.Kind, m.Name, m.Step.Reason, m.Step.Action.Type, id)
	switch {
	case held == nil:
		r.violate("lock-holder", what+" while nobody held the global lock")
	case held.Holder != id:
		r.violate("lock-holder", fmt.Sprintf("%s while %s held the global lock", what, held.Holder))
	case held.Expired(now):
		r.violate("lock-holder", fmt.Sprintf("%s after its global lock expired at %s", what, held.End.Format("15:04:05")))
	}
}

// actingCluster is the Cluster a journaled mutation acted for: the
// Cluster itself, or a ProcessGroup's, as the last snapshot holds it.
func (r *run) actingCluster(m step.Mutation) *fdbv1alpha1.Cluster {
	now := r.hist.latest()
	name := m.Name
	if m.Kind == groupKind.Kind {
		pg, _ := now.find(groupKind, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}).(*fdbv1alpha1.ProcessGroup)
		if pg == nil {
			return nil
		}
		name = pg.Spec.ForProvider.ClusterName
	} else if m.Kind != clusterKind.Kind {
		return nil
	}
	c, _ := now.find(clusterKind, client.ObjectKey{Namespace: m.Namespace, Name: name}).(*fdbv1alpha1.Cluster)
	return c
}
