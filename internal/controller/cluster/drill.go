package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

const reasonDrill event.Reason = "StartedDrill"

// drillStep starts the drill the spec names (spec.forProvider.drill) when
// the Cluster has not started a drill of that name: gated as Drill, with
// the fault domains its groups are in. It comes after every step that
// acts and before the waits for disruptions and migrations: a drill asked
// for while a fault domain is down is decided, and denied while the
// database is short of its fault tolerance, rather than waiting unsaid. The groups then put its fault into
// their pods (workload.Pod, v1alpha1.Cluster.DrillFault), and take it out
// once it ended (drillRecord).
func drillStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	d := cr.Spec.ForProvider.Drill
	if d == nil {
		return nil
	}
	if rec := cr.Status.AtProvider.Drill; rec != nil && rec.Name == d.Name {
		return nil
	}
	domains := map[string]bool{}
	for _, id := range d.ProcessGroups {
		if pg := o.group(id); pg != nil {
			domains[o.domainOf(pg)] = true
		}
	}
	dur := drillDuration(d)
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonDrill,
			Message: fmt.Sprintf("started drill %s: %s in %s for %s", d.Name, d.Fault, strings.Join(d.ProcessGroups, ", "), dur),
			Action: &policy.Action{Type: apiv1alpha1.ActionDrill, Targets: d.ProcessGroups, Reason: "drill " + d.Name,
				Details: map[string]any{policy.DetailDrillFault: string(d.Fault), policy.DetailFaultDomains: len(domains),
					policy.DetailDurationSeconds: int(dur / time.Second)}},
		},
		Kind: kindDrill,
	}
}

// drillDuration is how long drill d lasts: its durationSeconds, the API's
// default when unset.
func drillDuration(d *v1alpha1.Drill) time.Duration {
	if d.DurationSeconds == 0 {
		return 300 * time.Second
	}
	return time.Duration(d.DurationSeconds) * time.Second
}

// startDrill records the drill the spec names as started at now.
func startDrill(cr *v1alpha1.Cluster, now time.Time) {
	d := cr.Spec.ForProvider.Drill
	cr.Status.AtProvider.Drill = &v1alpha1.DrillObservation{
		Name: d.Name, Fault: d.Fault, ProcessGroups: slices.Clone(d.ProcessGroups),
		Started: metav1.NewTime(now), Ends: metav1.NewTime(now.Add(drillDuration(d))),
	}
}

// drillRecord is the drill the Cluster recorded, ended once its time is
// up or the spec no longer names it: its groups then take the fault out.
func drillRecord(cr *v1alpha1.Cluster, now time.Time) *v1alpha1.DrillObservation {
	rec := cr.Status.AtProvider.Drill
	if rec == nil || rec.Ended {
		return rec
	}
	if spec := cr.Spec.ForProvider.Drill; spec != nil && spec.Name == rec.Name && now.Before(rec.Ends.Time) {
		return rec
	}
	ended := *rec
	ended.Ended = true
	return &ended
}
