package processgroup

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// want is what the tests compare of a planned step.
type want struct {
	kind   kind
	action apiv1alpha1.ActionType
	msg    string
}

// plannedOf is what the tests compare of s.
func plannedOf(s groupStep) want {
	w := want{kind: s.Kind, msg: s.Message}
	if s.Action != nil {
		w.action = s.Action.Type
	}
	return w
}

// TestPlanRemoval pins what a group being removed does: removal only on
// positive evidence that it is drained; a group that cannot prove it is a
// separate, gated action; teardown without exclusion only with the consent
// of its Cluster's deletion.
func TestPlanRemoval(t *testing.T) {
	c, pg := testCluster(), testGroup()
	pg.SetDeletionTimestamp(&metav1.Time{Time: time.Unix(1, 0)})
	complete := &fdb.Status{}
	complete.Cluster.Processes = map[string]fdb.Process{"other": {Address: "10.0.0.2:4501"}}
	obs := func(d fdb.Drain, status *fdb.Status) *observation {
		return &observation{id: "storage-1", pod: running(c, pg), pvc: workload.PVC(c, pg, "storage-1"), want: workload.Pod(c, pg, "storage-1"), status: status, drain: d,
			at: v1alpha1.ProcessGroupObservation{Excluded: d.Excluded}}
	}
	unreachable := fdb.Drain{Complete: true, Excluded: true, HoldsData: true, Why: "0 of its 1 processes report: a group that does not report cannot prove it holds no data"}
	// after changes what the removal already deleted.
	after := func(o *observation, podGone, claimGoing bool) *observation {
		if podGone {
			o.pod = nil
		}
		if claimGoing {
			o.pvc.SetDeletionTimestamp(&metav1.Time{Time: time.Unix(2, 0)})
		}
		return o
	}
	cases := map[string]struct {
		reason        string
		o             *observation
		gone, consent bool
		want          want
	}{
		"Drained": {
			reason: "Positive evidence: removed through the gated RemoveProcessGroup.",
			o:      obs(fdb.Drain{Drained: true, Complete: true, Reporting: true, Excluded: true}, complete),
			want:   want{kindRemove, apiv1alpha1.ActionRemoveProcessGroup, "deleted the pod and volume of fully excluded group storage-1"},
		},
		"NotExcludedYet": {
			reason: "The Cluster excludes it first.",
			o:      obs(fdb.Drain{Complete: true, Reporting: true, Why: "it is not excluded"}, complete),
			want:   want{kindWait, "", msgWaitExclude},
		},
		"ExcludedButHoldsData": {
			reason: "An excluded group that still serves storage waits, whatever the policies say.",
			o:      obs(fdb.Drain{Complete: true, Reporting: true, Excluded: true, HoldsData: true, Roles: []string{"storage"}, Why: "it still serves storage"}, complete),
			want:   want{kindWait, "", "refusing to remove the group until the database status proves it holds nothing: it still serves storage"},
		},
		"Unreachable": {
			reason: "A group none of whose processes report cannot prove it is empty: a separate action, gated by fdb-unreachable-removal.",
			o:      obs(unreachable, complete),
			want: want{kindRemoveUnreachable, apiv1alpha1.ActionRemoveUnreachableProcessGroup,
				"deleted the pod and volume of unreachable group storage-1: 0 of its 1 processes report: a group that does not report cannot prove it holds no data"},
		},
		"TearingDown": {
			reason: "Its removal deleted the pod and the claim goes: processes no longer reporting meanwhile call for no second gated removal.",
			o:      after(obs(unreachable, complete), true, true),
			want:   want{kindWait, "", msgTearingDown},
		},
		"PodGoneClaimKept": {
			reason: "A pod gone while its claim stays (deleted by hand, force-deleted) is no teardown: the claim's data goes only through a gated removal.",
			o:      after(obs(unreachable, complete), true, false),
			want: want{kindRemoveUnreachable, apiv1alpha1.ActionRemoveUnreachableProcessGroup,
				"deleted the pod and volume of unreachable group storage-1: 0 of its 1 processes report: a group that does not report cannot prove it holds no data"},
		},
		"ClaimGoingPodRuns": {
			reason: "A claim deleted by hand stays while its pod runs: the group is removed as usual.",
			o:      after(obs(fdb.Drain{Drained: true, Complete: true, Reporting: true, Excluded: true}, complete), false, true),
			want:   want{kindRemove, apiv1alpha1.ActionRemoveProcessGroup, "deleted the pod and volume of fully excluded group storage-1"},
		},
		"UnreachableCoordinator": {
			reason: "A coordinator is never removed, reporting or not.",
			o: obs(fdb.Drain{Complete: true, Excluded: true, HoldsData: true, Roles: []string{"coordinator"},
				Why: "0 of its 1 processes report: a group that does not report cannot prove it holds no data"}, complete),
			want: want{kindWait, "", "refusing to remove the group until the database status proves it holds nothing: 0 of its 1 processes report: a group that does not report cannot prove it holds no data"},
		},
		"IncompleteStatus": {
			reason: "An incomplete status proves nothing: the group waits.",
			o:      obs(fdb.Drain{Excluded: true, HoldsData: true, Why: "the status is incomplete (storage_servers_error)"}, complete),
			want:   want{kindWait, "", "refusing to remove the group until the database status proves it holds nothing: the status is incomplete (storage_servers_error)"},
		},
		"ClusterDeletedWithConsent": {
			reason: "Its Cluster is deleted with Delete: torn down without exclusion, gated as DeleteCluster.",
			o:      obs(fdb.Drain{}, nil), gone: true, consent: true,
			want: want{kindTeardown, apiv1alpha1.ActionDeleteCluster, "deleted the pod and volume of a group whose Cluster  is deleted"},
		},
		"ClusterVanishedWithoutConsent": {
			reason: "Its Cluster is gone some other way (orphaned, garbage collection): pod and volume stay.",
			o:      obs(fdb.Drain{}, nil), gone: true,
			want: want{kindRelease, "", msgReleased},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := next(pg, tc.o, tc.gone, tc.consent)
			if diff := cmp.Diff(tc.want, plannedOf(s), cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlanPod pins how a live group's pod follows the Cluster: a new
// version is staged in place by the sidecar's image, never by recreating
// the pod; a drifted spec recreates the pod under the disruption grant.
func TestPlanPod(t *testing.T) {
	c, pg := testCluster(), testGroup()
	upgraded := testCluster()
	upgraded.Spec.ForProvider.Version = "7.3.69"
	obs := func(c *v1alpha1.Cluster, pod func(p *corev1.Pod), conditions ...v1alpha1.ProcessGroupConditionType) *observation {
		o := &observation{id: "storage-1", pod: running(testCluster(), pg), pvc: workload.PVC(c, pg, "storage-1"), want: workload.Pod(c, pg, "storage-1"), version: c.Spec.ForProvider.Version}
		if pod != nil {
			pod(o.pod)
		}
		for _, t := range conditions {
			o.at.ProcessGroupConditions = append(o.at.ProcessGroupConditions, v1alpha1.ProcessGroupCondition{Type: t})
		}
		return o
	}
	staged := func(p *corev1.Pod) { workload.SetSidecarImage(p, workload.Image(upgraded)) }
	// leftBehind makes the database run running, without the group's
	// process, which is an incompatible connection.
	leftBehind := func(o *observation, running string) *observation {
		o.at.Addresses = []string{"10.0.0.9:4501"}
		o.status = &fdb.Status{}
		o.status.Cluster.Processes = map[string]fdb.Process{"other": {Address: "10.0.0.8:4501", Version: running}}
		o.status.Cluster.IncompatibleConnections = []string{"10.0.0.9:4501", "10.9.0.1:40001"}
		return o
	}
	// serving gives the observation a complete status in which the
	// group's process serves roles.
	serving := func(o *observation, roles ...string) *observation {
		o.status = &fdb.Status{}
		o.drain = fdb.Drain{Complete: true, Reporting: true, Roles: roles}
		return o
	}
	// onPatch makes the group's process report version, staged already.
	onPatch := func(o *observation, version string) *observation {
		o.procs = []fdb.Process{{Address: "10.0.0.9:4501", Version: version}}
		return o
	}
	// unloaded makes the pod's monitor report another configuration than
	// the ConfigMap's since ago, last asked to reload asked ago (none when
	// zero).
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	unloaded := func(o *observation, ago, asked time.Duration) *observation {
		o.now, o.configMap = now, workload.ConfigMap(c, "db:abc@10.0.0.1:4501", workload.Densities(c)).Data
		o.at.ProcessGroupConditions = append(o.at.ProcessGroupConditions, v1alpha1.ProcessGroupCondition{Type: v1alpha1.IncorrectConfigMap, Since: metav1.NewTime(now.Add(-ago))})
		if asked > 0 {
			o.pod.Annotations[workload.AnnotationOutdatedConfigMap] = workload.ReloadAnnotation(now.Add(-asked))
		}
		return o
	}
	withoutSidecar := func(p *corev1.Pod) { p.Spec.Containers = p.Spec.Containers[:1] }
	deleting := func(p *corev1.Pod) { p.SetDeletionTimestamp(&metav1.Time{Time: time.Unix(1, 0)}) }
	evicted := func(p *corev1.Pod) { p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted" }
	cases := map[string]struct {
		reason    string
		o         *observation
		grantWhy  string
		removing  bool
		stateless bool
		want      want
	}{
		"Current": {
			reason: "Nothing to do.",
			o:      obs(c, nil),
			want:   want{kind: kindUnchanged},
		},
		"NewVersion": {
			reason: "The sidecar's image changes in place: not gated, nothing restarts but the sidecar.",
			o:      obs(upgraded, nil),
			want:   want{kind: kindStage, msg: "changed the sidecar of pod db-storage-1 to foundationdb/fdb-kubernetes-monitor:7.3.69 in place to stage FoundationDB 7.3.69"},
		},
		"NewVersionWhileBeingRemoved": {
			reason: "A group being drained stages the version too: it restarts on it with every other process.",
			o:      obs(upgraded, nil), removing: true,
			want: want{kind: kindStage, msg: "changed the sidecar of pod db-storage-1 to foundationdb/fdb-kubernetes-monitor:7.3.69 in place to stage FoundationDB 7.3.69"},
		},
		"NewVersionPodGoing": {
			reason: "A pod being deleted is not changed: its successor gets the new image.",
			o:      obs(upgraded, deleting),
			want:   want{kind: kindWait, msg: "waiting for pod db-storage-1, being deleted, to go before it is created anew"},
		},
		"DriftedPodGoing": {
			reason: "A drifted pod already being deleted (to be recreated, the step before) is not deleted again: that would change nothing, and its policy weighs the pod's own processes, down now, against it (chaos seed 275 at e500f08 waited on such a denial until the group was replaced as failed).",
			o:      obs(c, deleting, v1alpha1.IncorrectPodSpec),
			want:   want{kind: kindWait, msg: "waiting for pod db-storage-1, being deleted, to go before it is created anew"},
		},
		"DiskLost": {
			reason: "Pod gone and claim being deleted (a lost disk): the claim goes first; a pod made now would mount the volume that goes (chaos seed 195 at 7504a9e: it did, and kept the old claim's place).",
			o: func() *observation {
				o := obs(c, nil)
				o.pod = nil
				o.pvc.SetDeletionTimestamp(&metav1.Time{Time: time.Unix(1, 0)})
				return o
			}(),
			want: want{kind: kindWait, msg: "waiting for volume claim db-storage-1-data, being deleted, to go before it and the pod are created anew"},
		},
		"PodGone": {
			reason: "Pod gone, claim in place: the pod is made anew.",
			o: func() *observation {
				o := obs(c, nil)
				o.pod = nil
				return o
			}(),
			want: want{kind: kindEnsure, msg: "created the group's missing pod, volume claim or Service"},
		},
		"PodWithoutSidecar": {
			reason: "A pod from before the sidecar is recreated like any drifted pod, under the grant.",
			o:      obs(upgraded, withoutSidecar, v1alpha1.IncorrectPodSpec),
			want:   want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 to recreate it with the new spec"},
		},
		"LeftBehind": {
			reason: "The database runs the new version and the group's process is an incompatible connection (a kill missed it): no kill reaches it, the pod is recreated, gated.",
			o:      leftBehind(obs(upgraded, staged), "7.3.69"),
			want: want{kindRecreate, apiv1alpha1.ActionDeletePod,
				"deleted pod db-storage-1: its processes were left behind on a version the database no longer speaks, and restart on 7.3.69 with the new pod"},
		},
		"LeftBehindWithoutGrant": {
			reason: "A left-behind pod waits for its domain's grant like a drifted one.",
			o:      leftBehind(obs(upgraded, staged), "7.3.69"), grantWhy: msgNoGrant,
			want: want{kind: kindWait, msg: "waiting to recreate the pod: " + msgNoGrant},
		},
		"IncompatibleMidUpgrade": {
			reason: "While the database still runs the old version an incompatible process is ahead, not behind: the upgrade's kill brings the others to it.",
			o:      leftBehind(obs(upgraded, staged), "7.3.63"),
			want:   want{kind: kindUnchanged},
		},
		"StatelessServingALog": {
			reason: "A stateless pod has no volume: while its process serves a log (recruited while log processes were missing) the pod keeps needed data.",
			o:      serving(obs(c, nil, v1alpha1.IncorrectPodSpec), fdb.RoleLog, "proxy"), stateless: true,
			want: want{kind: kindWait, msg: "waiting to recreate the pod: its processes serve log, whose data this pod without a volume keeps until FoundationDB recruits the role elsewhere"},
		},
		"StatelessWithoutStatus": {
			reason: "Without the status nothing shows that a pod without a volume keeps no log data.",
			o:      obs(c, nil, v1alpha1.IncorrectPodSpec), stateless: true,
			want: want{kind: kindWait, msg: "waiting to recreate the pod: the pod has no volume and without the status nothing shows that it keeps no log data"},
		},
		"StatelessStateless": {
			reason: "A stateless pod whose process serves no data role is recreated like any drifted pod.",
			o:      serving(obs(c, nil, v1alpha1.IncorrectPodSpec), "proxy"), stateless: true,
			want: want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 to recreate it with the new spec"},
		},
		"StorageServingStorage": {
			reason: "A storage pod's data is on its volume, which outlives the pod.",
			o:      serving(obs(c, nil, v1alpha1.IncorrectPodSpec), fdb.RoleStorage),
			want:   want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 to recreate it with the new spec"},
		},
		"PatchRolls": {
			reason: "A process on another patch of the protocol runs its image's fdbserver, which no restart changes: the pod is recreated, gated, on an image of the new patch, and says why.",
			o:      onPatch(obs(upgraded, staged), "7.3.63"),
			want: want{kindRecreate, apiv1alpha1.ActionDeletePod,
				"deleted pod db-storage-1 to run FoundationDB 7.3.69: a patch release runs from the image of the pod's main container, so the pod rolls onto an image of 7.3.69"},
		},
		"PatchRolled": {
			reason: "A process that reports the new patch wants nothing.",
			o:      onPatch(obs(upgraded, staged), "7.3.69"),
			want:   want{kind: kindUnchanged},
		},
		"OtherMinorNotRolled": {
			reason: "A process of another protocol restarts on the staged binary in the upgrade's kill: no pod is recreated for it.",
			o:      onPatch(obs(upgraded, staged), "7.1.67"),
			want:   want{kind: kindUnchanged},
		},
		"MonitorOnAnotherConfiguration": {
			reason: "The kubelet may still be delivering the ConfigMap: for a while nothing is asked of the monitor.",
			o:      unloaded(obs(c, nil), 60*time.Second, 0),
			want:   want{kind: kindUnchanged},
		},
		"MonitorAskedToReload": {
			reason: "Past the kubelet's delivery, a monitor still on another configuration refused it (its binary was not staged) and reads it again only when asked: the pod is annotated, not gated.",
			o:      unloaded(obs(c, nil), 2*time.Minute, 0),
			want:   want{kind: kindReload, msg: "asked the monitor of pod db-storage-1 to read its configuration again: it has reported another than the ConfigMap holds for it for more than 1m30s"},
		},
		"MonitorAskedRecently": {
			reason: "Asked within the interval: not asked again, the pod's updates make it look again.",
			o:      unloaded(obs(c, nil), 5*time.Minute, 30*time.Second),
			want:   want{kind: kindUnchanged},
		},
		"MonitorAskedAgain": {
			reason: "Asked long ago and still on another configuration: asked again.",
			o:      unloaded(obs(c, nil), 5*time.Minute, 2*time.Minute),
			want:   want{kind: kindReload, msg: "asked the monitor of pod db-storage-1 to read its configuration again: it has reported another than the ConfigMap holds for it for more than 1m30s"},
		},
		"Evicted": {
			reason: "A pod the kubelet failed is never run again: it is deleted, gated, to be created anew, without a grant (its processes are down already).",
			o:      obs(c, evicted), grantWhy: msgNoGrant,
			want: want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 (Failed, Evicted) to create it anew: no kubelet runs a pod in a terminal phase again"},
		},
		"EvictedDrifted": {
			reason: "A terminal pod whose spec drifted too is deleted as terminal: nothing of it runs, no grant is needed.",
			o:      obs(c, evicted, v1alpha1.IncorrectPodSpec), grantWhy: msgNoGrant,
			want: want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 (Failed, Evicted) to create it anew: no kubelet runs a pod in a terminal phase again"},
		},
		"EvictedOnOldVersion": {
			reason: "A terminal pod's sidecar is not changed in place: its successor gets the new image.",
			o:      obs(upgraded, evicted),
			want:   want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 (Failed, Evicted) to create it anew: no kubelet runs a pod in a terminal phase again"},
		},
		"Succeeded": {
			reason: "A pod whose containers ended for good is terminal too.",
			o:      obs(c, func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
			want:   want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 (Succeeded) to create it anew: no kubelet runs a pod in a terminal phase again"},
		},
		"EvictedGoing": {
			reason: "A terminal pod already being deleted is waited for.",
			o:      obs(c, func(p *corev1.Pod) { evicted(p); deleting(p) }),
			want:   want{kind: kindWait, msg: "waiting for pod db-storage-1, being deleted, to go before it is created anew"},
		},
		"DriftedWithoutGrant": {
			reason: "A drifted pod waits for its domain's grant.",
			o:      obs(c, nil, v1alpha1.IncorrectPodSpec), grantWhy: msgNoGrant,
			want: want{kind: kindWait, msg: "waiting to recreate the pod: " + msgNoGrant},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.o.grantWhy = tc.grantWhy
			pg := pg.DeepCopy()
			if tc.removing {
				pg.SetDeletionTimestamp(&metav1.Time{Time: time.Unix(1, 0)})
			}
			if tc.stateless {
				pg.Spec.ForProvider.ProcessClass = v1alpha1.ProcessClassStateless
			}
			s := next(pg, tc.o, false, false)
			if diff := cmp.Diff(tc.want, plannedOf(s), cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRecreateCountsReportingProcesses pins the DeletePod detail the
// fault-tolerance policy lets a pod that serves nothing be recreated with:
// how many of the pod's processes report — by the group's instance_id, or
// on the pod's IP whatever locality they report — only from a status whose
// view is complete. The same evidence is what makes the group disrupted
// already under a disruption grant for disrupted groups only
// (observation.servesNothing).
func TestRecreateCountsReportingProcesses(t *testing.T) {
	c, pg := testCluster(), testGroup()
	other := fdb.Process{Address: "10.0.0.8:4501", Locality: fdb.Locality{InstanceID: "storage-2"}}
	status := func(generations int, procs []fdb.Process, messages ...string) *fdb.Status {
		s := &fdb.Status{}
		s.Cluster.Processes = map[string]fdb.Process{}
		for i, p := range append([]fdb.Process{other}, procs...) {
			s.Cluster.Processes[fmt.Sprint(i)] = p
		}
		s.Cluster.RecoveryState.ActiveGenerations = generations
		for _, m := range messages {
			s.Cluster.Messages = append(s.Cluster.Messages, fdb.Message{Name: m})
		}
		return s
	}
	cases := map[string]struct {
		reason        string
		status        *fdb.Status
		want          map[string]any
		servesNothing bool
	}{
		"NoneReport": {
			reason:        "A complete view without the group's process: it reports nothing.",
			status:        status(1, nil),
			want:          map[string]any{policy.DetailReportingProcesses: 0},
			servesNothing: true,
		},
		"OneReports": {
			reason: "The group's process is in the status.",
			status: status(1, []fdb.Process{{Address: "10.0.0.1:4501", Locality: fdb.Locality{InstanceID: "storage-1"}}}),
			want:   map[string]any{policy.DetailReportingProcesses: 1},
		},
		"OnThePodsIP": {
			reason: "A process on the pod's IP is the pod's, whatever instance_id its command line gave it.",
			status: status(1, []fdb.Process{{Address: "10.0.0.1:4503", Locality: fdb.Locality{InstanceID: "old-name"}}}),
			want:   map[string]any{policy.DetailReportingProcesses: 1},
		},
		"Incomplete": {
			reason: "An incomplete status may leave out processes that run: absence there proves nothing.",
			status: status(1, nil, fdb.MessageStatusIncomplete),
		},
		"GenerationsUnknown": {
			reason: "A status that does not report the active generations has an incomplete view.",
			status: status(0, nil),
		},
		"NoStatus": {
			reason: "Without a status nothing is known.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &observation{id: "storage-1", pod: running(c, pg), pvc: workload.PVC(c, pg, "storage-1"), want: workload.Pod(c, pg, "storage-1"),
				version: c.Spec.ForProvider.Version, status: tc.status,
				at: v1alpha1.ProcessGroupObservation{ProcessGroupConditions: []v1alpha1.ProcessGroupCondition{{Type: v1alpha1.IncorrectPodSpec}}}}
			s := next(pg, o, false, false)
			if s.Action == nil || s.Action.Type != apiv1alpha1.ActionDeletePod {
				t.Fatalf("next(...) = %+v, want a DeletePod step", s)
			}
			if diff := cmp.Diff(tc.want, s.Action.Details); diff != "" {
				t.Errorf("\n%s\nDeletePod details: -want, +got:\n%s", tc.reason, diff)
			}
			if got := o.servesNothing(); got != tc.servesNothing {
				t.Errorf("\n%s\nservesNothing() = %v, want %v", tc.reason, got, tc.servesNothing)
			}
		})
	}
}

// TestGrantWait: why a group whose pod wants a disruption waits under the
// disruption grant it read; a grant for disrupted groups only lets one that
// serves nothing go in any domain (chaos seed 1519 of the upgrade workload:
// processes left behind in two zones).
func TestGrantWait(t *testing.T) {
	serving := disruption.Member{Group: "storage-2", Zone: "zone-b"}
	down := disruption.Member{Group: "storage-2", Zone: "zone-b", Disrupted: true}
	cases := map[string]struct {
		grant *disruption.Grant
		me    disruption.Member
		want  string
	}{
		"NoGrant":                   {nil, serving, msgNoGrant},
		"OtherDomain":               {&disruption.Grant{Domain: "zone-a", Generation: 2}, serving, fmt.Sprintf(msgOtherDomain, "zone-a", "zone-b")},
		"Stale":                     {&disruption.Grant{Domain: "zone-b", Generation: 1}, serving, fmt.Sprintf(msgStaleGrant, 1, 2)},
		"Granted":                   {&disruption.Grant{Domain: "zone-b", Generation: 2}, serving, ""},
		"VolatileFirst":             {&disruption.Grant{Domain: "zone-b", Generation: 2, VolatileFirst: true}, serving, fmt.Sprintf(msgVolatileFirst, "zone-b")},
		"DisruptedOnlyServing":      {&disruption.Grant{Domain: "zone-b", Generation: 2, DisruptedOnly: true}, serving, fmt.Sprintf(msgDisruptedOnly, "zone-b")},
		"DisruptedOnlyOtherServing": {&disruption.Grant{Domain: "zone-c", Generation: 2, DisruptedOnly: true}, serving, fmt.Sprintf(msgDisruptedOnly, "zone-c")},
		"DisruptedOnlyOtherDomain":  {&disruption.Grant{Domain: "zone-c", Generation: 2, DisruptedOnly: true}, down, ""},
		"DisruptedOnlyStale":        {&disruption.Grant{Domain: "zone-c", Generation: 1, DisruptedOnly: true}, down, fmt.Sprintf(msgStaleGrant, 1, 2)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, grantWait(tc.grant, 2, 2, tc.me)); diff != "" {
				t.Errorf("grantWait: -want +got:\n%s", diff)
			}
		})
	}
}

// TestMaintenanceWait: a group recreates its pod only while the status
// shows its zone under maintenance for at least the time a recreated pod
// is given to come back (chaos seed 17 of the three-data-hall workload: a
// pod deleted with 30 s left; the maintenance ran out while it was down).
func TestMaintenanceWait(t *testing.T) {
	maintained := func(zone string, remaining float64) *observation {
		st := &fdb.Status{}
		st.Cluster.MaintenanceZone, st.Cluster.MaintenanceSecondsRemaining = zone, remaining
		return &observation{status: st}
	}
	cases := map[string]struct {
		o    *observation
		want string
	}{
		"NoStatus":   {&observation{}, fmt.Sprintf(msgNoMaintenance, "zone-a")},
		"OtherZone":  {maintained("zone-b", 600), fmt.Sprintf(msgNoMaintenance, "zone-a")},
		"RunningOut": {maintained("zone-a", 30), fmt.Sprintf(msgMaintenanceLow, "zone-a", 30.0, 300)},
		"Enough":     {maintained("zone-a", 300), ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, maintenanceWait(tc.o, "zone-a")); diff != "" {
				t.Errorf("maintenanceWait: -want +got:\n%s", diff)
			}
		})
	}
}

// TestServiceIPGroup pins how a group known by its Service's IP makes its
// objects: the Service first, the pod only once the Service has a cluster
// IP, and a pod that holds another IP than its Service's (the Service was
// made anew) is recreated, under the grant, gated as DeletePod.
func TestServiceIPGroup(t *testing.T) {
	c, pg := testCluster(), testGroup()
	pg.Spec.ForProvider.PublicIPSource = v1alpha1.PublicIPSourceService
	service := func(ip string) *corev1.Service {
		s := workload.GroupService(c, pg, "storage-1")
		s.Spec.ClusterIP = ip
		return s
	}
	pod := func(ip string) *corev1.Pod {
		p := running(c, pg)
		p.Annotations[workload.AnnotationPublicIP] = ip
		return p
	}
	pvc := workload.PVC(c, pg, "storage-1")
	cases := map[string]struct {
		reason     string
		o          *observation
		conditions []v1alpha1.ProcessGroupConditionType
		want       want
	}{
		"NothingYet": {
			reason:     "The Service comes first: its cluster IP is what the pod's processes are known by.",
			o:          &observation{pvc: pvc},
			conditions: []v1alpha1.ProcessGroupConditionType{v1alpha1.MissingPod, v1alpha1.MissingService},
			want:       want{kind: kindEnsure, msg: "created the group's missing pod, volume claim or Service"},
		},
		"ServiceWithoutIP": {
			reason:     "A pod made before the Service has an IP would have processes known by no address.",
			o:          &observation{pvc: pvc, service: service("")},
			conditions: []v1alpha1.ProcessGroupConditionType{v1alpha1.MissingPod, v1alpha1.MissingService},
			want:       want{kind: kindWait, msg: "waiting for Service db-storage-1 to have a cluster IP, which the group's processes are known by, before the pod is created"},
		},
		"ServiceReady": {
			reason:     "With the Service's IP known, the pod is made.",
			o:          &observation{pvc: pvc, service: service("10.96.0.7")},
			conditions: []v1alpha1.ProcessGroupConditionType{v1alpha1.MissingPod},
			want:       want{kind: kindEnsure, msg: "created the group's missing pod, volume claim or Service"},
		},
		"Current": {
			reason: "Pod and Service agree: nothing to do.",
			o:      &observation{pvc: pvc, service: service("10.96.0.7"), pod: pod("10.96.0.7")},
			want:   want{kind: kindUnchanged},
		},
		"ServiceLost": {
			reason:     "A Service deleted under a running pod is made anew; the pod keeps running until then.",
			o:          &observation{pvc: pvc, pod: pod("10.96.0.7")},
			conditions: []v1alpha1.ProcessGroupConditionType{v1alpha1.MissingService},
			want:       want{kind: kindEnsure, msg: "created the group's missing pod, volume claim or Service"},
		},
		"ServiceMadeAnew": {
			reason:     "The pod's processes are known by the old Service's IP, which reaches nothing: only a new pod reads the new one.",
			o:          &observation{pvc: pvc, service: service("10.96.0.9"), pod: pod("10.96.0.7")},
			conditions: []v1alpha1.ProcessGroupConditionType{v1alpha1.IncorrectPodSpec},
			want:       want{kindRecreate, apiv1alpha1.ActionDeletePod, "deleted pod db-storage-1 to recreate it with the new spec"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.o.id, tc.o.want, tc.o.version = "storage-1", workload.Pod(c, pg, "storage-1"), c.Spec.ForProvider.Version
			if ip := tc.o.serviceIP(); ip != "" {
				tc.o.want.Annotations[workload.AnnotationPublicIP] = ip
			}
			e := &external{cluster: c}
			got := e.conditions(pg, tc.o)
			if diff := cmp.Diff(tc.conditions, got); diff != "" {
				t.Errorf("\n%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			for _, c := range got {
				tc.o.at.ProcessGroupConditions = append(tc.o.at.ProcessGroupConditions, v1alpha1.ProcessGroupCondition{Type: c})
			}
			if diff := cmp.Diff(tc.want, plannedOf(next(pg, tc.o, false, false)), cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
