package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// planNow is the observation time of the replacement cases.
var planNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// at sets the observation's time to planNow.
func at() mutation { return func(_ *v1alpha1.Cluster, o *observation) { o.now = planNow } }

// toReplace lists the IDs in the Cluster's processGroupsToReplace.
func toReplace(ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.ProcessGroupsToReplace = ids }
}

// annotated sets an annotation on a group.
func annotated(id, key, value string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		pg := groupNamed(o, id)
		a := pg.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[key] = value
		pg.SetAnnotations(a)
	}
}

// marked is a group the Cluster started replacing.
func marked(id, why string) mutation { return annotated(id, v1alpha1.AnnotationReplacement, why) }

// failing gives a group condition t since planNow minus age, recorded by
// the group; its processes do not report.
func failing(id string, t v1alpha1.ProcessGroupConditionType, age time.Duration) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for k, p := range o.status.Cluster.Processes {
			if p.Locality.InstanceID == id {
				delete(o.status.Cluster.Processes, k)
			}
		}
		pg := groupNamed(o, id)
		pg.Status.AtProvider.ProcessGroupConditions = append(pg.Status.AtProvider.ProcessGroupConditions,
			v1alpha1.ProcessGroupCondition{Type: t, Since: metav1.NewTime(planNow.Add(-age))})
	}
}

// leftBehind makes the group's addresses incompatible connections of the
// database: an upgrade left its processes behind.
func leftBehind(id string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		o.status.Cluster.IncompatibleConnections = groupNamed(o, id).Status.AtProvider.Addresses
	}
}

// plannedRestart makes the provider recreate the group's pod on purpose:
// its spec drifted, its zone holds the disruption grant and is under the
// maintenance the provider set.
func plannedRestart(id string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		podDrifted(id)(cr, o)
		regrant()(cr, o)
		zone := groupNamed(o, id).Zone()
		maintenance(zone, 600, zone)(cr, o)
	}
}

// reportingAgain puts the group's process back into the status.
func reportingAgain(id string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		_, fresh := converged(5)
		k, p := processOf(fresh, id)
		o.status.Cluster.Processes[k] = p
	}
}

// stranded records that the groups' volumes can only be used on nodes
// that are not Ready.
func stranded(ids ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		o.stranded = map[string]bool{}
		for _, id := range ids {
			o.stranded[id] = true
		}
	}
}

// automation sets the Cluster's automatic replacement options.
func automation(maxConcurrent, detectionSeconds int) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.Automation.MaxConcurrentReplacements = maxConcurrent
		cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds = detectionSeconds
	}
}

// density asks for n storage servers per pod.
func density(n int) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.StorageServersPerPod = n }
}

// nodeDown puts the groups' pods on node name, which is not Ready.
func nodeDown(name string, ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		if o.nodes == nil {
			o.nodes = map[string]*corev1.Node{}
		}
		o.nodes[name] = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}}
		for _, id := range ids {
			o.pods[workload.PodName(cr, id)].Spec.NodeName = name
		}
	}
}

// migratingByReplacement configures the database, and asks the Cluster,
// for ssd-redwood-1 under storageMigrationMethod ReplaceGroups; the storage
// servers of the groups old run ssd-2, the others ssd-redwood-1.
func migratingByReplacement(old ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		cr.Spec.ForProvider.DatabaseConfiguration.StorageEngine = "ssd-redwood-1"
		cr.Spec.ForProvider.StorageMigrationMethod = v1alpha1.StorageMigrationReplaceGroups
		o.status.Cluster.Configuration.StorageEngine = "ssd-redwood-1"
		for k, p := range o.status.Cluster.Processes {
			engine := "ssd-redwood-1"
			if slices.Contains(old, p.Locality.InstanceID) {
				engine = "ssd-2"
			}
			if p.ClassType == string(v1alpha1.ProcessClassStorage) {
				p.Roles = []fdb.ProcessRole{{Role: fdb.RoleStorage, StorageMetadata: &fdb.StorageMetadata{StorageEngine: engine}}}
			}
			o.status.Cluster.Processes[k] = p
		}
	}
}

// ioFailing gives group id ProcessHasIOError since planNow minus age and,
// when still, its processes an io_error message in the status.
func ioFailing(id string, age time.Duration, still bool) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for k, p := range o.status.Cluster.Processes {
			if p.Locality.InstanceID == id && still {
				p.Messages = append(p.Messages, fdb.Message{Name: fdb.MessageIOError})
				o.status.Cluster.Processes[k] = p
			}
		}
		pg := groupNamed(o, id)
		pg.Status.AtProvider.ProcessGroupConditions = append(pg.Status.AtProvider.ProcessGroupConditions,
			v1alpha1.ProcessGroupCondition{Type: v1alpha1.ProcessHasIOError, Since: metav1.NewTime(planNow.Add(-age))})
	}
}

// tainted puts the groups' pods on node name, Ready and carrying taint
// example.org/maintenance, which the Cluster's taintReplacements name with a
// duration of 600 s, and gives the groups NodeTainted since planNow minus
// age.
func tainted(name string, age time.Duration, ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		cr.Spec.ForProvider.Automation.TaintReplacements = []v1alpha1.TaintReplacement{{Key: "example.org/maintenance", DurationInSeconds: 600}}
		if o.nodes == nil {
			o.nodes = map[string]*corev1.Node{}
		}
		o.nodes[name] = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule}}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		for _, id := range ids {
			o.pods[workload.PodName(cr, id)].Spec.NodeName = name
			pg := groupNamed(o, id)
			pg.Status.AtProvider.ProcessGroupConditions = append(pg.Status.AtProvider.ProcessGroupConditions,
				v1alpha1.ProcessGroupCondition{Type: v1alpha1.NodeTainted, Since: metav1.NewTime(planNow.Add(-age))})
		}
	}
}

// heldBy takes the groups' pods off their nodes (Pending) and has their
// volumes held by node name, which tainted puts under maintenance.
func heldBy(name string, ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		tainted(name, 0)(cr, o)
		o.heldBy = map[string]string{}
		for _, id := range ids {
			o.pods[workload.PodName(cr, id)].Spec.NodeName = ""
			o.heldBy[id] = name
		}
	}
}

// oneGeneration makes the status report one active log generation, which
// completes its view (fdb.ViewIncompleteBecause).
func oneGeneration(_ *v1alpha1.Cluster, o *observation) {
	o.status.Cluster.RecoveryState.ActiveGenerations = 1
}

// agentOn runs a backup agent pod of the cluster on node name: not a
// process group's, so never force-deleted by the Cluster.
func agentOn(name string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.pods["db-backup-agents-x"] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "db-backup-agents-x", Labels: map[string]string{workload.LabelCluster: cr.GetName(), workload.LabelComponent: workload.ComponentBackupAgent}},
			Spec:       corev1.PodSpec{NodeName: name},
		}
	}
}

// volumes gives every storage group a claim of size in storage class
// class, settled (no new-volume mark: the database recovered since);
// expandable lists the classes that can grow a volume.
func volumes(size, class string, expandable ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.claims = map[string]*corev1.PersistentVolumeClaim{}
		for _, pg := range o.active(v1alpha1.ProcessClassStorage) {
			claim := workload.PVC(cr, pg, pg.ID())
			delete(claim.Annotations, workload.AnnotationNewVolume)
			claim.Spec.StorageClassName = ptr.To(class)
			claim.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
			o.claims[pg.ID()] = claim
		}
		o.expandable = map[string]bool{}
		for _, c := range expandable {
			o.expandable[c] = true
		}
	}
}

// sized is a volume claim named name that requests size.
func sized(name, size string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

// storageVolume asks for storage volumes of size, in class when not "".
func storageVolume(size, class string) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		s := v1alpha1.ProcessSettings{VolumeSize: ptr.To(resource.MustParse(size))}
		if class != "" {
			s.StorageClassName = ptr.To(class)
		}
		cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{string(v1alpha1.ProcessClassStorage): s}
	}
}

// placedBy records key as the node label of every storage group's zone.
func placedBy(key string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for _, pg := range o.active(v1alpha1.ProcessClassStorage) {
			pg.Spec.ForProvider.FaultDomainKey = key
		}
	}
}

// misconfigured is the step that marks every storage group for why.
func misconfigured(why string) *clusterStep {
	all := []string{"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"}
	return replacing(false, 0, 0, "replacing storage process groups "+strings.Join(all, ", ")+" ("+why+")", slices.Repeat([]string{why}, 5), all...)
}

// replacing is the step that marks groups of class storage.
func replacing(automatic bool, inFlight, limit int, msg string, why []string, ids ...string) *clusterStep {
	s := &clusterStep{
		Step: step.Step{Reason: reasonReplacing, Message: msg,
			Action: &policy.Action{Type: apiv1alpha1.ActionReplaceProcessGroup, Targets: ids, ProcessClass: "storage", Reason: why[0],
				Details: map[string]any{policy.DetailAutomatic: automatic, policy.DetailReplacementsInFlight: inFlight, policy.DetailMaxConcurrentReplacements: limit,
					policy.DetailReplacementsStalled: 0, policy.DetailFailedSeconds: 0, policy.DetailFailureDetectionSeconds: 7200, policy.DetailVolumeStranded: false}}},
		Kind: kindMarkReplacements,
	}
	for i, id := range ids {
		pg := refs(v1alpha1.ProcessClassStorage, id)[0]
		pg.SetAnnotations(map[string]string{v1alpha1.AnnotationReplacement: why[i]})
		s.Groups = append(s.Groups, pg)
	}
	return s
}

// failedFor gives a replacing step the failure details of an automatic
// replacement: the targets failed for failed seconds, against a failure
// detection time of detection seconds, with stranded volumes or not.
func (s *clusterStep) failedFor(failed, detection int, stranded bool) *clusterStep {
	s.Action.Details[policy.DetailFailedSeconds] = failed
	s.Action.Details[policy.DetailFailureDetectionSeconds] = detection
	s.Action.Details[policy.DetailVolumeStranded] = stranded
	return s
}

// taintedFor gives a replacing step the details of a replacement for
// planned maintenance: tainted for tainted seconds, against a duration of
// 600 s, in fault domain domain, beside the domains being replaced.
func (s *clusterStep) taintedFor(tainted int, domain string, replacing ...string) *clusterStep {
	s.Action.Details[policy.DetailFailedSeconds] = tainted
	s.Action.Details[policy.DetailNodeTainted] = true
	s.Action.Details[policy.DetailTaintedSeconds] = tainted
	s.Action.Details[policy.DetailTaintDurationSeconds] = 600
	s.Action.Details[policy.DetailFaultDomain] = domain
	s.Action.Details[policy.DetailFaultDomainsReplacing] = append([]string{}, replacing...)
	return s
}

// withDetail sets one more detail of the step's action.
func (s *clusterStep) withDetail(key string, value any) *clusterStep {
	s.Action.Details[key] = value
	return s
}

// compareMarks compares the replacement annotation of a step's groups too.
var compareMarks = cmp.Transformer("marks", func(in []*v1alpha1.ProcessGroup) []string {
	var out []string
	for _, pg := range in {
		out = append(out, pg.ID()+": "+pg.GetAnnotations()[v1alpha1.AnnotationReplacement])
	}
	return out
})

// TestPlanReplacements plans one step of the replacement flow per case.
func TestPlanReplacements(t *testing.T) {
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"Requested": {
			reason: "A group listed in processGroupsToReplace is marked, gated as a requested replacement.",
			mutate: []mutation{toReplace("storage-2")},
			want:   replacing(false, 0, 0, "replacing storage process groups storage-2 (requested)", []string{"requested"}, "storage-2"),
		},
		"RequestedByAnnotation": {
			reason: "A group annotated replace=true is marked like one listed in the Cluster.",
			mutate: []mutation{annotated("storage-4", v1alpha1.AnnotationReplace, "true"), automation(1, 7200)},
			want:   replacing(false, 0, 1, "replacing storage process groups storage-4 (requested)", []string{"requested"}, "storage-4"),
		},
		"MarkedGetsItsReplacementFirst": {
			reason: "A marked group no longer counts: its replacement is created first, in the emptiest zone, its predecessor's among equals.",
			mutate: []mutation{toReplace("storage-2"), marked("storage-2", "requested")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonCreateGroups, Message: "created storage process groups storage-6",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"storage-6"}, ProcessClass: "storage"}},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-6@c"),
			},
		},
		"ReplacedIDsAreNotReused": {
			reason: "An ID asked to be replaced is never given to a new group, even after its group is gone.",
			mutate: []mutation{toReplace("storage-6"), storage(6)},
			want: &clusterStep{
				Step: step.Step{Reason: reasonCreateGroups, Message: "created storage process groups storage-7",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"storage-7"}, ProcessClass: "storage"}},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-7@a"),
			},
		},
		"RetiredOnceTheReplacementReports": {
			reason: "Once the class has as many unmarked groups reporting as it wants, the marked group's removal begins.",
			mutate: []mutation{toReplace("storage-2"), marked("storage-2", "requested"), addGroup(v1alpha1.ProcessClassStorage, "storage-6", "a", "10.0.0.7")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonRetiring, Message: "removing replaced storage process groups storage-2: their replacements report"},
				Kind: kindRemoveGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-2@c"),
			},
		},
		"RetireWaitsForTheReplacement": {
			reason: "A replacement that does not report yet holds the old group's removal back, and the cluster says so.",
			mutate: []mutation{toReplace("storage-2"), marked("storage-2", "requested"), addGroup(v1alpha1.ProcessClassStorage, "storage-6", "a", "10.0.0.7"), notReporting("storage-6")},
			want:   waiting("replacing process groups storage-2: waiting for their replacements to report"),
		},
		"FailedPastDetection": {
			reason: "A group failing longer than the failure detection time is replaced automatically.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.PodPending, 2*time.Hour+time.Minute)},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: PodPending since 2026-01-01T09:59:00Z)",
				[]string{"failed: PodPending since 2026-01-01T09:59:00Z"}, "storage-4").failedFor(7260, 7200, false),
		},
		"EngineMigrationByReplacement": {
			reason: "Under ReplaceGroups, the storage groups whose servers run another engine than the database's are replaced, all at once like a density change.",
			mutate: []mutation{migratingByReplacement("storage-2", "storage-4")},
			want: replacing(false, 0, 0, "replacing storage process groups storage-2, storage-4 (misconfigured: storage engine ssd-2, the database is configured with ssd-redwood-1)",
				slices.Repeat([]string{"misconfigured: storage engine ssd-2, the database is configured with ssd-redwood-1"}, 2), "storage-2", "storage-4"),
		},
		"EngineMigrationWaitsForTheConfiguration": {
			reason: "Groups are not replaced before the database is configured with the new engine: their replacements would be recruited with the old one.",
			mutate: []mutation{migratingByReplacement("storage-2"), func(_ *v1alpha1.Cluster, o *observation) { o.status.Cluster.Configuration.StorageEngine = "ssd-2" }},
			want: &clusterStep{
				Step: step.Step{Reason: "ConfiguredDatabase",
					Message: "changed the database configuration to double ssd-redwood-1 (storage servers migrate from ssd-2, storage_migration_type gradual)",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configuration drift", Details: map[string]any{
						policy.DetailChangesStorageEngine: true, policy.DetailFromStorageEngine: "ssd-2", policy.DetailToStorageEngine: "ssd-redwood-1",
						policy.DetailStorageMigrationType: "gradual"}}},
				Kind:          kindConfigure,
				Configuration: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-redwood-1", UsableRegions: 1, StorageMigrationType: fdb.StorageMigrationGradual},
			},
		},
		"EngineMigrationByWiggle": {
			reason: "Under the default method the wiggle migrates the servers: no group is replaced.",
			mutate: []mutation{migratingByReplacement("storage-2"), func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.StorageMigrationMethod = "" }},
			want:   waiting("storage servers migrating to ssd-redwood-1: 4 of 5 storage processes run only it"),
		},
		"IOErrors": {
			reason: "A group whose process reports an I/O error is proposed for replacement, for the policy to weigh how long it has.",
			mutate: []mutation{at(), automation(1, 7200), ioFailing("storage-4", 31*time.Minute, true)},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (I/O errors: io_error since 2026-01-01T11:29:00Z)",
				[]string{"I/O errors: io_error since 2026-01-01T11:29:00Z"}, "storage-4").failedFor(1860, 7200, false).withDetail(policy.DetailIOError, true),
		},
		"IOErrorsGone": {
			reason: "A group whose processes no longer report an I/O error in this reconcile's status is left alone, whatever it recorded.",
			mutate: []mutation{at(), automation(1, 7200), ioFailing("storage-4", 31*time.Minute, false)},
		},
		"FailureBeforeIOErrors": {
			reason: "Failed groups are replaced before those that report I/O errors.",
			mutate: []mutation{at(), automation(1, 600), ioFailing("storage-4", 31*time.Minute, true), failing("storage-2", v1alpha1.PodPending, 11*time.Minute)},
			want: replacing(true, 0, 1, "replacing storage process groups storage-2 (failed: PodPending since 2026-01-01T11:49:00Z)",
				[]string{"failed: PodPending since 2026-01-01T11:49:00Z"}, "storage-2").failedFor(660, 600, false),
		},
		"TaintedNodePastItsDuration": {
			reason: "A group whose node has carried a taint the Cluster names for the entry's duration is replaced, within maxConcurrentReplacements.",
			mutate: []mutation{at(), automation(1, 7200), tainted("node-b", 11*time.Minute, "storage-1", "storage-4")},
			want: replacing(true, 0, 1, "replacing storage process groups storage-1 (node node-b tainted example.org/maintenance since 2026-01-01T11:49:00Z)",
				[]string{"node node-b tainted example.org/maintenance since 2026-01-01T11:49:00Z"}, "storage-1").taintedFor(660, "b"),
		},
		"HeldByMaintenance": {
			reason: "A failing group whose pod is on no node, and whose every node it could run on is under maintenance, is replaced for the maintenance long before the failure detection time: its pod cannot come back until the maintenance ends.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.PodPending, 11*time.Minute), heldBy("node-b", "storage-4")},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (held off by node node-b, tainted example.org/maintenance, since 2026-01-01T11:49:00Z)",
				[]string{"held off by node node-b, tainted example.org/maintenance, since 2026-01-01T11:49:00Z"}, "storage-4").taintedFor(660, "b"),
		},
		"HeldByMaintenanceNotLongEnough": {
			reason: "A held group counts its maintenance from its oldest condition: less than the taint entry's duration replaces nothing yet.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.PodPending, 9*time.Minute), heldBy("node-b", "storage-4")},
		},
		"StalledExclusionMakesRoomForTheMissingGroup": {
			reason: "A replacement whose group waits to be excluded only because another group of its class misses its processes (the exclusion budget would allow it with that group back) gives up its room to that group's replacement: waiting would wait forever.",
			mutate: []mutation{at(), automation(1, 7200), marked("storage-5", "requested"), failing("storage-5", v1alpha1.MissingProcesses, 3*time.Hour), removing("storage-5"),
				addGroup(v1alpha1.ProcessClassStorage, "storage-6", "c", "10.0.0.7"), failing("storage-4", v1alpha1.MissingProcesses, 2*time.Hour+time.Minute)},
			want: replacing(true, 1, 1, "replacing storage process groups storage-4 (failed: MissingProcesses since 2026-01-01T09:59:00Z)",
				[]string{"failed: MissingProcesses since 2026-01-01T09:59:00Z"}, "storage-4").failedFor(7260, 7200, false).withDetail(policy.DetailReplacementsStalled, 1),
		},
		"StalledExclusionKeepsItsRoomFromAReportingGroup": {
			reason: "A group that reports (its node is tainted) does not hold the exclusion budget back: replacing it would not free the stalled exclusion, which keeps its room.",
			mutate: []mutation{at(), automation(1, 7200), marked("storage-5", "requested"), failing("storage-5", v1alpha1.MissingProcesses, 3*time.Hour), removing("storage-5"),
				addGroup(v1alpha1.ProcessClassStorage, "storage-6", "c", "10.0.0.7"), failing("storage-4", v1alpha1.MissingProcesses, time.Hour), tainted("node-a", 11*time.Minute, "storage-3")},
			want: excluding("storage", "storage-5"),
		},
		"HeldGroupUnblocksAStalledExclusion": {
			reason: "A group held off by maintenance frees a stalled exclusion of its class the same way, even when a held group of another class sorts first: that one's replacement has no room and would free nothing.",
			mutate: []mutation{at(), automation(1, 7200), logs(1), addGroup(v1alpha1.ProcessClassLog, "log-1", "b", "10.0.0.9"), currentConfigMap(), failing("log-1", v1alpha1.MissingProcesses, 11*time.Minute),
				marked("storage-5", "requested"), failing("storage-5", v1alpha1.MissingProcesses, 3*time.Hour), removing("storage-5"),
				addGroup(v1alpha1.ProcessClassStorage, "storage-6", "c", "10.0.0.7"), failing("storage-4", v1alpha1.MissingProcesses, 11*time.Minute), heldBy("node-b", "storage-4", "log-1")},
			want: replacing(true, 1, 1, "replacing storage process groups storage-4 (held off by node node-b, tainted example.org/maintenance, since 2026-01-01T11:49:00Z)",
				[]string{"held off by node node-b, tainted example.org/maintenance, since 2026-01-01T11:49:00Z"}, "storage-4").taintedFor(660, "b").withDetail(policy.DetailReplacementsStalled, 1),
		},
		"TaintedNodeNotLongEnough": {
			reason: "A taint carried for less than its entry's duration replaces nothing yet.",
			mutate: []mutation{at(), automation(1, 7200), tainted("node-b", 9*time.Minute, "storage-1")},
		},
		"TaintedOneFaultDomainAtATime": {
			reason: "Of groups on tainted nodes in two zones, only the lowest zone's are replaced, even with room for more.",
			mutate: []mutation{at(), automation(3, 7200), tainted("node-b", 11*time.Minute, "storage-1"), tainted("node-a", 11*time.Minute, "storage-3")},
			want: replacing(true, 0, 3, "replacing storage process groups storage-3 (node node-a tainted example.org/maintenance since 2026-01-01T11:49:00Z)",
				[]string{"node node-a tainted example.org/maintenance since 2026-01-01T11:49:00Z"}, "storage-3").taintedFor(660, "a"),
		},
		"TaintedWaitsForAnotherDomainsReplacement": {
			reason: "A tainted group waits while a group of another fault domain is being replaced.",
			mutate: []mutation{at(), automation(3, 7200), toReplace("storage-2"), marked("storage-2", "requested"),
				addGroup(v1alpha1.ProcessClassStorage, "storage-6", "a", "10.0.0.7"), notReporting("storage-6"), tainted("node-b", 11*time.Minute, "storage-1")},
			want: waiting("replacing process groups storage-2: waiting for their replacements to report"),
		},
		"FailedOldestConditionCounts": {
			reason: "The oldest failure condition of a group is its failure time.",
			mutate: []mutation{at(), automation(1, 600), failing("storage-4", v1alpha1.MissingProcesses, 5*time.Minute), failing("storage-4", v1alpha1.NodeNotReady, 11*time.Minute)},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: NodeNotReady since 2026-01-01T11:49:00Z)",
				[]string{"failed: NodeNotReady since 2026-01-01T11:49:00Z"}, "storage-4").failedFor(660, 600, false),
		},
		"FailedButReportingAgain": {
			reason: "A failure the group recorded before its processes came back is over: the status of this reconcile shows them all reporting.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.MissingProcesses, time.Hour), reportingAgain("storage-4")},
		},
		"FailedButLeftBehind": {
			reason: "A group whose process an upgrade left behind (an incompatible connection of a database on the spec's version) waits for its pod to be recreated: its failure counts only after the maintenance of that restart too.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.MissingProcesses, 5*time.Minute), leftBehind("storage-4")},
		},
		"LeftBehindPastMaintenance": {
			reason: "A left-behind group still failing past the failure detection time and the restart's maintenance is replaced.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.MissingProcesses, 11*time.Minute+time.Second), leftBehind("storage-4")},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: MissingProcesses since 2026-01-01T11:48:59Z)",
				[]string{"failed: MissingProcesses since 2026-01-01T11:48:59Z"}, "storage-4").failedFor(661, 60, false),
		},
		"FailedInPlannedRestart": {
			reason: "A group of the zone whose pods the provider recreates on purpose is down by the provider's doing: not replaced while that restart's maintenance lasts.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.MissingProcesses, 5*time.Minute), plannedRestart("storage-4")},
			want:   waiting("fault domain b may recreate its pods (disruption grant of generation 1)"),
		},
		"FailedInPlannedRestartPastMaintenance": {
			reason: "Past the failure detection time and the restart's maintenance, a group of the planned zone that still fails is replaced.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.MissingProcesses, 11*time.Minute+time.Second), plannedRestart("storage-4")},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: MissingProcesses since 2026-01-01T11:48:59Z)",
				[]string{"failed: MissingProcesses since 2026-01-01T11:48:59Z"}, "storage-4").failedFor(661, 60, false),
		},
		"FailedStatusUnreadable": {
			reason: "Without a status no failure is known to last: nothing is replaced automatically.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.MissingProcesses, time.Hour), statusUnreadable()},
		},
		"FailedNotYet": {
			reason: "A group failing for less than the failure detection time is left alone: it may heal.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.PodPending, time.Hour)},
		},
		"StrandedAskedEarly": {
			reason: "A failed group whose volume cannot follow its pod is proposed for replacement before the failure detection time; its policy decides.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.MissingProcesses, 30*time.Second), stranded("storage-4")},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: MissingProcesses since 2026-01-01T11:59:30Z; its volume cannot follow it to a Ready node)",
				[]string{"failed: MissingProcesses since 2026-01-01T11:59:30Z; its volume cannot follow it to a Ready node"}, "storage-4").failedFor(30, 7200, true),
		},
		"StrandedPastDetection": {
			reason: "Past the failure detection time a stranded group is replaced like any failed one, and the policy learns its volume is stranded.",
			mutate: []mutation{at(), automation(1, 600), failing("storage-4", v1alpha1.MissingProcesses, 11*time.Minute), stranded("storage-4")},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: MissingProcesses since 2026-01-01T11:49:00Z)",
				[]string{"failed: MissingProcesses since 2026-01-01T11:49:00Z"}, "storage-4").failedFor(660, 600, true),
		},
		"StrandedAfterTheOtherSteps": {
			reason: "An early replacement, which its policy may deny, comes after every other step: a requested replacement goes first.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.MissingProcesses, 30*time.Second), stranded("storage-4"), toReplace("storage-5")},
			want:   replacing(false, 0, 1, "replacing storage process groups storage-5 (requested)", []string{"requested"}, "storage-5"),
		},
		"StrandedButHealed": {
			reason: "A stranded group whose processes report again is not failing.",
			mutate: []mutation{at(), automation(1, 7200), failing("storage-4", v1alpha1.MissingProcesses, 30*time.Second), stranded("storage-4"), reportingAgain("storage-4")},
		},
		"FailedNotAFailure": {
			reason: "Conditions that are not failures (a drifted pod spec) never replace a group.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.IncorrectPodSpec, time.Hour)},
		},
		"FailedWithAutomationOff": {
			reason: "maxConcurrentReplacements 0 turns automatic replacement off.",
			mutate: []mutation{at(), automation(0, 60), failing("storage-4", v1alpha1.PodPending, time.Hour)},
		},
		"FailedCutToTheLimit": {
			reason: "Automatic replacements are cut to the room the concurrency limit leaves.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.PodPending, time.Hour), failing("storage-5", v1alpha1.PodFailing, time.Hour)},
			want: replacing(true, 0, 1, "replacing storage process groups storage-4 (failed: PodPending since 2026-01-01T11:00:00Z)",
				[]string{"failed: PodPending since 2026-01-01T11:00:00Z"}, "storage-4").failedFor(3600, 60, false),
		},
		"FailedNoRoomLeft": {
			reason: "With the limit reached by replacements in flight, no automatic replacement starts; the one in flight goes on.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-5", v1alpha1.PodFailing, time.Hour),
				marked("storage-4", "failed: PodPending since 2026-01-01T11:00:00Z"), addGroup(v1alpha1.ProcessClassStorage, "storage-6", "a", "10.0.0.7"), notReporting("storage-6")},
			want: waiting("replacing process groups storage-4: waiting for their replacements to report"),
		},
		"RequestedBeforeAutomatic": {
			reason: "Asked-for replacements go first, in a step of their own.",
			mutate: []mutation{at(), automation(1, 60), failing("storage-4", v1alpha1.PodPending, time.Hour), toReplace("storage-5")},
			want:   replacing(false, 0, 1, "replacing storage process groups storage-5 (requested)", []string{"requested"}, "storage-5").failedFor(0, 60, false),
		},
		"DensityMigrationMarksEveryGroup": {
			reason: "storageServersPerPod cannot change in place: every storage group of the old density is marked in one step.",
			mutate: []mutation{density(2), currentConfigMap()},
			want: replacing(false, 0, 0, "replacing storage process groups storage-1, storage-2, storage-3, storage-4, storage-5 (misconfigured: 1 processes per pod, wants 2)",
				[]string{"misconfigured: 1 processes per pod, wants 2", "misconfigured: 1 processes per pod, wants 2", "misconfigured: 1 processes per pod, wants 2",
					"misconfigured: 1 processes per pod, wants 2", "misconfigured: 1 processes per pod, wants 2"},
				"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"),
		},
		"ConfigMapKeepsEveryDensityInUse": {
			reason: "While groups of the old density remain, the ConfigMap holds their monitor configuration beside the new one.",
			mutate: []mutation{density(2)},
			want: &clusterStep{
				Step: step.Step{Reason: "UpdatedConfigMap", Message: "updated ConfigMap db-config"},
				Kind: kindWriteConfigMap, ConfigMap: workload.ConfigMap(converged1(), convergedCS, map[workload.Density]bool{
					{Class: v1alpha1.ProcessClassStorage, Processes: 1}: true, {Class: v1alpha1.ProcessClassStorage, Processes: 2}: true}).Data,
			},
		},
		"NoReplacementWithoutADatabase": {
			reason: "Replacing ends in an exclusion: nothing is marked before the database is configured.",
			mutate: []mutation{toReplace("storage-2"), unconfigured()},
			want: &clusterStep{
				Step: step.Step{Reason: reasonConfigured, Message: "created the database: configure new double ssd-2",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "new database", Details: map[string]any{policy.DetailNewDatabase: true}}},
				Kind: kindConfigureNew, Configuration: desiredConfiguration(converged1()),
			},
		},
		"FaultDomainKeyChanged": {
			reason: "A group placed by another node label than the Cluster's fault domain key now is replaced, not moved in place.",
			mutate: []mutation{placedBy("topology.kubernetes.io/zone"), func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.FaultDomain.Key = "example.com/rack" }},
			want:   misconfigured(`misconfigured: fault domain key topology.kubernetes.io/zone, wants example.com/rack`),
		},
		"FaultDomainKeyUnrecorded": {
			reason: "A group that recorded no key (created before groups recorded it) is left alone.",
			mutate: []mutation{placedBy(""), func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.FaultDomain.Key = "example.com/rack" }},
		},
		"StorageClassChanged": {
			reason: "A volume cannot change its storage class: its group is replaced.",
			mutate: []mutation{volumes("16Gi", "zonal"), storageVolume("16Gi", "fast")},
			want:   misconfigured(`misconfigured: storage class "zonal", wants "fast"`),
		},
		"VolumeSmaller": {
			reason: "A claim cannot shrink: its group is replaced.",
			mutate: []mutation{volumes("16Gi", "zonal", "zonal"), storageVolume("8Gi", "")},
			want:   misconfigured(`misconfigured: volume size 16Gi, wants 8Gi (a claim cannot shrink)`),
		},
		"VolumeLargerInAClassThatCannotExpand": {
			reason: "A larger volume in a class that cannot expand volumes takes a replacement.",
			mutate: []mutation{volumes("16Gi", "zonal"), storageVolume("32Gi", "")},
			want:   misconfigured(`misconfigured: volume size 16Gi, wants 32Gi (storage class "zonal" cannot expand a volume)`),
		},
		"VolumeLargerExpandsInPlace": {
			reason: "A larger volume in a class that can expand grows in place, every claim in one step, ungated.",
			mutate: []mutation{volumes("16Gi", "zonal", "zonal"), storageVolume("32Gi", "")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonExpandVolumes, Message: "expanding volume claims db-storage-1-data to 32Gi, db-storage-2-data to 32Gi, db-storage-3-data to 32Gi, db-storage-4-data to 32Gi, db-storage-5-data to 32Gi"},
				Kind: kindExpandVolumes,
				Claims: []*corev1.PersistentVolumeClaim{sized("db-storage-1-data", "32Gi"), sized("db-storage-2-data", "32Gi"),
					sized("db-storage-3-data", "32Gi"), sized("db-storage-4-data", "32Gi"), sized("db-storage-5-data", "32Gi")},
			},
		},
		"VolumeAsAsked": {
			reason: "A claim as the spec builds it needs nothing.",
			mutate: []mutation{volumes("16Gi", "zonal"), storageVolume("16Gi", "zonal")},
		},
		"ForceDeletePodsOnANotReadyNode": {
			reason: "The pods on a node that is not Ready are force-deleted in one step, with how many of their processes still report.",
			mutate: []mutation{nodeDown("node-7", "storage-4", "storage-1"), notReporting("storage-1"), agentOn("node-7"), oneGeneration},
			want: &clusterStep{
				Step: step.Step{Reason: reasonForceDeleted, Message: "force-deleted pods db-storage-1, db-storage-4 on NotReady node node-7 so that they reschedule",
					Action: &policy.Action{Type: apiv1alpha1.ActionForceDeletePod, Targets: []string{"storage-1", "storage-4"}, Reason: "node node-7 is not Ready",
						Details: map[string]any{policy.DetailNodeReady: false, policy.DetailReportingProcesses: 1}}},
				Kind: kindForceDeletePods, Pods: []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "db-storage-4"}}},
			},
		},
		"ForceDeletePodsWithoutACount": {
			reason: "A status whose view is incomplete (here: no active generations reported) gives no count of the processes that report: absence there proves nothing, and the policy denies without it.",
			mutate: []mutation{nodeDown("node-7", "storage-4", "storage-1"), notReporting("storage-1")},
			want: &clusterStep{
				Step: step.Step{Reason: reasonForceDeleted, Message: "force-deleted pods db-storage-1, db-storage-4 on NotReady node node-7 so that they reschedule",
					Action: &policy.Action{Type: apiv1alpha1.ActionForceDeletePod, Targets: []string{"storage-1", "storage-4"}, Reason: "node node-7 is not Ready",
						Details: map[string]any{policy.DetailNodeReady: false}}},
				Kind: kindForceDeletePods, Pods: []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "db-storage-1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "db-storage-4"}}},
			},
		},
	}
	claimSizes := cmp.Transformer("claims", func(in []*corev1.PersistentVolumeClaim) []string {
		var out []string
		for _, c := range in {
			size := ""
			if q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
				size = q.String()
			}
			out = append(out, c.Name+" "+size)
		}
		return out
	})
	podNames := cmp.Transformer("pods", func(in []*corev1.Pod) []string {
		var out []string
		for _, p := range in {
			out = append(out, p.Name)
		}
		return out
	})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			got := next(cr, o)
			opts := []cmp.Option{compareGroups, podNames}
			if got != nil && got.Kind == kindMarkReplacements {
				opts = []cmp.Option{compareMarks, podNames}
			}
			if got != nil && got.Kind == kindExpandVolumes {
				opts = append(opts, claimSizes)
			}
			if diff := cmp.Diff(tc.want, got, opts...); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// converged1 is the fixture's Cluster.
func converged1() *v1alpha1.Cluster {
	cr, _ := converged(5)
	return cr
}
