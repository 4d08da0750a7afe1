package cluster

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// maintenance makes the status show zone under maintenance for remaining
// seconds ("" for none), and the Cluster record ours as the zone it put
// under maintenance.
func maintenance(zone string, remaining float64, ours string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.status.Cluster.MaintenanceZone, o.status.Cluster.MaintenanceSecondsRemaining = zone, remaining
		cr.Status.AtProvider.MaintenanceZone = ours
	}
}

// podDown makes a group's pod not run.
func podDown(id string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.pods[workload.PodName(cr, id)].Status.Phase = corev1.PodPending
	}
}

// othersCoordinator adds a coordinator named by host, the DNS name of
// another Cluster's pod (another data hall's), which does not report.
func othersCoordinator(host string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		cs, _ := fdb.ParseConnectionString(o.clusterFile)
		cs.Coordinators = fdb.SortedAddresses(append(cs.Coordinators, fdb.ProcessAddress(host+":4501")))
		s := cs.String()
		o.status.Cluster.ConnectionString, o.clusterFile, o.configMap[workload.KeyClusterFile] = s, s, s
	}
}

func setMaintenance(zone string) *clusterStep {
	return &clusterStep{
		Step: step.Step{Reason: reasonMaintenance, Message: "put zone " + zone + " under maintenance for 600s while its pods are recreated",
			Action: &policy.Action{Type: apiv1alpha1.ActionSetMaintenance, Targets: []string{zone}, Reason: "planned restart of its pods"}},
		Kind: kindSetMaintenance, Zone: zone,
	}
}

// TestPlanMaintenance: a zone whose pods are recreated on purpose is under
// maintenance while they are, and the provider ends only the maintenance
// it set.
func TestPlanMaintenance(t *testing.T) {
	grantWait := waiting("fault domain c may recreate its pods (disruption grant of generation 1)")
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"BeforeTheFirstPodGoes": {
			reason: "The granted zone wants its pods recreated: maintenance first.",
			mutate: []mutation{podDrifted("storage-2"), regrant()},
			want:   setMaintenance("c"),
		},
		"ReplacesAnotherZone": {
			reason: "One zone at a time: the granted one.",
			mutate: []mutation{podDrifted("storage-2"), regrant(), maintenance("b", 600, "b")},
			want:   setMaintenance("c"),
		},
		"Renewed": {
			reason: "A long roll sets it again before it runs out.",
			mutate: []mutation{podDrifted("storage-2"), regrant(), maintenance("c", 120, "c")},
			want:   setMaintenance("c"),
		},
		"WhileThePodComesBack": {
			reason: "The pod was recreated and is not back yet: maintenance holds, the cluster waits.",
			mutate: []mutation{podDown("storage-5"), notReporting("storage-5"), granted("c", 1), maintenance("c", 500, "c")},
			want:   grantWait,
		},
		"CoordinatorKeepsItsDNSName": {
			reason: "A coordinator named by DNS name whose pod is recreated on purpose comes back under that name: no coordinator change.",
			mutate: []mutation{dnsNames(true), coordinators("storage-1", "storage-2", "storage-3"),
				podDown("storage-3"), notReporting("storage-3"), granted("a", 1), maintenance("a", 500, "a")},
			want: waiting("fault domain a may recreate its pods (disruption grant of generation 1)"),
		},
		"FailedCoordinatorIsMissing": {
			reason: "The same coordinator down by a failure is missing: the coordinators must change (here they cannot: zone a has no other process).",
			mutate: []mutation{dnsNames(true), coordinators("storage-1", "storage-2", "storage-3"),
				podDown("storage-3"), notReporting("storage-3"), granted("a", 1)},
			want: waiting("coordinators must change (coordinator db-storage-3.db.ns.svc.cluster.local:4501 is missing, excluded, being removed or not eligible) " +
				"but cannot choose coordinators: 3 needed in distinct zones, 2 eligible zones"),
		},
		"OtherClustersCoordinatorRestarting": {
			reason: "A coordinator none of this Cluster's groups is (another data hall's) is away while a zone is under a maintenance this Cluster did not set: that Cluster recreates its pods there and brings it back under its name, so no coordinator change.",
			mutate: []mutation{dnsNames(true), coordinators("storage-1", "storage-2"), othersCoordinator("hall2-storage-1.hall2.ns.svc.cluster.local"),
				maintenance("hall2-b", 500, "")},
		},
		"OtherClustersCoordinatorFailed": {
			reason: "The same coordinator away with no maintenance in force is missing.",
			mutate: []mutation{dnsNames(true), coordinators("storage-1", "storage-2"), othersCoordinator("hall2-storage-1.hall2.ns.svc.cluster.local")},
			want: coordinatorsChanged("coordinator hall2-storage-1.hall2.ns.svc.cluster.local:4501 is missing, excluded, being removed or not eligible",
				"db-storage-1.db.ns.svc.cluster.local:4501", "db-storage-2.db.ns.svc.cluster.local:4501", "db-storage-3.db.ns.svc.cluster.local:4501"),
		},
		"RemovalIsNoPlannedRestart": {
			reason: "A group being removed that is down does not keep its zone under the maintenance the provider set: it does not come back, and data distribution must heal what it held.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.ProcessCounts.Storage = 4 },
				removing("storage-5"), podDown("storage-5"), notReporting("storage-5"), granted("c", 1), maintenance("c", 500, "c")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonMaintained, Message: "ended the maintenance of zone c: its pods are back",
					Action: &policy.Action{Type: apiv1alpha1.ActionResetMaintenance, Targets: []string{"c"}, Reason: "planned restart done"}},
				Kind: kindResetMaintenance, Zone: "c",
			},
		},
		"FailureIsNoPlannedRestart": {
			reason: "A zone disrupted by a failure, not by the provider, gets no maintenance: its data must heal.",
			mutate: []mutation{podDown("storage-5"), notReporting("storage-5"), granted("c", 1)},
			want:   grantWait,
		},
		"EndedOnceBack": {
			reason: "The zone is back and holds no grant: the provider ends the maintenance it set.",
			mutate: []mutation{maintenance("c", 400, "c")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonMaintained, Message: "ended the maintenance of zone c: its pods are back",
					Action: &policy.Action{Type: apiv1alpha1.ActionResetMaintenance, Targets: []string{"c"}, Reason: "planned restart done"}},
				Kind: kindResetMaintenance, Zone: "c",
			},
		},
		"AnotherZoneNotReplaced": {
			reason: "The status shows another zone under a maintenance this Cluster did not set (another data hall's Cluster rolls): it is not replaced, and the granted zone waits.",
			mutate: []mutation{podDrifted("storage-2"), regrant(), maintenance("b", 600, "")},
			want:   waiting("fault domain c waits to recreate its pods: zone b is under a maintenance this Cluster did not set (another Cluster of the database, or an operator), until it ends"),
		},
		"OthersLeftAlone": {
			reason: "A maintenance somebody else set is not the provider's to end.",
			mutate: []mutation{maintenance("c", 400, "")},
		},
		"SetAgainAfterRunningOut": {
			reason: "The maintenance ran out while the recreated pod is still away: the provider sets it again.",
			mutate: []mutation{podDown("storage-5"), notReporting("storage-5"), granted("c", 1), maintenance("", 0, "c")},
			want:   setMaintenance("c"),
		},
		"NotWhileUnavailable": {
			reason: "Nothing is set on an unavailable database.",
			mutate: []mutation{podDrifted("storage-2"), regrant(), unavailable()},
			want:   grantWait,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			if diff := cmp.Diff(tc.want, next(cr, o), compareGroups); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestMaintenanceRecord: the Cluster remembers the zone it put under
// maintenance for as long as that zone's planned restart goes on, whatever
// the status can or cannot show of it, and forgets it once the zone is
// back or another zone's maintenance replaced it.
func TestMaintenanceRecord(t *testing.T) {
	restarting := []mutation{podDown("storage-5"), notReporting("storage-5"), granted("c", 1)}
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   string
	}{
		"Shown": {
			reason: "The status shows the maintenance the provider set.",
			mutate: append(restarting, maintenance("c", 500, "c")),
			want:   "c",
		},
		"Unreadable": {
			reason: "The recovery the recreated pod caused leaves the status without the maintenance: that proves nothing.",
			mutate: append(restarting, maintenance("c", 500, "c"), unavailable()),
			want:   "c",
		},
		"RanOutMidRestart": {
			reason: "The maintenance ran out while the pod is still away: the restart is still planned, and the maintenance is set again.",
			mutate: append(restarting, maintenance("", 0, "c")),
			want:   "c",
		},
		"Back": {
			reason: "The zone is back and the maintenance ran out: nothing left to end.",
			mutate: []mutation{maintenance("", 0, "c")},
		},
		"Replaced": {
			reason: "Another zone's maintenance replaced it.",
			mutate: append(restarting, maintenance("b", 500, "c")),
		},
		"None": {
			reason: "A zone under somebody else's maintenance is not the provider's.",
			mutate: append(restarting, maintenance("c", 500, "")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			got := o.atProvider(cr.Status.AtProvider, metav1.NewTime(time.Unix(0, 0))).MaintenanceZone
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\natProvider(...).MaintenanceZone: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
