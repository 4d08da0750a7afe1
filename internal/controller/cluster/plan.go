package cluster

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Event reasons of the steps.
const (
	reasonPolicies     event.Reason = "UpdatedManagementPolicies"
	reasonConfigMap    event.Reason = "UpdatedConfigMap"
	reasonService      event.Reason = "UpdatedService"
	reasonAccess       event.Reason = "UpdatedMonitorAccess"
	reasonCreateGroups event.Reason = "CreatedProcessGroups"
	reasonRemoveGroups event.Reason = "RemovingProcessGroups"
	reasonCoordinators event.Reason = "ChangedCoordinators"
	reasonConfigured   event.Reason = "ConfiguredDatabase"
	reasonExcluded     event.Reason = "ExcludedProcessGroups"
	reasonIncluded     event.Reason = "IncludedProcessGroups"
	reasonBounced      event.Reason = "BouncedProcesses"
	reasonReseeded     event.Reason = "RecoveredForCoordinatedState"
	reasonJoined       event.Reason = "JoinedDatabase"

	coordinatorDescriptionID = 8
)

// kind is what a step of a Cluster does; the executor runs it.
type kind string

// The kinds of steps, in the order the planner considers them.
const (
	kindWait                kind = "Wait"
	kindSyncPolicies        kind = "SyncPolicies"
	kindWriteConfigMap      kind = "WriteConfigMap"
	kindWriteService        kind = "WriteService"
	kindWriteAccess         kind = "WriteMonitorAccess"
	kindForceDeletePods     kind = "ForceDeletePods"
	kindCreateGroups        kind = "CreateGroups"
	kindFirstCoordinators   kind = "FirstCoordinators"
	kindConfigureNew        kind = "ConfigureNew"
	kindMarkReplacements    kind = "MarkReplacements"
	kindExpandVolumes       kind = "ExpandVolumes"
	kindRemoveGroups        kind = "RemoveGroups"
	kindChangeCoordinators  kind = "ChangeCoordinators"
	kindExclude             kind = "Exclude"
	kindConfigure           kind = "Configure"
	kindBounce              kind = "Bounce"
	kindSetMaintenance      kind = "SetMaintenance"
	kindResetMaintenance    kind = "ResetMaintenance"
	kindInclude             kind = "Include"
	kindForceRecovery       kind = "ForceRecovery"
	kindReleaseLock         kind = "ReleaseLock"
	kindDrill               kind = "Drill"
	kindDisableLocks        kind = "DisableLocks"
	kindUpdateDenyList      kind = "UpdateDenyList"
	kindRecoverCoordinators kind = "RecoverCoordinators"
)

// clusterStep is the one step a reconcile of a Cluster takes, with the
// inputs of its mutation.
type clusterStep struct {
	step.Step
	Kind kind
	// ConfigMap is the data to write (WriteConfigMap, FirstCoordinators).
	ConfigMap map[string]string
	// Service is the headless Service to create or update (WriteService).
	Service *corev1.Service
	// NetworkPolicy is the NetworkPolicy to create (no resource version),
	// update (WriteNetworkPolicy) or delete (DeleteNetworkPolicy).
	NetworkPolicy *networkingv1.NetworkPolicy
	// DisruptionBudget is the PodDisruptionBudget to create (no resource
	// version), update (WriteDisruptionBudget) or delete
	// (DeleteDisruptionBudget).
	DisruptionBudget *policyv1.PodDisruptionBudget
	// Access are the monitor's ServiceAccount, Role and RoleBinding to
	// create (no resource version) or update (WriteMonitorAccess).
	Access []client.Object
	// Groups are the ProcessGroups to create, update or delete.
	Groups []*v1alpha1.ProcessGroup
	// Pods are the pods to force-delete (ForceDeletePods).
	Pods []*corev1.Pod
	// Claims are the volume claims to grow (ExpandVolumes), or those whose
	// new-volume mark to take off once the first cluster file is written
	// (FirstCoordinators, WriteConfigMap of a join) or the coordinators
	// they serve are named (ChangeCoordinators).
	Claims []*corev1.PersistentVolumeClaim
	// Addresses are what to exclude, include or kill, or the new
	// coordinators.
	Addresses []fdb.ProcessAddress
	// Configuration is the database configuration to apply
	// (ConfigureNew, Configure).
	Configuration fdb.DatabaseConfiguration
	// Zone is the fault domain to put under or take out of maintenance.
	Zone string
	// DataCenter is the data center to recover in (ForceRecovery).
	DataCenter string
	// Recovery is the way back from lost coordinators to take
	// (RecoverCoordinators).
	Recovery *recovery
}

func wait(format string, args ...any) *clusterStep {
	return &clusterStep{Step: step.Wait(format, args...), Kind: kindWait}
}

// planner is one consideration of the planner: the step it calls for, or
// nil to go on to the next.
type planner func(cr *v1alpha1.Cluster, o *observation) *clusterStep

// next plans the one next step for the cluster from its spec and one
// reconcile's observation, or nil when the cluster is as its spec says. The
// first consideration that calls for a step wins. The order matters: the
// groups' management policies follow the Cluster's first, so that no group
// deletes what the Cluster would orphan; the ConfigMap before pods that
// mount it, and the NetworkPolicy after the monitor's access; locks are disabled, when asked and allowed, and the lock's deny
// list written before any step that could take the lock; pods on failed nodes go at once, so that they reschedule;
// groups, then the PodDisruptionBudget that counts their pods, before
// coordinators; coordinators before `configure new`; a zone
// whose pods are recreated on purpose goes under maintenance before any
// of them goes, and out of it once they are back;
// replacements are marked (volumes that can grow in place do, the others'
// groups are replaced), then created (as missing groups), then the
// replaced groups removed; an upgrade whose version every pod staged
// restarts every process before coordinators change (a coordinator whose
// pod was recreated on the new version cannot join the old protocol, and
// no coordinator change helps it: the upgrade does); coordinators move
// off groups being removed before those are excluded; inclusions once no removal is in flight, as
// one batch; then a wait while pods stage an upgrade's binaries; then the
// early replacement of groups whose volume is
// stranded on a failed node, which its policy may hold without holding
// anything else back; last, waits while groups are being removed or
// replaced or a fault domain recreates its pods under the disruption
// grant; once there is nothing else, the release of the global lock this
// Cluster holds.
func next(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	for _, p := range []planner{
		policiesStep, configMapStep, serviceStep, accessStep, networkPolicyStep, disableLocksStep, denyListStep, forcedFailoverStep, coordinatorRecoveryStep, failedNodeStep, createGroupsStep, disruptionBudgetStep, firstCoordinatorsStep, configureNewStep, maintenanceStep,
		replaceStep, expandVolumesStep, retireStep, removeGroupsStep, upgradeStep, coordinatorsStep, excludeStep, configureStep, regionsStep, bounceStep, includeStep,
		stagingStep, loadingStep, strandedStep, removalStep, replacementStep, drillStep, disruptionStep, storageMigrationStep, releaseLockStep,
	} {
		if s := p(cr, o); s != nil {
			return s
		}
	}
	return nil
}

// policiesStep gives the groups whose management policies differ from the
// Cluster's the Cluster's: a group's effective policies follow its
// Cluster's at every reconcile, so orphaning the Cluster orphans them too.
func policiesStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	want := cr.GetManagementPolicies()
	var stale []*v1alpha1.ProcessGroup
	var ids []string
	for i := range o.groups {
		if pg := &o.groups[i]; !slices.Equal(pg.GetManagementPolicies(), want) {
			pg = pg.DeepCopy()
			pg.SetManagementPolicies(want)
			stale = append(stale, pg)
			ids = append(ids, groupID(pg))
		}
	}
	if len(stale) == 0 {
		return nil
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonPolicies, Message: fmt.Sprintf("gave process groups %s the Cluster's management policies %v", strings.Join(ids, ", "), want)},
		Kind: kindSyncPolicies, Groups: stale,
	}
}

// densities are the monitor configurations the ConfigMap must hold: those
// of the spec and those of the existing groups, so that during a density
// migration old and new pods both find theirs; one no pod uses any more
// goes.
func densities(cr *v1alpha1.Cluster, groups []v1alpha1.ProcessGroup) map[workload.Density]bool {
	out := workload.Densities(cr)
	for _, pg := range groups {
		d := workload.GroupDensity(&pg)
		out[d] = true
		// An EmptyMonitorConf drill's pods read a configuration of their
		// own while it lasts.
		if fault, ok := cr.DrillFault(groupID(&pg)); ok && fault == v1alpha1.DrillEmptyMonitorConf {
			d.Empty = true
			out[d] = true
		}
	}
	return out
}

// configMapData is what the ConfigMap holds with cluster file cs, its
// monitor configurations naming the version they must now
// (configuredVersion).
func configMapData(cr *v1alpha1.Cluster, o *observation, cs string) map[string]string {
	data := workload.ConfigMapAt(cr, cs, densities(cr, o.groups), configuredVersion(cr, o)).Data
	if o.tls != nil {
		data[workload.KeyTLSCA] = o.tls.ca
	}
	return data
}

// configMapStep puts back what of the ConfigMap differs from what it must
// hold; a lost ConfigMap gets back the cluster file the Cluster recorded
// last, which every step that writes one records. A joining Cluster that
// recorded none (it crashed between its join and the status write) writes
// its seed again: an empty cluster file would name no database at all.
func configMapStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	cs := o.connectionString()
	if o.configMap == nil && cs == "" && cr.Spec.ForProvider.SeedConnectionString != "" {
		return joinStep(cr, o)
	}
	want := configMapData(cr, o, cs)
	if o.configMap != nil && maps.Equal(o.configMap, want) {
		return nil
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonConfigMap, Message: "updated ConfigMap " + workload.ConfigMapName(cr)},
		Kind: kindWriteConfigMap, ConfigMap: want,
	}
}

// serviceStep creates the cluster's headless Service, which gives its pods
// the DNS names the cluster file may name coordinators by, or puts back
// what of it was changed.
func serviceStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	want := workload.Service(cr)
	if cur := o.service; cur != nil {
		if maps.Equal(cur.Spec.Selector, want.Spec.Selector) && cur.Spec.ClusterIP == want.Spec.ClusterIP &&
			cur.Spec.PublishNotReadyAddresses == want.Spec.PublishNotReadyAddresses && maps.Equal(cur.Labels, want.Labels) {
			return nil
		}
		cur = cur.DeepCopy()
		cur.Labels, cur.Spec.Selector, cur.Spec.PublishNotReadyAddresses = want.Labels, want.Spec.Selector, want.Spec.PublishNotReadyAddresses
		want = cur
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonService, Message: "updated headless Service " + want.Name},
		Kind: kindWriteService, Service: want,
	}
}

// accessStep creates the monitor's ServiceAccount, Role and RoleBinding in
// the target namespace, which pods name and without which their monitor
// starts no process, or puts back the rules and subjects of those changed.
// A binding's role cannot change: one bound to another role is left as it
// is, and its pods' monitors say so.
func accessStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	ns := workload.Namespace(cr)
	var write []client.Object
	if o.account == nil {
		write = append(write, workload.MonitorAccount(ns))
	}
	switch want := workload.MonitorRole(ns); {
	case o.role == nil:
		write = append(write, want)
	case !equality.Semantic.DeepEqual(o.role.Rules, want.Rules):
		cur := o.role.DeepCopy()
		cur.Rules = want.Rules
		write = append(write, cur)
	}
	switch want := workload.MonitorRoleBinding(ns); {
	case o.binding == nil:
		write = append(write, want)
	case !equality.Semantic.DeepEqual(o.binding.Subjects, want.Subjects):
		cur := o.binding.DeepCopy()
		cur.Subjects = want.Subjects
		write = append(write, cur)
	}
	if len(write) == 0 {
		return nil
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonAccess, Message: "updated the monitor's access to its pod in namespace " + ns},
		Kind: kindWriteAccess, Access: write,
	}
}

// active returns the groups of a class that count towards it: neither
// being removed nor being replaced.
func (o *observation) active(class v1alpha1.ProcessClass) []*v1alpha1.ProcessGroup {
	var out []*v1alpha1.ProcessGroup
	for i := range o.groups {
		if pg := &o.groups[i]; pg.Spec.ForProvider.ProcessClass == class && !deleting(pg) && !pg.Replacing() {
			out = append(out, pg)
		}
	}
	return out
}

// eligibleZones counts the active groups of coordinator-eligible classes
// per zone.
func (o *observation) eligibleZones() map[string]int {
	out := map[string]int{}
	for _, class := range v1alpha1.ProcessClasses {
		if plan.CoordinatorEligible(string(class)) {
			for _, pg := range o.active(class) {
				out[pg.Spec.ForProvider.FaultDomain]++
			}
		}
	}
	return out
}

func createGroupsStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if o.database && (o.status == nil || o.created() && !o.configured()) && missingGroups(cr, o) {
		// IDs still in the exclusion list are never reused; without it
		// (no status, or an unavailable database's, which has none) no ID
		// is known to be free. A Cluster that never saw its database
		// created excluded nothing yet: the joiners of a three_data_hall
		// database, which cannot recover before they come, make theirs.
		return wait("cannot choose IDs for new process groups: the exclusion list could not be read")
	}
	// IDs asked to be replaced stay in the spec after their groups are
	// gone: a new group under one of them would be replaced at once.
	taken := map[string]bool{}
	for _, id := range cr.Spec.ForProvider.ProcessGroupsToReplace {
		taken[id] = true
	}
	for i := range o.groups {
		taken[groupID(&o.groups[i])] = true
	}
	for _, ex := range o.exclusions() {
		if _, v, ok := ex.Locality(); ok {
			taken[v] = true
		}
	}
	want := cr.Spec.ForProvider.ProcessCounts.ByClass()
	for _, class := range v1alpha1.ProcessClasses {
		active := o.active(class)
		missing := want[class] - len(active)
		if missing <= 0 {
			continue
		}
		perZone := map[string]int{}
		for _, pg := range active {
			perZone[pg.Spec.ForProvider.FaultDomain]++
		}
		var vacated []string
		for i := range o.groups {
			if pg := &o.groups[i]; pg.Spec.ForProvider.ProcessClass == class && (deleting(pg) || pg.Replacing()) {
				vacated = append(vacated, pg.Spec.ForProvider.FaultDomain)
			}
		}
		ids := plan.NewGroupIDs(groupIDPrefix(cr), string(class), missing, taken)
		zones := plan.AssignZones(o.zones, perZone, vacated, missing)
		if plan.CoordinatorEligible(string(class)) {
			zones = plan.CoverCoordinatorZones(o.zones, zones, perZone, o.eligibleZones(), coordinatorRules(cr, o))
		}
		s := &clusterStep{
			Step: step.Step{
				Reason:  reasonCreateGroups,
				Message: fmt.Sprintf("created %s process groups %s", class, strings.Join(ids, ", ")),
				Action:  &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: ids, ProcessClass: string(class)},
			},
			Kind: kindCreateGroups,
		}
		for i, id := range ids {
			s.Groups = append(s.Groups, newGroup(cr, class, id, zones[i]))
		}
		return s
	}
	return nil
}

// missingGroups reports whether some class has fewer active groups than
// the spec asks for.
func missingGroups(cr *v1alpha1.Cluster, o *observation) bool {
	for class, n := range cr.Spec.ForProvider.ProcessCounts.ByClass() {
		if len(o.active(class)) < n {
			return true
		}
	}
	return false
}

// newGroup is the ProcessGroup managed resource of a new process group. It
// shares the Cluster's provider config and management policies, so an
// orphaned Cluster orphans its groups too.
func newGroup(cr *v1alpha1.Cluster, class v1alpha1.ProcessClass, id, zone string) *v1alpha1.ProcessGroup {
	pg := &v1alpha1.ProcessGroup{
		ObjectMeta: metav1.ObjectMeta{
			Name:            workload.PodName(cr, id),
			Namespace:       cr.GetNamespace(),
			Labels:          workload.Labels(cr, class, id),
			OwnerReferences: []metav1.OwnerReference{meta.AsController(meta.TypedReferenceTo(cr, v1alpha1.ClusterGroupVersionKind))},
		},
		Spec: v1alpha1.ProcessGroupSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{
				ProviderConfigReference: cr.GetProviderConfigReference(),
				ManagementPolicies:      cr.GetManagementPolicies(),
			},
			ForProvider: v1alpha1.ProcessGroupParameters{
				ClusterReference: v1alpha1.ClusterReference{ClusterName: cr.GetName()},
				ProcessClass:     class,
				ProcessesPerPod:  workload.ProcessesPerPod(cr, class),
				FaultDomain:      zone,
				FaultDomainKey:   workload.FaultDomainKey(cr),
				PublicIPSource:   cr.Spec.ForProvider.Routing.PublicIPSource,
			},
		},
	}
	meta.SetExternalName(pg, id)
	return pg
}

// podProcesses are the processes the groups' pods run, as the ProcessGroups
// observed them: what is known before the database exists.
func podProcesses(groups []v1alpha1.ProcessGroup) []plan.Process {
	var out []plan.Process
	for i := range groups {
		pg := &groups[i]
		at := pg.Status.AtProvider
		for n, addr := range at.Addresses {
			p := plan.Process{Address: fdb.ProcessAddress(addr), DNSName: at.DNSName, Class: string(pg.Spec.ForProvider.ProcessClass), Zone: at.FaultDomain, InstanceID: groupID(pg)}
			if n < len(at.ProcessIDs) {
				p.ProcessID = at.ProcessIDs[n]
			}
			out = append(out, p)
		}
	}
	return out
}

// joinStep writes the seed connection string of a Cluster that joins
// another data center's database into its ConfigMap, and takes the
// new-volume marks off the claims made so far.
func joinStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	seed := cr.Spec.ForProvider.SeedConnectionString
	if _, err := fdb.ParseConnectionString(seed); err != nil {
		return wait("spec.forProvider.seedConnectionString: %v", err)
	}
	return &clusterStep{
		Step: step.Step{Reason: reasonJoined, Message: "joined the database at " + seed},
		Kind: kindWriteConfigMap, ConfigMap: configMapData(cr, o, seed), Claims: markedNew(o.claimsOf(maps.Keys(o.claims))),
	}
}

// firstCoordinatorsStep writes the first cluster file, with coordinators
// chosen from the running pods, before the database exists, and takes the
// new-volume marks off the claims made so far: its creation writes the
// coordinated state to the coordinators, and any change after it to those
// it names (so does a Cluster that joins another data center's database:
// none of its groups serves a coordinator before it joined). A Cluster that
// recorded a connection string has a database: it never gets new first
// coordinators (the ConfigMap step restores its cluster file instead). A
// Cluster that joins another data center's database writes its seed
// connection string instead: its processes join that database, which
// moves the coordinators from then on.
func firstCoordinatorsStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if o.connectionString() != "" {
		return nil
	}
	if cr.Spec.ForProvider.SeedConnectionString != "" {
		return joinStep(cr, o)
	}
	procs := podProcesses(o.groups)
	coords, err := plan.ChooseCoordinators(procs, coordinatorRules(cr, o), o.removing(), coordinatorForm(cr, procs))
	if err != nil {
		return wait("waiting for pods to run before choosing coordinators: %v", err)
	}
	cs := fdb.ConnectionString{Description: description(cr), ID: strings.ReplaceAll(string(cr.GetUID()), "-", "")[:coordinatorDescriptionID], Coordinators: coords}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonCoordinators,
			Message: "chose initial coordinators " + joinAddrs(coords),
			Action: &policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Targets: addrStrings(coords), Reason: "initial coordinators",
				Details: map[string]any{policy.DetailInitial: true}},
		},
		Kind: kindFirstCoordinators, ConfigMap: configMapData(cr, o, cs.String()), Addresses: coords, Claims: markedNew(o.claimsOf(maps.Keys(o.claims))),
	}
}

// description is the cluster file's description: the cluster's name with
// the characters a description may not hold replaced.
func description(cr *v1alpha1.Cluster) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, cr.GetName())
}

// desiredConfiguration is the database configuration of the spec but its
// regions; with regions usable_regions too is left to regionsStep, which
// changes them in FoundationDB's order.
func desiredConfiguration(cr *v1alpha1.Cluster) fdb.DatabaseConfiguration {
	dc := cr.Spec.ForProvider.DatabaseConfiguration
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	cfg := fdb.DatabaseConfiguration{
		RedundancyMode: fdb.RedundancyMode(dc.RedundancyMode), StorageEngine: dc.StorageEngine, UsableRegions: dc.UsableRegions,
		Logs: deref(dc.Logs), CommitProxies: deref(dc.CommitProxies), GrvProxies: deref(dc.GrvProxies), Resolvers: deref(dc.Resolvers),
		LogRouters: deref(dc.LogRouters), RemoteLogs: deref(dc.RemoteLogs),
		StorageMigrationType: dc.StorageMigrationType, PerpetualStorageWiggle: dc.PerpetualStorageWiggle, PerpetualStorageWiggleLocality: dc.PerpetualStorageWiggleLocality,
		PerpetualStorageWiggleEngine: dc.PerpetualStorageWiggleEngine,
	}
	if len(dc.Regions) > 0 {
		cfg.UsableRegions = 0
	}
	return cfg
}

// configureNewStep creates the database, only on positive evidence that it
// was never created: the status read in this reconcile says so. An
// unreadable status, or a Cluster that recorded its database configured,
// never leads to `configure new`.
func configureNewStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.neverCreated() || cr.Spec.ForProvider.SeedConnectionString != "" {
		return nil // a Cluster that joins another's database never makes one
	}
	cfg := desiredConfiguration(cr)
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonConfigured,
			Message: fmt.Sprintf("created the database: configure new %s %s", cfg.RedundancyMode, cfg.StorageEngine),
			Action:  &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "new database", Details: map[string]any{policy.DetailNewDatabase: true}},
		},
		Kind: kindConfigureNew, Configuration: cfg,
	}
}

// differs reports whether a database of version runs another
// configuration than the spec asks for; fields the spec leaves unset (zero)
// are FoundationDB's choice.
func differs(want, got fdb.DatabaseConfiguration, version string) bool {
	set := func(w, g int) bool { return w != 0 && w != g }
	named := func(w, g string) bool { return w != "" && w != g }
	return want.RedundancyMode != got.RedundancyMode || !sameEngine(want.StorageEngine, got.StorageEngine, version) ||
		set(want.UsableRegions, got.UsableRegions) || set(want.Logs, got.Logs) || set(want.CommitProxies, got.CommitProxies) ||
		set(want.GrvProxies, got.GrvProxies) || set(want.Resolvers, got.Resolvers) || set(want.LogRouters, got.LogRouters) || set(want.RemoteLogs, got.RemoteLogs) ||
		named(want.StorageMigrationType, got.StorageMigrationType) || named(want.PerpetualStorageWiggleLocality, got.PerpetualStorageWiggleLocality) ||
		want.PerpetualStorageWiggle != nil && *want.PerpetualStorageWiggle != ptr.Deref(got.PerpetualStorageWiggle, 0) ||
		want.PerpetualStorageWiggleEngine != "" && !sameEngine(want.PerpetualStorageWiggleEngine, got.PerpetualStorageWiggleEngine, version)
}

// sameEngine reports whether a database of version that reports storage
// engine got runs the engine `configure <keyword>` sets: the status names
// engines by release (fdb.ReportedStorageEngine; `configure memory`
// reports memory-2 on 7.1 and memory on 7.3, ssd reports ssd-2). For a
// version or keyword the table does not know, whether the names are equal.
func sameEngine(keyword, got, version string) bool {
	if v, err := fdb.ParseVersion(version); err == nil {
		if reported, ok := fdb.ReportedStorageEngine(keyword, v); ok {
			return reported == got
		}
	}
	return keyword == got
}

func configureStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.configured() {
		return nil
	}
	want, running := desiredConfiguration(cr), o.status.Cluster.Configuration.DatabaseConfiguration
	// The engine is named as the processes that report it run.
	version := cmp.Or(fdb.RunningVersion(o.status), cr.Spec.ForProvider.Version)
	if !differs(want, running, version) {
		return nil
	}
	a := &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configuration drift"}
	details := map[string]any{}
	message := fmt.Sprintf("changed the database configuration to %s %s", want.RedundancyMode, want.StorageEngine)
	if !sameEngine(want.StorageEngine, running.StorageEngine, version) {
		if want.StorageMigrationType == fdb.StorageMigrationDisabled {
			return wait("spec.forProvider.databaseConfiguration.storageMigrationType is disabled: FoundationDB refuses to change the storage engine from %s to %s",
				running.StorageEngine, want.StorageEngine)
		}
		want = migrationConfiguration(want, running, cr.Spec.ForProvider.StorageMigrationMethod)
		migration := cmp.Or(want.StorageMigrationType, running.StorageMigrationType)
		maps.Copy(details, map[string]any{
			policy.DetailChangesStorageEngine: true,
			policy.DetailFromStorageEngine:    running.StorageEngine,
			policy.DetailToStorageEngine:      want.StorageEngine,
			policy.DetailStorageMigrationType: migration,
		})
		message += fmt.Sprintf(" (storage servers migrate from %s, storage_migration_type %s)", running.StorageEngine, migration)
	}
	if policy.DesiredFaultTolerance(string(want.RedundancyMode)) < policy.DesiredFaultTolerance(string(running.RedundancyMode)) {
		maps.Copy(details, map[string]any{
			policy.DetailLowersRedundancy: true,
			policy.DetailFromRedundancy:   string(running.RedundancyMode),
			policy.DetailAcknowledged:     cr.GetAnnotations()[policy.AnnotationAllowRedundancyDecrease] == string(want.RedundancyMode),
		})
	}
	if len(details) > 0 {
		a.Details = details
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonConfigured,
			Message: message,
			Action:  a,
		},
		Kind: kindConfigure, Configuration: want,
	}
}

// removeGroupsStep marks the groups a shrinking class no longer needs for
// removal by deleting their ProcessGroups; each then waits in its own
// Delete until the cluster excluded it and it holds nothing.
func removeGroupsStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	coordinators := map[string]bool{}
	if cs, err := fdb.ParseConnectionString(o.clusterFile); err == nil {
		for _, c := range cs.Coordinators {
			coordinators[string(c)] = true
		}
	}
	want := cr.Spec.ForProvider.ProcessCounts.ByClass()
	for _, class := range v1alpha1.ProcessClasses {
		active := o.active(class)
		extra := len(active) - want[class]
		if extra <= 0 {
			continue
		}
		byID := map[string]*v1alpha1.ProcessGroup{}
		var groups []plan.Group
		for _, pg := range active {
			id := groupID(pg)
			byID[id] = pg
			groups = append(groups, plan.Group{ID: id, Class: string(class), Zone: pg.Status.AtProvider.FaultDomain,
				Coordinator: slices.ContainsFunc(fdb.AddressNames(pg.Status.AtProvider.DNSName, pg.Status.AtProvider.Addresses...), func(a string) bool { return coordinators[a] })})
		}
		ids := plan.ChooseRemovals(groups, extra)
		s := &clusterStep{
			Step: step.Step{Reason: reasonRemoveGroups, Message: fmt.Sprintf("removing %s process groups %s", class, strings.Join(ids, ", "))},
			Kind: kindRemoveGroups,
		}
		for _, id := range ids {
			s.Groups = append(s.Groups, byID[id])
		}
		return s
	}
	return nil
}

// exclusions is the database's exclusion list.
func (o *observation) exclusions() []fdb.ProcessAddress {
	if o.status == nil {
		return nil
	}
	return fdb.Exclusions(o.status)
}

// excludeStep excludes the groups being removed that are not excluded yet:
// one batch of one class per pass, so a pass costs at most one recovery,
// cut to the class's exclusion budget (computed from this reconcile's
// status as fdb-exclusion computes it) so that a large removal proceeds in
// batches the budget allows instead of waiting for a budget it never gets,
// and cut to half a batch the policies denied last (deniedBatch).
func excludeStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.configured() {
		return nil
	}
	listed := o.exclusions()
	byClass := map[string][]string{}
	for i := range o.groups {
		pg := &o.groups[i]
		id := groupID(pg)
		if deleting(pg) && !slices.Contains(listed, fdb.InstanceTarget(id)) {
			class := string(pg.Spec.ForProvider.ProcessClass)
			byClass[class] = append(byClass[class], id)
		}
	}
	if len(byClass) == 0 {
		return nil
	}
	class := slices.Sorted(maps.Keys(byClass))[0]
	ids := byClass[class]
	if in, err := policy.NewInput(cr, o.groups, o.status, o.now, policy.Action{}); err == nil {
		if budget := int(policy.ExclusionBudget(in.Cluster.DesiredCounts, in.Cluster.DesiredFaultTolerance, in.ProcessGroups)[class]); budget > 0 {
			ids = ids[:min(budget, len(ids))]
		}
	}
	if n := deniedBatch(cr, ids); n > 0 {
		ids = ids[:min(len(ids), (n+1)/2)]
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonExcluded,
			Message: fmt.Sprintf("excluded %s process groups %s", class, strings.Join(ids, ", ")),
			Action:  &policy.Action{Type: apiv1alpha1.ActionExclude, Targets: ids, ProcessClass: class, Reason: "removal"},
		},
		Kind: kindExclude, Addresses: instanceTargets(ids),
	}
}

// deniedBatch is the size of the exclusion batch a policy other than the
// built-in ones denied in the Cluster's last decision, when it excluded
// groups among ids; 0 otherwise. A platform's rule may cap how many groups
// go at once, which the plan cannot see: the denied batch is proposed again
// at half its size (at least one group), and a batch of one that is denied
// waits. Once an exclusion is allowed, the next batch is as large as the
// budget allows. A built-in rule's denial (a wait for time since the last
// recovery, say) keeps the batch: the plan already cuts it to the budget.
func deniedBatch(cr *v1alpha1.Cluster, ids []string) int {
	d := cr.Status.AtProvider.LastPolicyDecision
	if d == nil || d.Action != string(apiv1alpha1.ActionExclude) || d.Result != string(policy.ResultDenied) ||
		slices.ContainsFunc(d.Targets, func(id string) bool { return !slices.Contains(ids, id) }) {
		return 0
	}
	if name, _, _ := strings.Cut(d.Rule, "/"); defaults.Has(name) {
		return 0
	}
	return len(d.Targets)
}

// coordinatorsStep moves coordinators off processes that are missing,
// excluded or in groups being removed, and off (or, when they are the only
// eligible process of their zone, around) those that may hold no
// coordinated state (observation.blankCoordinators); it names them anew
// when the
// cluster file switches between IP addresses and DNS names. When no
// coordinators can be chosen it waits, unless a stranded group's early
// replacement (strandedStep) could bring the missing zone back, or only
// blank coordinators are the problem, which a recovery heals (reseedStep); a switch
// of names alone waits for nothing: it happens once the processes report
// their DNS names, after the restart that gives them the new command line.
func coordinatorsStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.available() || !o.configured() {
		return nil
	}
	cs, err := fdb.ParseConnectionString(o.connectionString())
	if err != nil {
		return nil
	}
	rules := coordinatorRules(cr, o)
	procs := plan.Processes(o.status)
	blank := o.blankCoordinators(procs, cs)
	problem := plan.CoordinatorProblem(procs, cs.Coordinators, rules, o.removing(), o.restarting(cr, cs.Coordinators))
	stateless := false
	if problem == "" {
		problem = plan.StatelessCoordinatorProblem(procs, cs.Coordinators, blank)
		stateless = problem != ""
	}
	rename := problem == ""
	if rename {
		problem = plan.CoordinatorFormProblem(procs, cs.Coordinators, coordinatorForm(cr, procs))
	}
	if problem == "" {
		return nil
	}
	coords, err := plan.ChooseCoordinatorsAnew(procs, cs.Coordinators, rules, o.removing(), blank, coordinatorForm(cr, procs))
	switch {
	case err != nil && rename:
		return nil
	case err != nil:
		// A group stranded on a failed node may hold the zone that is
		// missing: replacing it early is the one way forward, if its
		// policy allows.
		if s := strandedStep(cr, o); s != nil {
			s.Message = fmt.Sprintf("%s; coordinators must change (%s) but %v", s.Message, problem, err)
			return s
		}
		// Coordinators that may hold no state, with no set to move to,
		// get it back from a recovery (observation.reseeded).
		if stateless {
			if s := reseedStep(o, problem); s != nil {
				return s
			}
		}
		return wait("coordinators must change (%s) but %v", problem, err)
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonCoordinators,
			Message: fmt.Sprintf("changed coordinators to %s: %s", joinAddrs(coords), problem),
			Action:  &policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Targets: addrStrings(coords), Reason: problem},
		},
		Kind: kindChangeCoordinators, Addresses: coords, Claims: markedNew(o.claimsServing(procs, coords)),
	}
}

// reseedStep restarts the process that serves as master, which starts a
// recovery: it writes the coordinated state to every coordinator it
// reaches, blank ones included (observation.reseeded). Gated as Kill; nil
// when the status names no master.
func reseedStep(o *observation, problem string) *clusterStep {
	for _, k := range slices.Sorted(maps.Keys(o.status.Cluster.Processes)) {
		p := o.status.Cluster.Processes[k]
		if !p.HasRole(fdb.RoleMaster) {
			continue
		}
		id := p.Locality.InstanceID
		return &clusterStep{
			Step: step.Step{
				Reason:  reasonReseeded,
				Message: fmt.Sprintf("restarted the master's process %s, so that the recovery writes the coordinated state to every coordinator: %s", p.Address, problem),
				Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{id}, Reason: problem,
					Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(p.UptimeSeconds)}},
			},
			Kind: kindBounce, Addresses: []fdb.ProcessAddress{fdb.ProcessAddress(p.Address)},
		}
	}
	return nil
}

// includeStep includes, in one batch, the exclusions of its own groups
// (plan.OwnsGroupID: the exclusion list is the database's, and another data
// center's Cluster may be draining a group of its own) that no longer
// exist, once no other removal is in flight, or every one in flight
// is stuck: its processes have not reported for the Cluster's
// stuckRemovalSeconds (e.g. a pod on a dead node, waiting for the data to
// heal without it). Batching saves recoveries, but a stuck
// removal must not hold the others back; one whose processes report is
// draining, however long that takes (a density migration drains every
// storage group at once), and one past its removal gate is finishing.
// While it waits, the cluster is not up to date, and the wait says why.
func includeStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.configured() {
		return nil
	}
	exists := map[string]bool{}
	for i := range o.groups {
		exists[groupID(&o.groups[i])] = true
	}
	var done []fdb.ProcessAddress
	var ids []string
	prefix := groupIDPrefix(cr)
	for _, ex := range o.exclusions() {
		if k, v, ok := ex.Locality(); ok && k == fdb.LocalityInstanceID && !exists[v] && plan.OwnsGroupID(prefix, v) {
			done = append(done, ex)
			ids = append(ids, v)
		}
	}
	if len(done) == 0 {
		return nil
	}
	slices.Sort(ids)
	if inFlight := o.removalsInFlight(stuckRemoval(cr)); len(inFlight) > 0 {
		return wait("waiting for the removal of %s before including %s in one batch", strings.Join(inFlight, ", "), strings.Join(ids, ", "))
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonIncluded,
			Message: "included removed process groups " + strings.Join(ids, ", "),
			Action:  &policy.Action{Type: apiv1alpha1.ActionInclude, Targets: ids, Reason: "removal finished"},
		},
		Kind: kindInclude, Addresses: done,
	}
}

// stuckRemoval is how long a removal may be in flight before inclusions of
// other, finished removals stop waiting for it.
func stuckRemoval(cr *v1alpha1.Cluster) time.Duration {
	if s := cr.Spec.ForProvider.Automation.StuckRemovalSeconds; s > 0 {
		return time.Duration(s) * time.Second
	}
	return 10 * time.Minute
}

// removalsInFlight are the IDs of the groups being removed that are not
// stuck. A group whose removal passed its gate (its last decision allowed
// RemoveProcessGroup or RemoveUnreachableProcessGroup) is finishing: its
// pod and volume are going, whatever the time. Before that, stuck is a
// removal whose processes have not reported for stuck, as the group
// recorded (its MissingProcesses condition, by the provider's clock). One
// draining reports; one finishing stopped reporting moments ago.
func (o *observation) removalsInFlight(stuck time.Duration) []string {
	reporting := o.reporting()
	var out []string
	for i := range o.groups {
		pg := &o.groups[i]
		if !deleting(pg) {
			continue
		}
		missing := slices.IndexFunc(pg.Status.AtProvider.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool { return c.Type == v1alpha1.MissingProcesses })
		if tearingDown(pg) || reporting[groupID(pg)] > 0 || missing < 0 || o.now.Sub(pg.Status.AtProvider.ProcessGroupConditions[missing].Since.Time) < stuck {
			out = append(out, groupID(pg))
		}
	}
	return out
}

// tearingDown reports whether the group's removal passed its gate: only
// the deletion of its pod and volume is left.
func tearingDown(pg *v1alpha1.ProcessGroup) bool {
	d := pg.Status.AtProvider.LastPolicyDecision
	return d != nil && d.Result == string(policy.ResultAllowed) &&
		(d.Action == string(apiv1alpha1.ActionRemoveProcessGroup) || d.Action == string(apiv1alpha1.ActionRemoveUnreachableProcessGroup))
}

// removalStep waits while process groups are being removed: the cluster is
// not as its spec says until they are gone.
func removalStep(_ *v1alpha1.Cluster, o *observation) *clusterStep {
	removing := o.removing()
	if len(removing) == 0 {
		return nil
	}
	return wait("removing process groups %s", strings.Join(slices.Sorted(maps.Keys(removing)), ", "))
}

func instanceTargets(ids []string) []fdb.ProcessAddress {
	out := make([]fdb.ProcessAddress, len(ids))
	for i, id := range ids {
		out[i] = fdb.InstanceTarget(id)
	}
	return out
}

func addrStrings(addrs []fdb.ProcessAddress) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = string(a)
	}
	return out
}

func joinAddrs(addrs []fdb.ProcessAddress) string { return strings.Join(addrStrings(addrs), ",") }

// Why bounceKill restarts processes.
const (
	reasonCommandLine      = "command line changed"
	reasonRestartRequested = "restart requested"
)

// bounceStep restarts, in one kill, every process whose command line
// differs from the one its group should run now, and every process that
// started before its group's restart request, so that the batch costs
// one recovery, once every monitor whose processes report loaded the
// configuration that gives them (afterLoad; loadingStep waits). Processes
// pick up a new command line only when they restart. While processes run
// another version than the spec's, nothing is bounced: upgradeStep restarts
// every process together, once every pod staged the version, and a patch
// release rolls the pods.
func bounceStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	return o.afterLoad(cr, bounceKill(cr, o))
}

// bounceKill is bounceStep's kill, before the wait for the monitors.
func bounceKill(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !o.available() {
		return nil
	}
	if upgrading(cr, o) {
		return nil // upgradeStep restarts every process
	}
	densities := map[string]workload.Density{}
	requested := map[string]time.Time{}
	for i := range o.groups {
		if pg := &o.groups[i]; !deleting(pg) {
			densities[groupID(pg)] = workload.GroupDensity(pg)
			if t, ok := pg.RestartRequested(); ok && !t.After(o.now) {
				requested[groupID(pg)] = t
			}
		}
	}
	var addrs []fdb.ProcessAddress
	targets := map[string]bool{}
	reasons := map[string]bool{}
	uptime := int64(-1)
	for _, p := range o.status.Cluster.Processes {
		id := p.Locality.InstanceID
		d, ok := densities[id]
		pod := o.pods[workload.PodName(cr, id)]
		if !ok || pod == nil {
			continue // without its pod, no evidence of the binary its monitor chooses
		}
		// The pod's IPs as its monitor's environment has them: an IPv6
		// address has colons, and a dual-stack pod's configuration picks
		// its family's.
		at := workload.PodPlacement(pod, p.Locality.ZoneID, p.Locality.MachineID)
		changed := p.CommandLine != workload.ProcessCommandLine(cr, d, id, fdb.ProcessNumber(id, p.Locality.ProcessID), at, workload.ImageVersion(pod))
		// A process that started before its group's restart request: its
		// start as this status tells it, a little late by the status's age.
		t, ok := requested[id]
		asked := ok && o.now.Add(-time.Duration(p.UptimeSeconds*float64(time.Second))).Before(t)
		switch {
		case changed:
			reasons[reasonCommandLine] = true
		case asked:
			reasons[reasonRestartRequested] = true
		default:
			continue
		}
		addrs = append(addrs, fdb.ProcessAddress(p.Address))
		targets[id] = true
		if up := int64(p.UptimeSeconds); uptime < 0 || up < uptime {
			uptime = up
		}
	}
	if len(addrs) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(targets))
	why := strings.Join(slices.Sorted(maps.Keys(reasons)), "; ")
	msg := "restarted the processes of " + strings.Join(ids, ", ")
	switch {
	case reasons[reasonCommandLine] && reasons[reasonRestartRequested]:
		msg += " to apply their new command lines, and as their groups' restart requests ask"
	case reasons[reasonCommandLine]:
		msg += " to apply their new command lines"
	default:
		msg += " as their groups' restart requests ask"
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonBounced,
			Message: msg,
			Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: ids, Reason: why,
				Details: map[string]any{policy.DetailMinimumUptimeSeconds: uptime}},
		},
		Kind: kindBounce, Addresses: fdb.SortedAddresses(addrs),
	}
}

// disruptionStep waits while pods are recreated under the disruption grant,
// or while groups need a disruption that no domain may take now.
func disruptionStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	switch foreign := o.foreignMaintenance(cr); {
	case o.grant != nil && foreign != "":
		return wait("fault domain %s waits to recreate its pods: zone %s is under a maintenance this Cluster did not set (another Cluster of the database, or an operator), until it ends",
			o.grant.Domain, foreign)
	case o.grant != nil && o.grant.DisruptedOnly:
		return wait("fault domain %s holds the disruption grant (generation %d) while another domain is disrupted too: only pods that serve nothing may be recreated, in any domain",
			o.grant.Domain, o.grant.Generation)
	case o.grant != nil:
		return wait("fault domain %s may recreate its pods (disruption grant of generation %d)", o.grant.Domain, o.grant.Generation)
	case o.holdWhy != "":
		return wait("%s", o.holdWhy)
	}
	return nil
}

// coordinatorForm is how the cluster file names new coordinators chosen
// among procs: by DNS name or IP address as spec.forProvider.routing says,
// by the kind of address the processes listen on first (workload.Listen):
// a TLS one once they listen with TLS as the spec asks, a plain-text one
// otherwise, unless some of procs do not listen on it yet
// (plan.ListenedKind).
func coordinatorForm(cr *v1alpha1.Cluster, procs []plan.Process) plan.Form {
	return plan.Form{DNS: workload.UseDNS(cr), TLS: plan.ListenedKind(procs, workload.Listen(cr).PrimaryTLS())}
}

// coordinatorRules are the coordinator rules of the Cluster's database as
// it runs: of its redundancy mode, and across the data centers of its
// regions once they all hold data (usable_regions 2 in the status read in
// this reconcile). Before the database exists, and while one region holds
// the data, those of one data center: the first Cluster makes the
// database alone, the others join it later. The classes they choose from
// are the spec's coordinatorSelection, when it lists any.
func coordinatorRules(cr *v1alpha1.Cluster, o *observation) plan.CoordinatorRules {
	mode := fdb.RedundancyMode(cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode)
	rules := plan.CoordinatorRules{Count: 3}
	if mode != fdb.RedundancyThreeDataHall || dataHalls(o.status) >= 3 {
		// Until the three halls report, the coordinators of one: the
		// first hall's Cluster makes the database alone.
		dcs := 0
		if s := o.status; s != nil && s.Cluster.Configuration.UsableRegions > 1 {
			for _, r := range s.Cluster.Configuration.Regions {
				dcs += len(r.DataCenters)
			}
		}
		rules = plan.RulesFor(mode, dcs)
	}
	if sel := cr.Spec.ForProvider.CoordinatorSelection; len(sel) > 0 {
		rules.Classes = map[string]int{}
		for _, s := range sel {
			rules.Classes[string(s.ProcessClass)] = s.Priority
		}
	}
	return rules
}

// dataHalls counts the data halls of the processes of s; 0 without s.
func dataHalls(s *fdb.Status) int {
	if s == nil {
		return 0
	}
	halls := map[string]bool{}
	for _, p := range s.Cluster.Processes {
		if p.Locality.DataHall != "" {
			halls[p.Locality.DataHall] = true
		}
	}
	return len(halls)
}

// groupIDPrefix prefixes the IDs of the Cluster's new process groups with
// its data center, so that they do not collide with another data center's
// in the database they share; "" without one.
func groupIDPrefix(cr *v1alpha1.Cluster) string {
	prefix := ""
	for _, part := range []string{cr.Spec.ForProvider.DataCenter, cr.Spec.ForProvider.DataHall} {
		if part != "" {
			prefix += part + "-"
		}
	}
	return prefix
}
