package groupnudge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestSaw(t *testing.T) {
	groups := []v1alpha1.ProcessGroup{{ObjectMeta: metav1.ObjectMeta{Name: "storage-1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "log-1"}}}
	proc := func(id, process, addr string, roles ...string) fdb.Process {
		p := fdb.Process{Address: addr, Locality: fdb.Locality{InstanceID: id, ProcessID: process}, Roles: []fdb.ProcessRole{}}
		for _, r := range roles {
			p.Roles = append(p.Roles, fdb.ProcessRole{Role: r})
		}
		return p
	}
	status := func(procs ...fdb.Process) *fdb.Status {
		s := &fdb.Status{Cluster: fdb.ClusterStatus{Processes: map[string]fdb.Process{}, Messages: []fdb.Message{}}}
		for i, p := range procs {
			s.Cluster.Processes[string(rune('a'+i))] = p
		}
		return s
	}
	steady := status(proc("storage-1", "storage-1-1", "10.0.0.1:4501", "storage"), proc("storage-1", "storage-1-2", "10.0.0.1:4503", "storage"), proc("log-1", "log-1-1", "10.0.0.2:4501", "log"))
	cases := map[string]struct {
		statuses []*fdb.Status
		want     []string
	}{
		"FirstStatusNudgesNothing": {statuses: []*fdb.Status{steady}},
		"SameProcessesNudgeNothing": {statuses: []*fdb.Status{steady, status(
			proc("log-1", "log-1-1", "10.0.0.2:4501", "log"), proc("storage-1", "storage-1-2", "10.0.0.1:4503", "storage"), proc("storage-1", "storage-1-1", "10.0.0.1:4501", "storage"))}},
		"AProcessStopsReporting": {statuses: []*fdb.Status{steady, status(
			proc("storage-1", "storage-1-1", "10.0.0.1:4501", "storage"), proc("log-1", "log-1-1", "10.0.0.2:4501", "log"))}, want: []string{"storage-1"}},
		"ARoleMoves": {statuses: []*fdb.Status{steady, status(
			proc("storage-1", "storage-1-1", "10.0.0.1:4501", "storage"), proc("storage-1", "storage-1-2", "10.0.0.1:4503", "storage"), proc("log-1", "log-1-1", "10.0.0.2:4501"))}, want: []string{"log-1"}},
		"AnIncompleteStatusIsNotTaken": {statuses: []*fdb.Status{steady, {Cluster: fdb.ClusterStatus{Messages: []fdb.Message{{Name: fdb.MessageStatusIncomplete}}}}, steady}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := New()
			for _, s := range tc.statuses {
				n.Saw(client.ObjectKey{Namespace: "ns", Name: "db"}, groups, s)
			}
			var got []string
			for len(n.events) > 0 {
				got = append(got, (<-n.events).Object.GetName())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("groups nudged: -want, +got:\n%s", diff)
			}
		})
	}
}
