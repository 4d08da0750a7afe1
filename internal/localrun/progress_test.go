package localrun

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func obj(kind, name string, status map[string]any, spec map[string]any) unstructured.Unstructured {
	return unstructured.Unstructured{Object: map[string]any{
		"apiVersion": mrGroup + "/v1alpha1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     spec, "status": status,
	}}
}

func conds(ready, readyReason, synced string) []any {
	return []any{
		map[string]any{"type": "Ready", "status": ready, "reason": readyReason},
		map[string]any{"type": "Synced", "status": synced, "reason": "ReconcileSuccess"},
	}
}

func event(kind, name, reason, msg string, at time.Time) corev1.Event {
	return corev1.Event{
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name},
		Reason:         reason, Message: msg, LastTimestamp: metav1.NewTime(at),
	}
}

func TestLines(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cluster := obj("Cluster", "quickstart", map[string]any{
		"conditions": conds("False", "Creating", "True"),
		"atProvider": map[string]any{
			"processGroups": map[string]any{"total": int64(11), "excluded": int64(2)},
			"health":        map[string]any{"available": true, "faultTolerance": int64(2)},
			"operations":    []any{map[string]any{"operation": "Upgrade", "target": "7.3.69", "done": int64(2), "total": int64(11), "since": "2026-01-01T10:04:00Z"}},
			"lastPolicyDecision": map[string]any{
				"action": "Exclude", "targets": []any{"storage-3", "storage-4"}, "result": "Denied",
				"rule": "fdb-exclusion/min-recovery-time", "message": "42s since last recovery, needs 120s",
			},
		},
	}, nil)
	backup := obj("Backup", "quickstart-backup", map[string]any{"conditions": conds("True", "Available", "True"), "atProvider": map[string]any{"state": "running"}}, nil)
	fresh := obj("Backup", "other", nil, nil)
	allowed := obj("Backup", "allowed", map[string]any{"atProvider": map[string]any{
		"lastPolicyDecision": map[string]any{"action": "StopBackup", "result": "Allowed", "message": "stop-backup allowed"},
	}}, nil)
	groups := []unstructured.Unstructured{
		obj("ProcessGroup", "storage-1", map[string]any{"conditions": conds("True", "Available", "True")}, map[string]any{"forProvider": map[string]any{"processClass": "storage"}}),
		obj("ProcessGroup", "storage-2", map[string]any{"conditions": conds("False", "Deleting", "True"), "atProvider": map[string]any{
			"excluded": true,
			"lastPolicyDecision": map[string]any{
				"action": "RemoveProcessGroup", "targets": []any{"storage-2"}, "result": "Denied", "rule": "fdb-removal/fully-excluded",
				"message": "not fully excluded", "time": t0.Add(time.Second).Format(time.RFC3339),
			},
		}}, map[string]any{"forProvider": map[string]any{"processClass": "storage"}}),
		obj("ProcessGroup", "log-1", map[string]any{"conditions": conds("True", "Available", "True")}, map[string]any{"forProvider": map[string]any{"processClass": "log"}}),
	}
	events := []corev1.Event{
		event("Cluster", "quickstart", "PolicyDenied", "exclude denied", t0.Add(2*time.Second)),
		event("Cluster", "quickstart", "CreatedProcessGroups", "created 11", t0),
		event("Cluster", "quickstart", "UpdatedExternalResource", "Successfully requested update", t0.Add(3*time.Second)),
		event("Backup", "quickstart-backup", "Started", "backup started", t0),
		event("ProcessGroup", "storage-1", "RemovedProcessGroup", "removed", t0),
		event("ProcessGroup", "storage-2", "PolicyDenied", "remove denied", t0.Add(time.Second)),
	}
	want := []line{
		{Key: "Backup/allowed", Ready: "-", Synced: "-", Policy: "StopBackup: Allowed"},
		{Key: "Backup/other", Ready: "-", Synced: "-"},
		{Key: "Backup/quickstart-backup", Ready: "True", Synced: "True", Detail: "state running", Event: "Started: backup started"},
		{
			Key: "Cluster/quickstart", Ready: "False (Creating)", Synced: "True",
			Detail: "11 process groups, 2 excluded, available, fault tolerance 2; Upgrade to 7.3.69 2/11 since 10:04:00",
			Event:  "PolicyDenied: exclude denied",
			Policy: "Exclude storage-3,storage-4: Denied by fdb-exclusion/min-recovery-time — 42s since last recovery, needs 120s",
		},
		{
			Key: "ProcessGroups", Ready: "2/3", Synced: "-", Detail: "log 1, storage 2; 1 excluded",
			Event:  "storage-2 PolicyDenied: remove denied",
			Policy: "storage-2 RemoveProcessGroup storage-2: Denied by fdb-removal/fully-excluded — not fully excluded",
		},
	}
	got := lines([]unstructured.Unstructured{cluster, backup, fresh, allowed}, groups, events)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestClusterReady(t *testing.T) {
	cases := map[string]struct {
		objs []unstructured.Unstructured
		want bool
	}{
		"Ready":    {[]unstructured.Unstructured{obj("Cluster", ClusterName, map[string]any{"conditions": conds("True", "Available", "True")}, nil)}, true},
		"NotReady": {[]unstructured.Unstructured{obj("Cluster", ClusterName, map[string]any{"conditions": conds("False", "Creating", "True")}, nil)}, false},
		"Other":    {[]unstructured.Unstructured{obj("Cluster", "other", map[string]any{"conditions": conds("True", "Available", "True")}, nil)}, false},
		"None":     {nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ClusterReady(ClusterName)(tc.objs); got != tc.want {
				t.Errorf("ClusterReady: %t, want %t", got, tc.want)
			}
		})
	}
}

func TestLineString(t *testing.T) {
	cases := map[string]struct {
		l    line
		want string
	}{
		"ConditionsOnly": {
			line{Key: "Backup/b", Ready: "-", Synced: "-", Event: "E: e"},
			"Backup/b                   Ready=-                  Synced=-\n  event:  E: e",
		},
		"EventAndPolicy": {
			line{Key: "Cluster/c", Ready: "True", Synced: "True", Detail: "11 process groups", Event: "E: e", Policy: "Exclude: Allowed"},
			"Cluster/c                  Ready=True               Synced=True  11 process groups\n  event:  E: e\n  policy: Exclude: Allowed",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.l.String("  ")); diff != "" {
				t.Errorf("String (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodesLine(t *testing.T) {
	node := func(name string, ready corev1.ConditionStatus, reason string) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if ready != "" {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: reason}}
		}
		return n
	}
	pod := func(name, node string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node}}
	}
	cases := map[string]struct {
		nodes []corev1.Node
		pods  []corev1.Pod
		want  line
	}{
		"AllReady": {
			nodes: []corev1.Node{node("a", corev1.ConditionTrue, "KubeletReady"), node("b", corev1.ConditionTrue, "KubeletReady")},
			pods:  []corev1.Pod{pod("p", "a")},
			want:  line{Key: "Nodes", Ready: "2/2", Synced: "-"},
		},
		"FailedWithPods": {
			nodes: []corev1.Node{node("b", corev1.ConditionFalse, "NodeFailed"), node("a", corev1.ConditionTrue, "KubeletReady"), node("c", "", "")},
			pods:  []corev1.Pod{pod("q", "b"), pod("p", "b"), pod("r", "a")},
			want:  line{Key: "Nodes", Ready: "1/3", Synced: "-", Detail: "b Ready=False (NodeFailed), pods p, q; c Ready=Unknown"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, nodesLine(tc.nodes, tc.pods)); diff != "" {
				t.Errorf("nodesLine (-want +got):\n%s", diff)
			}
		})
	}
}
