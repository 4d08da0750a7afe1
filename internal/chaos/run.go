// Package chaos is a deterministic fault-injection harness in the spirit of
// Sieve, Acto and FoundationDB's simulation testing. One seed drives the
// provider's real reconcilers (Cluster, ProcessGroup, Backup, Restore,
// SafetyPolicy, as internal/controller wires them) against a real API
// server and the FoundationDB simulator on a virtual clock, from a single
// thread: each step the seeded source picks what happens next — one
// reconcile of one object, one pass of the stand-in scheduler and kubelets,
// or a fault — and the harness checks its invariants after every step.
//
// The provider reads through caches that lag the API server by a seeded
// number of steps (never going back), writes to the API server itself, and
// may crash after any write, losing everything it held in memory. Dropped,
// delayed and reordered watch events and concurrent reconciles are the
// scheduler's free choice of which object to reconcile next. The same seed
// replays the same run.
package chaos

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

const (
	errNamespace = "cannot create the run's namespace"
	errClient    = "cannot create the provider's client"
	errNodes     = "cannot create the stand-in nodes"
	errStart     = "cannot start the provider"
	errOp        = "cannot run the workload's operation"
)

// Steps bound the phases of every operation of a workload.
type Steps struct {
	// Faulty is how many steps a fault window lasts, Calm how many quiet
	// steps follow it: an operation with faults runs in such windows from
	// its start until it converged (or for the steps it has to converge,
	// at most), so that its late steps meet faults as its early ones do,
	// and the calm lets it converge.
	Faulty, Calm int
	// Converge is how many quiet steps the Cluster then has to converge,
	// at least; ConvergePerTarget, times the objects a step may reconcile,
	// when that is more.
	Converge, ConvergePerTarget int
	// Hold is how many steps it must then stay converged.
	Hold int
}

// DefaultSteps are the phases of the seed budget. A fault window of 20
// steps spans about a minute of the simulated clock, the calm after it
// two: a Cluster converges only in a status confirmed 90 s after the last
// fault (faultWindow). Windows short against an operation spread its
// faults over all of it: with the 60-step windows first tried, the faults
// of the many operations that converge in a few hundred steps fell in
// their first third. The quiet steps span about 30 minutes of
// the simulated clock, more when the clock skips ahead (idleSkip):
// replacing every storage group (a density change) under a platform
// policy that excludes at most two groups at once drains them in two
// rounds, waits out the 5-minute missing-process rule of the exclusion
// budget and the minutes since the last recovery before the inclusion;
// seed 844 needed 421 quiet steps. A step reconciles one object of all
// there are, so an object's turns come the rarer the more objects there
// are: the multi-region workload's 21 (three Clusters, their groups) got
// 600 steps in which the remote data center's Cluster took its turn 19
// times, and replacing a group there (replace, create, wait for the
// replacement, exclude, remove, include, release the lock) wanted a few
// more (seed 2071). 40 steps per object give each about 26 turns.
var DefaultSteps = Steps{Faulty: 20, Calm: 40, Converge: 600, ConvergePerTarget: 40, Hold: 20}

// converge is how many quiet steps a run with targets objects has to
// converge.
func (s Steps) converge(targets int) int { return max(s.Converge, s.ConvergePerTarget*targets) }

// convergeSteps is how many steps the run has to converge now: its
// objects' turns, once per Cluster of the run. Clusters that share a
// database take their disruptive steps one at a time under the global
// lock, so an object's Cluster may wait out every other Cluster's turn:
// the three-data-hall workload's rollout recreates the pods of twelve
// zones, three Clusters' one after the other, and needed about 1,700
// steps (seed 17).
func (r *run) convergeSteps() int { return r.steps.converge(len(r.targets()) * len(r.clusters)) }

// run is one seed's run.
type run struct {
	env *testenv.Env
	// kube is the harness's client: the API server, writes recorded.
	kube *recorder
	// asProvider is the provider's: the API server as the provider's
	// ServiceAccount with exactly its shipped permissions
	// (testenv.Env.Provider), writes recorded.
	asProvider *recorder
	seed       uint64
	// Independent seeded streams, so that a decision of one kind never
	// shifts those of another: what to do next, how much the caches lag,
	// how far the clock moves, when the provider crashes, which faults.
	sched, lags, ticks, crashes, chaos *rand.Rand
	ns                                 string
	steps                              Steps
	// zones are the run's zones, one stand-in node each.
	zones []string
	// nodeLabels are the labels a zone's node carries beside its zone,
	// if any (Workload.NodeLabels).
	nodeLabels func(zone string) map[string]string

	clock *clocktesting.FakeClock
	sims  connector.SimFDB
	keys  map[types.UID]string
	// used is the database the provider last reached for each Cluster.
	used map[string]*sim.Sim
	// configMaps are the ConfigMaps last seen per Cluster: a database runs
	// on while its ConfigMap is lost, and the harness keeps reading it.
	configMaps map[string]*corev1.ConfigMap
	// armed are the admin faults armed for the next reconciles.
	armed []*armed
	// stalledUntil is when stalled exclusions resume.
	stalledUntil time.Time
	// ca issues the run's certificates (the tls workload).
	ca    *certs.CA
	nodes *testenv.Nodes
	hist  *history
	// audit reads the deletions the API server audited since the run
	// began.
	audit *testenv.AuditReader
	// instances are the provider's deployments that act on the run's
	// world: one, or one per data center of a multi-region database;
	// owners names the instance of each Cluster (0 when absent).
	instances []*instance
	owners    map[string]int
	// clusters are the names of the Clusters the workload makes.
	clusters []string

	step int
	// faulty is true while the run injects faults, which it picks from
	// faults.
	faulty bool
	faults []fault
	// opStep is the step the current operation began at; faultedAt are
	// the steps in it at which a fault struck (the provider's crashes
	// too), placed in the operation's thirds once it converged
	// (tallyPhases).
	opStep    int
	faultedAt []int
	// opTaken are the provider's mutations in an operation with faults,
	// in order: true for each taken while a fault was in force.
	opTaken []bool
	// convergedAt is the first step at which the current operation was
	// seen converged, 0 before.
	convergedAt int
	// defaults is true when the run's Clusters run on the built-in time
	// thresholds of the policies and the automation (createCluster).
	defaults bool
	// idle counts the steps in a row in which nothing was written to the
	// API server, no mutation taken and no fault injected: the world
	// waits for time to pass, and the clock skips ahead (idleSkip).
	idle int
	// crashRate is the chance that the provider crashes during a faulty
	// step, after its crashAfter-th write of the step.
	crashRate  float64
	crashAfter int
	// written counts the provider's writes in this step.
	written int
	// maxLag is the most steps a cache lags.
	maxLag int

	journal []step.Mutation
	report  *Report
	trace   []string
	// checks is the state the checks keep across steps.
	checks checkState
	// calmAt is when the last fault injected has ended.
	calmAt time.Time
	// steppedAt is when each Cluster last took a step: a Cluster that
	// shares its database converges only in a status confirmed after the
	// others' last steps, which may change what it must write (chaos seed
	// 3387: dc2 changed coordinators, and dc1s, not reconciled since,
	// still said it was up to date).
	steppedAt map[string]time.Time
	// due are the requeues the provider asked for at the active cadence
	// (activeRequeue), by object.
	due map[target]requeue
	// faultZone is the fault domain the harness faults until faultUntil,
	// since faultSince.
	faultZone              string
	faultSince, faultUntil time.Time
	// lostZone is the zone the node-loss workload lost for good, with
	// its node and when; lostNode is cleared once its object is deleted.
	lostZone string
	lostNode string
	lostAt   time.Time
	// maintainedNode is the node the maintenance workload tainted.
	maintainedNode string
	// dataSaid is the data state last traced per database.
	dataSaid map[string]string
	// volumes is how many volume claims there were when the Cluster was
	// orphaned.
	volumes int
	// created is when (virtual time) the harness first saw each managed
	// resource's creation annotation.
	created map[types.UID]time.Time
	// nodeBack are the nodes made NotReady by a transient fault and when
	// they come back.
	nodeBack map[string]time.Time
}

// watchedKinds are the kinds the provider reads from its caches: the
// kinds it watches and those its client reads, which controller-runtime's
// client serves from an informer of each (the Services, accounts, roles
// and policies a Cluster checks every reconcile). Persistent volumes, which
// the stand-in provisioner writes about as often as the provider reads
// them, are read from the API server.
var watchedKinds = []schema.GroupVersionKind{
	fdbv1alpha1.ClusterGroupVersionKind,
	fdbv1alpha1.ProcessGroupGroupVersionKind,
	fdbv1alpha1.BackupGroupVersionKind,
	fdbv1alpha1.RestoreGroupVersionKind,
	v1alpha1.SafetyPolicyGroupVersionKind,
	v1alpha1.ClusterProviderConfigGroupVersionKind,
	v1alpha1.ProviderConfigUsageGroupVersionKind,
	corev1.SchemeGroupVersion.WithKind("Pod"),
	corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"),
	corev1.SchemeGroupVersion.WithKind("Node"),
	corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	corev1.SchemeGroupVersion.WithKind("Secret"),
	deploymentKind,
	corev1.SchemeGroupVersion.WithKind("Service"),
	corev1.SchemeGroupVersion.WithKind("ServiceAccount"),
	rbacv1.SchemeGroupVersion.WithKind("Role"),
	rbacv1.SchemeGroupVersion.WithKind("RoleBinding"),
	networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"),
	policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"),
	storagev1.SchemeGroupVersion.WithKind("StorageClass"),
}

// Run runs workload w under seed on env and reports what happened. name
// makes the run's namespace unique within env.
func Run(ctx context.Context, env *testenv.Env, seed uint64, w Workload, steps Steps, name string) (*Report, error) {
	r := &run{
		env: env, seed: seed, ns: name, steps: steps,
		sched: stream(seed, 1), lags: stream(seed, 2), ticks: stream(seed, 3), crashes: stream(seed, 4), chaos: stream(seed, 5),
		clock:      clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		keys:       map[types.UID]string{},
		used:       map[string]*sim.Sim{},
		steppedAt:  map[string]time.Time{},
		due:        map[target]requeue{},
		configMaps: map[string]*corev1.ConfigMap{},
		report:     &Report{Seed: seed, Workload: w.Name, Faults: map[string]int{}},
		nodeBack:   map[string]time.Time{},
		dataSaid:   map[string]string{},
		created:    map[types.UID]time.Time{},
	}
	r.clusters, r.owners = w.clusters()
	r.zones, r.nodeLabels = w.zones(), w.NodeLabels
	r.sims = connector.NewSimFDB(sim.NewRegistry(r.clock, sim.Options{Seed: seed, TotalKVBytes: 128 << 20, Shards: 16, MovementRate: 2 << 20, RecordAdminCalls: true}))
	r.defaults = stream(seed, 6).IntN(defaultsOneIn) == 0
	r.report.Defaults = r.defaults
	r.crashRate = []float64{0, 0.05, 0.15}[r.chaos.IntN(3)]
	r.maxLag = r.chaos.IntN(4)
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	defer r.teardown(context.WithoutCancel(ctx))
	for _, op := range w.Ops {
		if err := r.operate(ctx, op); err != nil {
			return nil, err
		}
	}
	r.report.Steps = r.step
	r.report.Trace, r.report.Lines = traceHash(r.trace), r.trace
	return r.report, nil
}

// setup creates the run's namespace, nodes and first provider.
func (r *run) setup(ctx context.Context) error {
	if err := r.env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns}}); err != nil {
		return errors.Wrap(err, errNamespace)
	}
	if err := ensureProviderConfig(ctx, r.env.Client); err != nil {
		return err
	}
	r.hist = &history{live: r.env.Client, scheme: r.env.Scheme, namespace: r.ns, kinds: watchedKinds, dirty: map[schema.GroupVersionKind]bool{}}
	r.kube = &recorder{Client: r.env.Client, h: r.hist}
	c, err := client.New(r.env.Provider, client.Options{Scheme: r.env.Scheme})
	if err != nil {
		return errors.Wrap(err, errClient)
	}
	r.asProvider = &recorder{Client: c, h: r.hist}
	n, err := testenv.CreateNodes(ctx, r.kube, r.zones, 1)
	if err != nil {
		return errors.Wrap(err, errNodes)
	}
	r.nodes = n
	if err := r.labelNodes(ctx); err != nil {
		return errors.Wrap(err, errNodes)
	}
	if r.audit, err = testenv.NewAuditReader(r.env.AuditLog); err != nil {
		return err
	}
	if err := r.hist.record(ctx, r.clock.Now()); err != nil {
		return err
	}
	for i := range instanceCount(r.owners) {
		p, err := r.start()
		if err != nil {
			return errors.Wrap(err, errStart)
		}
		r.instances = append(r.instances, &instance{name: fmt.Sprintf("instance-%d", i), prov: p})
	}
	return nil
}

// labelNodes gives each zone's node the labels of nodeLabels.
func (r *run) labelNodes(ctx context.Context) error {
	if r.nodeLabels == nil {
		return nil
	}
	for _, z := range r.zones {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeOf(z)}}
		if err := update(ctx, r, node, func(n *corev1.Node) { maps.Copy(n.Labels, r.nodeLabels(z)) }); err != nil {
			return err
		}
	}
	return nil
}

// defaultsOneIn: one run in defaultsOneIn runs on the built-in
// thresholds, the others shorten them (createCluster).
const defaultsOneIn = 3

// operate applies one operation of the workload, then runs its fault
// windows until it converged, and its quiet phase until it converged and
// held.
func (r *run) operate(ctx context.Context, op Op) error {
	r.log("op %s", op.Name)
	if err := op.Do(ctx, r); err != nil {
		return errors.Wrap(err, errOp)
	}
	converged := op.Converged
	if converged == nil {
		converged = clusterConverged
	}
	r.opStep, r.faultedAt, r.opTaken, r.convergedAt = r.step, nil, nil, 0
	// It converges in a status confirmed after it, at least: one that
	// changes no spec (a node lost) leaves the Cluster looking converged.
	if now := r.clock.Now(); r.calmAt.Before(now) {
		r.calmAt = now
	}
	r.faults = op.Faults
	if len(op.Faults) > 0 {
		if err := r.faultUntilConverged(ctx, converged); err != nil {
			return err
		}
	}
	r.faulty = false
	if err := r.quiesce(ctx); err != nil {
		return err
	}
	err := r.converge(ctx, op.Name, converged)
	r.tallyPhases()
	return err
}

// faultUntilConverged runs fault windows, each followed by its calm, until
// the operation is seen converged in a calm or it spent the steps an
// operation has to converge (convergeSteps). A run of several Clusters has
// that many more steps, and a calm that many times as long: its windows
// are as many as one Cluster's, spread over an operation that takes each
// Cluster's turn in order (the three-data-hall rollout met faults only in
// its first half with one Cluster's steps, and with one Cluster's calm
// the multi-region workload's seeds 13 and 31 took 5,291 and 6,022 steps,
// about 2,500 before). The operation begins at a point of the cycle
// the seeded source picks, so that its first steps are not always faulty.
// A mutation the provider takes in a calm, clear of any fault, opens the
// next window within a few steps: the last steps of an operation (the
// last removal, the inclusion, the kill) come in the calm after the faults
// that held them back, and would otherwise meet fewer faults than its
// first.
func (r *run) faultUntilConverged(ctx context.Context, converged func(*run) (bool, string)) error {
	budget, cycle := r.convergeSteps(), r.steps.Faulty+r.steps.Calm*max(len(r.clusters), 1)
	at := r.chaos.IntN(cycle) // where in a window's cycle the operation begins
	for spent := range budget {
		r.faulty = (at+spent)%cycle < r.steps.Faulty
		taken := len(r.opTaken)
		if err := r.tick(ctx); err != nil {
			return err
		}
		if ok, _ := converged(r); ok && !r.faulty {
			r.convergedAt = r.step
			return nil
		}
		if !r.faulty && slices.Contains(r.opTaken[taken:], false) {
			at = pull(at, spent, cycle, r.chaos.IntN(pullWindow))
		}
	}
	return nil
}

// pull moves a cycle of length cycle begun at offset at on, after its step
// spent, so that its next window opens after soon more steps, or as it
// would when that is sooner.
func pull(at, spent, cycle, soon int) int {
	untilWindow := (cycle - (at+spent+1)%cycle) % cycle
	return at + max(untilWindow-soon, 0)
}

// pullWindow bounds how many steps after a mutation taken clear of faults
// the next fault window opens.
const pullWindow = 5

// faulted counts a fault of kind name struck now.
func (r *run) faulted(name string) {
	r.report.Faults[name]++
	r.faultedAt = append(r.faultedAt, r.step)
}

// tallyPhases places the current operation's faults in the thirds of its
// steps, from its start to the step it was first seen converged (the last
// step when it never was), and its mutations in the thirds of its
// mutations.
func (r *run) tallyPhases() {
	end := r.convergedAt
	if end == 0 {
		end = r.step
	}
	p, span, thirds := &r.report.Phases, max(end-r.opStep, 1), len(r.report.Phases.Faults)
	for _, at := range r.faultedAt {
		p.Faults[min((at-r.opStep-1)*thirds/span, thirds-1)]++
	}
	for i, under := range r.opTaken {
		third := i * thirds / len(r.opTaken)
		p.Taken[third]++
		if under {
			p.UnderFault[third]++
		}
	}
}

// ownRecoveries is how many times a hold may start again after the
// database recovered on its own during it.
const ownRecoveries = 2

// converge runs quiet steps until converged holds, then checks that it
// keeps holding for the hold. A database recovers on its own too (its
// cluster controller moves a log to a better-fit process a while after a
// recovery): it is unavailable a moment and the Cluster says so. When it
// did, and the provider took no step meanwhile, the run converges again,
// up to ownRecoveries times; a divergence after a step of the provider's
// is a violation.
func (r *run) converge(ctx context.Context, name string, converged func(*run) (bool, string)) error {
	for range ownRecoveries {
		again, err := r.convergeOnce(ctx, name, converged, false)
		if !again || err != nil {
			return err
		}
	}
	_, err := r.convergeOnce(ctx, name, converged, true)
	return err
}

// convergeOnce is one attempt of converge; again is true when the hold
// ended by a recovery of the database's own and last is false.
func (r *run) convergeOnce(ctx context.Context, name string, converged func(*run) (bool, string), last bool) (again bool, err error) {
	ok, why := converged(r)
	quiet := 0
	for ; quiet < r.convergeSteps() && !ok; quiet++ {
		if err := r.tick(ctx); err != nil {
			return false, err
		}
		ok, why = converged(r)
	}
	if ok && r.convergedAt == 0 {
		r.convergedAt = r.step
	}
	r.report.Checks++
	if !ok {
		r.violate("convergence", fmt.Sprintf("%s: not converged after %d quiet steps: %s", name, quiet, why))
		return false, nil
	}
	generation, journaled := r.generation(ctx), len(r.journal)
	for i := 0; i < r.steps.Hold; i++ {
		if err := r.tick(ctx); err != nil {
			return false, err
		}
		r.report.Checks++
		ok, why := converged(r)
		if ok {
			continue
		}
		if !last && len(r.journal) == journaled && r.generation(ctx) > generation {
			r.log("the database recovered on its own during the hold: converging again")
			return true, nil
		}
		r.violate("convergence", fmt.Sprintf("%s: converged, then diverged without a fault: %s", name, why))
		return false, nil
	}
	return false, nil
}

// generation is the sum of the recovery generations the run's databases
// report now (each once, however many Clusters reach it): it grows with
// every recovery of any of them.
func (r *run) generation(ctx context.Context) int64 {
	dbs, err := r.databases(ctx)
	if err != nil {
		return 0
	}
	var sum int64
	for _, db := range distinct(dbs) {
		if db.status != nil {
			sum += db.status.Cluster.Generation
		}
	}
	return sum
}

// quiesce ends the transient faults still in force.
func (r *run) quiesce(ctx context.Context) error {
	r.armed = nil
	r.unstall(true)
	for _, in := range r.instances {
		in.pausedUntil = time.Time{}
	}
	for _, node := range slices.Sorted(maps.Keys(r.nodeBack)) {
		if err := r.nodes.SetReady(ctx, node, true); err != nil {
			return err
		}
		delete(r.nodeBack, node)
	}
	return nil
}

// tick runs one step: the clock moves, the databases are read as they are
// now, one thing happens, the world is snapshot and checked.
func (r *run) tick(ctx context.Context) error {
	r.step++
	r.clock.Step(r.tickLength())
	wrote, took, struck := r.hist.writes, len(r.journal), len(r.faultedAt)
	r.written, r.crashAfter = 0, 0
	if r.faulty && r.crashes.Float64() < r.crashRate {
		r.crashAfter = 1 + r.crashes.IntN(3)
	}
	if err := r.nodesBack(ctx); err != nil {
		return err
	}
	r.unstall(false)
	if err := r.removeLostNode(ctx); err != nil {
		return err
	}
	if err := r.ageCreations(ctx); err != nil {
		return err
	}
	before, err := r.databases(ctx)
	if err != nil {
		return err
	}
	r.logData(before)
	for _, in := range r.instances {
		for _, k := range watchedKinds {
			in.prov.client.view.lag[k] = r.lags.IntN(r.maxLag + 1)
		}
	}
	marks := r.writeMarks()
	switch x := r.sched.Float64(); {
	case r.faulty && x < 0.12:
		if err := r.inject(ctx, before); err != nil {
			return err
		}
	case x < 0.34:
		r.log("kubelet")
		_ = r.nodes.Pass(ctx) // conflicts with the provider; the next pass retries
		if err := r.collectGarbage(ctx); err != nil {
			return err
		}
		if err := r.collectPods(ctx); err != nil {
			return err
		}
	default:
		if err := r.withArmed(func() { r.reconcileOne(ctx) }); err != nil {
			return err
		}
	}
	if err := r.hist.record(ctx, r.clock.Now()); err != nil {
		return err
	}
	r.logSaid()
	r.check(ctx, before, r.writesSince(marks))
	for _, in := range r.instances {
		if in.prov.client.dead {
			if err := r.restart(in); err != nil {
				return err
			}
		}
	}
	if r.hist.writes == wrote && len(r.journal) == took && len(r.faultedAt) == struck {
		r.idle++
	} else {
		r.idle = 0
	}
	return nil
}

// idleSkip is the longest step of the clock, in seconds, once the world
// has waited a round: every object had about one reconcile in which it
// wrote nothing and took no step, and no fault struck. What is left to
// happen waits for time to pass (a threshold of a policy, a process's
// uptime, data moving, a fault to heal), and FoundationDB's own
// simulation skips to it in the same way. A step is 1 to 5 seconds
// otherwise.
const idleSkip = 60

// requeueSlack is how late the harness serves a requeue the provider
// asked for at the active cadence: controller-runtime serves it when it is
// due, a busy work queue somewhat later. The provider's margins (renewing
// a maintenance zone 300 s before it runs out) must hold against it; a
// skipping clock and a uniform pick of the object to reconcile served it
// late without bound (seed 683: hall3's maintenance ran out, its pod away,
// after 11 simulated minutes without a turn).
const requeueSlack = 2 * time.Minute

// activeRequeue is the longest requeue the harness holds itself to
// serving within requeueSlack: the active cadence (options.ActivePoll,
// jittered), not the poll interval of a settled object.
const activeRequeue = pollInterval / 2

// tickLength is how far the clock moves in the next step: 1 to 5 seconds,
// up to idleSkip once the world is idle, never past the latest a requeue
// may be served (overdue).
func (r *run) tickLength() time.Duration {
	longest := 5
	if r.idle >= max(len(r.targets()), 1) {
		longest = idleSkip
		r.report.Skips++
	}
	if _, by, ok := r.overdue(); ok {
		longest = max(1, min(longest, int(by.Sub(r.clock.Now())/time.Second)))
	}
	return time.Duration(1+r.ticks.IntN(longest)) * time.Second
}

// A requeue is when an instance's provider asked to see an object again.
type requeue struct {
	at time.Time
	by *instance
}

// overdue is the object whose active requeue must be served first, and
// the time by which it must be: its deadline plus requeueSlack. It skips
// objects gone and the requeues of a paused instance, which wait as the
// instance does.
func (r *run) overdue() (target, time.Time, bool) {
	var first target
	var by time.Time
	for _, t := range r.targets() {
		q, ok := r.due[t]
		if !ok || r.clock.Now().Before(q.by.pausedUntil) {
			continue
		}
		if deadline := q.at.Add(requeueSlack); by.IsZero() || deadline.Before(by) {
			first, by = t, deadline
		}
	}
	return first, by, !by.IsZero()
}

// target is an object the harness may reconcile.
type target struct {
	gvk schema.GroupVersionKind
	key client.ObjectKey
}

// targets are the objects a step may reconcile: every managed resource and
// SafetyPolicy there is now.
func (r *run) targets() []target {
	var all []target
	now := r.hist.latest()
	for _, gvk := range []schema.GroupVersionKind{fdbv1alpha1.ClusterGroupVersionKind, fdbv1alpha1.ProcessGroupGroupVersionKind,
		fdbv1alpha1.BackupGroupVersionKind, fdbv1alpha1.RestoreGroupVersionKind, v1alpha1.SafetyPolicyGroupVersionKind} {
		for _, o := range now[gvk] {
			all = append(all, target{gvk, client.ObjectKeyFromObject(o)})
		}
	}
	return all
}

// reconcileOne reconciles one object the seeded source picks among the
// targets.
func (r *run) reconcileOne(ctx context.Context) {
	all, now := r.targets(), r.hist.latest()
	if len(all) == 0 {
		r.log("idle")
		return
	}
	t := all[r.sched.IntN(len(all))]
	if first, by, ok := r.overdue(); ok && !r.clock.Now().Before(by) {
		t = first
	}
	in := r.instances[r.ownerOf(now.find(t.gvk, t.key))]
	if r.clock.Now().Before(in.pausedUntil) {
		r.log("reconcile %s %s: %s is paused", t.gvk.Kind, t.key.Name, in.name)
		return
	}
	written := len(in.prov.client.writes)
	res, err := in.prov.reconcile(ctx, t.gvk, t.key)
	delete(r.due, t)
	if res.RequeueAfter > 0 && res.RequeueAfter <= activeRequeue {
		r.due[t] = requeue{at: r.clock.Now().Add(res.RequeueAfter), by: in}
	}
	if (t.gvk == clusterKind || t.gvk == groupKind) && err == nil && len(in.prov.client.writes) == written {
		r.confirmUnwritten(in.prov.client, t.gvk, t.key)
	}
	r.log("reconcile %s %s%s: requeue=%v error=%v", t.gvk.Kind, t.key.Name, in.by(len(r.instances)), res.RequeueAfter > 0, err != nil)
}

// restart replaces the crashed provider of instance in with a new
// incarnation.
func (r *run) restart(in *instance) error {
	r.log("provider%s crashed; restarting", in.by(len(r.instances)))
	r.faulted("ProviderCrash")
	if now := r.clock.Now(); now.After(r.calmAt) {
		r.calmAt = now
	}
	p, err := r.start()
	if err != nil {
		return errors.Wrap(err, errStart)
	}
	in.prov = p
	return nil
}

// crashNow decides whether the provider crashes after the write it just
// made: the step drew which write, if any.
func (r *run) crashNow() bool {
	r.written++
	return r.written == r.crashAfter
}

// stream returns the seeded source number n of a run.
func stream(seed, n uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, n*0x9e3779b97f4a7c15))
}

// journalEntry receives every mutation the provider takes.
func (r *run) journalEntry(m step.Mutation) {
	r.journal = append(r.journal, m)
	if len(r.faults) > 0 {
		r.opTaken = append(r.opTaken, r.clock.Now().Before(r.calmAt))
	}
	if m.Kind == clusterKind.Kind && m.Err == nil {
		r.steppedAt[m.Name] = r.clock.Now()
	}
	r.checkLock(m)
	result := "ungated"
	if m.Decision != nil {
		result = m.Decision.Result
	}
	r.log("  took %s %s: %s (%s) error=%v", m.Kind, m.Name, m.Step.Reason, result, m.Err != nil)
}

// logSaid traces what the managed resources say (their Synced and
// UpToDate messages) when it changed in this step: why a step waits.
func (r *run) logSaid() {
	now, before := r.hist.latest(), r.hist.previous()
	for _, gvk := range []schema.GroupVersionKind{clusterKind, groupKind, fdbv1alpha1.BackupGroupVersionKind, fdbv1alpha1.RestoreGroupVersionKind} {
		for _, o := range now[gvk] {
			was := before.find(gvk, client.ObjectKeyFromObject(o))
			for _, t := range []xpv2.ConditionType{xpv2.TypeSynced, xpv2.TypeUpToDate} {
				if said := conditionMessage(o, t); said != "" && (was == nil || conditionMessage(was, t) != said) {
					r.log("  %s %s %s: %s", gvk.Kind, o.GetName(), t, said)
				}
			}
		}
	}
}

// logData traces each database's data distribution state when it
// changed, with the virtual time: how long healing takes.
func (r *run) logData(dbs map[string]*database) {
	for _, name := range slices.Sorted(maps.Keys(dbs)) {
		st := dbs[name].status
		if st == nil {
			continue
		}
		d := st.Cluster.Data
		var coords []string
		for _, c := range st.Client.Coordinators.Coordinators {
			if !c.Reachable {
				coords = append(coords, string(c.Address)+" unreachable")
			} else {
				coords = append(coords, string(c.Address))
			}
		}
		said := fmt.Sprintf("%s (fewest replicas left: %d), available %v, coordinators %s", d.State.Name, d.State.MinReplicasRemaining, st.Client.DatabaseStatus.Available, strings.Join(coords, ", "))
		if r.dataSaid[name] != said {
			r.dataSaid[name] = said
			r.log("data of %s at %s: %s, %d bytes queued", name, r.clock.Now().Format(time.TimeOnly), said, d.MovingData.InQueueBytes)
		}
	}
}

// log appends a line to the run's trace. The run's namespace, which is
// unique to the run (part of its pods' DNS names, and of messages about
// its objects), reads "<ns>"; a UID
// (which the API server draws, and some messages quote: a
// ProviderConfigUsage is named by its user's) "<uid>", and a connection
// string's ID (drawn from its Cluster's UID) "<id>": a replay of the seed
// in another namespace traces the same.
func (r *run) log(format string, args ...any) {
	line := fmt.Sprintf("%d ", r.step) + fmt.Sprintf(format, args...)
	line = strings.ReplaceAll(line, r.ns, "<ns>")
	line = connectionID.ReplaceAllString(uid.ReplaceAllString(line, "<uid>"), "$1:<id>@")
	r.trace = append(r.trace, line)
}

var (
	// uid matches a Kubernetes UID.
	uid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// connectionID matches a connection string's description and ID.
	connectionID = regexp.MustCompile(`\b([A-Za-z0-9_]+):[A-Za-z0-9]+@`)
)

// teardown deletes what the run left in its namespace that the stand-in
// kubelets of later runs would see, and the nodes.
func (r *run) teardown(ctx context.Context) {
	c := r.env.Client
	for _, list := range []client.ObjectList{&corev1.PodList{}, &corev1.PersistentVolumeClaimList{}} {
		if err := c.List(ctx, list, client.InNamespace(r.ns)); err != nil {
			continue
		}
		objs, _ := items(list)
		for _, o := range objs {
			o.SetFinalizers(nil)
			_ = c.Update(ctx, o)
			_ = c.Delete(ctx, o, client.GracePeriodSeconds(0))
		}
	}
	for _, z := range r.zones {
		_ = c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeOf(z)}})
	}
	_ = c.DeleteAllOf(ctx, &v1alpha1.SafetyPolicy{}, client.MatchingLabels{runLabel: r.ns})
}

// traceHash is the fingerprint of a run: the same seed gives the same one.
func traceHash(trace []string) uint64 {
	h := fnv.New64a()
	for _, l := range trace {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return h.Sum64()
}

// nodeOf is the name of zone's stand-in node (testenv.CreateNodes names
// them).
func nodeOf(zone string) string { return fmt.Sprintf("node-%s-0", zone) }
