package connector

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// startedAll is what the monitors of pods run once each started with the
// ConfigMap's data in its file: what a new monitor loads, with the version
// its pod's sidecar reports staged.
func startedAll(pods []corev1.Pod, data map[string]string) map[types.UID]monitorRun {
	out := map[types.UID]monitorRun{}
	for i := range pods {
		p := &pods[i]
		_, release := mainContainer(p)
		mon := &monitor{release: release}
		mon.load(mountedFile(p, data), map[string]bool{workload.StagedVersion(p): true}, workload.MonitorEnvironment(p), time.Time{})
		out[p.UID] = monitorRun{release: release, active: mon.active}
	}
	return out
}

// createRunning creates pods with the status they hold, as a kubelet
// reports it.
func createRunning(t *testing.T, c client.Client, pods ...*corev1.Pod) {
	t.Helper()
	for _, p := range pods {
		st := p.Status
		if err := c.Create(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		p.Status = st
		if err := c.Status().Update(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
}

// grantMonitor creates the monitor's ServiceAccount, Role and RoleBinding
// in namespace ns, as the Cluster does.
func grantMonitor(t *testing.T, c client.Client, ns string) {
	t.Helper()
	for _, o := range []client.Object{workload.MonitorAccount(ns), workload.MonitorRole(ns), workload.MonitorRoleBinding(ns)} {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMonitorStartsOnlyWhenItsAccountMayReadAndPatchItsPod checks that a
// pod runs processes only once the API server says its ServiceAccount may
// get, list, watch and patch it, as fdb-kubernetes-monitor needs before it
// starts any fdbserver; that a pod of an account the user named in the
// template, which has no such permission, runs none; that a pod without
// its account's token runs none; and that a started pod keeps running
// when the permission goes.
func TestMonitorStartsOnlyWhenItsAccountMayReadAndPatchItsPod(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "sim-monitor-access"
	cr, cm, backend := simCluster(ns)
	pod := func(id, ip string, edit func(*corev1.Pod)) *corev1.Pod {
		p := workload.Pod(cr, storageGroup(""), id)
		if edit != nil {
			edit(p)
		}
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
		return p
	}
	pods := []*corev1.Pod{
		pod("storage-1", "10.0.0.1", nil),
		pod("storage-2", "10.0.0.2", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "users-own" }),
		pod("storage-3", "10.0.0.3", func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) }),
	}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, cm,
		workload.MonitorAccount(ns), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "users-own"}},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	createRunning(t, c, pods...)
	reporting := func() []string {
		t.Helper()
		var out []string
		for _, p := range simStatus(t, backend, cr, cm).Cluster.Processes {
			out = append(out, p.Locality.InstanceID)
		}
		return out
	}
	if diff := cmp.Diff([]string(nil), reporting()); diff != "" {
		t.Errorf("groups reporting before the monitor's Role exists: -want, +got:\n%s", diff)
	}
	for _, o := range []client.Object{workload.MonitorRole(ns), workload.MonitorRoleBinding(ns)} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"storage-1"}, reporting()); diff != "" {
		t.Errorf("groups reporting once the monitor's account may read its pod: -want, +got:\n%s", diff)
	}
	if err := c.Delete(ctx, workload.MonitorRoleBinding(ns)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"storage-1"}, reporting()); diff != "" {
		t.Errorf("groups reporting after the binding went (a started monitor runs on): -want, +got:\n%s", diff)
	}
}

// TestDataDirectoryMustBeWritableByTheFDBUser checks which pods' processes
// can write their data directory: the provider's pods of every class, and
// not a pod whose volume claim has no fsGroup, whose class has nothing
// mounted there (the image's root-owned volume), or whose mount is
// read-only; root writes the image's volume.
func TestDataDirectoryMustBeWritableByTheFDBUser(t *testing.T) {
	cr, _, _ := simCluster("ns")
	group := func(class fdbv1alpha1.ProcessClass) *fdbv1alpha1.ProcessGroup {
		return &fdbv1alpha1.ProcessGroup{Spec: fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{ProcessClass: class, ProcessesPerPod: 1}}}
	}
	unmount := func(p *corev1.Pod) {
		main := workload.MainContainer(p)
		mount, _ := workload.DataVolume(p)
		for i := range main.VolumeMounts {
			if main.VolumeMounts[i].Name == mount.Name {
				main.VolumeMounts = append(main.VolumeMounts[:i], main.VolumeMounts[i+1:]...)
				return
			}
		}
	}
	cases := map[string]struct {
		class fdbv1alpha1.ProcessClass
		edit  func(*corev1.Pod)
		want  bool
	}{
		"StorageClaimWithFSGroup":   {class: fdbv1alpha1.ProcessClassStorage, want: true},
		"LogClaimWithFSGroup":       {class: fdbv1alpha1.ProcessClassLog, want: true},
		"StatelessEmptyDir":         {class: fdbv1alpha1.ProcessClassStateless, want: true},
		"ClusterControllerEmptyDir": {class: fdbv1alpha1.ProcessClassClusterController, want: true},
		"ClaimWithoutFSGroup": {class: fdbv1alpha1.ProcessClassStorage, edit: func(p *corev1.Pod) {
			p.Spec.SecurityContext.FSGroup = nil
		}},
		"NothingMountedImageVolume": {class: fdbv1alpha1.ProcessClassStateless, edit: unmount},
		"RootWritesTheImageVolume": {class: fdbv1alpha1.ProcessClassStateless, want: true, edit: func(p *corev1.Pod) {
			unmount(p)
			workload.MainContainer(p).SecurityContext.RunAsUser = ptr.To[int64](0)
		}},
		"ReadOnlyMount": {class: fdbv1alpha1.ProcessClassStateless, edit: func(p *corev1.Pod) {
			mount, _ := workload.DataVolume(p)
			mount.ReadOnly = true
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := workload.Pod(cr, group(tc.class), "g-1")
			if tc.edit != nil {
				tc.edit(p)
			}
			if diff := cmp.Diff(tc.want, dataWritable(p)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

// TestPodRunsTheConfigurationItMounts checks that a pod's processes run
// the monitor configuration the pod mounts from the ConfigMap, not the one
// the Cluster would write: a configuration the ConfigMap holds is what
// runs; one it lacks leaves the monitor nothing to load (nothing starts);
// one that says runServers false runs nothing.
func TestPodRunsTheConfigurationItMounts(t *testing.T) {
	cr, _, _ := simCluster("ns")
	pod := workload.Pod(cr, storageGroup("zone-a"), "storage-1")
	pod.Spec.NodeName, pod.Status = "up", corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.9"}
	ready := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "up"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	const key = "fdbmonitor-conf-storage-density-1"
	written := func(edit func(*fdbv1alpha1.Cluster)) map[string]string {
		c := cr.DeepCopy()
		edit(c)
		return configMapOf(c)
	}
	type result struct {
		Stopped, Unconfigured bool
		Knob                  bool
	}
	cases := map[string]struct {
		data map[string]string
		want result
	}{
		"AsTheClusterSays": {data: configMapOf(cr)},
		"WhatTheConfigMapHolds": {data: written(func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.Processes = map[string]fdbv1alpha1.ProcessSettings{"general": {CustomParameters: []string{"knob_from_the_configmap=1"}}}
		}), want: result{Knob: true}},
		"NoConfiguration": {data: map[string]string{workload.KeyClusterFile: "db:abc@10.0.0.1:4501"}, want: result{Unconfigured: true}},
		"Unreadable":      {data: map[string]string{key: "{"}, want: result{Unconfigured: true}},
		"RunServersFalse": {data: workload.ConfigMap(cr, "", map[workload.Density]bool{{Class: fdbv1alpha1.ProcessClassStorage, Processes: 1}: true}).Data, want: result{Stopped: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			groups := processGroups(cr, []corev1.Pod{*pod}, nil, []corev1.Node{ready}, nil, startedAll([]corev1.Pod{*pod}, tc.data))
			if len(groups) != 1 {
				t.Fatalf("%d groups, want 1", len(groups))
			}
			g := groups[0]
			got := result{Stopped: g.Stopped, Unconfigured: g.Unconfigured, Knob: len(g.CommandLines) == 1 && strings.Contains(g.CommandLines[0], "--knob_from_the_configmap=1")}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
