package processgroup

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func testCluster() *v1alpha1.Cluster {
	return &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"},
		Spec:       v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{Version: "7.3.63"}},
	}
}

func testGroup() *v1alpha1.ProcessGroup {
	pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-1", Namespace: "ns"},
		Spec: v1alpha1.ProcessGroupSpec{ForProvider: v1alpha1.ProcessGroupParameters{ProcessClass: v1alpha1.ProcessClassStorage, ProcessesPerPod: 1, FaultDomain: "a"}}}
	pg.SetAnnotations(map[string]string{"crossplane.io/external-name": "storage-1"})
	return pg
}

// running returns the group's pod as built, running on node-a at 10.0.0.1.
func running(c *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup) *corev1.Pod {
	p := workload.Pod(c, pg, "storage-1")
	p.Spec.NodeName = "node-a"
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"}
	return p
}

func process(c *v1alpha1.Cluster, excluded bool, cmdline string) fdb.Process {
	if cmdline == "" {
		cmdline = workload.ProcessCommandLine(c, workload.Density{Class: v1alpha1.ProcessClassStorage, Processes: 1}, "storage-1", 1, workload.Placement{PublicIP: "10.0.0.1", Zone: "a", Machine: ""}, c.Spec.ForProvider.Version)
	}
	return fdb.Process{Address: "10.0.0.1:4501", ClassType: "storage", Excluded: excluded, CommandLine: cmdline,
		Locality: fdb.Locality{InstanceID: "storage-1", ProcessID: "storage-1", ZoneID: "a"}}
}

func TestConditions(t *testing.T) {
	c, pg := testCluster(), testGroup()
	node := &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	notReady := node.DeepCopy()
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	drifted := running(c, pg)
	drifted.Annotations[workload.AnnotationSpec] = "old"
	pending := running(c, pg)
	pending.Status.Phase = corev1.PodPending
	status := &fdb.Status{}
	pvc := workload.PVC(c, pg, "storage-1")

	cases := map[string]struct {
		o    *observation
		want []v1alpha1.ProcessGroupConditionType
	}{
		"Healthy": {
			o: &observation{pod: running(c, pg), pvc: pvc, node: node, status: status, procs: []fdb.Process{process(c, false, "")}},
		},
		"NothingExists": {
			o:    &observation{},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.MissingPod, v1alpha1.MissingPVC},
		},
		"PendingPodOnANotReadyNode": {
			o:    &observation{pod: pending, pvc: pvc, node: notReady},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.PodPending, v1alpha1.NodeNotReady},
		},
		"DriftedSpecAndMissingProcesses": {
			o:    &observation{pod: drifted, pvc: pvc, node: node, status: status},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.IncorrectPodSpec, v1alpha1.MissingProcesses},
		},
		"OutdatedCommandLineAndExcludedWithoutRemoval": {
			o: &observation{pod: running(c, pg), pvc: pvc, node: node, status: status, procs: []fdb.Process{process(c, true, "/usr/bin/fdbserver --old")},
				drain: fdb.Drain{Excluded: true, Reporting: true}},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.IncorrectCommandLine, v1alpha1.ProcessIsMarkedAsExcluded},
		},
		"IOError": {
			o:    &observation{pod: running(c, pg), pvc: pvc, node: node, status: status, procs: []fdb.Process{ioError(process(c, false, ""), fdb.MessageIOTimeout)}},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.ProcessHasIOError},
		},
		"PendingPodMissesProcesses": {
			// A group is missing processes from its creation until they
			// report, whatever its pod's phase: a replacement whose pod is
			// Pending holds back the exclusion budget like any other.
			o:    &observation{pod: pending, pvc: pvc, node: node, status: status},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.PodPending, v1alpha1.MissingProcesses},
		},
		"MissingPodMissesProcesses": {
			o:    &observation{pvc: pvc, status: status},
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.MissingPod, v1alpha1.MissingProcesses},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.o.id, tc.o.want = "storage-1", workload.Pod(c, pg, "storage-1")
			e := &external{cluster: c}
			if diff := cmp.Diff(tc.want, e.conditions(pg, tc.o)); diff != "" {
				t.Errorf("conditions: -want, +got:\n%s", diff)
			}
		})
	}
}

// ioError is p reporting an I/O error called name.
func ioError(p fdb.Process, name string) fdb.Process {
	p.Messages = append(p.Messages, fdb.Message{Name: name})
	return p
}

// TestCommandLineAsTheMonitorStartsIt: a process that runs the command line
// its pod's monitor starts it with from the current configuration is not
// IncorrectCommandLine, whichever binary the monitor chose: the image's
// /usr/bin/fdbserver for a version of the image's major.minor (a patch
// staged in place changes no command line), the staged one for another.
// One started on an older configuration is, once the monitor would start
// another command line.
func TestCommandLineAsTheMonitorStartsIt(t *testing.T) {
	cases := map[string]struct {
		podVersion, version, startedOn string
		want                           []v1alpha1.ProcessGroupConditionType
	}{
		"Converged":                       {podVersion: "7.3.63", version: "7.3.63", startedOn: "7.3.63"},
		"PatchStagedInPlaceBeforeRestart": {podVersion: "7.3.63", version: "7.3.69", startedOn: "7.3.63"},
		"PatchStagedInPlaceAfterRestart":  {podVersion: "7.3.63", version: "7.3.69", startedOn: "7.3.69"},
		"MinorStagedInPlaceBeforeRestart": {podVersion: "7.3.63", version: "7.4.1", startedOn: "7.3.63",
			want: []v1alpha1.ProcessGroupConditionType{v1alpha1.IncorrectCommandLine}},
		"MinorStagedInPlaceAfterRestart": {podVersion: "7.3.63", version: "7.4.1", startedOn: "7.4.1"},
		"PodRecreatedOnTheNewMinor":      {podVersion: "7.4.1", version: "7.4.1", startedOn: "7.4.1"},
	}
	at := func(v string) *v1alpha1.Cluster {
		c := testCluster()
		c.Spec.ForProvider.Version = v
		return c
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, pg := at(tc.version), testGroup()
			pod := running(at(tc.podVersion), pg)
			line, err := workload.MonitorConfiguration(at(tc.startedOn), workload.Density{Class: v1alpha1.ProcessClassStorage, Processes: 1}).
				CommandLine(1, workload.MonitorEnvironment(pod), workload.ImageVersion(pod))
			if err != nil {
				t.Fatal(err)
			}
			p := fdb.Process{Address: "10.0.0.1:4501", ClassType: "storage", CommandLine: line,
				Locality: fdb.Locality{InstanceID: "storage-1", ProcessID: "storage-1", ZoneID: "a", MachineID: pod.Spec.NodeName}}
			o := &observation{id: "storage-1", want: workload.Pod(c, pg, "storage-1"), pod: pod, pvc: workload.PVC(c, pg, "storage-1"),
				status: &fdb.Status{}, procs: []fdb.Process{p}}
			o.pod.Annotations[workload.AnnotationSpec] = o.want.Annotations[workload.AnnotationSpec]
			e := &external{cluster: c}
			if diff := cmp.Diff(tc.want, e.conditions(pg, o)); diff != "" {
				t.Errorf("conditions of a process running %q: -want, +got:\n%s", line, diff)
			}
		})
	}
}

// TestConditionsKeepTheirTime checks that a condition keeps the time it was
// first seen, and that a new one starts now.
func TestConditionsKeepTheirTime(t *testing.T) {
	c, pg := testCluster(), testGroup()
	first := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := first.Add(time.Hour)
	pg.Status.AtProvider.ProcessGroupConditions = []v1alpha1.ProcessGroupCondition{{Type: v1alpha1.MissingPod, Since: first}}
	e := &external{cluster: c}
	o := &observation{id: "storage-1", want: workload.Pod(c, pg, "storage-1")}
	got := e.atProvider(pg, o, now).ProcessGroupConditions
	want := []v1alpha1.ProcessGroupCondition{{Type: v1alpha1.MissingPod, Since: first}, {Type: v1alpha1.MissingPVC, Since: metav1.NewTime(now)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions: -want, +got:\n%s", diff)
	}
}

// TestRemovalTimeOnTheProvidersClock: a group records when its removal
// started by the provider's clock, the one every age the Cluster measures
// is on, not by the API server's deletion timestamp, and keeps it.
func TestRemovalTimeOnTheProvidersClock(t *testing.T) {
	c := testCluster()
	deleted := metav1.NewTime(time.Date(1970, 1, 1, 0, 0, 1, 0, time.UTC)) // another clock
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Minute))
	cases := map[string]struct {
		deleting bool
		recorded *metav1.Time
		want     *metav1.Time
	}{
		"NotDeleting":       {},
		"RemovalStarts":     {deleting: true, want: ptr.To(metav1.NewTime(now))},
		"RemovalInProgress": {deleting: true, recorded: &earlier, want: &earlier},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pg := testGroup()
			if tc.deleting {
				pg.SetDeletionTimestamp(&deleted)
			}
			pg.Status.AtProvider.RemovalTime = tc.recorded
			e := &external{cluster: c}
			o := &observation{id: "storage-1", want: workload.Pod(c, pg, "storage-1")}
			if diff := cmp.Diff(tc.want, e.atProvider(pg, o, now).RemovalTime); diff != "" {
				t.Errorf("RemovalTime: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestProcessesByDensity: a pod of density 1 runs one process named after
// its group, a pod of density N processes <group>-1..N on 4501, 4503, ...;
// the group sees them so before they report (atProvider) and once they do
// (no IncorrectCommandLine), even when the group ID ends in a number.
func TestProcessesByDensity(t *testing.T) {
	c := testCluster()
	node := &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	cases := map[string]struct {
		density       int
		wantAddresses []string
		wantIDs       []string
	}{
		"DensityOne": {density: 1, wantAddresses: []string{"10.0.0.3:4501"}, wantIDs: []string{"storage-3"}},
		"DensityTwo": {density: 2, wantAddresses: []string{"10.0.0.3:4501", "10.0.0.3:4503"}, wantIDs: []string{"storage-3-1", "storage-3-2"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pg := testGroup()
			pg.SetAnnotations(map[string]string{"crossplane.io/external-name": "storage-3"})
			pg.Spec.ForProvider.ProcessesPerPod = tc.density
			pod := workload.Pod(c, pg, "storage-3")
			pod.Spec.NodeName = "node-a"
			pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.3"}
			e := &external{cluster: c}

			before := &observation{id: "storage-3", want: workload.Pod(c, pg, "storage-3"), pod: pod, node: node}
			at := e.atProvider(pg, before, time.Now())
			if diff := cmp.Diff([]any{tc.wantAddresses, tc.wantIDs}, []any{at.Addresses, at.ProcessIDs}); diff != "" {
				t.Errorf("addresses and process IDs before the processes report: -want, +got:\n%s", diff)
			}

			reporting := &observation{id: "storage-3", want: workload.Pod(c, pg, "storage-3"), pod: pod, node: node,
				pvc: workload.PVC(c, pg, "storage-3"), status: &fdb.Status{}}
			for n, id := range tc.wantIDs {
				reporting.procs = append(reporting.procs, fdb.Process{Address: tc.wantAddresses[n], ClassType: "storage",
					CommandLine: workload.ProcessCommandLine(c, workload.Density{Class: v1alpha1.ProcessClassStorage, Processes: tc.density}, "storage-3", n+1, workload.Placement{PublicIP: "10.0.0.3", Zone: "a", Machine: ""}, workload.ImageVersion(pod)),
					Locality:    fdb.Locality{InstanceID: "storage-3", ProcessID: id, ZoneID: "a"}})
			}
			if got := e.conditions(pg, reporting); len(got) != 0 {
				t.Errorf("conditions of a group whose processes run what they should: %v", got)
			}
		})
	}
}

// TestRecordsRolesThatHoldData: the group records the roles that make
// removing it matter — storage, log, coordinator — and not the stateless
// ones FoundationDB recruits anew at every recovery, which would rewrite
// the status of many groups each time.
func TestRecordsRolesThatHoldData(t *testing.T) {
	c, pg := testCluster(), testGroup()
	cases := map[string]struct {
		roles        []string
		coordinators string
		want         []string
	}{
		"Storage":   {roles: []string{"storage", "commit_proxy", "master"}, want: []string{"storage"}},
		"Stateless": {roles: []string{"cluster_controller", "resolver"}},
		"Coordinator": {roles: []string{"log", "grv_proxy"}, coordinators: "10.0.0.1:4501",
			want: []string{"coordinator", "log"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := process(c, false, "")
			for _, r := range tc.roles {
				p.Roles = append(p.Roles, fdb.ProcessRole{Role: r})
			}
			status := &fdb.Status{}
			status.Cluster.Processes = map[string]fdb.Process{"p": p}
			if tc.coordinators != "" {
				status.Cluster.ConnectionString = "db:abc@" + tc.coordinators
			}
			e := &external{cluster: c}
			o := &observation{id: "storage-1", want: workload.Pod(c, pg, "storage-1"), pod: running(c, pg), status: status, procs: []fdb.Process{p}}
			if diff := cmp.Diff(tc.want, e.atProvider(pg, o, time.Now()).Roles); diff != "" {
				t.Errorf("Roles: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestNotRunning pins why a group says its pod does not run: the
// scheduler's reason for a pod it cannot place, the terminal phase a pod
// ended in, or nothing more.
func TestNotRunning(t *testing.T) {
	unschedulable := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/6 nodes are available: 6 node(s) didn't match Pod's node affinity/selector"}
	cases := map[string]struct {
		reason string
		pod    *corev1.Pod
		want   string
	}{
		"Missing": {
			reason: "No pod, nothing more to say.",
			want:   msgNotRunning,
		},
		"Unschedulable": {
			reason: "A pod the scheduler cannot place says why, in its words.",
			pod:    &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{unschedulable}}},
			want:   "the pod is not running: Pending, Unschedulable: 0/6 nodes are available: 6 node(s) didn't match Pod's node affinity/selector",
		},
		"PendingScheduled": {
			reason: "A pod placed and starting has no reason to give.",
			pod: &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
				Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}},
			want: msgNotRunning,
		},
		"Evicted": {
			reason: "A pod that ended says how.",
			pod:    &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}},
			want:   "the pod is not running: Failed, Evicted",
		},
		"Deleting": {
			reason: "A pod being deleted is going, whatever the scheduler said.",
			pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{unschedulable}}},
			want: msgNotRunning,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, notRunning(tc.pod)); diff != "" {
				t.Errorf("\n%s\nnotRunning(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestNodeTainted: a group whose node carries a taint the Cluster names
// records NodeTainted, since it first saw it or, when the API server dated
// the taint, since then; a node that no longer carries it clears it.
func TestNodeTainted(t *testing.T) {
	c, pg := testCluster(), testGroup()
	c.Spec.ForProvider.Automation.TaintReplacements = []v1alpha1.TaintReplacement{{Key: "example.org/maintenance", DurationInSeconds: 600}}
	added := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := added.Add(time.Hour)
	node := func(taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{Spec: corev1.NodeSpec{Taints: taints},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	cases := map[string]struct {
		node *corev1.Node
		want []v1alpha1.ProcessGroupCondition
	}{
		"Untainted":  {node: node()},
		"OtherTaint": {node: node(corev1.Taint{Key: "example.org/other", Effect: corev1.TaintEffectNoSchedule})},
		"NamedTaint": {
			node: node(corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule}),
			want: []v1alpha1.ProcessGroupCondition{{Type: v1alpha1.NodeTainted, Since: metav1.NewTime(now)}},
		},
		"DatedTaint": {
			node: node(corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}),
			want: []v1alpha1.ProcessGroupCondition{{Type: v1alpha1.NodeTainted, Since: added}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{cluster: c}
			o := &observation{id: "storage-1", pod: running(c, pg), pvc: workload.PVC(c, pg, "storage-1"), node: tc.node, want: workload.Pod(c, pg, "storage-1")}
			var got []v1alpha1.ProcessGroupCondition
			for _, cond := range e.atProvider(pg, o, now).ProcessGroupConditions {
				if cond.Type == v1alpha1.NodeTainted {
					got = append(got, cond)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NodeTainted: -want, +got:\n%s", diff)
			}
		})
	}
}
