package cluster

import (
	"fmt"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Reasons of the events of a planned restart's maintenance.
const (
	reasonMaintenance = "SetMaintenance"
	reasonMaintained  = "ResetMaintenance"
)

// plannedZone is the fault domain whose pods are restarted on purpose now:
// the zone holding the disruption grant while one of its groups wants its
// pod recreated, or while one is still down after the provider put the
// zone under maintenance; "" when none. A domain of a group without a zone
// has no FoundationDB zone to maintain, and a zone disrupted only by a
// failure is no planned restart: its data must heal. Nor is a group being
// removed that is down: it does not come back, and its removal may wait
// for data distribution to heal what it held, which the maintenance of
// its zone would hold back (chaos seed 123 of public-ip-service).
func (o *observation) plannedZone(cr *v1alpha1.Cluster) string {
	return o.plannedZoneOf(cr.Status.AtProvider.MaintenanceZone)
}

// plannedZoneOf is plannedZone with ours the zone the Cluster recorded it
// put under maintenance.
func (o *observation) plannedZoneOf(ours string) string {
	g := o.grant
	if g == nil || !disruption.IsZone(g.Domain) {
		return ""
	}
	for _, m := range o.members {
		if m.Zone == g.Domain && (m.Wants || m.Disrupted && !m.Removing && ours == g.Domain) {
			return g.Domain
		}
	}
	return ""
}

// foreignMaintenance is the zone under a maintenance this Cluster did not
// set, while it holds back the zone the Cluster plans to restart; ""
// when none does. FoundationDB keeps one zone under maintenance for the
// whole database, and a Cluster's groups recreate their pods only while
// it covers their zone: one set by another Cluster of the database (one
// data hall's or data center's while this one's rolls too) or by an
// operator is theirs until it ends, and replacing it would put a second
// zone's pods down beside theirs.
func (o *observation) foreignMaintenance(cr *v1alpha1.Cluster) string {
	if want, other := o.plannedZone(cr), o.othersMaintenance(cr); want != "" && other != want {
		return other
	}
	return ""
}

// othersMaintenance is the zone under a maintenance this Cluster did not
// set (another Cluster of the database, or an operator); "" when none is,
// or the status cannot show it.
func (o *observation) othersMaintenance(cr *v1alpha1.Cluster) string {
	if o.status == nil || !o.status.MaintenanceRead() || o.status.Cluster.MaintenanceZone == cr.Status.AtProvider.MaintenanceZone {
		return ""
	}
	return o.status.Cluster.MaintenanceZone
}

// maintenanceRecord is the zone the provider put under maintenance (ours,
// as recorded) as it stands after this reconcile. It is kept while the
// status shows it or cannot tell (no status, or one that could not read
// the maintenance, as during the recovery a recreated pod causes: missing
// evidence does not end a planned restart), and while the zone's planned
// restart goes on after the maintenance ran out (maintenanceStep sets it
// again); it is dropped once the zone is back, or another zone's
// maintenance replaced it.
func (o *observation) maintenanceRecord(ours string) string {
	switch s := o.status; {
	case ours == "" || s == nil || !s.MaintenanceRead() || s.Cluster.MaintenanceZone == ours:
		return ours
	case s.Cluster.MaintenanceZone == "" && o.plannedZoneOf(ours) == ours:
		return ours
	}
	return ""
}

// restarting maps the DNS names of the pods recreated on purpose now to
// their zone: those of the planned zone's groups that are not being
// removed and, while a zone is under a maintenance this Cluster did not
// set, the coordinators among current that are none of this Cluster's
// groups' — another Cluster of the database (another data hall's or data
// center's) recreates pods only in the zone under its maintenance (its
// groups wait for one), and replaces a coordinator of its own that failed
// anywhere else itself, so this one does not move the coordinators off a
// pod the other brings back under the same name. nil without DNS names
// in the cluster file, where a recreated pod comes back under another
// address.
func (o *observation) restarting(cr *v1alpha1.Cluster, current []fdb.ProcessAddress) map[string]string {
	if !workload.UseDNS(cr) {
		return nil
	}
	out := map[string]string{}
	if zone := o.plannedZone(cr); zone != "" {
		removing := o.removing()
		for _, m := range o.members {
			if m.Zone == zone && !removing[m.Group] {
				out[workload.DNSName(cr, m.Group)] = zone
			}
		}
	}
	if zone := o.othersMaintenance(cr); zone != "" {
		own := map[string]bool{}
		for i := range o.groups {
			own[workload.DNSName(cr, groupID(&o.groups[i]))] = true
		}
		for _, a := range current {
			if a.IsHostname() && !own[a.Host()] {
				out[a.Host()] = zone
			}
		}
	}
	return out
}

// maintenanceStep puts the zone whose pods the provider restarts on
// purpose under FoundationDB's maintenance before any of them goes, so that
// data distribution waits for them instead of re-replicating their data;
// it sets it again before it runs out, and ends the maintenance it set
// once the zone is back (a maintenance set by someone else is left
// alone, and never replaced: see foreignMaintenance). The groups recreate
// their pods only while the status shows their zone under maintenance.
func maintenanceStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.available() || o.foreignMaintenance(cr) != "" {
		return nil
	}
	current, remaining := o.status.Cluster.MaintenanceZone, o.status.Cluster.MaintenanceSecondsRemaining
	want, ours := o.plannedZone(cr), cr.Status.AtProvider.MaintenanceZone
	switch {
	case want != "" && (current != want || remaining < disruption.MaintenanceRenewSeconds):
		return &clusterStep{
			Step: step.Step{
				Reason:  reasonMaintenance,
				Message: fmt.Sprintf("put zone %s under maintenance for %ds while its pods are recreated", want, disruption.MaintenanceSeconds),
				Action:  &policy.Action{Type: apiv1alpha1.ActionSetMaintenance, Targets: []string{want}, Reason: "planned restart of its pods"},
			},
			Kind: kindSetMaintenance, Zone: want,
		}
	case want == "" && ours != "" && current == ours:
		return &clusterStep{
			Step: step.Step{
				Reason:  reasonMaintained,
				Message: fmt.Sprintf("ended the maintenance of zone %s: its pods are back", ours),
				Action:  &policy.Action{Type: apiv1alpha1.ActionResetMaintenance, Targets: []string{ours}, Reason: "planned restart done"},
			},
			Kind: kindResetMaintenance, Zone: ours,
		}
	}
	return nil
}
