package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func TestFailedNodeStep(t *testing.T) {
	down := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}}}
	pod := func(id string, volume bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-" + id, Labels: map[string]string{workload.LabelProcessGroup: id}},
			Spec: corev1.PodSpec{NodeName: down.Name}, Status: corev1.PodStatus{PodIP: "10.0.1." + id[len(id)-1:]}}
		if volume {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "db-" + id + "-data"}}}}
		}
		return p
	}
	// status lists a reporting process elsewhere, with generations active
	// log generations.
	status := func(generations int) *fdb.Status {
		s := &fdb.Status{}
		s.Cluster.Processes = map[string]fdb.Process{"p": {Address: "10.0.0.9:4501", Locality: fdb.Locality{InstanceID: "log-2"}}}
		s.Cluster.RecoveryState.ActiveGenerations = generations
		return s
	}
	// listing makes s list its active generations, with logs at addrs.
	listing := func(s *fdb.Status, addrs ...string) *fdb.Status {
		for g := range s.Cluster.RecoveryState.ActiveGenerations {
			gen := fdb.LogGeneration{Current: g == 0}
			for _, a := range addrs {
				gen.LogInterfaces = append(gen.LogInterfaces, fdb.LogInterface{Address: a})
			}
			s.Cluster.Logs = append(s.Cluster.Logs, gen)
		}
		return s
	}
	pods := map[string]*corev1.Pod{"db-log-1": pod("log-1", true), "db-stateless-1": pod("stateless-1", false)}
	cases := map[string]struct {
		reason string
		status *fdb.Status
		want   []string
	}{
		"Recovered": {
			reason: "One log generation is active: no log data a pod without a volume may keep is still needed.",
			status: status(1), want: []string{"log-1", "stateless-1"},
		},
		"OldGenerationActive": {
			reason: "Two generations are active and the status lists neither: the stateless pod may keep log data of the old one, which a node back from a short outage still has (chaos seed 751 at e500f08).",
			status: status(2), want: []string{"log-1"},
		},
		"OldGenerationsElsewhere": {
			reason: "Two generations are active, listed, and no log of either is on the stateless pod (10.0.1.1): it keeps nothing they need.",
			status: listing(status(2), "10.0.0.9:4501", "10.0.0.8:4501"), want: []string{"log-1", "stateless-1"},
		},
		"OldGenerationOnThePod": {
			reason: "A listed generation has a log on the stateless pod's address.",
			status: listing(status(2), "10.0.0.9:4501", "10.0.1.1:4501"), want: []string{"log-1"},
		},
		"GenerationsUnknown": {
			reason: "A status without the count cannot show it.",
			status: status(0), want: []string{"log-1"},
		},
		"NoStatus": {
			reason: "Nor can no status.",
			want:   []string{"log-1"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &observation{pods: pods, nodes: map[string]*corev1.Node{down.Name: down}, status: tc.status}
			s := failedNodeStep(nil, o)
			if s == nil {
				t.Fatalf("%s\nno step", tc.reason)
			}
			if diff := cmp.Diff(tc.want, s.Action.Targets); diff != "" {
				t.Errorf("%s\nforce-deleted groups: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
