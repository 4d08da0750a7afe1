package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// recoveryNow is the time of the observations of TestCoordinatorRecoveryStep.
var recoveryNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// recorded is a Cluster that recorded a recovery from its connection
// string to one on storage-3, 4 and 5, begun ago.
func recorded(ago time.Duration) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		to := fdb.ConnectionString{Description: "db", ID: "01234567", Coordinators: []fdb.ProcessAddress{"10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"}}
		cr.Status.AtProvider.CoordinatorRecovery = &v1alpha1.CoordinatorRecoveryObservation{From: o.clusterFile, To: to.String(), Since: metav1.NewTime(recoveryNow.Add(-ago))}
		o.recovery = cr.Status.AtProvider.CoordinatorRecovery
	}
}

// tookRecovery is a database that runs on the recorded recovery's
// connection string.
func tookRecovery() mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		o.status.Cluster.ConnectionString = o.recovery.To
	}
}

// startedAgo makes the pods of groups ids start their containers ago.
func startedAgo(ago time.Duration, ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for _, p := range o.pods {
			p.Status.StartTime = &metav1.Time{Time: recoveryNow.Add(-time.Hour)}
		}
		for _, id := range ids {
			o.pods[workload.PodName(cr, id)].Status.StartTime = &metav1.Time{Time: recoveryNow.Add(-ago)}
		}
	}
}

// stopped makes the pods of groups ids not run.
func stopped(ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			o.pods[workload.PodName(cr, id)].Status.Phase = corev1.PodPending
		}
	}
}

func TestCoordinatorRecoveryStep(t *testing.T) {
	type want struct {
		Kind     kind
		Message  string
		Targets  []string
		Details  map[string]any
		Survivor string
		Copies   []string
		Pods     []string
	}
	from := "db:01234567@10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501"
	details := func(acknowledged bool) map[string]any {
		return map[string]any{
			policy.DetailFromConnectionString: from,
			policy.DetailLostCoordinators:     []string{"10.0.0.2:4501", "10.0.0.3:4501"},
			policy.DetailSurvivor:             "10.0.0.4:4501",
			policy.DetailStranded:             false,
			policy.DetailRecoveryAcknowledged: acknowledged,
		}
	}
	recover := want{
		Kind:    kindRecoverCoordinators,
		Message: "recovered the database on coordinators 10.0.0.4:4501,10.0.0.5:4501,10.0.0.6:4501 from the coordination files of 10.0.0.4:4501: coordinators 10.0.0.2:4501,10.0.0.3:4501 lost their coordinated state with their disks",
		Targets: []string{"10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"}, Details: details(false),
		Survivor: "db-storage-3/1", Copies: []string{"db-storage-4/1", "db-storage-5/1"},
		Pods: []string{"db-storage-1", "db-storage-2", "db-storage-3", "db-storage-4", "db-storage-5"},
	}
	acknowledged := recover
	acknowledged.Details = details(true)
	cases := map[string]struct {
		reason string
		n      int // storage groups, 5 when 0
		ms     []mutation
		want   *want
	}{
		"Available": {
			reason: "An available database changes coordinators with the coordinators command (coordinatorsStep).",
			ms:     []mutation{newVolume("storage-1", "storage-2")},
		},
		"MinorityLost": {
			reason: "A quorum may keep the state: the database recovers once it reaches them.",
			ms:     []mutation{recordedConfigured(), unavailable(), newVolume("storage-1")},
		},
		"NoEvidence": {
			reason: "Unavailable with every claim in place: nothing says the state is lost.",
			ms:     []mutation{recordedConfigured(), unavailable()},
		},
		"MajorityLost": {
			reason: "Two of three coordinators' claims made anew: the survivor's files go to the new coordinators other than itself, and every running pod restarts.",
			ms:     []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2")},
			want:   &recover,
		},
		"Acknowledged": {
			reason: "The annotation naming the connection string given up is the acknowledgement.",
			ms: []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2"), func(cr *v1alpha1.Cluster, _ *observation) {
				cr.SetAnnotations(map[string]string{policy.AnnotationAllowCoordinatorRecovery: from})
			}},
			want: &acknowledged,
		},
		"AcknowledgedAnotherOne": {
			reason: "An acknowledgement of another connection string does not count.",
			ms: []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2"), func(cr *v1alpha1.Cluster, _ *observation) {
				cr.SetAnnotations(map[string]string{policy.AnnotationAllowCoordinatorRecovery: "db:76543210@10.0.0.2:4501"})
			}},
			want: &recover,
		},
		"InPlace": {
			reason: "Where only the current coordinators make a valid set, they stay: the blank ones get the survivor's files.",
			n:      3,
			ms:     []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2")},
			want: &want{Kind: kindRecoverCoordinators,
				Message: "recovered the database on coordinators 10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501 from the coordination files of 10.0.0.4:4501: coordinators 10.0.0.2:4501,10.0.0.3:4501 lost their coordinated state with their disks",
				Targets: []string{"10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"}, Details: details(false),
				Survivor: "db-storage-3/1", Copies: []string{"db-storage-1/1", "db-storage-2/1"},
				Pods: []string{"db-storage-1", "db-storage-2", "db-storage-3"}},
		},
		"NoSurvivorRuns": {
			reason: "Without a running coordinator that kept the state there is nothing to copy.",
			ms:     []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2"), stopped("storage-3")},
			want:   &want{Kind: kindWait, Message: "coordinators 10.0.0.2:4501,10.0.0.3:4501 lost their coordinated state with their disks, and no coordinator that kept it runs: nothing to recover from"},
		},
		"RecordedNotTakenYet": {
			reason: "A recovery just taken waits for the database to take it.",
			ms:     []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2"), recorded(10 * time.Second)},
			want:   &want{Kind: kindWait, Message: "waiting for the database to recover on the coordinators of db:01234567@10.0.0.4:4501,10.0.0.5:4501,10.0.0.6:4501"},
		},
		"RecordedNotTaken": {
			reason: "A recovery the database has not taken after the grace runs again, from the connection string given up.",
			ms:     []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2"), recorded(2 * time.Minute)},
			want:   &recover,
		},
		"InPlaceNotTaken": {
			reason: "A recovery that kept the coordinators names the connection string the status already does: unavailable after the grace, it runs again.",
			n:      3,
			ms: []mutation{recordedConfigured(), unavailable(), newVolume("storage-1", "storage-2"), func(cr *v1alpha1.Cluster, o *observation) {
				cr.Status.AtProvider.CoordinatorRecovery = &v1alpha1.CoordinatorRecoveryObservation{From: o.clusterFile, To: o.clusterFile, Since: metav1.NewTime(recoveryNow.Add(-2 * time.Minute))}
				o.recovery = cr.Status.AtProvider.CoordinatorRecovery
			}},
			want: &want{Kind: kindRecoverCoordinators,
				Message: "recovered the database on coordinators 10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501 from the coordination files of 10.0.0.4:4501: coordinators 10.0.0.2:4501,10.0.0.3:4501 lost their coordinated state with their disks",
				Targets: []string{"10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"}, Details: details(false),
				Survivor: "db-storage-3/1", Copies: []string{"db-storage-1/1", "db-storage-2/1"},
				Pods: []string{"db-storage-1", "db-storage-2", "db-storage-3"}},
		},
		"TakenAllReport": {
			reason: "Taken, and every running pod's processes report: nothing left to do.",
			ms:     []mutation{recorded(2 * time.Minute), tookRecovery(), startedAgo(time.Hour)},
		},
		"TakenStranded": {
			reason: "A pod whose processes are missing well after it started runs on the connection string given up: it restarts on the new one.",
			ms:     []mutation{recorded(2 * time.Minute), tookRecovery(), startedAgo(2*time.Minute, "storage-2"), notReporting("storage-2")},
			want: &want{Kind: kindRecoverCoordinators,
				Message: "restarted pods db-storage-2 on the recovered cluster file: their processes still run on the connection string given up, " + from,
				Targets: []string{"db-storage-2"},
				Details: map[string]any{policy.DetailFromConnectionString: from, policy.DetailLostCoordinators: []string{}, policy.DetailSurvivor: "",
					policy.DetailStranded: true, policy.DetailRecoveryAcknowledged: false},
				Pods: []string{"db-storage-2"}},
		},
		"TakenJustStarted": {
			reason: "A pod that just started may not report yet: it is left alone.",
			ms:     []mutation{recorded(2 * time.Minute), tookRecovery(), startedAgo(10*time.Second, "storage-2"), notReporting("storage-2")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := tc.n
			if n == 0 {
				n = 5
			}
			cr, o := observed(n, tc.ms...)
			o.now = recoveryNow
			s := coordinatorRecoveryStep(cr, o)
			var got *want
			if s != nil {
				got = &want{Kind: s.Kind, Message: s.Message}
				if s.Action != nil {
					got.Targets, got.Details = s.Action.Targets, s.Action.Details
				}
				if r := s.Recovery; r != nil {
					if r.Survivor.Pod != nil {
						got.Survivor = fmt.Sprintf("%s/%d", r.Survivor.Pod.Name, r.Survivor.Number)
					}
					for _, c := range r.Copies {
						got.Copies = append(got.Copies, fmt.Sprintf("%s/%d", c.Pod.Name, c.Number))
					}
					for _, p := range r.Pods {
						got.Pods = append(got.Pods, p.Name)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\ncoordinatorRecoveryStep(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
