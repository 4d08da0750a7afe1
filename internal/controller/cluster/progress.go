package cluster

import (
	"cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// operations are the long operations under way and how far each got
// (v1alpha1.OperationProgress). An operation keeps the start and the total
// the last reconcile recorded (previous) while it lasts: replacements end
// with their groups gone, so what is done is counted against the most
// groups the operation ever had to do. An operation the status tells of
// (an upgrade, a migration, a failover) stays as recorded while no status
// is read. A restore's progress is what its Restore reports, in percent.
func (o *observation) operations(cr *v1alpha1.Cluster, storage *v1alpha1.StorageMigrationObservation, previous []v1alpha1.OperationProgress, now metav1.Time) []v1alpha1.OperationProgress {
	var out []v1alpha1.OperationProgress
	add := func(p v1alpha1.OperationProgress) {
		p.Since = now
		for _, prev := range previous {
			if prev.Operation == p.Operation && prev.Target == p.Target {
				p.Since = prev.Since
			}
		}
		out = append(out, p)
	}
	keep := func(op string) {
		for _, prev := range previous {
			if prev.Operation == op {
				out = append(out, prev)
			}
		}
	}
	switch {
	case o.status == nil:
		keep(v1alpha1.OperationUpgrade)
		keep(v1alpha1.OperationStorageMigration)
		keep(v1alpha1.OperationFailover)
	default:
		if done, total := o.onVersion(cr.Spec.ForProvider.Version); done < total {
			add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationUpgrade, Target: cr.Spec.ForProvider.Version, Done: done, Total: total})
		}
		if storage != nil {
			add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationStorageMigration, Target: storage.Engine, Done: storage.Migrated, Total: storage.Total})
		}
		if to, done := failover(cr, o.status); to != "" {
			add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationFailover, Target: to, Done: done, Total: 2})
		}
	}
	for _, rs := range o.restores {
		add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationRestore, Target: rs.GetName(), Done: rs.Status.AtProvider.Progress, Total: 100})
	}
	if pending := o.toReplace(cr); pending > 0 {
		total := pending
		for _, prev := range previous {
			if prev.Operation == v1alpha1.OperationReplacement {
				total = max(prev.Total, prev.Done+pending)
			}
		}
		add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationReplacement, Done: total - pending, Total: total})
	}
	return out
}

// failover is the data center the spec makes the primary while the
// database's transaction system still runs in another, "" when there is
// none; done counts the failover's two steps done: the regions configured
// with its priority the highest, then the primary moved to it (which ends
// the failover).
func failover(cr *v1alpha1.Cluster, st *fdb.Status) (to string, done int) {
	to, primary := plan.MainDataCenter(specRegions(cr)), st.Cluster.ActivePrimaryDC
	if to == "" || primary == "" || to == primary {
		return "", 0
	}
	if plan.MainDataCenter(st.Cluster.Configuration.DatabaseConfiguration.Regions) == to {
		done = 1
	}
	return to, done
}

// onVersion counts the processes that report a version, and those of them
// on version.
func (o *observation) onVersion(version string) (done, total int) {
	for _, p := range o.status.Cluster.Processes {
		v := cmp.Or(p.Version, workload.BinaryVersion(p.CommandLine))
		if v == "" {
			continue
		}
		total++
		if v == version {
			done++
		}
	}
	return done, total
}

// toReplace counts the groups still to replace or remove: those being
// removed, those the Cluster started replacing (failed ones among them),
// and those the spec asks to replace.
func (o *observation) toReplace(cr *v1alpha1.Cluster) int {
	n := 0
	for i := range o.groups {
		pg := &o.groups[i]
		if _, asked := o.asked(cr, pg); deleting(pg) || pg.Replacing() || asked {
			n++
		}
	}
	return n
}
