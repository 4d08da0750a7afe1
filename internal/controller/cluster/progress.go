package cluster

import (
	"cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// operations are the long operations under way and how far each got
// (v1alpha1.OperationProgress). An operation keeps the start and the total
// the last reconcile recorded (previous) while it lasts: replacements end
// with their groups gone, so what is done is counted against the most
// groups the operation ever had to do. An operation the status tells of
// (an upgrade, a migration) stays as recorded while no status is read.
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
	default:
		if done, total := o.onVersion(cr.Spec.ForProvider.Version); done < total {
			add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationUpgrade, Target: cr.Spec.ForProvider.Version, Done: done, Total: total})
		}
		if storage != nil {
			add(v1alpha1.OperationProgress{Operation: v1alpha1.OperationStorageMigration, Target: storage.Engine, Done: storage.Migrated, Total: storage.Total})
		}
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
