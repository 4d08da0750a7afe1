package cluster

import (
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// statusUnreadable is a reachable database whose status could not be read
// in this reconcile.
func statusUnreadable() mutation {
	return func(_ *v1alpha1.Cluster, o *observation) { o.status, o.statusErr = nil, fdb.ErrTimeout }
}

// recordedConfigured is a Cluster whose status recorded its database
// configured, with its connection string.
func recordedConfigured() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) { o.configuredBefore, o.recorded = true, o.clusterFile }
}

// lostClusterFile is a ConfigMap recreated without its cluster file: no
// admin client, no status.
func lostClusterFile() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.status, o.database, o.clusterFile = nil, false, ""
		o.configMap = configMapData(cr, o, "")
	}
}

// TestPlanNeverActsOnMissingEvidence: an unreadable status or a lost
// cluster file never plans what only a database that does not exist may
// do (configure new, new first coordinators), and new groups never reuse an
// ID that may still be excluded.
func TestPlanNeverActsOnMissingEvidence(t *testing.T) {
	cases := map[string]struct {
		reason string
		ms     []mutation
		want   kind
		msg    string
	}{
		"NoConfigureNewOnUnreadableStatus": {
			reason: "An unreadable status is no evidence that the database was never created.",
			ms:     []mutation{statusUnreadable()},
		},
		"NoConfigureNewForARecordedDatabase": {
			reason: "A Cluster that recorded its database configured never runs configure new, whatever the status says.",
			ms:     []mutation{recordedConfigured(), unconfigured()},
		},
		"ConfigureNewOnPositiveEvidence": {
			reason: "FoundationDB saying configuration_never_created is the evidence configure new needs.",
			ms:     []mutation{unconfigured()},
			want:   kindConfigureNew, msg: "created the database: configure new double ssd-2",
		},
		"LostClusterFileIsRestoredNotReplaced": {
			reason: "A ConfigMap that lost its cluster file gets the recorded one back; no new coordinators are chosen.",
			ms:     []mutation{recordedConfigured(), lostClusterFile()},
			want:   kindWriteConfigMap, msg: "updated ConfigMap db-config",
		},
		"NoNewIDsWithoutTheExclusionList": {
			reason: "Without the exclusion list no ID is known to be free: a new group could reuse one still excluded.",
			ms:     []mutation{storage(6), statusUnreadable()},
			want:   kindWait, msg: "cannot choose IDs for new process groups: the exclusion list could not be read",
		},
		"NoNewIDsWhileTheExclusionListIsUnreadable": {
			reason: "An unavailable database's status has no exclusion list (chaos seed 82): a replacement took the ID of a removed group whose exclusion an include denied had left, and came up excluded.",
			ms:     []mutation{storage(6), recordedConfigured(), excluded(instance("storage-6")), unavailable()},
			want:   kindWait, msg: "cannot choose IDs for new process groups: the exclusion list could not be read",
		},
		"NewIDsSkipExcludedOnes": {
			reason: "With the list, an ID still excluded is skipped.",
			ms:     []mutation{storage(6), excluded(instance("storage-6"))},
			want:   kindCreateGroups, msg: "created storage process groups storage-7",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.ms...)
			got := next(cr, o)
			var k kind
			var msg string
			if got != nil {
				k, msg = got.Kind, got.Message
			}
			if diff := cmp.Diff(tc.want, k); diff != "" {
				t.Errorf("\n%s\nnext(...).Kind: -want, +got:\n%s (message %q)", tc.reason, diff, msg)
			}
			if diff := cmp.Diff(tc.msg, msg); diff != "" {
				t.Errorf("\n%s\nnext(...).Message: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want == kindWriteConfigMap {
				if diff := cmp.Diff(configMapData(cr, o, o.recorded), got.ConfigMap); diff != "" {
					t.Errorf("\n%s\nthe restored ConfigMap: -want (the recorded cluster file), +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}

// TestPlanRedundancyNeverDropsSilently: lowering the redundancy mode is
// gated with what the policy needs to deny it unless acknowledged.
func TestPlanRedundancyNeverDropsSilently(t *testing.T) {
	cases := map[string]struct {
		reason string
		mode   v1alpha1.RedundancyMode
		ack    string
		want   map[string]any
	}{
		"Lowered": {
			reason: "double to single lowers redundancy, unacknowledged.",
			mode:   v1alpha1.RedundancySingle,
			want:   map[string]any{policy.DetailLowersRedundancy: true, policy.DetailFromRedundancy: "double", policy.DetailAcknowledged: false},
		},
		"LoweredAndAcknowledged": {
			reason: "The annotation naming the new mode acknowledges it.",
			mode:   v1alpha1.RedundancySingle, ack: "single",
			want: map[string]any{policy.DetailLowersRedundancy: true, policy.DetailFromRedundancy: "double", policy.DetailAcknowledged: true},
		},
		"AcknowledgedForAnotherMode": {
			reason: "An annotation naming another mode acknowledges nothing.",
			mode:   v1alpha1.RedundancySingle, ack: "double",
			want: map[string]any{policy.DetailLowersRedundancy: true, policy.DetailFromRedundancy: "double", policy.DetailAcknowledged: false},
		},
		"Raised": {
			reason: "Raising redundancy needs no acknowledgement.",
			mode:   v1alpha1.RedundancyTriple,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5)
			cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode = tc.mode
			if tc.ack != "" {
				cr.SetAnnotations(map[string]string{policy.AnnotationAllowRedundancyDecrease: tc.ack})
			}
			o.configMap = configMapData(cr, o, o.clusterFile)
			got := configureStep(cr, o)
			if got == nil {
				t.Fatalf("\n%s\nconfigureStep: no step", tc.reason)
			}
			if diff := cmp.Diff(tc.want, got.Action.Details); diff != "" {
				t.Errorf("\n%s\nconfigureStep(...).Action.Details: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlanBudgetAndStuckRemovals: a removal larger than the exclusion
// budget proceeds in batches the budget allows, and a removal stuck for
// long does not hold back the inclusion of finished ones.
func TestPlanBudgetAndStuckRemovals(t *testing.T) {
	t.Run("ExclusionBatchCutToTheBudget", func(t *testing.T) {
		// Ten storage groups at double redundancy (fault tolerance 1):
		// the budget is valid + 1 - desired - ongoing.
		seven := removing("storage-4", "storage-5", "storage-6", "storage-7", "storage-8", "storage-9", "storage-10")
		cr, o := observed(10, storage(3), seven)
		if got := excludeStep(cr, o); got == nil || len(got.Addresses) != 7 {
			t.Errorf("excludeStep with a budget of 8 (10 + 1 - 3): %+v, want all seven", got)
		}
		cr, o = observed(10, storage(8), seven)
		want := []fdb.ProcessAddress{instance("storage-4"), instance("storage-5"), instance("storage-6")}
		if got := excludeStep(cr, o); got == nil || !cmp.Equal(want, got.Addresses) {
			t.Errorf("excludeStep with a budget of 3 (10 + 1 - 8): %+v, want the first three of the batch %v", got, want)
		}
	})
	t.Run("DeniedBatchHalved", func(t *testing.T) {
		// A platform rule denied excluding three at once: the batch is
		// proposed again at half its size, down to one.
		seven := removing("storage-4", "storage-5", "storage-6", "storage-7", "storage-8", "storage-9", "storage-10")
		denied := func(result string, targets ...string) *v1alpha1.PolicyDecision {
			return &v1alpha1.PolicyDecision{Action: string(apiv1alpha1.ActionExclude), Result: result, Rule: "storage-exclusions/at-most-two", Targets: targets}
		}
		for name, tc := range map[string]struct {
			last *v1alpha1.PolicyDecision
			want int
		}{
			"NoDecision":           {want: 7},
			"DeniedSeven":          {last: denied("Denied", "storage-4", "storage-5", "storage-6", "storage-7", "storage-8", "storage-9", "storage-10"), want: 4},
			"DeniedThree":          {last: denied("Denied", "storage-4", "storage-5", "storage-6"), want: 2},
			"DeniedTwo":            {last: denied("Denied", "storage-4", "storage-5"), want: 1},
			"DeniedOne":            {last: denied("Denied", "storage-4"), want: 1},
			"Allowed":              {last: denied("Allowed", "storage-4", "storage-5", "storage-6"), want: 7},
			"DeniedByABuiltInRule": {last: &v1alpha1.PolicyDecision{Action: string(apiv1alpha1.ActionExclude), Result: "Denied", Rule: "fdb-exclusion/min-recovery-time", Targets: []string{"storage-4", "storage-5", "storage-6"}}, want: 7},
			"DeniedAnotherBatch":   {last: denied("Denied", "storage-1", "storage-2", "storage-3"), want: 7},
			"DeniedAnotherAction":  {last: &v1alpha1.PolicyDecision{Action: string(apiv1alpha1.ActionKill), Result: "Denied", Targets: []string{"storage-4", "storage-5"}}, want: 7},
		} {
			t.Run(name, func(t *testing.T) {
				cr, o := observed(10, storage(3), seven)
				cr.Status.AtProvider.LastPolicyDecision = tc.last
				got := excludeStep(cr, o)
				if got == nil {
					t.Fatal("excludeStep: no step")
				}
				if diff := cmp.Diff(tc.want, len(got.Action.Targets)); diff != "" {
					t.Errorf("excludeStep after the last decision %+v: batch size -want, +got:\n%s", tc.last, diff)
				}
			})
		}
	})
	t.Run("StuckRemovalDoesNotBlockInclusions", func(t *testing.T) {
		// The group records since when its processes have not reported
		// by the provider's clock (its MissingProcesses condition): a
		// removal stuck that long (a pod on a dead node) no longer holds
		// the batch back; one draining (reporting) or finishing (stopped
		// reporting moments ago) does, however long it has been removed.
		now := func(_ *v1alpha1.Cluster, o *observation) { o.now = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC) }
		since := func(d time.Duration) mutation {
			return func(_ *v1alpha1.Cluster, o *observation) {
				groupNamed(o, "storage-4").Status.AtProvider.RemovalTime = ptr.To(metav1.NewTime(o.now.Add(-d)))
			}
		}
		missingFor := func(d time.Duration) mutation {
			return func(cr *v1alpha1.Cluster, o *observation) {
				notReporting("storage-4")(cr, o)
				pg := groupNamed(o, "storage-4")
				pg.Status.AtProvider.ProcessGroupConditions = append(pg.Status.AtProvider.ProcessGroupConditions,
					v1alpha1.ProcessGroupCondition{Type: v1alpha1.MissingProcesses, Since: metav1.NewTime(o.now.Add(-d))})
			}
		}
		decided := func(action apiv1alpha1.ActionType, result string) mutation {
			return func(_ *v1alpha1.Cluster, o *observation) {
				groupNamed(o, "storage-4").Status.AtProvider.LastPolicyDecision = &v1alpha1.PolicyDecision{Action: string(action), Result: result}
			}
		}
		stuckAfter := func(seconds int) mutation {
			return func(cr *v1alpha1.Cluster, _ *observation) {
				cr.Spec.ForProvider.Automation.StuckRemovalSeconds = seconds
			}
		}
		for name, tc := range map[string]struct {
			removal []mutation
			include bool
		}{
			"JustStarted":                       {removal: []mutation{removing("storage-4")}},
			"DrainingForADay":                   {removal: []mutation{removing("storage-4"), since(24 * time.Hour)}},
			"FinishingNow":                      {removal: []mutation{removing("storage-4"), since(time.Hour), missingFor(time.Second)}},
			"NotReportingSinceUnknown":          {removal: []mutation{removing("storage-4"), since(time.Hour), notReporting("storage-4")}},
			"StuckForTenMinutes":                {removal: []mutation{removing("storage-4"), missingFor(10 * time.Minute)}, include: true},
			"InFlightBelowTheClustersThreshold": {removal: []mutation{removing("storage-4"), missingFor(10 * time.Minute), stuckAfter(3600)}},
			"StuckPastTheClustersThreshold":     {removal: []mutation{removing("storage-4"), missingFor(time.Hour), stuckAfter(3600)}, include: true},
			"PastItsGateTearingDown":            {removal: []mutation{removing("storage-4"), missingFor(time.Hour), decided(apiv1alpha1.ActionRemoveProcessGroup, "Allowed")}},
			"PastItsGateAsUnreachable":          {removal: []mutation{removing("storage-4"), missingFor(time.Hour), decided(apiv1alpha1.ActionRemoveUnreachableProcessGroup, "Allowed")}},
			"RemovalDeniedIsStuck":              {removal: []mutation{removing("storage-4"), missingFor(time.Hour), decided(apiv1alpha1.ActionRemoveProcessGroup, "Denied")}, include: true},
		} {
			cr, o := observed(5, append([]mutation{now, excluded(instance("storage-9"))}, tc.removal...)...)
			got := includeStep(cr, o)
			if included := got != nil && got.Message == "included removed process groups storage-9"; included != tc.include || got == nil {
				t.Errorf("%s: includeStep: %+v, want storage-9 included: %v (else a wait that batches)", name, got, tc.include)
			}
		}
	})
}

// TestPlanGroupsFollowTheClustersPolicies: a group's management policies
// follow its Cluster's, so orphaning the Cluster orphans the groups before
// anything can cascade into their volumes.
func TestPlanGroupsFollowTheClustersPolicies(t *testing.T) {
	cr, o := observed(3)
	cr.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate})
	got := next(cr, o)
	if got == nil || got.Kind != kindSyncPolicies || len(got.Groups) != 3 {
		t.Fatalf("next(...): %+v, want the three groups given the Cluster's policies", got)
	}
	for _, pg := range got.Groups {
		if diff := cmp.Diff(cr.GetManagementPolicies(), pg.GetManagementPolicies()); diff != "" {
			t.Errorf("group %s policies: -want, +got:\n%s", pg.ID(), diff)
		}
	}
	if len(groupNamed(o, "storage-1").GetManagementPolicies()) == 3 {
		t.Error("the planner changed the observation's groups; it must plan on copies")
	}
}

// TestNewGroupsNeverPinnedToAFailedZone: a zone chosen from the cached view
// of the nodes is confirmed on a live read before the groups are created; a
// group pinned to a zone that just lost its nodes would stay Pending there.
func TestNewGroupsNeverPinnedToAFailedZone(t *testing.T) {
	group := func(id, zone string) *v1alpha1.ProcessGroup {
		pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: id}}
		pg.Spec.ForProvider.FaultDomain = zone
		return pg
	}
	for name, tc := range map[string]struct {
		groups []*v1alpha1.ProcessGroup
		ready  []string
		want   string
	}{
		"AllReady":           {groups: []*v1alpha1.ProcessGroup{group("log-4", "zone-a"), group("log-5", "zone-c")}, ready: []string{"zone-a", "zone-c"}},
		"NoZoneGoesAnywhere": {groups: []*v1alpha1.ProcessGroup{group("log-4", "")}},
		"ZoneJustFailed": {
			groups: []*v1alpha1.ProcessGroup{group("log-4", "zone-a"), group("log-5", "zone-b")}, ready: []string{"zone-a", "zone-c"},
			want: "cannot create ProcessGroup log-5: zone zone-b has no Ready node now (the cached view of the nodes was behind); the next reconcile picks another",
		},
	} {
		got := ""
		if err := placedInReadyZones(tc.groups, tc.ready); err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: placedInReadyZones: -want, +got:\n%s", name, diff)
		}
	}
}
