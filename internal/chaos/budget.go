package chaos

import (
	"fmt"
	"slices"
	"strings"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// checkExclusionBudget: an exclusion that reached the database (as the
// simulator recorded it) kept each class within the FoundationDB
// operator's exclusion budget, computed here on the harness's own
// terms and not by the provider's code: from the status the harness read
// before the step, the groups of the class still in flight (excluded,
// still holding data) and the new ones together may be at most the groups
// that report and are not drained (those in flight among them), plus the fault tolerance the
// redundancy mode is meant to have, minus the groups the Cluster wants of
// the class. It leaves out the operator's freeze while a group misses its
// processes, which only makes the provider stricter.
func (r *run) checkExclusionBudget(before map[string]*database, call sim.AdminCall) {
	byCluster := map[string][]*fdbv1alpha1.ProcessGroup{}
	for _, o := range r.hist.latest()[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if slices.Contains(call.Groups, pg.ID()) {
			byCluster[pg.GetLabels()[workload.LabelCluster]] = append(byCluster[pg.GetLabels()[workload.LabelCluster]], pg)
		}
	}
	for name, excluded := range byCluster {
		db, c := before[name], r.clusterNamed(name)
		if db == nil || db.status == nil || db.status.Incomplete() || !db.status.ConfigurationRead() || c == nil {
			continue // the status read before the step shows nothing to count on (or not which are excluded); volume-deleted and the simulator judge the removal
		}
		for _, class := range classesOf(excluded) {
			r.report.Checks++
			inFlight, valid, fresh := r.exclusionTally(db.status, name, class, call.Groups)
			allowed := valid + faultTolerance(c.Spec.ForProvider.DatabaseConfiguration.RedundancyMode) - desiredOf(c, class)
			if inFlight+len(fresh) > allowed {
				r.violate("exclusion-budget", fmt.Sprintf("Cluster %s excluded %s groups %s with %d in flight: at most %d (%d reporting and not drained, fault tolerance %d, %d wanted)",
					name, class, strings.Join(fresh, ","), inFlight, max(allowed, 0), valid,
					faultTolerance(c.Spec.ForProvider.DatabaseConfiguration.RedundancyMode), desiredOf(c, class)))
			}
		}
	}
}

// exclusionTally counts, in st, the groups of class of the Cluster named
// cluster: in flight (their processes excluded, still holding data),
// valid (reporting and not drained: in flight or not excluded) and, of
// ids, those not excluded in st.
func (r *run) exclusionTally(st *fdb.Status, cluster string, class fdbv1alpha1.ProcessClass, ids []string) (inFlight, valid int, fresh []string) {
	procs := map[string][]fdb.Process{}
	for _, p := range st.Cluster.Processes {
		procs[p.Locality.InstanceID] = append(procs[p.Locality.InstanceID], p)
	}
	for _, o := range r.hist.latest()[groupKind] {
		pg := o.(*fdbv1alpha1.ProcessGroup)
		if pg.GetLabels()[workload.LabelCluster] != cluster || pg.Spec.ForProvider.ProcessClass != class {
			continue
		}
		ps := procs[pg.ID()]
		excluded := len(ps) > 0 && !slices.ContainsFunc(ps, func(p fdb.Process) bool { return !p.Excluded })
		holds := slices.ContainsFunc(ps, holdsData)
		if excluded && holds {
			inFlight++
		}
		if len(ps) > 0 && (!excluded || holds) {
			valid++
		}
		if slices.Contains(ids, pg.ID()) && !excluded {
			fresh = append(fresh, pg.ID())
		}
	}
	return inFlight, valid, fresh
}

// holdsData reports whether process p serves a log or stores data.
func holdsData(p fdb.Process) bool { return slices.ContainsFunc(p.Roles, heldRole) }

// heldRole reports whether role holds data: a log, or a storage server
// that stores some.
func heldRole(role fdb.ProcessRole) bool {
	return role.Role == fdb.RoleLog || (role.Role == fdb.RoleStorage && role.StoredBytes > 0)
}

// classesOf returns the classes of groups, sorted, once each.
func classesOf(groups []*fdbv1alpha1.ProcessGroup) []fdbv1alpha1.ProcessClass {
	var out []fdbv1alpha1.ProcessClass
	for _, pg := range groups {
		if !slices.Contains(out, pg.Spec.ForProvider.ProcessClass) {
			out = append(out, pg.Spec.ForProvider.ProcessClass)
		}
	}
	slices.Sort(out)
	return out
}

// faultTolerance is how many fault domains a redundancy mode is meant to
// survive (FoundationDB's documentation of the modes).
func faultTolerance(mode fdbv1alpha1.RedundancyMode) int {
	switch mode {
	case fdbv1alpha1.RedundancyDouble:
		return 1
	case fdbv1alpha1.RedundancyTriple, fdbv1alpha1.RedundancyThreeDataHall:
		return 2
	}
	return 0
}

// desiredOf is how many groups of class the Cluster wants.
func desiredOf(c *fdbv1alpha1.Cluster, class fdbv1alpha1.ProcessClass) int {
	return c.Spec.ForProvider.ProcessCounts.ByClass()[class]
}

// clusterNamed returns the run's Cluster named name as the API server
// stores it now, or nil.
func (r *run) clusterNamed(name string) *fdbv1alpha1.Cluster {
	c, _ := r.hist.latest().find(clusterKind, client.ObjectKey{Namespace: r.ns, Name: name}).(*fdbv1alpha1.Cluster)
	return c
}
