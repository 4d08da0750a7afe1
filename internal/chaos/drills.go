package chaos

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// drills: a crash-loop drill of a storage group, a no-schedule drill of a
// log group, then an empty-monitor-conf drill of a storage group, each
// under faults; each converges once the drill has run and ended by itself,
// its fault out of its group's pod, and the Cluster converged.
var drills = Workload{Name: "drills", Ops: []Op{
	bootstrap(false),
	drill("d1", fdbv1alpha1.DrillCrashLoop, fdbv1alpha1.ProcessClassStorage),
	drill("d2", fdbv1alpha1.DrillNoSchedule, fdbv1alpha1.ProcessClassLog),
	drill("d3", fdbv1alpha1.DrillEmptyMonitorConf, fdbv1alpha1.ProcessClassStorage),
}}

const errNoGroupOfClass = "the run has no process group of that class"

// drill asks for drill name with fault on a group of class the seeded
// source picks, for five minutes.
func drill(name string, fault fdbv1alpha1.DrillFault, class fdbv1alpha1.ProcessClass) Op {
	return Op{Name: fmt.Sprintf("%s drill of a %s group", fault, class), Faults: faults, Converged: both(clusterConverged, drillEnded(name)),
		Do: func(ctx context.Context, r *run) error {
			var ids []string
			for _, o := range r.hist.latest()[groupKind] {
				if pg := o.(*fdbv1alpha1.ProcessGroup); pg.Spec.ForProvider.ProcessClass == class && pg.GetDeletionTimestamp() == nil {
					ids = append(ids, pg.ID())
				}
			}
			if len(ids) == 0 {
				return errors.New(errNoGroupOfClass)
			}
			slices.Sort(ids)
			id := ids[r.pick(len(ids))]
			r.log("drill %s: %s of %s", name, fault, id)
			return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
				c.Spec.ForProvider.Drill = &fdbv1alpha1.Drill{Name: name, Fault: fault, ProcessGroups: []string{id}, DurationSeconds: 300}
			})
		}}
}

// drillEnded: the Cluster started drill name and it ended.
func drillEnded(name string) func(r *run) (bool, string) {
	return func(r *run) (bool, string) {
		c, _ := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: r.clusters[0]}).(*fdbv1alpha1.Cluster)
		if c == nil {
			return false, "the Cluster is gone"
		}
		d := c.Status.AtProvider.Drill
		return d != nil && d.Name == name && d.Ended, fmt.Sprintf("drill %s not run and ended: %+v", name, d)
	}
}
