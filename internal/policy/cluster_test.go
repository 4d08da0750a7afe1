package policy

import (
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestNewInput(t *testing.T) {
	cr := &fdbv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "prod", Namespace: "db"},
		Spec: fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{
			Version:               "7.3.63",
			DatabaseConfiguration: fdbv1alpha1.DatabaseConfiguration{RedundancyMode: fdbv1alpha1.RedundancyTriple},
			ProcessCounts:         fdbv1alpha1.ProcessCounts{Storage: 5, Log: 4, Stateless: 3},
			Safety:                fdbv1alpha1.SafetySettings{Policies: []string{"team"}, Params: &runtime.RawExtension{Raw: []byte(`{"maxActiveGenerations": 5}`)}},
			Automation:            fdbv1alpha1.AutomationOptions{MinimumUptimeSecondsForBounce: 600},
		}},
		// A status recorded by an earlier reconcile is never evidence.
		Status: fdbv1alpha1.ClusterStatus{AtProvider: fdbv1alpha1.ClusterObservation{
			RunningVersion: "7.1.0",
			Health:         fdbv1alpha1.ClusterHealth{Available: false, FaultTolerance: 0, LastRecoveryTime: &metav1.Time{Time: time.Date(2025, 1, 1, 0, 9, 59, 0, time.UTC)}},
			Coordinators:   []string{"10.0.0.9:4500"},
		}},
	}
	status := &fdb.Status{}
	status.Client.DatabaseStatus.Available, status.Client.DatabaseStatus.Healthy = true, true
	status.Cluster.ConnectionString = "prod:abc@10.0.0.2:4500"
	// storage-1 reports, excluded, still serving storage; log-1 reports
	// nothing, so nothing about it is taken as drained.
	status.Cluster.Processes = map[string]fdb.Process{"p1": {Version: "7.3.63", Address: "10.0.0.1:4500", Excluded: true,
		Locality: fdb.Locality{InstanceID: "prod-storage-1"}, Roles: []fdb.ProcessRole{{Role: "storage"}}}}
	status.Cluster.RecoveryState.Name, status.Cluster.RecoveryState.ActiveGenerations = "fully_recovered", 1
	status.Cluster.RecoveryState.SecondsSinceLastRecovered = new(900.0)
	status.Cluster.FaultTolerance.MaxZoneFailuresWithoutLosingData, status.Cluster.FaultTolerance.MaxZoneFailuresWithoutLosingAvailability = 2, 2
	status.Cluster.Data.State.Healthy = true
	now := time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC)
	data := fdbv1alpha1.ProcessGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "prod-storage-1"},
		Spec:       fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{ProcessClass: fdbv1alpha1.ProcessClassStorage}},
		Status: fdbv1alpha1.ProcessGroupStatus{AtProvider: fdbv1alpha1.ProcessGroupObservation{
			Addresses: []string{"10.0.0.1:4500"}, Roles: []string{"storage"}, Excluded: true,
			ProcessGroupConditions: []fdbv1alpha1.ProcessGroupCondition{{Type: fdbv1alpha1.MissingProcesses, Since: metav1.NewTime(now.Add(-90 * time.Second))}},
		}},
	}
	drained := fdbv1alpha1.ProcessGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "prod-log-1"},
		Spec:       fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{ProcessClass: fdbv1alpha1.ProcessClassLog}},
		Status: fdbv1alpha1.ProcessGroupStatus{AtProvider: fdbv1alpha1.ProcessGroupObservation{
			Addresses: []string{"10.0.0.2:4500"}, Excluded: true, RemovalTime: &metav1.Time{Time: now},
		}},
	}
	meta.SetExternalName(&drained, "log-1")

	got, err := NewInput(cr, []fdbv1alpha1.ProcessGroup{data, drained}, status, now, Action{Type: v1alpha1.ActionExclude})
	if err != nil {
		t.Fatal(err)
	}
	want := Input{
		Action: Action{Type: v1alpha1.ActionExclude},
		Cluster: Cluster{
			Name: "prod", Namespace: "db", Version: "7.3.63", RunningVersion: "7.3.63", RedundancyMode: "triple",
			DesiredCounts: map[string]int64{"storage": 5, "log": 4, "transaction": 0, "stateless": 3, "cluster_controller": 0,
				"commit_proxy": 0, "grv_proxy": 0, "resolution": 0, "ratekeeper": 0, "data_distributor": 0, "coordinator": 0},
			MinimumUptimeSecondsForBounce: 600,
			Available:                     true, Healthy: true, RecoveryState: "fully_recovered", ActiveGenerations: 1, SecondsSinceLastRecovery: 900,
			// The status reports 2, but says nothing of reaching its one
			// coordinator: no zone may be lost (ZoneFailuresTolerated).
			FaultTolerance: 0, DesiredFaultTolerance: 2, DataMovement: DataMovement{Healthy: true}, Coordinators: []string{"10.0.0.2:4500"},
		},
		ProcessGroups: []ProcessGroup{
			{
				ID: "prod-storage-1", Class: "storage", Addresses: []string{"10.0.0.1:4500"}, Excluded: true, Reporting: true, Roles: []string{"storage"}, HoldsData: true,
				Drain: "it still serves storage", Conditions: []Condition{{Type: "MissingProcesses", AgeSeconds: 90}},
			},
			{
				ID: "log-1", Class: "log", Addresses: []string{"10.0.0.2:4500"}, Removing: true, Roles: []string{"coordinator"}, Coordinator: true, HoldsData: true,
				Drain: "0 of its 1 processes report: a group that does not report cannot prove it holds no data",
			},
		},
		Params:   map[string]any{"maxActiveGenerations": int64(5)},
		Policies: []string{"team"},
		Observed: true,
	}
	if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Object" }, cmp.Ignore())); diff != "" {
		t.Errorf("NewInput(...): -want, +got:\n%s", diff)
	}
	if name, _, _ := unstructured.NestedString(got.Object, "metadata", "name"); name != "prod" {
		t.Errorf("NewInput(...).Object: want metadata.name prod, got %q", name)
	}
}

// TestNewInputRecoveryTimeUnknown: a status that gives no time since the
// last recovery (left out while a recovery is under way, or -1) makes the
// input's -1, never an age of 0 or less that a policy could misread.
func TestNewInputRecoveryTimeUnknown(t *testing.T) {
	for name, secs := range map[string]*float64{"LeftOut": nil, "MinusOne": new(-1.0)} {
		t.Run(name, func(t *testing.T) {
			status := &fdb.Status{}
			status.Cluster.RecoveryState = fdb.RecoveryState{Name: fdb.RecoveryFullyRecovered, SecondsSinceLastRecovered: secs}
			got, err := NewInput(&fdbv1alpha1.Cluster{}, nil, status, time.Now(), Action{Type: v1alpha1.ActionExclude})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(int64(-1), got.Cluster.SecondsSinceLastRecovery); diff != "" {
				t.Errorf("NewInput(...).Cluster.SecondsSinceLastRecovery: -want, +got:\n%s", diff)
			}
		})
	}
}
