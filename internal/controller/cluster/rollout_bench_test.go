package cluster_test

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// benchNamespaces numbers the namespaces of the benchmarks' clusters, which
// may run several times in one binary.
var benchNamespaces atomic.Int32

// rolloutCase is one way of rolling out one change.
type rolloutCase struct {
	name string
	// dns puts DNS names in the cluster file; otherwise IP addresses.
	dns bool
	// recreate means every pod must be recreated.
	recreate bool
	// from is the version the cluster starts on (the fixtures' when
	// empty), version the one it moves to.
	from, version string
	template      bool
}

// BenchmarkRollouts measures what rolling a change out costs a triple
// cluster of 9 process groups (5 storage, 3 log, 1 stateless in five
// zones), on the simulator and the provider's controllers: recoveries,
// coordinator changes, virtual seconds below the desired fault tolerance
// (2) and, as ns/op, wall time (at 1000 virtual seconds per wall second).
// Each change is measured two ways side by side:
//
//   - RecreateIPs: every pod is recreated, zone by zone, with IP addresses
//     in the cluster file. That is how upgrades ran before binaries were
//     staged in place (modelled by changing the version together with the
//     pod template), and how a pod-template rollout runs without DNS names.
//     The minor upgrade is not measured this way any more: under the real
//     monitor's rules it stalls (docs/PERFORMANCE.md, Rollouts).
//   - As the provider runs them, with DNS names in the cluster file, so a
//     recreated coordinator stays one: InPlaceDNS (a minor upgrade): the
//     new binaries are staged in the running pods and every process
//     restarts in one kill; RecreateDNS (a patch upgrade, which the
//     monitor runs only from an image of the new patch, and the pod
//     template): pods recreated zone by zone under maintenance.
func BenchmarkRollouts(b *testing.B) {
	start(b)
	for _, c := range []rolloutCase{
		{name: "PatchUpgrade/RecreateIPs", recreate: true, version: patchUpgrade.version, template: true},
		patchUpgrade,
		{name: "MinorUpgrade/InPlaceDNS", dns: true, from: "7.1.67", version: "7.3.63"},
		{name: "PodTemplate/RecreateIPs", recreate: true, template: true},
		{name: "PodTemplate/RecreateDNS", dns: true, recreate: true, template: true},
	} {
		b.Run(c.name, func(b *testing.B) { benchmarkCost(b, func() opCost { return c.operation().run(b) }) })
	}
}

// patchUpgrade is the patch upgrade as the provider runs it by default:
// every pod rolls onto an image of the new patch, zone by zone under
// maintenance, with DNS names in the cluster file. BenchmarkOperations
// measures it too.
var patchUpgrade = rolloutCase{name: "PatchUpgrade/RecreateDNS", dns: true, recreate: true, version: "7.3.69"}

// benchmarkCost runs op b.N times and reports the mean of what it cost;
// ns/op is the wall time op timed.
func benchmarkCost(b *testing.B, op func() opCost) {
	var total opCost
	for range b.N {
		total = total.plus(op())
	}
	n := float64(b.N)
	b.ReportMetric(float64(total.recoveries)/n, "recoveries/op")
	b.ReportMetric(float64(total.coordinatorChanges)/n, "coordinator-changes/op")
	b.ReportMetric(total.belowTolerance.Seconds()/n, "virtual-s-below-ft/op")
	b.ReportMetric(total.virtual.Seconds()/n, "virtual-s/op")
}

// opCost is what one operation cost.
type opCost struct {
	recoveries, coordinatorChanges int
	belowTolerance, virtual        time.Duration
}

func (c opCost) plus(o opCost) opCost {
	return opCost{c.recoveries + o.recoveries, c.coordinatorChanges + o.coordinatorChanges, c.belowTolerance + o.belowTolerance, c.virtual + o.virtual}
}

// doneFunc says whether an operation is done, given the Cluster and the
// database's status, and if not, where it stands.
type doneFunc func(cr *v1alpha1.Cluster, st *fdb.Status) (bool, string)

// operation is one change to a converged benchmark cluster.
type operation struct {
	name string
	// setup adjusts the cluster before it is created; nil for none.
	setup func(*v1alpha1.Cluster)
	// change makes the change and returns what says it is done.
	change func(b *testing.B, cr *v1alpha1.Cluster) doneFunc
}

// benchCluster is the benchmarks' triple cluster of 9 process groups (5
// storage, 3 log, 1 stateless) in a namespace of its own, not created yet.
func benchCluster(b *testing.B, kind string) *v1alpha1.Cluster {
	cr := tripleCluster(namespace(b, fmt.Sprintf("bench-%s-%d", kind, benchNamespaces.Add(1))))
	cr.Spec.ForProvider.ProcessCounts = v1alpha1.ProcessCounts{Storage: 5, Log: 3, Stateless: 1}
	return cr
}

// run creates a benchmark cluster and waits until it is Ready at full
// fault tolerance (not timed), makes op's change and waits until it
// converged: op is done, the Cluster up to date and the database back at
// fault tolerance 2. It fails when the simulator saw an invariant
// violation.
func (op operation) run(b *testing.B) opCost {
	b.StopTimer()
	h.Flow(true)
	cr := benchCluster(b, "op")
	if op.setup != nil {
		op.setup(cr)
	}
	createReady(b, cr)
	db := h.Sim(b, cr)
	atFullTolerance(b, db)
	recoveries, coordinators := db.Recoveries(), eventCount(b, cr, "ChangedCoordinators")

	below := sampleBelowTolerance(db)
	began := h.Clock.Now()
	b.StartTimer()
	done := op.change(b, cr)
	eventually(b, 300*time.Second, op.name+" converged", func() (bool, string) {
		get(b, cr)
		st, err := db.Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		ok, why := done(cr, st)
		upToDate := cr.GetCondition(xpv2.TypeUpToDate)
		return ok && upToDate.Status == corev1.ConditionTrue && st.Cluster.FaultTolerance.Zones() == 2,
			fmt.Sprintf("%s; fault tolerance %d; %s", why, st.Cluster.FaultTolerance.Zones(), upToDate.Message)
	})
	b.StopTimer()
	return checked(b, op.name, cr, db, opCost{
		recoveries:         db.Recoveries() - recoveries,
		coordinatorChanges: int(eventCount(b, cr, "ChangedCoordinators") - coordinators),
		belowTolerance:     below(),
		virtual:            h.Clock.Now().Sub(began),
	})
}

// checked fails the benchmark, with the Cluster's events, when the
// simulator saw an invariant violation in cr's database; otherwise it logs
// and returns cost.
func checked(b *testing.B, name string, cr *v1alpha1.Cluster, db *sim.Sim, cost opCost) opCost {
	b.Helper()
	if v := db.Check(); len(v) != 0 {
		b.Fatalf("%s: the simulator reports %v; events %s", name, v, strings.Join(events(b, cr), "; "))
	}
	b.Logf("%s: %+v; events %s", name, cost, strings.Join(events(b, cr), "; "))
	return cost
}

// operation is c as an operation: the rollout is done once the database
// runs the new version and every pod was recreated if c recreates them.
func (c rolloutCase) operation() operation {
	return operation{
		name: c.name,
		setup: func(cr *v1alpha1.Cluster) {
			cr.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(c.dns)
			cr.Spec.ForProvider.Version = cmp.Or(c.from, cr.Spec.ForProvider.Version)
		},
		change: func(b *testing.B, cr *v1alpha1.Cluster) doneFunc {
			uids := podUIDs(b, cr)
			version := cmp.Or(c.version, cr.Spec.ForProvider.Version)
			update(b, cr, func(cr *v1alpha1.Cluster) {
				cr.Spec.ForProvider.Version = version
				if c.template {
					cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
						Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Value: "fdb", Effect: corev1.TaintEffectNoSchedule}}},
					}}}
				}
			})
			return func(cr *v1alpha1.Cluster, _ *fdb.Status) (bool, string) {
				recreated := 0
				for name, uid := range podUIDs(b, cr) {
					if uid != uids[name] {
						recreated++
					}
				}
				return cr.Status.AtProvider.RunningVersion == version && (!c.recreate || recreated == len(uids)),
					fmt.Sprintf("running %s, %d of %d pods recreated", cr.Status.AtProvider.RunningVersion, recreated, len(uids))
			}
		},
	}
}

// atFullTolerance waits until the database tolerates two zone failures.
func atFullTolerance(t testing.TB, db *sim.Sim) {
	t.Helper()
	eventually(t, 60*time.Second, "fault tolerance 2", func() (bool, string) {
		st, err := db.Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		return st.Cluster.FaultTolerance.Zones() == 2, fmt.Sprintf("%+v", st.Cluster.FaultTolerance)
	})
}

// sampleBelowTolerance samples db's fault tolerance every few milliseconds
// of wall time until the returned function is called, which returns how
// much virtual time the samples found it below 2.
func sampleBelowTolerance(db *sim.Sim) func() time.Duration {
	var (
		mu    sync.Mutex
		below time.Duration
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := h.Clock.Now()
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			now := h.Clock.Now()
			if st, err := db.Status(context.Background()); err == nil && st.Cluster.FaultTolerance.Zones() < 2 {
				mu.Lock()
				below += now.Sub(last)
				mu.Unlock()
			}
			last = now
		}
	}()
	return func() time.Duration {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return below
	}
}
