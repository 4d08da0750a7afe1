package chaos

import (
	"context"
	"fmt"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

const (
	errNoCoordinators = "cannot find the coordinators' process groups"
	// ruleRecoveryAcknowledged is the rule that holds the way back from
	// lost coordinators until the Cluster acknowledges it.
	ruleRecoveryAcknowledged = "fdb-coordinator-recovery/recovery-acknowledged"
)

// lostCoordinators loses a majority of the coordinators' disks at once, a
// recovery following, then acknowledges the way back: the database is
// unavailable for good until the Cluster recovers it on new coordinators.
// The coordinators are storage groups (coordinatorSelection), whose lost
// shards the transaction system does not need to recover; three logs'
// disks lost would lose mutations no recovery can do without.
var lostCoordinators = Workload{Name: "lost-coordinators", Ops: []Op{
	bootstrapShaped("storage coordinators", func(c *fdbv1alpha1.Cluster) {
		c.Spec.ForProvider.CoordinatorSelection = []fdbv1alpha1.CoordinatorSelectionSetting{{ProcessClass: fdbv1alpha1.ProcessClassStorage}}
	}, false),
	loseCoordinatorMajority(),
	acknowledgeRecovery(),
}}

// loseCoordinatorMajority destroys the disks of a majority of the
// coordinators, the seeded source picking which, deletes their claims and
// pods, and starts a recovery, which cannot read the coordinated state.
// What the simulator finds at that moment (the coordinated state lost,
// the shards held only there) is the operation's. It converges once the
// Cluster's way back is denied for want of the acknowledgement.
func loseCoordinatorMajority() Op {
	return Op{Name: "lose a majority of the coordinators' disks", Converged: recoveryDenied, Do: func(ctx context.Context, r *run) error {
		db, cs, err := r.coordinatorsNow(ctx)
		if err != nil {
			return err
		}
		var groups []string
		for _, c := range cs.Coordinators {
			for _, p := range processes(db) {
				if slices.Contains(p.Names(), string(c)) && !slices.Contains(groups, p.Locality.InstanceID) {
					groups = append(groups, p.Locality.InstanceID)
				}
			}
		}
		if len(groups) < len(cs.Coordinators) {
			return errors.New(errNoCoordinators)
		}
		for len(groups) > len(cs.Coordinators)/2+1 {
			i := r.pick(len(groups))
			groups = slices.Delete(groups, i, i+1)
		}
		now := r.hist.latest()
		for _, id := range groups {
			pod := podOf(now, clusterName, id)
			if pod == nil {
				return errors.New(errNoCoordinators)
			}
			for _, p := range fdb.ProcessesByInstance(db.status)[id] {
				if err := db.sim.LoseDisk(p.Locality.ProcessID); err != nil {
					return err
				}
			}
			r.destroyed(db.key, id, pod)
			claim := &corev1.PersistentVolumeClaim{}
			claim.SetNamespace(pod.Namespace)
			claim.SetName(pod.Name + "-data")
			for _, o := range []client.Object{claim, pod} {
				if err := client.IgnoreNotFound(r.kube.Delete(ctx, o)); err != nil {
					return err
				}
			}
		}
		if err := db.sim.Recover(); err != nil {
			return err
		}
		if r.checks.quorumGone == nil {
			r.checks.quorumGone = map[string]bool{}
		}
		r.checks.quorumGone[db.key] = true
		for _, v := range r.ownFindings(db.key) {
			r.log("simulator: %s %s (the operation's)", v.Kind, v.Detail)
		}
		r.log("lost the disks of coordinators' groups %v of %s", groups, cs)
		return nil
	}}
}

// recoveryDenied: the run's Cluster was last denied the way back from lost
// coordinators for want of the acknowledgement.
func recoveryDenied(r *run) (bool, string) {
	c, _ := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: clusterName}).(*fdbv1alpha1.Cluster)
	if c == nil {
		return false, "the Cluster is gone"
	}
	d := c.Status.AtProvider.LastPolicyDecision
	return d != nil && d.Action == "RecoverCoordinators" && d.Result == "Denied" && d.Rule == ruleRecoveryAcknowledged,
		fmt.Sprintf("last decision %+v", d)
}

// acknowledgeRecovery annotates the Cluster with the acknowledgement of the
// way back from the connection string whose coordinators were lost, as
// its denial names it, under faults; it converges once the Cluster has
// converged on new coordinators.
func acknowledgeRecovery() Op {
	return Op{Name: "acknowledge the way back from lost coordinators", Faults: faults, Converged: clusterConverged, Do: func(ctx context.Context, r *run) error {
		c, _ := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: clusterName}).(*fdbv1alpha1.Cluster)
		if c == nil || c.Status.AtProvider.LastPolicyDecision == nil {
			return errors.New(errNoCoordinators)
		}
		lost := c.Status.AtProvider.ConnectionString
		r.log("acknowledging the way back from %s", lost)
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.SetAnnotations(map[string]string{policy.AnnotationAllowCoordinatorRecovery: lost})
		})
	}}
}

// ownFindings takes the simulator's findings about database key not seen
// yet as the harness's own doing, and returns them.
func (r *run) ownFindings(key string) []sim.Violation {
	vs := r.sims.Registry.Get(key).Check()
	seen := r.checks.simSeen[key]
	if r.checks.simSeen == nil {
		r.checks.simSeen = map[string]int{}
	}
	r.checks.simSeen[key] = len(vs)
	return vs[min(seen, len(vs)):]
}
