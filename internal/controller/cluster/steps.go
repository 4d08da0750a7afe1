package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Error strings.
const (
	errUpdateConfigMap = "cannot update the cluster's ConfigMap"
	errCreateGroup     = "cannot create ProcessGroup"
	errDeleteGroup     = "cannot delete ProcessGroup"
	errConfigure       = "cannot configure the database"
	errExclude         = "cannot exclude process groups"
	errInclude         = "cannot include process groups"
	errBounce          = "cannot restart processes"
	errCoordinators    = "cannot change coordinators"
	errReadExclusions  = "cannot read exclusions"
)

// Event reasons of the steps.
const (
	reasonConfigMap          event.Reason = "UpdatedConfigMap"
	reasonCreateGroups       event.Reason = "CreatedProcessGroups"
	reasonRemoveGroups       event.Reason = "RemovingProcessGroups"
	reasonCoordinators       event.Reason = "ChangedCoordinators"
	reasonConfigured         event.Reason = "ConfiguredDatabase"
	reasonExcluded           event.Reason = "ExcludedProcessGroups"
	reasonIncluded           event.Reason = "IncludedProcessGroups"
	reasonBounced            event.Reason = "BouncedProcesses"
	annotationPrefix                      = "foundationdb.crossplane.io/"
	coordinatorDescriptionID              = 8
)

// step is the one mutation a reconcile makes. A step with no run is a wait:
// nothing can be done until the world changes, and message says why.
type step struct {
	reason  event.Reason
	message string
	// action is the gated action; nil for steps no policy gates (writing
	// the ConfigMap, marking groups for removal).
	action *policy.Action
	run    func(ctx context.Context) error
}

func wait(format string, args ...any) *step { return &step{message: fmt.Sprintf(format, args...)} }

// next plans the one next step for the cluster, or nil when the cluster is
// as its spec says. The order matters: the ConfigMap before pods that mount
// it; groups before coordinators; coordinators before `configure new`;
// coordinators move off groups being removed before those are excluded;
// inclusions once no removal is in flight, as one batch.
func (e *external) next(cr *v1alpha1.Cluster, o *observation) *step {
	for _, plan := range []func(*v1alpha1.Cluster, *observation) *step{
		e.configMapStep, e.createGroupsStep, e.bootstrapStep, e.configureNewStep,
		e.removeGroupsStep, e.coordinatorsStep, e.excludeStep, e.configureStep, e.bounceStep, e.includeStep,
	} {
		if s := plan(cr, o); s != nil {
			return s
		}
	}
	return nil
}

// connectionString is the cluster file the ConfigMap should hold: what the
// database reports once it runs, else what the provider wrote.
func (e *external) connectionString(o *observation) string {
	if o.status != nil && o.status.Cluster.ConnectionString != "" {
		return o.status.Cluster.ConnectionString
	}
	return e.session.ConnectionString
}

// densities are the monitor configurations the ConfigMap must hold: those
// of the spec and those of the existing groups.
func densities(cr *v1alpha1.Cluster, groups []v1alpha1.ProcessGroup) map[v1alpha1.ProcessClass]int {
	out := workload.Densities(cr)
	for _, pg := range groups {
		out[pg.Spec.ForProvider.ProcessClass] = max(pg.Spec.ForProvider.ProcessesPerPod, 1)
	}
	return out
}

func (e *external) configMapStep(cr *v1alpha1.Cluster, o *observation) *step {
	want := workload.ConfigMap(cr, e.connectionString(o), densities(cr, o.groups))
	if e.session.ConfigMap != nil && maps.Equal(e.session.ConfigMap.Data, want.Data) {
		return nil
	}
	return &step{reason: reasonConfigMap, message: "updated ConfigMap " + want.Name, run: func(ctx context.Context) error {
		return e.writeConfigMap(ctx, cr, want.Data)
	}}
}

func (e *external) writeConfigMap(ctx context.Context, cr *v1alpha1.Cluster, data map[string]string) error {
	cm := workload.ConfigMap(cr, "", nil)
	cm.Data = data
	if e.session.ConfigMap == nil {
		return errors.Wrap(client.IgnoreAlreadyExists(e.session.Target.Create(ctx, cm)), errUpdateConfigMap)
	}
	cur := e.session.ConfigMap.DeepCopy()
	cur.Data, cur.Labels = data, cm.Labels
	return errors.Wrap(e.session.Target.Update(ctx, cur), errUpdateConfigMap)
}

// classes in a fixed order.
var classes = []v1alpha1.ProcessClass{
	v1alpha1.ProcessClassClusterController, v1alpha1.ProcessClassLog, v1alpha1.ProcessClassStateless,
	v1alpha1.ProcessClassStorage, v1alpha1.ProcessClassTransaction,
}

func desiredCount(cr *v1alpha1.Cluster, class v1alpha1.ProcessClass) int {
	pc := cr.Spec.ForProvider.ProcessCounts
	return map[v1alpha1.ProcessClass]int{
		v1alpha1.ProcessClassStorage: pc.Storage, v1alpha1.ProcessClassLog: pc.Log, v1alpha1.ProcessClassTransaction: pc.Transaction,
		v1alpha1.ProcessClassStateless: pc.Stateless, v1alpha1.ProcessClassClusterController: pc.ClusterController,
	}[class]
}

// active returns the groups of a class whose removal has not begun.
func (o *observation) active(class v1alpha1.ProcessClass) []*v1alpha1.ProcessGroup {
	var out []*v1alpha1.ProcessGroup
	for i := range o.groups {
		if pg := &o.groups[i]; pg.Spec.ForProvider.ProcessClass == class && !deleting(pg) {
			out = append(out, pg)
		}
	}
	return out
}

func (e *external) createGroupsStep(cr *v1alpha1.Cluster, o *observation) *step {
	taken := map[string]bool{}
	for i := range o.groups {
		taken[groupID(&o.groups[i])] = true
	}
	for _, ex := range o.exclusions() {
		if _, v, ok := ex.Locality(); ok {
			taken[v] = true
		}
	}
	for _, class := range classes {
		active := o.active(class)
		missing := desiredCount(cr, class) - len(active)
		if missing <= 0 {
			continue
		}
		perZone := map[string]int{}
		for _, pg := range active {
			perZone[pg.Spec.ForProvider.FaultDomain]++
		}
		ids := plan.NewGroupIDs(string(class), missing, taken)
		zones := plan.AssignZones(o.zones, perZone, missing)
		return &step{
			reason:  reasonCreateGroups,
			message: fmt.Sprintf("created %s process groups %s", class, strings.Join(ids, ", ")),
			action:  &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: ids, ProcessClass: string(class)},
			run: func(ctx context.Context) error {
				for i, id := range ids {
					if err := client.IgnoreAlreadyExists(e.Kube.Create(ctx, newGroup(cr, class, id, zones[i]))); err != nil {
						return errors.Wrap(err, errCreateGroup)
					}
				}
				return nil
			},
		}
	}
	return nil
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
			p := plan.Process{Address: fdb.ProcessAddress(addr), Class: string(pg.Spec.ForProvider.ProcessClass), Zone: at.FaultDomain, InstanceID: groupID(pg)}
			if n < len(at.ProcessIDs) {
				p.ProcessID = at.ProcessIDs[n]
			}
			out = append(out, p)
		}
	}
	return out
}

// bootstrapStep writes the first cluster file, with coordinators chosen
// from the running pods, before the database exists.
func (e *external) bootstrapStep(cr *v1alpha1.Cluster, o *observation) *step {
	if e.session.ConnectionString != "" {
		return nil
	}
	mode := fdb.RedundancyMode(cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode)
	coords, err := plan.ChooseCoordinators(podProcesses(o.groups), mode, o.removing())
	if err != nil {
		return wait("waiting for pods to run before choosing coordinators: %v", err)
	}
	cs := fdb.ConnectionString{Description: description(cr), ID: strings.ReplaceAll(string(cr.GetUID()), "-", "")[:coordinatorDescriptionID], Coordinators: coords}
	return &step{
		reason:  reasonCoordinators,
		message: "chose initial coordinators " + joinAddrs(coords),
		action: &policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Targets: addrStrings(coords), Reason: "initial coordinators",
			Details: map[string]any{policy.DetailInitial: true}},
		run: func(ctx context.Context) error {
			data := workload.ConfigMap(cr, cs.String(), densities(cr, o.groups)).Data
			return e.writeConfigMap(ctx, cr, data)
		},
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

// desiredConfiguration is the database configuration of the spec.
func desiredConfiguration(cr *v1alpha1.Cluster) fdb.DatabaseConfiguration {
	dc := cr.Spec.ForProvider.DatabaseConfiguration
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return fdb.DatabaseConfiguration{
		RedundancyMode: fdb.RedundancyMode(dc.RedundancyMode), StorageEngine: dc.StorageEngine, UsableRegions: dc.UsableRegions,
		Logs: deref(dc.Logs), CommitProxies: deref(dc.CommitProxies), GrvProxies: deref(dc.GrvProxies), Resolvers: deref(dc.Resolvers),
	}
}

func (e *external) configureNewStep(cr *v1alpha1.Cluster, o *observation) *step {
	if o.configured() || e.session.FDB == nil {
		return nil
	}
	cfg := desiredConfiguration(cr)
	return &step{
		reason:  reasonConfigured,
		message: fmt.Sprintf("created the database: configure new %s %s", cfg.RedundancyMode, cfg.StorageEngine),
		action:  &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "new database", Details: map[string]any{policy.DetailNewDatabase: true}},
		run: func(ctx context.Context) error {
			err := e.session.FDB.Configure(ctx, cfg, true)
			if errors.Is(err, fdb.ErrAlreadyExists) {
				return nil
			}
			return errors.Wrap(err, errConfigure)
		},
	}
}

// differs reports whether the database runs another configuration than the
// spec asks for; fields the spec leaves unset (zero) are FoundationDB's
// choice.
func differs(want, got fdb.DatabaseConfiguration) bool {
	set := func(w, g int) bool { return w != 0 && w != g }
	return want.RedundancyMode != got.RedundancyMode || want.StorageEngine != got.StorageEngine ||
		set(want.UsableRegions, got.UsableRegions) || set(want.Logs, got.Logs) || set(want.CommitProxies, got.CommitProxies) ||
		set(want.GrvProxies, got.GrvProxies) || set(want.Resolvers, got.Resolvers)
}

func (e *external) configureStep(cr *v1alpha1.Cluster, o *observation) *step {
	if !o.configured() {
		return nil
	}
	want := desiredConfiguration(cr)
	if !differs(want, o.status.Cluster.Configuration.DatabaseConfiguration) {
		return nil
	}
	return &step{
		reason:  reasonConfigured,
		message: fmt.Sprintf("changed the database configuration to %s %s", want.RedundancyMode, want.StorageEngine),
		action:  &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configuration drift"},
		run: func(ctx context.Context) error {
			return errors.Wrap(e.session.FDB.Configure(ctx, want, false), errConfigure)
		},
	}
}

// removeGroupsStep marks the groups a shrinking class no longer needs for
// removal by deleting their ProcessGroups; each then waits in its own
// Delete until the cluster excluded it and it holds nothing.
func (e *external) removeGroupsStep(cr *v1alpha1.Cluster, o *observation) *step {
	coordinators := map[string]bool{}
	if cs, err := fdb.ParseConnectionString(e.session.ConnectionString); err == nil {
		for _, c := range cs.Coordinators {
			coordinators[string(c)] = true
		}
	}
	for _, class := range classes {
		active := o.active(class)
		extra := len(active) - desiredCount(cr, class)
		if extra <= 0 {
			continue
		}
		byID := map[string]*v1alpha1.ProcessGroup{}
		var groups []plan.Group
		for _, pg := range active {
			id := groupID(pg)
			byID[id] = pg
			groups = append(groups, plan.Group{ID: id, Class: string(class), Zone: pg.Status.AtProvider.FaultDomain,
				Coordinator: slices.ContainsFunc(pg.Status.AtProvider.Addresses, func(a string) bool { return coordinators[a] })})
		}
		ids := plan.ChooseRemovals(groups, extra)
		return &step{
			reason:  reasonRemoveGroups,
			message: fmt.Sprintf("removing %s process groups %s", class, strings.Join(ids, ", ")),
			run: func(ctx context.Context) error {
				for _, id := range ids {
					if err := client.IgnoreNotFound(e.Kube.Delete(ctx, byID[id])); err != nil {
						return errors.Wrap(err, errDeleteGroup)
					}
				}
				return nil
			},
		}
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
// one batch of one class per pass, so a pass costs at most one recovery.
func (e *external) excludeStep(_ *v1alpha1.Cluster, o *observation) *step {
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
	return &step{
		reason:  reasonExcluded,
		message: fmt.Sprintf("excluded %s process groups %s", class, strings.Join(ids, ", ")),
		action:  &policy.Action{Type: apiv1alpha1.ActionExclude, Targets: ids, ProcessClass: class, Reason: "removal"},
		run: func(ctx context.Context) error {
			return errors.Wrap(e.session.FDB.Exclude(ctx, instanceTargets(ids)), errExclude)
		},
	}
}

// coordinatorsStep moves coordinators off processes that are missing,
// excluded or in groups being removed.
func (e *external) coordinatorsStep(cr *v1alpha1.Cluster, o *observation) *step {
	if !o.available() || !o.configured() {
		return nil
	}
	cs, err := fdb.ParseConnectionString(e.connectionString(o))
	if err != nil {
		return nil
	}
	mode := fdb.RedundancyMode(cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode)
	procs := plan.Processes(o.status)
	problem := plan.CoordinatorProblem(procs, cs.Coordinators, mode, o.removing())
	if problem == "" {
		return nil
	}
	coords, err := plan.ChooseCoordinators(procs, mode, o.removing())
	if err != nil {
		return wait("coordinators must change (%s) but %v", problem, err)
	}
	return &step{
		reason:  reasonCoordinators,
		message: fmt.Sprintf("changed coordinators to %s: %s", joinAddrs(coords), problem),
		action:  &policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Targets: addrStrings(coords), Reason: problem},
		run: func(ctx context.Context) error {
			newCS, err := e.session.FDB.ChangeCoordinators(ctx, coords)
			if err != nil {
				return errors.Wrap(err, errCoordinators)
			}
			return e.writeConfigMap(ctx, cr, workload.ConfigMap(cr, newCS, densities(cr, o.groups)).Data)
		},
	}
}

// includeStep includes, in one batch, the exclusions of groups that no
// longer exist, once no other removal is in flight.
func (e *external) includeStep(_ *v1alpha1.Cluster, o *observation) *step {
	if !o.configured() || len(o.removing()) > 0 {
		return nil
	}
	exists := map[string]bool{}
	for i := range o.groups {
		exists[groupID(&o.groups[i])] = true
	}
	var done []fdb.ProcessAddress
	var ids []string
	for _, ex := range o.exclusions() {
		if k, v, ok := ex.Locality(); ok && k == fdb.LocalityInstanceID && !exists[v] {
			done = append(done, ex)
			ids = append(ids, v)
		}
	}
	if len(done) == 0 {
		return nil
	}
	sort.Strings(ids)
	return &step{
		reason:  reasonIncluded,
		message: "included removed process groups " + strings.Join(ids, ", "),
		action:  &policy.Action{Type: apiv1alpha1.ActionInclude, Targets: ids, Reason: "removal finished"},
		run: func(ctx context.Context) error {
			return errors.Wrap(e.session.FDB.Include(ctx, done), errInclude)
		},
	}
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

// bounceStep restarts, in one kill, every process whose command line
// differs from the one its group should run now, so that the batch costs
// one recovery. Processes pick up a new command line only when they
// restart.
func (e *external) bounceStep(cr *v1alpha1.Cluster, o *observation) *step {
	if !o.available() {
		return nil
	}
	class := map[string]v1alpha1.ProcessClass{}
	for i := range o.groups {
		if pg := &o.groups[i]; !deleting(pg) {
			class[groupID(pg)] = pg.Spec.ForProvider.ProcessClass
		}
	}
	var addrs []fdb.ProcessAddress
	targets := map[string]bool{}
	uptime := int64(-1)
	for _, p := range o.status.Cluster.Processes {
		id := p.Locality.InstanceID
		c, ok := class[id]
		if !ok {
			continue
		}
		ip, _, _ := strings.Cut(p.Address, ":")
		if p.CommandLine == workload.ProcessCommandLine(cr, c, id, workload.ProcessNumber(p.Locality.ProcessID), ip, p.Locality.ZoneID) {
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
	return &step{
		reason:  reasonBounced,
		message: "restarted the processes of " + strings.Join(ids, ", ") + " to apply their new command lines",
		action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: ids, Reason: "command line changed",
			Details: map[string]any{policy.DetailMinimumUptimeSeconds: uptime}},
		run: func(ctx context.Context) error {
			return errors.Wrap(e.session.FDB.Kill(ctx, fdb.SortedAddresses(addrs)), errBounce)
		},
	}
}
