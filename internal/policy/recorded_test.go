package policy

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

func TestRecorded(t *testing.T) {
	cr := &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}}
	cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = "double"
	cr.Status.AtProvider = fdbv1alpha1.ClusterObservation{
		RunningVersion: "7.3.63", Coordinators: []string{"10.0.0.1:4501"},
		Health: fdbv1alpha1.ClusterHealth{Available: true, Healthy: true, FullReplication: true, FaultTolerance: 1, RecoveryState: "fully_recovered",
			ActiveGenerations: 1, LastRecoveryTime: &metav1.Time{Time: t0.Add(-90 * time.Second)}},
	}
	coordinator := fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "log-1"}}
	coordinator.Status.AtProvider = fdbv1alpha1.ProcessGroupObservation{Addresses: []string{"10.0.0.1:4501"}}
	excluded := fdbv1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "storage-2"}}
	excluded.Status.AtProvider = fdbv1alpha1.ProcessGroupObservation{Addresses: []string{"10.0.0.2:4501"}, Excluded: true, Roles: []string{"storage"}}

	in, err := Recorded(cr, []fdbv1alpha1.ProcessGroup{coordinator, excluded}, t0, Action{Type: v1alpha1.ActionInclude})
	if err != nil {
		t.Fatal(err)
	}
	want := Cluster{Name: "db", Namespace: "ns", RunningVersion: "7.3.63", RedundancyMode: "double",
		Available: true, Healthy: true, RecoveryState: "fully_recovered", ActiveGenerations: 1, SecondsSinceLastRecovery: 90,
		FaultTolerance: 1, DesiredFaultTolerance: 1, DataMovement: DataMovement{Healthy: true}, Coordinators: []string{"10.0.0.1:4501"}}
	if diff := cmp.Diff(want, in.Cluster, cmpopts.IgnoreFields(Cluster{}, "DesiredCounts")); diff != "" {
		t.Errorf("Recorded(...).Cluster: -want +got:\n%s", diff)
	}
	groups := []ProcessGroup{
		{ID: "log-1", Addresses: []string{"10.0.0.1:4501"}, Coordinator: true, HoldsData: true, Drain: "the database status could not be read"},
		{ID: "storage-2", Addresses: []string{"10.0.0.2:4501"}, Excluded: true, Roles: []string{"storage"}, HoldsData: true, Drain: "the database status could not be read"},
	}
	if diff := cmp.Diff(groups, in.ProcessGroups); diff != "" {
		t.Errorf("Recorded(...).ProcessGroups: -want +got:\n%s", diff)
	}
	if !in.Observed {
		t.Error("Recorded(...) of a Cluster that recorded a status: Observed false")
	}
}
