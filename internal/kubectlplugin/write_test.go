package kubectlplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// createGroups makes groups of Cluster name in namespace ns, labelled as
// the Cluster's.
func createGroups(t *testing.T, ns, name string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		pg := group(id)
		pg.Namespace, pg.Labels = ns, map[string]string{workload.LabelCluster: name}
		pg.Spec.ForProvider.ClusterName = name
		if err := env.Client.Create(context.Background(), &pg); err != nil {
			t.Fatal(err)
		}
	}
}

func annotated(t *testing.T, ns string) []string {
	t.Helper()
	list := &v1alpha1.ProcessGroupList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, pg := range list.Items {
		if pg.GetAnnotations()[v1alpha1.AnnotationReplace] == "true" {
			ids = append(ids, pg.ID())
		}
	}
	return ids
}

func TestReplaceCommand(t *testing.T) {
	testenv.Require(t, env)
	create(t, "replace", healthyCluster())
	createGroups(t, "replace", "orders", "storage-1", "storage-2", "log-1")

	out, code := run(t, "replace", "-n", "replace", "orders", "storage-2", "storage-9")
	if code != 2 || !strings.Contains(out, "has no process group storage-9") {
		t.Errorf("replace of an unknown group: exit %d, want 2; printed:\n%s", code, out)
	}
	if got := annotated(t, "replace"); len(got) != 0 {
		t.Errorf("a refused replace annotated %v, want nothing written", got)
	}
	out, code = run(t, "replace", "-n", "replace", "orders", "storage-2", "log-1")
	if code != 0 || !strings.Contains(out, "watch: kubectl foundationdb analyze -n replace orders") {
		t.Errorf("replace: exit %d, want 0; printed:\n%s", code, out)
	}
	if diff := cmp.Diff([]string{"log-1", "storage-2"}, annotated(t, "replace")); diff != "" {
		t.Errorf("groups annotated %s=true: -want, +got:\n%s", v1alpha1.AnnotationReplace, diff)
	}
}

func TestCordonCommand(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	create(t, "cordon", healthyCluster(func(cr *v1alpha1.Cluster) {
		cr.Name = "replacing"
		cr.Spec.ForProvider.Automation.TaintReplacements = []v1alpha1.TaintReplacement{{Key: corev1.TaintNodeUnschedulable, DurationInSeconds: 300}}
	}))
	create(t, "cordon", healthyCluster(func(cr *v1alpha1.Cluster) { cr.Name = "ignoring" }))
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	if err := env.Client.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	for _, cluster := range []string{"replacing", "ignoring"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "cordon", Name: cluster + "-storage-1",
			Labels: map[string]string{workload.LabelCluster: cluster, workload.LabelProcessGroup: "storage-1"}},
			Spec: corev1.PodSpec{NodeName: "node-a", Containers: []corev1.Container{{Name: "foundationdb", Image: "fdb"}}}}
		if err := env.Client.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}
	out, code := run(t, "cordon", "node-a")
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
		t.Fatal(err)
	}
	if code != 0 || !node.Spec.Unschedulable {
		t.Errorf("cordon node-a: exit %d, unschedulable %t; want 0, true", code, node.Spec.Unschedulable)
	}
	for _, want := range []string{
		"cordon/replacing storage-1: replaced once the node has been cordoned 5m0s",
		"cordon/ignoring storage-1: not replaced: the Cluster's automation.taintReplacements names no node.kubernetes.io/unschedulable",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cordon says no %q; printed:\n%s", want, out)
		}
	}
}

func TestExecPod(t *testing.T) {
	pod := func(name, group string, running, ready bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{workload.LabelProcessGroup: group}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "foundationdb"}}}}
		if running {
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", ContainerStatuses: []corev1.ContainerStatus{{Ready: ready}}}
		}
		return p
	}
	pods := []corev1.Pod{pod("db-storage-3", "storage-3", true, true), pod("db-log-1", "log-1", true, false), pod("db-storage-1", "storage-1", false, false)}
	cases := map[string]struct {
		group   string
		want    string
		wantErr string
	}{
		"FirstReady":      {want: "db-storage-3"},
		"GroupsOwn":       {group: "log-1", want: "db-log-1"},
		"GroupNotRunning": {group: "storage-1", wantErr: "process group storage-1 has no running pod"},
		"GroupNotThere":   {group: "storage-7", wantErr: "process group storage-7 has no running pod"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := execPod(append([]corev1.Pod(nil), pods...), tc.group)
			got, gotErr := "", ""
			if p != nil {
				got = p.GetName()
			}
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.want+tc.wantErr, got+gotErr); diff != "" {
				t.Errorf("execPod(%q): -want, +got:\n%s", tc.group, diff)
			}
		})
	}
}

func TestRestartCommand(t *testing.T) {
	testenv.Require(t, env)
	create(t, "restart", healthyCluster())
	createGroups(t, "restart", "orders", "storage-1", "storage-2")
	out, code := run(t, "restart", "-n", "restart", "orders", "storage-1")
	if code != 0 {
		t.Errorf("restart: exit %d, want 0; printed:\n%s", code, out)
	}
	list := &v1alpha1.ProcessGroupList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace("restart")); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, pg := range list.Items {
		got[pg.ID()] = pg.GetAnnotations()[v1alpha1.AnnotationRestart]
	}
	if diff := cmp.Diff(map[string]string{"storage-1": "2026-11-30T10:00:00Z", "storage-2": ""}, got); diff != "" {
		t.Errorf("restart requests: -want, +got:\n%s", diff)
	}
}

func TestDrillCommand(t *testing.T) {
	testenv.Require(t, env)
	create(t, "drill", healthyCluster())
	out, code := run(t, "drill", "-n", "drill", "orders", "Explode", "storage-1")
	if code != 2 || !strings.Contains(out, "spec.forProvider.drill.fault") {
		t.Errorf("drill with an unknown fault: exit %d, want 2 and the field named; printed:\n%s", code, out)
	}
	out, code = run(t, "drill", "-n", "drill", "orders", "CrashLoop", "storage-1", "--duration", "10m")
	if code != 0 {
		t.Errorf("drill: exit %d, want 0; printed:\n%s", code, out)
	}
	cr := &v1alpha1.Cluster{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: "drill", Name: "orders"}, cr); err != nil {
		t.Fatal(err)
	}
	want := &v1alpha1.Drill{Name: "drill-1796032800", Fault: v1alpha1.DrillCrashLoop, ProcessGroups: []string{"storage-1"}, DurationSeconds: 600}
	if diff := cmp.Diff(want, cr.Spec.ForProvider.Drill); diff != "" {
		t.Errorf("spec.forProvider.drill: -want, +got:\n%s", diff)
	}
}
