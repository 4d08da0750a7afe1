package cluster

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/nodetaint"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Replacement is one mechanism, whatever asks for it (a user, a
// misconfiguration that cannot be fixed in place, a failure that lasted
// longer than the failure detection time):
//
//  1. replaceStep marks the groups (gated as ReplaceProcessGroup): the
//     annotation v1alpha1.AnnotationReplacement records the decision and
//     why. A marked group no longer counts towards its class.
//  2. createGroupsStep creates the class's missing groups: the
//     replacements, in zones that keep the spread.
//  3. retireStep deletes the marked groups' ProcessGroups once the class has
//     as many unmarked groups reporting as it wants. From there the removal
//     flow of any group takes over: coordinators move off them, they are
//     excluded in one batch within the class's exclusion budget, each is
//     removed once the status proves it drained, and their exclusions are
//     included in one batch.

// Event reasons of replacement steps.
const (
	reasonReplacing event.Reason = "ReplacingProcessGroups"
	reasonRetiring  event.Reason = "RemovingReplacedProcessGroups"
	// reasonExpandVolumes grows volume claims in place.
	reasonExpandVolumes event.Reason = "ExpandedVolumes"
)

// defaultFailureDetection is automation.failureDetectionTimeSeconds when
// the spec leaves it unset (the API's default).
const defaultFailureDetection = 2 * time.Hour

// failures are the group conditions that, held for the failure detection
// time, get a group replaced.
var failures = []v1alpha1.ProcessGroupConditionType{
	v1alpha1.MissingPod, v1alpha1.MissingPVC, v1alpha1.MissingProcesses, v1alpha1.PodPending, v1alpha1.PodFailing, v1alpha1.NodeNotReady,
}

// A cause is why the provider replaces a group; replaceGroups starts the
// replacements of one cause at a time, in this order.
type cause int

const (
	// causeAsked: a user asked for it, or the group's spec cannot change
	// in place.
	causeAsked cause = iota
	// causeFailed: the group failed for the failure detection time, or
	// failed with a stranded volume (early).
	causeFailed
	// causeIOError: a process of the group reports an I/O error.
	causeIOError
	// causeTainted: the group's node announces planned maintenance.
	causeTainted
)

// replacement is why a group should be replaced, for failed (how long its
// failure, I/O error or taint has lasted). early is true for a failed
// group replaced before the failure detection time because its volume
// cannot follow its pod to a Ready node: whether that may start now is its
// policy's decision. after is, for a taint, how long its entry asks it to
// last first.
type replacement struct {
	why    string
	cause  cause
	early  bool
	failed time.Duration
	after  time.Duration
}

// planned reports whether pg is down by the provider's own doing: its
// zone's pods are recreated on purpose now (plannedZone), or its processes
// an upgrade left behind wait for their pod to be recreated. Replacing such
// a group as failed while its pod comes back would leave its volume behind
// a replacement, under a maintenance that keeps data distribution from
// healing it, with nothing able to prove it drained; so its failure counts
// only after the maintenance the provider sets for the restart
// (disruption.MaintenanceSeconds) has run out too. A group that really failed is then
// replaced, only later. plannedZone is o.plannedZone(cr), read once per
// reconcile by the caller.
func planned(cr *v1alpha1.Cluster, o *observation, plannedZone string, pg *v1alpha1.ProcessGroup) bool {
	zone := pg.Zone()
	return zone != "" && zone == plannedZone || fdb.LeftBehind(o.status, cr.Spec.ForProvider.Version, pg.Status.AtProvider.Addresses)
}

// failureDetection is how long a group must fail before it is replaced.
func failureDetection(cr *v1alpha1.Cluster) time.Duration {
	if s := cr.Spec.ForProvider.Automation.FailureDetectionTimeSeconds; s > 0 {
		return time.Duration(s) * time.Second
	}
	return defaultFailureDetection
}

// needsReplacement says why group pg should be replaced, if it should:
// asked for (the Cluster's processGroupsToReplace or the group's
// AnnotationReplace), a density, fault domain key, public IP source,
// volume or storage engine the group cannot change in place, or a
// failure older than the failure detection time that this reconcile's
// status still shows: the group's conditions are what it recorded when it
// last reconciled, so a group whose processes all report again is not
// failing, and without a status no failure is known to last. A group that
// heals before the deadline is left alone, unless its volume is stranded
// (it cannot heal before its node does): then it is an early candidate. A
// group the provider itself takes down (planned) gets the maintenance it
// sets for that on top of the failure detection time. A group whose node
// announces planned maintenance (nodeTainted) is replaced too, unless it
// fails; one that fails because maintenance holds its pod back (heldBy)
// is replaced for the maintenance.
func needsReplacement(cr *v1alpha1.Cluster, o *observation, reporting map[string]int, plannedZone string, pg *v1alpha1.ProcessGroup) (replacement, bool) {
	id := groupID(pg)
	if r, ok := o.asked(cr, pg); ok {
		return r, true
	}
	if _, drilled := cr.DrillFault(id); drilled {
		return replacement{}, false // failing on purpose, until the drill ends
	}
	var oldest *v1alpha1.ProcessGroupCondition
	for i, c := range pg.Status.AtProvider.ProcessGroupConditions {
		if slices.Contains(failures, c.Type) && (oldest == nil || c.Since.Before(&oldest.Since)) {
			oldest = &pg.Status.AtProvider.ProcessGroupConditions[i]
		}
	}
	if oldest == nil || o.status == nil || reporting[id] >= max(pg.Spec.ForProvider.ProcessesPerPod, 1) {
		if r, ok := o.ioErrors(pg); ok {
			return r, true
		}
		return o.nodeTainted(cr, pg)
	}
	lasted := o.now.Sub(oldest.Since.Time)
	r := replacement{why: fmt.Sprintf("failed: %s since %s", oldest.Type, stamp(oldest.Since)), cause: causeFailed, failed: lasted}
	detection := failureDetection(cr)
	if planned(cr, o, plannedZone, pg) {
		detection += disruption.MaintenanceSeconds * time.Second
	}
	switch {
	case lasted >= detection:
		return r, true
	case o.heldBy[id] != "":
		return o.nodeTainted(cr, pg)
	case o.stranded[id]:
		r.why += "; its volume cannot follow it to a Ready node"
		r.early = true
		return r, true
	}
	return replacement{}, false
}

// asked says whether group pg is to be replaced because the spec asks for
// it: by name, or by a setting it was made with that the spec has changed
// since (processes per pod, fault domain key, public IP source, volume,
// storage engine).
func (o *observation) asked(cr *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup) (replacement, bool) {
	id, class := groupID(pg), pg.Spec.ForProvider.ProcessClass
	if slices.Contains(cr.Spec.ForProvider.ProcessGroupsToReplace, id) || pg.GetAnnotations()[v1alpha1.AnnotationReplace] == "true" {
		return replacement{why: "requested", cause: causeAsked}, true
	}
	if has, want := max(pg.Spec.ForProvider.ProcessesPerPod, 1), workload.ProcessesPerPod(cr, class); has != want {
		return replacement{why: fmt.Sprintf("misconfigured: %d processes per pod, wants %d", has, want)}, true
	}
	if has, want := pg.Spec.ForProvider.FaultDomainKey, workload.FaultDomainKey(cr); has != "" && has != want {
		return replacement{why: fmt.Sprintf("misconfigured: fault domain key %s, wants %s", has, want)}, true
	}
	if has, want := pg.Spec.ForProvider.PublicIPSource, cr.Spec.ForProvider.Routing.PublicIPSource; has.Service() != want.Service() {
		pod := v1alpha1.PublicIPSourcePod
		return replacement{why: fmt.Sprintf("misconfigured: public IP source %s, wants %s", cmp.Or(has, pod), cmp.Or(want, pod))}, true
	}
	if why, _ := o.volumeChange(cr, pg); why != "" {
		return replacement{why: "misconfigured: " + why}, true
	}
	if why := o.engineDrift(cr, pg); why != "" {
		return replacement{why: "misconfigured: " + why}, true
	}
	return replacement{}, false
}

// ioErrors says whether group pg is to be replaced because a process of it
// reports an I/O error (fdb.IOErrorOf) in this reconcile's status, since
// the group's ProcessHasIOError condition began: how long that has lasted
// is the policy's to weigh (fdb-replacement's io-error-detection).
func (o *observation) ioErrors(pg *v1alpha1.ProcessGroup) (replacement, bool) {
	id := groupID(pg)
	i := slices.IndexFunc(pg.Status.AtProvider.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool { return c.Type == v1alpha1.ProcessHasIOError })
	if o.status == nil || i < 0 {
		return replacement{}, false
	}
	for _, p := range o.status.Cluster.Processes {
		if name := fdb.IOErrorOf(p); p.Locality.InstanceID == id && name != "" {
			since := pg.Status.AtProvider.ProcessGroupConditions[i].Since
			return replacement{why: fmt.Sprintf("I/O errors: %s since %s", name, stamp(since)), cause: causeIOError, failed: o.now.Sub(since.Time)}, true
		}
	}
	return replacement{}, false
}

// nodeTainted says whether group pg is to be replaced because its pod's
// node carries a taint automation.taintReplacements names
// (nodetaint.Of), since the group's NodeTainted condition began at least
// the entry's duration ago: the condition dates the taint, the node read in
// this reconcile shows that it is still there. A group whose pod waits
// unscheduled for nodes all of which are under maintenance (heldBy)
// counts from when its oldest condition began: its pod cannot come back
// until the maintenance ends (e.g. force-deleted from a node that failed
// while tainted NoSchedule, the one node of its zone).
func (o *observation) nodeTainted(cr *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup) (replacement, bool) {
	id := groupID(pg)
	conditions := pg.Status.AtProvider.ProcessGroupConditions
	node, held := "", false
	if pod := o.pods[workload.PodName(cr, id)]; pod != nil && pod.Spec.NodeName != "" {
		node = pod.Spec.NodeName
	} else {
		node, held = o.heldBy[id], o.heldBy[id] != ""
	}
	i := slices.IndexFunc(conditions, func(c v1alpha1.ProcessGroupCondition) bool {
		if held {
			return !slices.ContainsFunc(conditions, func(d v1alpha1.ProcessGroupCondition) bool { return d.Since.Before(&c.Since) })
		}
		return c.Type == v1alpha1.NodeTainted
	})
	m, ok := nodetaint.Of(o.nodes[node], cr.Spec.ForProvider.Automation.TaintReplacements)
	if !ok || i < 0 {
		return replacement{}, false
	}
	since := conditions[i].Since
	lasted := o.now.Sub(since.Time)
	if lasted < m.After {
		return replacement{}, false
	}
	why := fmt.Sprintf("node %s tainted %s since %s", node, m.Key, stamp(since))
	if held {
		why = fmt.Sprintf("held off by node %s, tainted %s, since %s", node, m.Key, stamp(since))
	}
	return replacement{why: why, cause: causeTainted, failed: lasted, after: m.After}, true
}

// volumeChange says how the group's volume claim differs from the one the
// spec builds now: why it must be replaced (another storage class, a
// smaller size, or a larger one its class cannot expand to), or the size
// to expand it to in place; neither when it matches or there is no claim.
func (o *observation) volumeChange(cr *v1alpha1.Cluster, pg *v1alpha1.ProcessGroup) (string, *resource.Quantity) {
	claim := o.claims[groupID(pg)]
	if !pg.Spec.ForProvider.ProcessClass.IsStateful() || claim == nil || claim.DeletionTimestamp != nil {
		return "", nil
	}
	want := workload.PVC(cr, pg, groupID(pg)).Spec
	class := ptr.Deref(claim.Spec.StorageClassName, "")
	if w := ptr.Deref(want.StorageClassName, ""); w != "" && w != class {
		return fmt.Sprintf("storage class %q, wants %q", class, w), nil
	}
	has, size := claim.Spec.Resources.Requests[corev1.ResourceStorage], want.Resources.Requests[corev1.ResourceStorage]
	switch c := size.Cmp(has); {
	case c < 0:
		return fmt.Sprintf("volume size %s, wants %s (a claim cannot shrink)", has.String(), size.String()), nil
	case c > 0 && !o.expandable[class]:
		return fmt.Sprintf("volume size %s, wants %s (storage class %q cannot expand a volume)", has.String(), size.String(), class), nil
	case c > 0:
		return "", &size
	}
	return "", nil
}

// expandVolumesStep grows, in place and in one step, the volume claims of
// the active groups whose storage class can expand them to the size the
// spec asks for. Expansion disrupts nothing, so it is not gated.
func expandVolumesStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	var claims []*corev1.PersistentVolumeClaim
	var names []string
	for _, class := range v1alpha1.ProcessClasses {
		for _, pg := range o.active(class) {
			if _, size := o.volumeChange(cr, pg); size != nil {
				claim := o.claims[groupID(pg)].DeepCopy()
				claim.Spec.Resources.Requests[corev1.ResourceStorage] = *size
				claims = append(claims, claim)
				names = append(names, claim.Name+" to "+size.String())
			}
		}
	}
	if len(claims) == 0 {
		return nil
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonExpandVolumes, Message: "expanding volume claims " + strings.Join(names, ", ")},
		Kind: kindExpandVolumes, Claims: claims,
	}
}

// replacing are the IDs of the groups being replaced.
func (o *observation) replacing() []string {
	var out []string
	for i := range o.groups {
		if o.groups[i].Replacing() {
			out = append(out, groupID(&o.groups[i]))
		}
	}
	return out
}

// replaceStep starts replacing, in one step, the groups of one class that
// need it: those asked for or misconfigured all at once (a density
// migration marks every storage group), else those that failed past the
// failure detection time, as many as automation.maxConcurrentReplacements
// leaves room for (0 turns automatic replacement off). It needs a
// configured database: replacing ends in an exclusion.
func replaceStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	return replaceGroups(cr, o, false)
}

// strandedStep asks, once nothing else is to be done, to replace failed
// groups whose volume is stranded on nodes that are not Ready before the
// failure detection time: the default policy fdb-replacement denies it
// until then unless its parameter replaceStrandedVolumesAtOnce is true. It
// comes late in the plan so that, while denied, it holds back no other
// step.
func strandedStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	return replaceGroups(cr, o, true)
}

// replaceGroups plans replaceStep (early false) or strandedStep (early
// true): the replacement of the groups that need it now, or of the early
// candidates.
func replaceGroups(cr *v1alpha1.Cluster, o *observation, early bool) *clusterStep {
	if !o.created() {
		return nil
	}
	inFlight := len(o.replacing())
	limit := cr.Spec.ForProvider.Automation.MaxConcurrentReplacements
	type batch struct {
		ids    []string
		whys   []string
		failed time.Duration
		after  time.Duration
	}
	batches := map[cause]map[v1alpha1.ProcessClass]*batch{}
	replacingDomains := o.replacingDomains()
	reporting, plannedZone := o.reporting(), o.plannedZone(cr)
	for i := range o.groups {
		pg := &o.groups[i]
		if deleting(pg) || pg.Replacing() {
			continue
		}
		r, ok := needsReplacement(cr, o, reporting, plannedZone, pg)
		if !ok || r.early != early || r.cause == causeTainted && !o.taintedDomainOK(pg, replacingDomains) {
			continue
		}
		if batches[r.cause] == nil {
			batches[r.cause] = map[v1alpha1.ProcessClass]*batch{}
		}
		class := pg.Spec.ForProvider.ProcessClass
		if batches[r.cause][class] == nil {
			batches[r.cause][class] = &batch{}
		}
		b := batches[r.cause][class]
		if len(b.ids) == 0 || r.failed < b.failed {
			b.failed = r.failed
		}
		b.ids = append(b.ids, groupID(pg))
		b.whys = append(b.whys, r.why)
		b.after = max(b.after, r.after)
	}
	if len(batches) == 0 {
		return nil
	}
	why := slices.Min(slices.Collect(maps.Keys(batches)))
	pick := batches[why]
	automatic := why != causeAsked
	var stalled map[v1alpha1.ProcessClass]int
	if automatic {
		stalled = o.stalledReplacements(cr)
	}
	// The first class with room: an automatic replacement of a class
	// whose stalled exclusions only it can free gets their room.
	class := slices.Sorted(maps.Keys(pick))[0]
	for _, c := range slices.Sorted(maps.Keys(pick)) {
		if !automatic || limit-inFlight+freedBy(pick[c].ids, stalled[c], reporting) > 0 {
			class = c
			break
		}
	}
	b := pick[class]
	freed := freedBy(b.ids, stalled[class], reporting)
	if why == causeTainted {
		// One fault domain at a time: the lowest-sorting one.
		domain := ""
		for i, id := range b.ids {
			if d := o.domainOf(o.group(id)); i == 0 || d < domain {
				domain = d
			}
		}
		var ids, whys []string
		for i, id := range b.ids {
			if o.domainOf(o.group(id)) == domain {
				ids, whys = append(ids, id), append(whys, b.whys[i])
			}
		}
		b.ids, b.whys = ids, whys
	}
	if automatic {
		room := max(0, limit-inFlight+freed)
		if room == 0 {
			return nil
		}
		b.ids, b.whys = b.ids[:min(room, len(b.ids))], b.whys[:min(room, len(b.whys))]
	}
	stranded := true
	for _, id := range b.ids {
		stranded = stranded && o.stranded[id]
	}
	s := &clusterStep{
		Step: step.Step{
			Reason:  reasonReplacing,
			Message: fmt.Sprintf("replacing %s process groups %s (%s)", class, strings.Join(b.ids, ", "), strings.Join(slices.Compact(slices.Clone(b.whys)), "; ")),
			Action: &policy.Action{Type: apiv1alpha1.ActionReplaceProcessGroup, Targets: b.ids, ProcessClass: string(class), Reason: b.whys[0],
				Details: map[string]any{
					policy.DetailAutomatic:                 automatic,
					policy.DetailReplacementsInFlight:      inFlight,
					policy.DetailMaxConcurrentReplacements: limit,
					policy.DetailReplacementsStalled:       freed,
					policy.DetailFailedSeconds:             int(b.failed / time.Second),
					policy.DetailFailureDetectionSeconds:   int(failureDetection(cr) / time.Second),
					policy.DetailVolumeStranded:            stranded,
				}},
		},
		Kind: kindMarkReplacements,
	}
	if cr.Spec.ForProvider.DataCenter != "" {
		s.Action.Details[policy.DetailDataCenterDown] = o.dataCenterDown()
	}
	if why == causeIOError {
		s.Action.Details[policy.DetailIOError] = true
	}
	if why == causeTainted {
		s.Action.Details[policy.DetailNodeTainted] = true
		s.Action.Details[policy.DetailTaintedSeconds] = int(b.failed / time.Second)
		s.Action.Details[policy.DetailTaintDurationSeconds] = int(b.after / time.Second)
		s.Action.Details[policy.DetailFaultDomain] = o.domainOf(o.group(b.ids[0]))
		s.Action.Details[policy.DetailFaultDomainsReplacing] = replacingDomains
	}
	for i, id := range b.ids {
		pg := o.group(id).DeepCopy()
		meta := pg.GetAnnotations()
		if meta == nil {
			meta = map[string]string{}
		}
		meta[v1alpha1.AnnotationReplacement] = b.whys[i]
		pg.SetAnnotations(meta)
		s.Groups = append(s.Groups, pg)
	}
	return s
}

// stalledReplacements counts, per class, the replacements in flight
// whose groups wait to be excluded (their replacements reported, their
// removal began) while the class's exclusion budget, computed from this
// reconcile's status as fdb-exclusion computes it, is 0 only because
// groups of the class miss their processes (policy.HeldByMissing). Those
// exclusions can only go on once a missing group is back or replaced: an
// automatic replacement of missing groups of the class takes their room
// (freedBy), or a group that never comes back (a node lost for good, or
// held by maintenance) would keep them waiting for good, and itself
// behind them (chaos seed 1241 at c543df6).
func (o *observation) stalledReplacements(cr *v1alpha1.Cluster) map[v1alpha1.ProcessClass]int {
	in, err := policy.NewInput(cr, o.groups, o.status, o.now, policy.Action{})
	if err != nil {
		return nil
	}
	held := policy.HeldByMissing(in.Cluster.DesiredCounts, in.Cluster.DesiredFaultTolerance, in.ProcessGroups)
	listed := o.exclusions()
	out := map[v1alpha1.ProcessClass]int{}
	for i := range o.groups {
		pg := &o.groups[i]
		class := pg.Spec.ForProvider.ProcessClass
		if pg.Replacing() && deleting(pg) && held[string(class)] && !slices.Contains(listed, fdb.InstanceTarget(groupID(pg))) {
			out[class]++
		}
	}
	return out
}

// freedBy is the room stalled replacements of a class give a replacement
// of ids: all of stalled when no group of ids reports a process, as only
// then can replacing them free the class's budget; none otherwise.
func freedBy(ids []string, stalled int, reporting map[string]int) int {
	if slices.ContainsFunc(ids, func(id string) bool { return reporting[id] > 0 }) {
		return 0
	}
	return stalled
}

// replacingDomains are the fault domains (disruption.DomainOf) of the
// groups being replaced, sorted.
func (o *observation) replacingDomains() []string {
	domains := []string{}
	for i := range o.groups {
		if pg := &o.groups[i]; pg.Replacing() && !deleting(pg) {
			domains = append(domains, o.domainOf(pg))
		}
	}
	slices.Sort(domains)
	return slices.Compact(domains)
}

// domainOf is the fault domain of group pg.
func (o *observation) domainOf(pg *v1alpha1.ProcessGroup) string {
	return disruption.DomainOf(pg.Zone(), groupID(pg))
}

// taintedDomainOK reports whether group pg, whose node is tainted, may be
// planned for replacement now: planned maintenance replaces one fault
// domain at a time, so only while every group being replaced is of its
// domain (replacing, from replacingDomains). replaceGroups then keeps the
// tainted groups of one domain.
func (o *observation) taintedDomainOK(pg *v1alpha1.ProcessGroup, replacing []string) bool {
	return len(replacing) == 0 || len(replacing) == 1 && replacing[0] == o.domainOf(pg)
}

// group is the observed group with ID id, nil when there is none.
func (o *observation) group(id string) *v1alpha1.ProcessGroup {
	for i := range o.groups {
		if groupID(&o.groups[i]) == id {
			return &o.groups[i]
		}
	}
	return nil
}

// reportingActive counts the class's active groups whose processes report
// in this reconcile's status and are not excluded; none when the status
// cannot say which are excluded.
func (o *observation) reportingActive(class v1alpha1.ProcessClass) int {
	if !o.configured() {
		return 0
	}
	up := map[string]bool{}
	for _, p := range o.status.Cluster.Processes {
		if !p.Excluded {
			up[p.Locality.InstanceID] = true
		}
	}
	n := 0
	for _, pg := range o.active(class) {
		if up[groupID(pg)] {
			n++
		}
	}
	return n
}

// retireStep deletes the ProcessGroups of marked groups, all of one class
// at once, once the class has as many active groups reporting as it wants:
// their replacements are up. Their removal then follows the removal flow.
func retireStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	want := cr.Spec.ForProvider.ProcessCounts.ByClass()
	for _, class := range v1alpha1.ProcessClasses {
		var old []*v1alpha1.ProcessGroup
		var ids []string
		for i := range o.groups {
			if pg := &o.groups[i]; pg.Spec.ForProvider.ProcessClass == class && pg.Replacing() && !deleting(pg) {
				old = append(old, pg)
				ids = append(ids, groupID(pg))
			}
		}
		if len(old) == 0 || o.reportingActive(class) < want[class] {
			continue
		}
		return &clusterStep{
			Step: step.Step{Reason: reasonRetiring, Message: fmt.Sprintf("removing replaced %s process groups %s: their replacements report", class, strings.Join(ids, ", "))},
			Kind: kindRemoveGroups, Groups: old,
		}
	}
	return nil
}

// replacementStep waits while marked groups wait for their replacements to
// report.
func replacementStep(_ *v1alpha1.Cluster, o *observation) *clusterStep {
	var waiting []string
	for i := range o.groups {
		if pg := &o.groups[i]; pg.Replacing() && !deleting(pg) {
			waiting = append(waiting, groupID(pg))
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	return wait("replacing process groups %s: waiting for their replacements to report", strings.Join(waiting, ", "))
}
