package connector

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// configMapOf is the data of cr's ConfigMap once its cluster file names one
// coordinator, 10.0.0.1:4501: the monitor configurations of every class at
// densities 1 to 3.
func configMapOf(cr *fdbv1alpha1.Cluster) map[string]string {
	densities := map[workload.Density]bool{}
	for _, class := range fdbv1alpha1.ProcessClasses {
		for n := 1; n <= 3; n++ {
			densities[workload.Density{Class: class, Processes: n}] = true
		}
	}
	return workload.ConfigMap(cr, "db:abc@10.0.0.1:4501", densities).Data
}

// simCluster is a Cluster db in namespace ns whose ConfigMap names one
// coordinator, 10.0.0.1:4501, and a simulator backend of its own.
func simCluster(ns string) (*fdbv1alpha1.Cluster, *corev1.ConfigMap, SimFDB) {
	cr := &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Spec: fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: "7.3.63"}}}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: workload.ConfigMapName(cr)},
		Data:       configMapOf(cr),
	}
	return cr, cm, NewSimFDB(sim.NewRegistry(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), sim.Options{Seed: 1}))
}

// storageGroup is a storage process group of one process placed in fault
// domain zone.
func storageGroup(zone string) *fdbv1alpha1.ProcessGroup {
	return &fdbv1alpha1.ProcessGroup{Spec: fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{
		ProcessClass: fdbv1alpha1.ProcessClassStorage, ProcessesPerPod: 1, FaultDomain: zone,
	}}}
}

// simStatus reads the status of cr's simulated database as the backend
// learns it from the API server now.
func simStatus(t *testing.T, backend SimFDB, cr *fdbv1alpha1.Cluster, cm *corev1.ConfigMap) *fdb.Status {
	t.Helper()
	ctx := context.Background()
	db, err := backend.Client(ctx, Target{Client: env.Client, Live: env.Client}, cr, cm, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSimFDBLearnsBackupAgents checks that a simulated database counts as
// its backup agents the ready replicas of the cluster's backup-agent
// Deployments, and nothing else.
func TestSimFDBLearnsBackupAgents(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "sim-agents"
	cr, cm, backend := simCluster(ns)
	// One running storage pod that is the coordinator, so the database
	// answers status.
	pod := workload.Pod(cr, storageGroup(""), "storage-1")
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, cm, pod} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	grantMonitor(t, c, ns)
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}}
	if err := c.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}

	// deployment creates a Deployment with the labels and ready replicas
	// given (envtest runs no deployment controller).
	deployment := func(name string, labels map[string]string, ready int32) *appsv1.Deployment {
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "foundationdb/foundationdb:7.3.63"}}},
				},
			},
		}
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		d.Status = appsv1.DeploymentStatus{Replicas: ready, ReadyReplicas: ready, AvailableReplicas: ready}
		if err := c.Status().Update(ctx, d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	agents := func(backup string) map[string]string {
		return map[string]string{workload.LabelCluster: "db", workload.LabelComponent: workload.ComponentBackupAgent, workload.LabelBackup: backup}
	}
	nightly := deployment("nightly-backup-agents", agents("nightly"), 2)
	deployment("hourly-backup-agents", agents("hourly"), 3)
	deployment("other-cluster-agents", map[string]string{workload.LabelCluster: "other", workload.LabelComponent: workload.ComponentBackupAgent}, 4)
	deployment("unrelated", map[string]string{workload.LabelCluster: "db"}, 5)

	running := func() int {
		t.Helper()
		if err := c.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
			t.Fatal(err)
		}
		return simStatus(t, backend, cr, cm).Cluster.Layers.Backup.InstancesRunning
	}
	if diff := cmp.Diff(5, running()); diff != "" {
		t.Errorf("agents of two backup Deployments: -want, +got:\n%s", diff)
	}

	nightly.Status.ReadyReplicas, nightly.Status.AvailableReplicas = 0, 0
	if err := c.Status().Update(ctx, nightly); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(3, running()); diff != "" {
		t.Errorf("agents after one Deployment lost its ready replicas: -want, +got:\n%s", diff)
	}
}

// TestSimFDBStopsPodsOnFailedNodes checks that a Running pod on a node that
// is not Ready runs no processes in the simulated database (the node
// failed), and runs them again once the node is back.
func TestSimFDBStopsPodsOnFailedNodes(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "sim-failed-node"
	cr, cm, backend := simCluster(ns)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim-failed-node"}}
	pod := func(id, ip, node string) *corev1.Pod {
		p := workload.Pod(cr, storageGroup(""), id)
		p.Spec.NodeName = node
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
		return p
	}
	// The coordinator runs on a node the test does not fail.
	pods := []*corev1.Pod{pod("storage-1", "10.0.0.1", ""), pod("storage-2", "10.0.0.2", node.Name)}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, cm, node} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	grantMonitor(t, c, ns)
	createRunning(t, c, pods...)
	reporting := func(ready corev1.ConditionStatus) []string {
		t.Helper()
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}
		if err := c.Status().Update(ctx, node); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range simStatus(t, backend, cr, cm).Cluster.Processes {
			out = append(out, p.Locality.InstanceID)
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff([]string{"storage-1"}, reporting(corev1.ConditionUnknown)); diff != "" {
		t.Errorf("groups reporting with storage-2's node NotReady: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"storage-1", "storage-2"}, reporting(corev1.ConditionTrue)); diff != "" {
		t.Errorf("groups reporting with the node Ready again: -want, +got:\n%s", diff)
	}
}

// TestProcessGroupsKeepPodsThatDoNotRun checks which groups the simulator
// is told exist: a pod that exists but does not run (Pending, or on a node
// that failed) is a stopped group that keeps its data, also without a
// volume (a stateless pod's own storage stays on its node until the pod is
// deleted); a pod being deleted, with no volume claim left, is gone.
func TestProcessGroupsKeepPodsThatDoNotRun(t *testing.T) {
	cr, _, _ := simCluster("ns")
	stateless := &fdbv1alpha1.ProcessGroup{Spec: fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{
		ProcessClass: fdbv1alpha1.ProcessClassStateless, ProcessesPerPod: 1, FaultDomain: "zone-a",
	}}}
	pod := func(phase corev1.PodPhase, node string, deleting bool) corev1.Pod {
		p := workload.Pod(cr, stateless, "stateless-1")
		p.Spec.NodeName = node
		p.Status = corev1.PodStatus{Phase: phase, PodIP: "10.0.0.9"}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		}
		return *p
	}
	ready := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "up"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	failed := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "down"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}}
	cases := map[string]struct {
		pod         corev1.Pod
		wantGroups  int
		wantStopped bool
	}{
		"Running":       {pod: pod(corev1.PodRunning, "up", false), wantGroups: 1},
		"OnAFailedNode": {pod: pod(corev1.PodRunning, "down", false), wantGroups: 1, wantStopped: true},
		"Pending":       {pod: pod(corev1.PodPending, "", false), wantGroups: 1, wantStopped: true},
		"BeingDeleted":  {pod: pod(corev1.PodRunning, "up", true)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := processGroups(cr, []corev1.Pod{tc.pod}, nil, []corev1.Node{ready, failed}, nil, startedAll([]corev1.Pod{tc.pod}, configMapOf(cr)))
			if diff := cmp.Diff(tc.wantGroups, len(got)); diff != "" {
				t.Fatalf("groups: -want, +got:\n%s", diff)
			}
			if len(got) == 1 {
				if diff := cmp.Diff(tc.wantStopped, got[0].Stopped); diff != "" {
					t.Errorf("stopped: -want, +got:\n%s", diff)
				}
			}
		})
	}
}

// TestServiceIPProcessesNeedTheirService checks when the processes of a
// pod known by its group's Service's IP are part of the database: only
// while a Service with that cluster IP routes their port to the pod, and
// only when they bind an IP of the pod's; a pod without the IP annotation
// gives its monitor an empty public IP, an address fdbserver refuses.
func TestServiceIPProcessesNeedTheirService(t *testing.T) {
	cr, _, _ := simCluster("ns")
	cr.Spec.ForProvider.Routing.PublicIPSource = fdbv1alpha1.PublicIPSourceService
	pg := storageGroup("zone-a")
	pg.Spec.ForProvider.PublicIPSource = fdbv1alpha1.PublicIPSourceService
	data := workload.ConfigMap(cr, "db:abc@10.96.0.1:4501", workload.Densities(cr)).Data
	ready := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "up"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pod := func(publicIP string) corev1.Pod {
		p := workload.Pod(cr, pg, "storage-1")
		p.Annotations[workload.AnnotationPublicIP] = publicIP
		p.Spec.NodeName = "up"
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.9", PodIPs: []corev1.PodIP{{IP: "10.0.0.9"}}}
		return *p
	}
	service := func(ip string, mutate func(*corev1.Service)) []corev1.Service {
		s := workload.GroupService(cr, pg, "storage-1")
		s.Spec.ClusterIP = ip
		if mutate != nil {
			mutate(s)
		}
		return []corev1.Service{*s}
	}
	cases := map[string]struct {
		pod      corev1.Pod
		services []corev1.Service
		want     bool
	}{
		"Routed":            {pod: pod("10.96.0.7"), services: service("10.96.0.7", nil), want: true},
		"NoService":         {pod: pod("10.96.0.7")},
		"AnotherServiceIP":  {pod: pod("10.96.0.7"), services: service("10.96.0.8", nil)},
		"SelectsAnotherPod": {pod: pod("10.96.0.7"), services: service("10.96.0.7", func(s *corev1.Service) { s.Spec.Selector[workload.LabelProcessGroup] = "storage-2" })},
		"WithoutThePort":    {pod: pod("10.96.0.7"), services: service("10.96.0.7", func(s *corev1.Service) { s.Spec.Ports[0].Port = 4600 })},
		"NoAnnotation":      {pod: pod(""), services: service("10.96.0.7", nil)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := processGroups(cr, []corev1.Pod{tc.pod}, nil, []corev1.Node{ready}, tc.services, startedAll([]corev1.Pod{tc.pod}, data))
			if len(got) != 1 {
				t.Fatalf("%d groups, want 1", len(got))
			}
			if diff := cmp.Diff(tc.want, !got[0].Stopped); diff != "" {
				t.Errorf("processes run: -want, +got:\n%s", diff)
			}
			if tc.want && !strings.Contains(got[0].CommandLines[0], "--public_address=[10.96.0.7]:4501") {
				t.Errorf("command line %q, want it known by the Service's IP", got[0].CommandLines[0])
			}
		})
	}
}

// TestUnreachable pins why a process cannot be part of the database: it
// binds no IP of its pod's, or it is known by an address nothing routes to
// the pod.
func TestUnreachable(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-1"}, Status: corev1.PodStatus{PodIP: "10.0.0.9"}}
	cases := map[string]struct {
		line string
		want string
	}{
		"PodIP":          {line: "fdbserver --public_address=[10.0.0.9]:4501", want: ""},
		"ListensOnPodIP": {line: "fdbserver --public_address=[10.0.0.9]:4501 --listen_address=[10.0.0.9]:4501", want: ""},
		"BindsAnother":   {line: "fdbserver --public_address=[10.96.0.7]:4501", want: "cannot bind 10.96.0.7:4501: not an IP of pod db-storage-1"},
		"NoRoute":        {line: "fdbserver --public_address=[10.96.0.7]:4501 --listen_address=[10.0.0.9]:4501", want: "no route to 10.96.0.7:4501: neither an IP of pod db-storage-1 nor a Service's that routes to it"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, unreachable(p, []string{tc.line}, nil)); diff != "" {
				t.Errorf("unreachable: -want, +got:\n%s", diff)
			}
		})
	}
}
