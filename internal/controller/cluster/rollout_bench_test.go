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
	version  string
	template bool
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
//   - InPlaceDNS (upgrades): the new binaries are staged in the running
//     pods and every process restarts in one kill; DNS names in the cluster
//     file. RecreateDNS (pod template): pods recreated zone by zone, as they
//     must be, with DNS names, so a recreated coordinator stays one.
func BenchmarkRollouts(b *testing.B) {
	start(b)
	for _, c := range []rolloutCase{
		{name: "PatchUpgrade/RecreateIPs", recreate: true, version: "7.3.69", template: true},
		{name: "PatchUpgrade/InPlaceDNS", dns: true, version: "7.3.69"},
		{name: "MinorUpgrade/RecreateIPs", recreate: true, version: "7.4.1", template: true},
		{name: "MinorUpgrade/InPlaceDNS", dns: true, version: "7.4.1"},
		{name: "PodTemplate/RecreateIPs", recreate: true, template: true},
		{name: "PodTemplate/RecreateDNS", dns: true, recreate: true, template: true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total rolloutCost
			for range b.N {
				total = total.plus(rollout(b, c))
			}
			n := float64(b.N)
			b.ReportMetric(float64(total.recoveries)/n, "recoveries/op")
			b.ReportMetric(float64(total.coordinatorChanges)/n, "coordinator-changes/op")
			b.ReportMetric(total.belowTolerance.Seconds()/n, "virtual-s-below-ft/op")
			b.ReportMetric(total.virtual.Seconds()/n, "virtual-s/op")
		})
	}
}

// rolloutCost is what one rollout cost.
type rolloutCost struct {
	recoveries, coordinatorChanges int
	belowTolerance, virtual        time.Duration
}

func (c rolloutCost) plus(o rolloutCost) rolloutCost {
	return rolloutCost{c.recoveries + o.recoveries, c.coordinatorChanges + o.coordinatorChanges, c.belowTolerance + o.belowTolerance, c.virtual + o.virtual}
}

// rollout creates a cluster (not timed), rolls c's change out and waits
// until it converged: up to date, on the new version, every pod recreated
// if c recreates them, and back at full fault tolerance.
func rollout(b *testing.B, c rolloutCase) rolloutCost {
	b.StopTimer()
	h.Flow(true)
	cr := tripleCluster(namespace(b, fmt.Sprintf("bench-rollout-%d", benchNamespaces.Add(1))))
	cr.Spec.ForProvider.ProcessCounts = v1alpha1.ProcessCounts{Storage: 5, Log: 3, Stateless: 1}
	cr.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(c.dns)
	createReady(b, cr)
	db := h.Sim(b, cr)
	atFullTolerance(b, db)
	uids := podUIDs(b, cr)
	recoveries, coordinators := db.Recoveries(), eventCount(b, cr, "ChangedCoordinators")
	version := cmp.Or(c.version, cr.Spec.ForProvider.Version)

	below := sampleBelowTolerance(db)
	began := h.Clock.Now()
	b.StartTimer()
	update(b, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.Version = version
		if c.template {
			cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Value: "fdb", Effect: corev1.TaintEffectNoSchedule}}},
			}}}
		}
	})
	eventually(b, 300*time.Second, "the rollout converged", func() (bool, string) {
		get(b, cr)
		recreated := 0
		for name, uid := range podUIDs(b, cr) {
			if uid != uids[name] {
				recreated++
			}
		}
		st, err := db.Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		return cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue && cr.Status.AtProvider.RunningVersion == version &&
				(!c.recreate || recreated == len(uids)) && st.Cluster.FaultTolerance.Zones() == 2,
			fmt.Sprintf("running %s, %d of %d pods recreated, fault tolerance %d; %s", cr.Status.AtProvider.RunningVersion, recreated, len(uids),
				st.Cluster.FaultTolerance.Zones(), cr.GetCondition(xpv2.TypeUpToDate).Message)
	})
	b.StopTimer()
	cost := rolloutCost{
		recoveries:         db.Recoveries() - recoveries,
		coordinatorChanges: int(eventCount(b, cr, "ChangedCoordinators") - coordinators),
		belowTolerance:     below(),
		virtual:            h.Clock.Now().Sub(began),
	}
	if v := db.Check(); len(v) != 0 {
		b.Fatalf("%s: the simulator reports %v", c.name, v)
	}
	b.Logf("%s: %+v; events %s", c.name, cost, strings.Join(events(b, cr), "; "))
	return cost
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
