package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/coordination"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	reasonRecoverCoordinators event.Reason = "RecoveredCoordinators"

	// strandedGrace is how long after a recovery from lost coordinators a
	// running pod's processes may be missing from the status before its
	// fdbservers are restarted on the new cluster file again: one that was
	// not running when the recovery wrote it came back on the connection
	// string given up, which leads nowhere.
	strandedGrace = time.Minute
)

// recovery is the way back from lost coordinators a step takes: the
// connection string given up (From) for To, whose coordinators other than
// the survivors get the coordination files of Survivor (Copies), and the
// pods whose fdbservers restart on To.
type recovery struct {
	From, To fdb.ConnectionString
	Survivor coordination.Process
	Copies   []coordination.Process
	Pods     []*corev1.Pod
}

// coordinatorRecoveryStep brings back a database whose coordinated state a
// majority of its coordinators lost with their disks (their claims made
// anew since the coordinators were named: workload.BlankUnder): the
// database is unavailable and never recovers on its own, and the
// coordinators command, which needs that majority, cannot help. It copies
// the coordination files of a coordinator that kept them to the new
// coordinators, writes their connection string to the ConfigMap and
// restarts every running pod on it (coordination.Files), gated as
// RecoverCoordinators: what the survivor had not seen is lost, so the
// Cluster must accept this very recovery
// (policy.AnnotationAllowCoordinatorRecovery). The recovery is recorded
// (atProvider.coordinatorRecovery) until the database runs on the new
// coordinators with every running pod's processes: one whose pod was not
// running then restarts on them later (strandedRestartStep), and a
// recovery the database has not taken after strandedGrace runs again.
func coordinatorRecoveryStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	s := o.status
	if s == nil || !o.created() {
		return nil
	}
	current := o.connectionString()
	if r := cr.Status.AtProvider.CoordinatorRecovery; r != nil {
		switch {
		case s.Cluster.ConnectionString == r.To && (s.Client.DatabaseStatus.Available || r.To != r.From):
			// Taken: a recovery that kept the coordinators is taken once
			// the database is available again.
			return strandedRestartStep(cr, o, r)
		case o.now.Sub(r.Since.Time) < strandedGrace:
			return wait("waiting for the database to recover on the coordinators of %s", r.To)
		}
		current = r.From
	}
	if s.Client.DatabaseStatus.Available {
		return nil
	}
	cs, err := fdb.ParseConnectionString(current)
	if err != nil {
		return nil
	}
	procs := plan.Processes(s)
	blank := o.blankCoordinators(procs, cs)
	var lost, kept []fdb.ProcessAddress
	for _, c := range cs.Coordinators {
		if p, ok := serving(procs, c); ok && !blank[p.InstanceID] {
			kept = append(kept, c)
		} else if ok {
			lost = append(lost, c)
		}
	}
	if len(lost) < len(cs.Coordinators)/2+1 {
		return nil // a quorum may keep the state: the database recovers once it reaches them
	}
	from, survivor, ok := o.survivor(cr, procs, kept)
	if !ok {
		return wait("coordinators %s lost their coordinated state with their disks, and no coordinator that kept it runs: nothing to recover from", joinAddrs(lost))
	}
	rules, form := coordinatorRules(cr, o), coordinatorForm(cr, procs)
	coords, err := plan.ChooseCoordinatorsAnew(procs, cs.Coordinators, rules, o.removing(), blank, form)
	if err != nil {
		// The blank ones get the files too: where only they can make up
		// a valid set (the current one, say), they stay coordinators.
		coords, err = plan.ChooseCoordinators(procs, rules, o.removing(), form)
	}
	if err != nil {
		return wait("coordinators %s lost their coordinated state with their disks, but no new coordinators can be chosen: %v", joinAddrs(lost), err)
	}
	r := &recovery{From: cs, To: fdb.ConnectionString{Description: cs.Description, ID: cs.ID, Coordinators: coords}, Survivor: survivor, Pods: o.runningPods()}
	for _, c := range coords {
		if slices.Contains(kept, c) {
			continue
		}
		p, ok := o.process(cr, procs, c)
		if !ok {
			return wait("new coordinator %s runs in no running pod", c)
		}
		r.Copies = append(r.Copies, p)
	}
	why := fmt.Sprintf("coordinators %s lost their coordinated state with their disks", joinAddrs(lost))
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonRecoverCoordinators,
			Message: fmt.Sprintf("recovered the database on coordinators %s from the coordination files of %s: %s", joinAddrs(coords), from, why),
			Action: &policy.Action{Type: apiv1alpha1.ActionRecoverCoordinators, Targets: addrStrings(coords), Reason: why,
				Details: recoveryDetails(cr, cs.String(), lost, string(from), false)},
		},
		Kind: kindRecoverCoordinators, Recovery: r, ConfigMap: configMapData(cr, o, r.To.String()),
		Claims: markedNew(o.claimsServing(procs, coords)),
	}
}

// strandedRestartStep finishes recovery r, which the database took: running
// pods whose processes have been missing from the status since strandedGrace
// after their containers started restart on r.To again (they were not
// running when the recovery wrote it, and came back on the connection
// string given up), gated as the recovery was.
func strandedRestartStep(cr *v1alpha1.Cluster, o *observation, r *v1alpha1.CoordinatorRecoveryObservation) *clusterStep {
	stranded := o.strandedPods()
	if len(stranded) == 0 || !o.available() {
		return nil
	}
	names := make([]string, len(stranded))
	for i, p := range stranded {
		names[i] = p.Name
	}
	from, _ := fdb.ParseConnectionString(r.From)
	to, _ := fdb.ParseConnectionString(r.To)
	why := "their processes still run on the connection string given up, " + r.From
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonRecoverCoordinators,
			Message: fmt.Sprintf("restarted pods %s on the recovered cluster file: %s", strings.Join(names, ", "), why),
			Action: &policy.Action{Type: apiv1alpha1.ActionRecoverCoordinators, Targets: names, Reason: why,
				Details: recoveryDetails(cr, r.From, nil, "", true)},
		},
		Kind: kindRecoverCoordinators, Recovery: &recovery{From: from, To: to, Pods: stranded},
	}
}

// recoveryDetails are what a RecoverCoordinators decision sees.
func recoveryDetails(cr *v1alpha1.Cluster, from string, lost []fdb.ProcessAddress, survivor string, stranded bool) map[string]any {
	return map[string]any{
		policy.DetailFromConnectionString: from,
		policy.DetailLostCoordinators:     addrStrings(lost),
		policy.DetailSurvivor:             survivor,
		policy.DetailStranded:             stranded,
		policy.DetailRecoveryAcknowledged: cr.GetAnnotations()[policy.AnnotationAllowCoordinatorRecovery] == from,
	}
}

// strandedPods are the running pods whose containers started strandedGrace
// ago or more and none of whose processes the status lists.
func (o *observation) strandedPods() []*corev1.Pod {
	if o.status == nil {
		return nil
	}
	reporting := map[string]bool{}
	for _, p := range o.status.Cluster.Processes {
		reporting[p.Locality.InstanceID] = true
	}
	var out []*corev1.Pod
	for _, p := range o.runningPods() {
		if started := p.Status.StartTime; started != nil && o.now.Sub(started.Time) >= strandedGrace && !reporting[p.Labels[workload.LabelProcessGroup]] {
			out = append(out, p)
		}
	}
	return out
}

// serving returns the process that serves coordinator c.
func serving(procs []plan.Process, c fdb.ProcessAddress) (plan.Process, bool) {
	for _, p := range procs {
		if slices.Contains(p.Names(), string(c)) {
			return p, true
		}
	}
	return plan.Process{}, false
}

// process is the process serving address c, in its running pod.
func (o *observation) process(cr *v1alpha1.Cluster, procs []plan.Process, c fdb.ProcessAddress) (coordination.Process, bool) {
	p, ok := serving(procs, c)
	if !ok {
		return coordination.Process{}, false
	}
	pod := o.pods[workload.PodName(cr, p.InstanceID)]
	if !workload.PodRunning(pod) {
		return coordination.Process{}, false
	}
	return coordination.Process{Pod: pod, Number: fdb.ProcessNumber(p.InstanceID, p.ProcessID)}, true
}

// survivor is the first of coordinators kept whose process runs in a
// running pod, with its address.
func (o *observation) survivor(cr *v1alpha1.Cluster, procs []plan.Process, kept []fdb.ProcessAddress) (fdb.ProcessAddress, coordination.Process, bool) {
	for _, c := range kept {
		if p, ok := o.process(cr, procs, c); ok {
			return c, p, true
		}
	}
	return "", coordination.Process{}, false
}

// runningPods are the cluster's running pods, by name.
func (o *observation) runningPods() []*corev1.Pod { return sortedWhere(o.pods, workload.PodRunning) }
