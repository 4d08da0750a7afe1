package cluster

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// In converged(5) group storage-N runs one process, storage-N-1, at
// 10.0.0.(N+1):4501 in zone b, c, a, b, c for N = 1…5; storage-1, -2 and -3
// are the coordinators.
const convergedCS = "db:01234567@10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501"

// A mutation changes one thing of a converged cluster or its observation.
type mutation func(cr *v1alpha1.Cluster, o *observation)

// observed is converged(n) with the mutations applied in order.
func observed(n int, ms ...mutation) (*v1alpha1.Cluster, *observation) {
	cr, o := converged(n)
	for _, m := range ms {
		m(cr, o)
	}
	return cr, o
}

// groupNamed returns the observed group with the ID; it panics when there is
// none, a mistake in the test.
func groupNamed(o *observation, id string) *v1alpha1.ProcessGroup {
	for i := range o.groups {
		if groupID(&o.groups[i]) == id {
			return &o.groups[i]
		}
	}
	panic("no process group " + id)
}

// processOf returns the status key and entry of the group's process.
func processOf(o *observation, id string) (string, fdb.Process) {
	for k, p := range o.status.Cluster.Processes {
		if p.Locality.InstanceID == id {
			return k, p
		}
	}
	panic("no process of group " + id)
}

// storage asks for n storage groups.
func storage(n int) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.ProcessCounts.Storage = n }
}

// logs asks for n log groups.
func logs(n int) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.ProcessCounts.Log = n }
}

// stateless asks for n stateless groups.
func stateless(n int) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.ProcessCounts.Stateless = n }
}

// currentConfigMap makes the ConfigMap hold what the spec and the groups
// ask for, as after the ConfigMap step of an earlier reconcile.
func currentConfigMap() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.configMap = configMapData(cr, o, o.connectionString())
	}
}

// loaded makes every pod's monitor report that it loaded the configuration
// the ConfigMap holds for it, as a monitor does once the kubelet delivered
// it and its binary is staged.
func loaded() mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for _, pod := range o.pods {
			if cfg, ok := workload.MountedMonitorConfig(pod, o.configMap); ok {
				raw, _ := json.Marshal(cfg)
				if pod.Annotations == nil {
					pod.Annotations = map[string]string{}
				}
				pod.Annotations[workload.AnnotationCurrentConfiguration] = string(raw)
			}
		}
	}
}

// removing begins the removal of the groups (their ProcessGroups are being
// deleted).
func removing(ids ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			groupNamed(o, id).SetDeletionTimestamp(ptr.To(metav1.NewTime(time.Unix(1, 0))))
		}
	}
}

// excluded adds the targets to the database's exclusion list and marks the
// processes they select excluded, as FoundationDB reports them.
func excluded(targets ...fdb.ProcessAddress) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for _, t := range targets {
			es := fdb.ExcludedServer{Address: t}
			if _, _, ok := t.Locality(); ok {
				es = fdb.ExcludedServer{Locality: t}
			}
			o.status.Cluster.Configuration.ExcludedServers = append(o.status.Cluster.Configuration.ExcludedServers, es)
			for k, p := range o.status.Cluster.Processes {
				if t.Matches(p) {
					p.Excluded = true
					o.status.Cluster.Processes[k] = p
				}
			}
		}
	}
}

// instance is the exclusion target of a group.
func instance(id string) fdb.ProcessAddress { return fdb.InstanceTarget(id) }

// notReporting drops the groups' processes from the status.
func notReporting(ids ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			k, _ := processOf(o, id)
			delete(o.status.Cluster.Processes, k)
		}
	}
}

// recoveredSince makes the database fully recovered secs seconds ago.
func recoveredSince(secs float64) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		o.status.Cluster.RecoveryState = fdb.RecoveryState{Name: fdb.RecoveryFullyRecovered, SecondsSinceLastRecovered: &secs}
	}
}

// master makes group id's process serve as master.
func master(id string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		k, p := processOf(o, id)
		p.Roles = append(p.Roles, fdb.ProcessRole{Role: fdb.RoleMaster})
		o.status.Cluster.Processes[k] = p
	}
}

// newVolume gives the groups ids claims marked new under the current
// connection string.
func newVolume(ids ...string) mutation {
	return newVolumeUnder(func(o *observation) string { return o.clusterFile }, ids...)
}

// newVolumeUnder gives the groups ids claims marked new under the
// connection string cs returns.
func newVolumeUnder(cs func(*observation) string, ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		if o.claims == nil {
			o.claims = map[string]*corev1.PersistentVolumeClaim{}
		}
		for _, id := range ids {
			o.claims[id] = workload.PVC(cr, groupNamed(o, id), id)
			workload.MarkNewVolume(o.claims[id], cs(o))
		}
	}
}

// gone makes the groups disappear entirely: ProcessGroup, pod and
// processes, as after a removal finished or a group was deleted by hand.
func gone(ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			notReporting(id)(cr, o)
			delete(o.pods, workload.PodName(cr, id))
			for i := range o.groups {
				if groupID(&o.groups[i]) == id {
					o.groups = append(o.groups[:i], o.groups[i+1:]...)
					break
				}
			}
		}
	}
}

// unavailable makes the database not serve transactions, and its status
// lack what the cluster controller reads from it: the configuration, the
// excluded flags and the maintenance (fdb.Status.ConfigurationRead).
func unavailable() mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		c := &o.status.Cluster
		o.status.Client.DatabaseStatus.Available = false
		c.Configuration, c.FullReplication, c.MaintenanceZone, c.MaintenanceSecondsRemaining = fdb.Configuration{}, nil, "", 0
		for k, p := range c.Processes {
			p.Excluded = false
			c.Processes[k] = p
		}
		c.Messages = append(c.Messages, fdb.Message{Name: fdb.MessageUnreadableConfiguration})
	}
}

// noDatabase is the world before the first coordinators: pods running, no
// cluster file, no admin client, no status; the ConfigMap holds the monitor
// configuration only.
func noDatabase() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.status, o.database, o.clusterFile = nil, false, ""
		o.configMap = workload.ConfigMap(cr, "", map[workload.Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 1}: true}).Data
	}
}

// unconfigured is a reachable database that was never configured: the
// processes report, the status has no configuration.
func unconfigured() mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		o.status.Cluster.Configuration = fdb.Configuration{}
		o.status.Cluster.RecoveryState = fdb.RecoveryState{Name: fdb.RecoveryConfigurationNeverCreated}
	}
}

// coordinators makes the groups' processes the coordinators, in the
// database, the cluster file and the ConfigMap.
func coordinators(ids ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		var addrs []fdb.ProcessAddress
		for _, id := range ids {
			at := groupNamed(o, id).Status.AtProvider
			a := fdb.ProcessAddress(at.Addresses[0])
			if at.DNSName != "" {
				a = fdb.HostAddress(at.DNSName, at.Addresses[0])
			}
			addrs = append(addrs, a)
		}
		cs := fdb.ConnectionString{Description: "db", ID: "01234567", Coordinators: fdb.SortedAddresses(addrs)}.String()
		o.status.Cluster.ConnectionString, o.clusterFile, o.configMap[workload.KeyClusterFile] = cs, cs, cs
	}
}

// dnsNames makes the Cluster ask for DNS names in its cluster file, with the
// ConfigMap that gives the processes their DNS names; with reporting, every
// process restarted on it and reports its name.
func dnsNames(reporting bool) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		cr.Spec.ForProvider.Routing.UseDNSInClusterFile = ptr.To(true)
		o.configMap = configMapData(cr, o, o.clusterFile)
		for i := range o.groups {
			pg := &o.groups[i]
			id := groupID(pg)
			k, p := processOf(o, id)
			ip, _, _ := strings.Cut(p.Address, ":")
			o.pods[workload.PodName(cr, id)].Spec = workload.Pod(cr, pg, id).Spec
			if reporting {
				pg.Status.AtProvider.DNSName, p.Locality.DNSName = workload.DNSName(cr, id), workload.DNSName(cr, id)
				p.CommandLine = workload.ProcessCommandLine(cr, workload.Density{Class: pg.Spec.ForProvider.ProcessClass, Processes: pg.Spec.ForProvider.ProcessesPerPod}, id, 1, workload.Placement{PublicIP: ip, Zone: pg.Status.AtProvider.FaultDomain, Machine: ""}, workload.ImageVersion(o.pods[workload.PodName(cr, id)]))
			}
			o.status.Cluster.Processes[k] = p
		}
	}
}

// zone moves a group to another zone: its spec, its observed zone, its
// process's locality and command line, and its pod.
func zone(id, z string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		pg := groupNamed(o, id)
		pg.Spec.ForProvider.FaultDomain, pg.Status.AtProvider.FaultDomain = z, z
		k, p := processOf(o, id)
		ip, _, _ := strings.Cut(pg.Status.AtProvider.Addresses[0], ":")
		p.Locality.ZoneID = z
		pod := workload.Pod(cr, pg, id)
		pod.Status = o.pods[pod.Name].Status
		o.pods[pod.Name] = pod
		p.CommandLine = workload.ProcessCommandLine(cr, workload.Density{Class: pg.Spec.ForProvider.ProcessClass, Processes: pg.Spec.ForProvider.ProcessesPerPod}, id, 1, workload.Placement{PublicIP: ip, Zone: z, Machine: ""}, workload.ImageVersion(pod))
		o.status.Cluster.Processes[k] = p
	}
}

// addGroup adds a converged group of one process at ip:4501.
func addGroup(class v1alpha1.ProcessClass, id, z, ip string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		pg := newGroup(cr, class, id, z)
		pg.Status.AtProvider = v1alpha1.ProcessGroupObservation{Addresses: []string{ip + ":4501"}, ProcessIDs: []string{id}, FaultDomain: z}
		o.groups = append(o.groups, *pg)
		pod := workload.Pod(cr, pg, id)
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip}
		o.pods[pod.Name] = pod
		o.status.Cluster.Processes[id+"-1"] = fdb.Process{Address: ip + ":4501", ClassType: string(class), UptimeSeconds: 3600, Version: cr.Spec.ForProvider.Version,
			CommandLine: workload.ProcessCommandLine(cr, workload.Density{Class: class, Processes: pg.Spec.ForProvider.ProcessesPerPod}, id, 1, workload.Placement{PublicIP: ip, Zone: z, Machine: ""}, workload.ImageVersion(pod)),
			Locality:    fdb.Locality{InstanceID: id, ProcessID: id, ZoneID: z}}
		// Its pod counts in the budget, as after the step that followed
		// its creation.
		o.disruptionBudget = workload.DisruptionBudget(cr, len(o.groups))
	}
}

// knob adds a custom parameter to every class: every command line changes,
// and with it the monitor configuration in the ConfigMap.
func knob(param string) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.Processes = map[string]v1alpha1.ProcessSettings{"general": {CustomParameters: []string{param}}}
	}
}

// staleCommandLine makes a group's process report a command line other
// than the one it should run.
func staleCommandLine(id string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		k, p := processOf(o, id)
		p.CommandLine += " --knob_old=1"
		o.status.Cluster.Processes[k] = p
	}
}

// restartRequested annotates a group with a restart request at now+d.
func restartRequested(id string, d time.Duration) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		meta.AddAnnotations(groupNamed(o, id), map[string]string{v1alpha1.AnnotationRestart: o.now.Add(d).Format(time.RFC3339)})
	}
}

// uptime sets how long a group's process has run.
func uptime(id string, seconds float64) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		k, p := processOf(o, id)
		p.UptimeSeconds = seconds
		o.status.Cluster.Processes[k] = p
	}
}

// engine asks for another storage engine.
func engine(e string) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.DatabaseConfiguration.StorageEngine = e
	}
}

// wiggleEngineOn makes the spec and the database run the wiggle on locality
// with perpetual_storage_wiggle_engine e, under gradual, the storage engine
// ssd-2.
func wiggleEngineOn(e, locality string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		dc := &cr.Spec.ForProvider.DatabaseConfiguration
		dc.StorageMigrationType, dc.PerpetualStorageWiggle, dc.PerpetualStorageWiggleLocality, dc.PerpetualStorageWiggleEngine = fdb.StorageMigrationGradual, ptr.To(1), locality, e
		c := &o.status.Cluster.Configuration
		c.StorageMigrationType, c.PerpetualStorageWiggle, c.PerpetualStorageWiggleLocality, c.PerpetualStorageWiggleEngine = fdb.StorageMigrationGradual, ptr.To(1), locality, e
	}
}

// storageEngines gives every storage process a storage server that runs
// the engine the database is configured with, but those of groups ids,
// which run old.
func storageEngines(old string, ids ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		for k, p := range o.status.Cluster.Processes {
			if p.ClassType != string(v1alpha1.ProcessClassStorage) {
				continue
			}
			engine := o.status.Cluster.Configuration.StorageEngine
			if slices.Contains(ids, p.Locality.InstanceID) {
				engine = old
			}
			p.Roles = []fdb.ProcessRole{{Role: fdb.RoleStorage, StorageMetadata: &fdb.StorageMetadata{StorageEngine: engine}}}
			o.status.Cluster.Processes[k] = p
		}
	}
}

// podDrifted makes a group's pod run a spec other than the one it should.
func podDrifted(id string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.pods[workload.PodName(cr, id)].Annotations[workload.AnnotationSpec] = "0000000000000000"
	}
}

// granted makes the Cluster hold a disruption grant after this reconcile.
func granted(domain string, generation int64) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.members, o.grant = o.disruptionMembers(cr), &disruption.Grant{Domain: domain, Generation: generation}
	}
}

// regrant decides the disruption grant from the observation, as observe
// does after reading the world.
func regrant() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.members = o.disruptionMembers(cr)
		o.grant, o.holdWhy = o.nextGrant(cr)
	}
}

// monitorConfigMap is the ConfigMap data the fixture's spec needs with
// cluster file cs and one-process pods of the classes.
func monitorConfigMap(cs string, classes ...v1alpha1.ProcessClass) map[string]string {
	cr, _ := converged(0)
	d := map[workload.Density]bool{}
	for _, c := range classes {
		d[workload.Density{Class: c, Processes: 1}] = true
	}
	return workload.ConfigMap(cr, cs, d).Data
}

// groupRef is what the tests compare of a ProcessGroup in a step.
type groupRef struct{ ID, Class, Zone string }

// refs are groups of a step: "storage-6@a" is storage-6 in zone a.
func refs(class v1alpha1.ProcessClass, idAtZone ...string) []*v1alpha1.ProcessGroup {
	var out []*v1alpha1.ProcessGroup
	for _, s := range idAtZone {
		id, z, _ := strings.Cut(s, "@")
		pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: id}}
		pg.Spec.ForProvider.ProcessClass, pg.Spec.ForProvider.FaultDomain = class, z
		out = append(out, pg)
	}
	return out
}

// compareGroups compares the groups of steps by ID, class and zone.
var compareGroups = cmp.Transformer("groups", func(in []*v1alpha1.ProcessGroup) []groupRef {
	if in == nil {
		return nil
	}
	out := make([]groupRef, len(in))
	for i, pg := range in {
		out[i] = groupRef{ID: pg.ID(), Class: string(pg.Spec.ForProvider.ProcessClass), Zone: pg.Zone()}
	}
	return out
})

func addrs(a ...string) []fdb.ProcessAddress {
	out := make([]fdb.ProcessAddress, len(a))
	for i, s := range a {
		out[i] = fdb.ProcessAddress(s)
	}
	return out
}

// excluding is the step that excludes groups ids of class, being removed.
func excluding(class string, ids ...string) *clusterStep {
	var targets []fdb.ProcessAddress
	for _, id := range ids {
		targets = append(targets, instance(id))
	}
	return &clusterStep{
		Step: step.Step{
			Reason: "ExcludedProcessGroups", Message: fmt.Sprintf("excluded %s process groups %s", class, strings.Join(ids, ", ")),
			Action: &policy.Action{Type: apiv1alpha1.ActionExclude, Targets: ids, ProcessClass: class, Reason: "removal"},
		},
		Kind: kindExclude, Addresses: targets,
	}
}

func waiting(msg string) *clusterStep {
	return &clusterStep{Step: step.Step{Message: msg}, Kind: kindWait}
}

// dnsCoordinators are the fixture's coordinators, storage-1 to 3, named by
// DNS name.
const dnsCoordinators = "db-storage-1.db.ns.svc.cluster.local:4501,db-storage-2.db.ns.svc.cluster.local:4501,db-storage-3.db.ns.svc.cluster.local:4501"

// firstCoordinators is the step that chooses the fixture's first
// coordinators, storage-1 to 3, and takes the marks off claims.
func firstCoordinators(claims ...*corev1.PersistentVolumeClaim) *clusterStep {
	return &clusterStep{
		Step: step.Step{
			Reason: "ChangedCoordinators", Message: "chose initial coordinators 10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501",
			Action: &policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Targets: []string{"10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"},
				Reason: "initial coordinators", Details: map[string]any{policy.DetailInitial: true}},
		},
		Kind:      kindFirstCoordinators,
		ConfigMap: monitorConfigMap(convergedCS, v1alpha1.ProcessClassStorage),
		Addresses: addrs("10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"),
		Claims:    claims,
	}
}

// coordinatorsChanged is the step that changes the coordinators to to
// because of problem.
func coordinatorsChanged(problem string, to ...string) *clusterStep {
	return &clusterStep{
		Step: step.Step{
			Reason:  "ChangedCoordinators",
			Message: "changed coordinators to " + strings.Join(to, ",") + ": " + problem,
			Action:  &policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Targets: to, Reason: problem},
		},
		Kind: kindChangeCoordinators, Addresses: addrs(to...),
	}
}

// TestPlanSteps plans one change of a converged cluster per case and
// compares the whole step.
func TestPlanSteps(t *testing.T) {
	cases := map[string]struct {
		reason string
		n      int // storage groups of the converged cluster; 5 when 0
		mutate []mutation
		want   *clusterStep
	}{
		"Converged": {
			reason: "A cluster exactly as its spec says needs no step.",
		},
		"ConfigMapMissing": {
			reason: "A missing ConfigMap is written with the cluster file and a monitor configuration per class.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) { o.configMap = nil }},
			want: &clusterStep{
				Step: step.Step{Reason: "UpdatedConfigMap", Message: "updated ConfigMap db-config"},
				Kind: kindWriteConfigMap, ConfigMap: monitorConfigMap(convergedCS, v1alpha1.ProcessClassStorage),
			},
		},
		"ConfigMapEdited": {
			reason: "A ConfigMap whose data was edited is rewritten, extra keys dropped.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) {
				o.configMap["fdbmonitor-conf-storage-density-1"] = "[general]\n"
				o.configMap["extra"] = "x"
			}},
			want: &clusterStep{
				Step: step.Step{Reason: "UpdatedConfigMap", Message: "updated ConfigMap db-config"},
				Kind: kindWriteConfigMap, ConfigMap: monitorConfigMap(convergedCS, v1alpha1.ProcessClassStorage),
			},
		},
		"ConfigMapBehindDatabase": {
			reason: "The cluster file follows the connection string the database reports, not the one the provider wrote.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) {
				o.status.Cluster.ConnectionString = "db:01234567@10.0.0.4:4501,10.0.0.5:4501,10.0.0.6:4501"
			}},
			want: &clusterStep{
				Step: step.Step{Reason: "UpdatedConfigMap", Message: "updated ConfigMap db-config"},
				Kind: kindWriteConfigMap, ConfigMap: monitorConfigMap("db:01234567@10.0.0.4:4501,10.0.0.5:4501,10.0.0.6:4501", v1alpha1.ProcessClassStorage),
			},
		},
		"ConfigMapForNewClass": {
			reason: "A class the spec now asks for gets its monitor configuration.",
			mutate: []mutation{logs(1)},
			want: &clusterStep{
				Step: step.Step{Reason: "UpdatedConfigMap", Message: "updated ConfigMap db-config"},
				Kind: kindWriteConfigMap, ConfigMap: monitorConfigMap(convergedCS, v1alpha1.ProcessClassStorage, v1alpha1.ProcessClassLog),
			},
		},
		"ConfigMapKeepsClassOfExistingGroups": {
			reason: "The monitor configuration of a class the spec no longer asks for stays while groups of it exist.",
			mutate: []mutation{addGroup(v1alpha1.ProcessClassLog, "log-1", "a", "10.0.1.1"), removing("log-1"),
				func(_ *v1alpha1.Cluster, o *observation) { o.configMap = nil }},
			want: &clusterStep{
				Step: step.Step{Reason: "UpdatedConfigMap", Message: "updated ConfigMap db-config"},
				Kind: kindWriteConfigMap, ConfigMap: monitorConfigMap(convergedCS, v1alpha1.ProcessClassStorage, v1alpha1.ProcessClassLog),
			},
		},
		"CreateGroups": {
			reason: "Missing groups get the lowest free IDs and the emptiest zones first, ties by zone name.",
			mutate: []mutation{storage(8)},
			want: &clusterStep{
				Step: step.Step{
					Reason: "CreatedProcessGroups", Message: "created storage process groups storage-6, storage-7, storage-8",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"storage-6", "storage-7", "storage-8"}, ProcessClass: "storage"},
				},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-6@a", "storage-7@a", "storage-8@b"),
			},
		},
		"CreateGroupsSkipExcludedIDs": {
			reason: "An ID still in the exclusion list is not reused: the exclusion would exclude the new group.",
			mutate: []mutation{storage(6), excluded(instance("storage-6"))},
			want: &clusterStep{
				Step: step.Step{
					Reason: "CreatedProcessGroups", Message: "created storage process groups storage-7",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"storage-7"}, ProcessClass: "storage"},
				},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-7@a"),
			},
		},
		"CreateGroupsReuseFreeID": {
			reason: "The ID of a group that is gone and not excluded is free again.",
			mutate: []mutation{gone("storage-4")},
			want: &clusterStep{
				Step: step.Step{
					Reason: "CreatedProcessGroups", Message: "created storage process groups storage-4",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"storage-4"}, ProcessClass: "storage"},
				},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-4@a"),
			},
		},
		"CreateGroupsReplaceRemoval": {
			reason: "A group being removed no longer counts but keeps its ID; its replacement goes to the emptiest zone, its predecessor's among equals.",
			mutate: []mutation{removing("storage-5")},
			want: &clusterStep{
				Step: step.Step{
					Reason: "CreatedProcessGroups", Message: "created storage process groups storage-6",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"storage-6"}, ProcessClass: "storage"},
				},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-6@c"),
			},
		},
		"CreateGroupsOneClassAtATime": {
			reason: "One class per pass, in the fixed class order: log before stateless.",
			mutate: []mutation{logs(1), stateless(2), currentConfigMap()},
			want: &clusterStep{
				Step: step.Step{
					Reason: "CreatedProcessGroups", Message: "created log process groups log-1",
					Action: &policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup, Targets: []string{"log-1"}, ProcessClass: "log"},
				},
				Kind: kindCreateGroups, Groups: refs(v1alpha1.ProcessClassLog, "log-1@a"),
			},
		},
		"FirstCoordinators": {
			reason: "Without a cluster file the coordinators are chosen from the pods, one per zone, and written with the cluster file.",
			mutate: []mutation{noDatabase()},
			want:   firstCoordinators(),
		},
		"FirstCoordinatorsSettleTheirClaims": {
			reason: "The database's creation writes the coordinated state to the first coordinators, and a change after it to those it names: every claim made so far loses its mark.",
			mutate: []mutation{noDatabase(), newVolume("storage-1", "storage-2", "storage-3", "storage-4", "storage-5")},
			want: func() *clusterStep {
				_, o := observed(5, noDatabase(), newVolume("storage-1", "storage-2", "storage-3", "storage-4", "storage-5"))
				return firstCoordinators(o.claims["storage-1"], o.claims["storage-2"], o.claims["storage-3"], o.claims["storage-4"], o.claims["storage-5"])
			}(),
		},
		"FirstCoordinatorsWaitForZones": {
			reason: "With running pods in only two zones the first coordinators wait.",
			mutate: []mutation{noDatabase(), func(_ *v1alpha1.Cluster, o *observation) {
				groupNamed(o, "storage-2").Status.AtProvider.Addresses = nil
				groupNamed(o, "storage-5").Status.AtProvider.Addresses = nil
			}},
			want: waiting("waiting for pods to run before choosing coordinators: cannot choose coordinators: 3 needed in distinct zones, 2 eligible zones"),
		},
		"FirstCoordinatorsSkipRemovals": {
			reason: "A group being removed is no first coordinator: without storage-3 zone a has none.",
			mutate: []mutation{noDatabase(), storage(4), removing("storage-3")},
			want:   waiting("waiting for pods to run before choosing coordinators: cannot choose coordinators: 3 needed in distinct zones, 2 eligible zones"),
		},
		"ConfigureNew": {
			reason: "A reachable database that was never configured is created with the spec's configuration.",
			mutate: []mutation{unconfigured()},
			want: &clusterStep{
				Step: step.Step{
					Reason: "ConfiguredDatabase", Message: "created the database: configure new double ssd-2",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "new database", Details: map[string]any{policy.DetailNewDatabase: true}},
				},
				Kind:          kindConfigureNew,
				Configuration: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1},
			},
		},
		"NoConfigureNewWithoutDatabase": {
			reason: "Without an admin client the database is not created, though the cluster file exists.",
			mutate: []mutation{noDatabase(), func(cr *v1alpha1.Cluster, o *observation) {
				o.clusterFile = convergedCS
				o.configMap = workload.ConfigMap(cr, convergedCS, map[workload.Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 1}: true}).Data
			}},
		},
		"RemoveGroups": {
			reason: "Extra groups are removed one per fullest zone; removal is gated where each group is deleted, not here.",
			mutate: []mutation{storage(3)},
			want: &clusterStep{
				Step: step.Step{Reason: "RemovingProcessGroups", Message: "removing storage process groups storage-4, storage-5"},
				Kind: kindRemoveGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-4@b", "storage-5@c"),
			},
		},
		"RemoveNonCoordinatorsFirst": {
			reason: "Of the fullest zones' groups, a non-coordinator is removed before higher-numbered coordinators.",
			mutate: []mutation{coordinators("storage-3", "storage-4", "storage-5"), storage(4)},
			want: &clusterStep{
				Step: step.Step{Reason: "RemovingProcessGroups", Message: "removing storage process groups storage-2"},
				Kind: kindRemoveGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-2@c"),
			},
		},
		"RemoveFromFullestZone": {
			reason: "The group removed comes from the fullest zone (c), not the highest number (storage-6 in zone a).",
			n:      6,
			mutate: []mutation{zone("storage-4", "c"), storage(5), currentConfigMap()},
			want: &clusterStep{
				Step: step.Step{Reason: "RemovingProcessGroups", Message: "removing storage process groups storage-5"},
				Kind: kindRemoveGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-5@c"),
			},
		},
		"RemoveSkipsRemovals": {
			reason: "Groups already being removed do not count and are not chosen again.",
			mutate: []mutation{storage(3), removing("storage-5")},
			want: &clusterStep{
				Step: step.Step{Reason: "RemovingProcessGroups", Message: "removing storage process groups storage-4"},
				Kind: kindRemoveGroups, Groups: refs(v1alpha1.ProcessClassStorage, "storage-4@b"),
			},
		},
		"CoordinatorBeingRemoved": {
			reason: "A coordinator in a group being removed is replaced, one per zone, by process ID.",
			mutate: []mutation{storage(4), removing("storage-1")},
			want:   coordinatorsChanged("coordinator 10.0.0.2:4501 is missing, excluded, being removed or not eligible", "10.0.0.3:4501", "10.0.0.4:4501", "10.0.0.5:4501"),
		},
		"CoordinatorExcluded": {
			reason: "An excluded coordinator is replaced.",
			mutate: []mutation{excluded("10.0.0.3:4501")},
			want:   coordinatorsChanged("coordinator 10.0.0.3:4501 is missing, excluded, being removed or not eligible", "10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501"),
		},
		"CoordinatorOnNewVolume": {
			reason: "A coordinator whose claim was made after the change that named it may hold no coordinated state: it is replaced.",
			mutate: []mutation{newVolume("storage-2")},
			want: coordinatorsChanged("coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
				"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501"),
		},
		"NewVolumeNamedByTheChange": {
			reason: "The change writes the coordinated state to each coordinator it names, and takes the marks of their claims off.",
			mutate: []mutation{newVolume("storage-2", "storage-5")},
			want: func() *clusterStep {
				s := coordinatorsChanged("coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
					"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501")
				_, o := observed(5, newVolume("storage-5"))
				s.Claims = []*corev1.PersistentVolumeClaim{o.claims["storage-5"]}
				return s
			}(),
		},
		"NewVolumeBeforeTheLastChange": {
			reason: "A claim made under an earlier connection string was in place when the change to the current one named its coordinator.",
			mutate: []mutation{newVolumeUnder(func(*observation) string { return "db:earlier@10.0.0.9:4501" }, "storage-2")},
		},
		"NewVolumeUnderAnUnknownConnectionString": {
			reason: "A claim made without a status to tell the connection string may hold no coordinated state.",
			mutate: []mutation{newVolumeUnder(func(*observation) string { return "" }, "storage-2")},
			want: coordinatorsChanged("coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
				"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501"),
		},
		"NewVolumeReseededByARecovery": {
			reason: "A recovery that began after the coordinator's process started wrote the coordinated state to it: nothing to do.",
			mutate: []mutation{newVolume("storage-2"), recoveredSince(60)},
		},
		"NewVolumeBeforeTheLastRecovery": {
			reason: "A process that started after the last recovery may have missed its write: still blank.",
			mutate: []mutation{newVolume("storage-2"), recoveredSince(7200)},
			want: coordinatorsChanged("coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
				"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501"),
		},
		"NewVolumeJustBeforeTheLastRecovery": {
			reason: "A process that started less than a minute before the database became available may have started after the write: still blank.",
			mutate: []mutation{newVolume("storage-2"), recoveredSince(3570)},
			want: coordinatorsChanged("coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
				"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501"),
		},
		"NewVolumeRecoveryTimeUnknown": {
			reason: "Without the time of the last recovery (-1) nothing tells that one reached the coordinator: still blank.",
			mutate: []mutation{newVolume("storage-2"), recoveredSince(-1)},
			want: coordinatorsChanged("coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
				"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.6:4501"),
		},
		"NewVolumeWithNoWayAround": {
			reason: "With no other set to move to, a restart of the master's process starts a recovery, which writes the state to the blank coordinator.",
			n:      3,
			mutate: []mutation{newVolume("storage-2"), master("storage-1")},
			want: &clusterStep{
				Step: step.Step{Reason: "RecoveredForCoordinatedState",
					Message: "restarted the master's process 10.0.0.2:4501, so that the recovery writes the coordinated state to every coordinator: " +
						"coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-1"},
						Reason:  "coordinator 10.0.0.3:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
						Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600)}}},
				Kind: kindBounce, Addresses: addrs("10.0.0.2:4501"),
			},
		},
		"NewVolumeOfNoCoordinator": {
			reason: "A new volume matters only under a coordinator.",
			mutate: []mutation{newVolume("storage-5")},
		},
		"CoordinatorMissing": {
			reason: "A coordinator whose process does not report is replaced by a process in its zone.",
			n:      6,
			mutate: []mutation{notReporting("storage-3")},
			want:   coordinatorsChanged("coordinator 10.0.0.4:4501 is missing, excluded, being removed or not eligible", "10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.7:4501"),
		},
		"CoordinatorsRenamedToDNS": {
			reason: "Once the processes report their DNS names, coordinators named by IP address are named anew by DNS name, the same processes.",
			mutate: []mutation{dnsNames(true)},
			want:   coordinatorsChanged("coordinator 10.0.0.2:4501 is named by IP address and the cluster file uses DNS names", strings.Split(dnsCoordinators, ",")...),
		},
		"RenameWaitsForDNSNames": {
			reason: "Processes that do not report DNS names yet (not restarted on the new command line) cannot be named by them: the bounce comes first.",
			mutate: []mutation{dnsNames(false), loaded()},
			want: &clusterStep{
				Step: step.Step{Reason: "BouncedProcesses", Message: "restarted the processes of storage-1, storage-2, storage-3, storage-4, storage-5 to apply their new command lines",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"}, Reason: "command line changed",
						Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600)}}},
				Kind: kindBounce, Addresses: addrs("10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"),
			},
		},
		"CoordinatorsShareZone": {
			reason: "Two coordinators in one zone are replaced by one per zone.",
			mutate: []mutation{coordinators("storage-1", "storage-2", "storage-4")},
			want:   coordinatorsChanged("two coordinators share zone b", "10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"),
		},
		"CoordinatorsCannotMove": {
			reason: "When no valid set can be chosen (zone a has no other process) the planner waits and says why.",
			mutate: []mutation{notReporting("storage-3")},
			want: waiting("coordinators must change (coordinator 10.0.0.4:4501 is missing, excluded, being removed or not eligible) " +
				"but cannot choose coordinators: 3 needed in distinct zones, 2 eligible zones"),
		},
		"NoCoordinatorChangeWhileUnavailable": {
			reason: "Coordinators are not changed while the database is unavailable.",
			n:      6,
			mutate: []mutation{notReporting("storage-3"), unavailable()},
		},
		"Exclude": {
			reason: "Groups being removed are excluded by their instance ID locality, in one batch.",
			mutate: []mutation{storage(3), removing("storage-4", "storage-5")},
			want:   excluding("storage", "storage-4", "storage-5"),
		},
		"ExcludeOneClassAtATime": {
			reason: "Removals of two classes are excluded one class per pass, lowest class name first.",
			mutate: []mutation{addGroup(v1alpha1.ProcessClassLog, "log-1", "a", "10.0.1.1"), currentConfigMap(), storage(4), removing("storage-5", "log-1")},
			want:   excluding("log", "log-1"),
		},
		"ExcludeOnlyNotExcluded": {
			reason: "A group already excluded is not excluded again; the other one is.",
			mutate: []mutation{storage(3), removing("storage-4", "storage-5"), excluded(instance("storage-4"))},
			want:   excluding("storage", "storage-5"),
		},
		"ExcludedRemovalWaitsForItsDelete": {
			reason: "Once a removal is excluded the group's own Delete finishes it; the Cluster is not up to date meanwhile, and says why.",
			mutate: []mutation{storage(4), removing("storage-5"), excluded(instance("storage-5"))},
			want:   waiting("removing process groups storage-5"),
		},
		"ConfigureStorageEngine": {
			reason: "FoundationDB refuses an engine change while storage_migration_type is disabled: the change asks for a gradual migration, through the perpetual wiggle, in the same command.",
			mutate: []mutation{engine("ssd-redwood-1")},
			want: &clusterStep{
				Step: step.Step{
					Reason: "ConfiguredDatabase", Message: "changed the database configuration to double ssd-redwood-1 (storage servers migrate from ssd-2, storage_migration_type gradual)",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configuration drift", Details: map[string]any{
						policy.DetailChangesStorageEngine: true, policy.DetailFromStorageEngine: "ssd-2", policy.DetailToStorageEngine: "ssd-redwood-1",
						policy.DetailStorageMigrationType: "gradual",
					}},
				},
				Kind: kindConfigure,
				Configuration: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-redwood-1", UsableRegions: 1,
					StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptr.To(1)},
			},
		},
		"ConfigureStorageEngineAggressively": {
			reason: "A migration type the spec names is the one configured, and aggressive needs no wiggle.",
			mutate: []mutation{engine("ssd-redwood-1"), func(cr *v1alpha1.Cluster, _ *observation) {
				cr.Spec.ForProvider.DatabaseConfiguration.StorageMigrationType = fdb.StorageMigrationAggressive
			}},
			want: &clusterStep{
				Step: step.Step{
					Reason: "ConfiguredDatabase", Message: "changed the database configuration to double ssd-redwood-1 (storage servers migrate from ssd-2, storage_migration_type aggressive)",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configuration drift", Details: map[string]any{
						policy.DetailChangesStorageEngine: true, policy.DetailFromStorageEngine: "ssd-2", policy.DetailToStorageEngine: "ssd-redwood-1",
						policy.DetailStorageMigrationType: "aggressive",
					}},
				},
				Kind: kindConfigure,
				Configuration: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-redwood-1", UsableRegions: 1,
					StorageMigrationType: fdb.StorageMigrationAggressive},
			},
		},
		"StorageEngineWithMigrationDisabled": {
			reason: "A spec that disables migration cannot change the engine: the Cluster waits and says why, instead of a command FoundationDB refuses.",
			mutate: []mutation{engine("ssd-redwood-1"), func(cr *v1alpha1.Cluster, _ *observation) {
				cr.Spec.ForProvider.DatabaseConfiguration.StorageMigrationType = fdb.StorageMigrationDisabled
			}},
			want: waiting("spec.forProvider.databaseConfiguration.storageMigrationType is disabled: FoundationDB refuses to change the storage engine from ssd-2 to ssd-redwood-1"),
		},
		"StorageServersMigrating": {
			reason: "Once configured, the Cluster is not up to date while storage servers run the old engine, and says how far the migration is.",
			mutate: []mutation{engine("ssd-redwood-1"), func(_ *v1alpha1.Cluster, o *observation) {
				c := &o.status.Cluster.Configuration
				c.StorageEngine, c.StorageMigrationType, c.PerpetualStorageWiggle = "ssd-redwood-1", fdb.StorageMigrationGradual, ptr.To(1)
				o.status.Cluster.StorageWiggler = &fdb.StorageWiggler{WiggleServerAddresses: []string{"10.0.0.9:4501"}}
			}, storageEngines("ssd-2", "storage-2", "storage-3")},
			want: waiting("storage servers migrating to ssd-redwood-1: 3 of 5 storage processes run only it (wiggling 10.0.0.9:4501)"),
		},
		"AggressiveMigrationHalfway": {
			reason: "A process that runs a server of each engine has not migrated until the old one is gone.",
			mutate: []mutation{engine("ssd-redwood-1"), func(_ *v1alpha1.Cluster, o *observation) {
				c := &o.status.Cluster.Configuration
				c.StorageEngine, c.StorageMigrationType = "ssd-redwood-1", fdb.StorageMigrationAggressive
			}, storageEngines("ssd-2"), func(_ *v1alpha1.Cluster, o *observation) {
				k, p := processOf(o, "storage-1")
				p.Roles = append(p.Roles, fdb.ProcessRole{Role: fdb.RoleStorage, StorageMetadata: &fdb.StorageMetadata{StorageEngine: "ssd-2"}})
				o.status.Cluster.Processes[k] = p
			}},
			want: waiting("storage servers migrating to ssd-redwood-1: 4 of 5 storage processes run only it"),
		},
		"StorageMigrationWithoutTheWiggle": {
			reason: "A gradual migration with the wiggle off makes no progress, which the wait says.",
			mutate: []mutation{engine("ssd-redwood-1"), func(cr *v1alpha1.Cluster, o *observation) {
				cr.Spec.ForProvider.DatabaseConfiguration.PerpetualStorageWiggle = ptr.To(0)
				c := &o.status.Cluster.Configuration
				c.StorageEngine, c.StorageMigrationType, c.PerpetualStorageWiggle = "ssd-redwood-1", fdb.StorageMigrationGradual, ptr.To(0)
			}, storageEngines("ssd-2", "storage-2")},
			want: waiting("storage servers migrating to ssd-redwood-1: 4 of 5 storage processes run only it; storage_migration_type gradual makes no progress while perpetual_storage_wiggle is 0"),
		},
		"WiggleEngineOfALocality": {
			reason: "perpetual_storage_wiggle_engine moves the servers of the wiggle's locality to its engine: the Cluster waits for those, not for the others.",
			mutate: []mutation{wiggleEngineOn("ssd-redwood-1", "instance_id:storage-2"), storageEngines("ssd-redwood-1", "storage-3")},
			want:   waiting("storage servers migrating to ssd-2, those of wiggle locality instance_id:storage-2 to ssd-redwood-1: 3 of 5 storage processes run only theirs"),
		},
		"WiggleEngineOfALocalityDone": {
			reason: "Once the locality's servers run the wiggle's engine and the others the storage engine, nothing is left to migrate.",
			mutate: []mutation{wiggleEngineOn("ssd-redwood-1", "instance_id:storage-2"), storageEngines("ssd-redwood-1", "storage-2")},
		},
		"StorageEnginesUnknown": {
			reason: "A status that does not say which engine each server runs (7.1) shows no migration to wait for.",
			mutate: []mutation{engine("ssd-redwood-1"), func(_ *v1alpha1.Cluster, o *observation) {
				o.status.Cluster.Configuration.StorageEngine = "ssd-redwood-1"
			}},
		},
		"ConfigureCount": {
			reason: "A count the spec sets and the database runs otherwise is configured.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.DatabaseConfiguration.Logs = ptr.To(4) }},
			want: &clusterStep{
				Step: step.Step{
					Reason: "ConfiguredDatabase", Message: "changed the database configuration to double ssd-2",
					Action: &policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Reason: "configuration drift"},
				},
				Kind:          kindConfigure,
				Configuration: fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1, Logs: 4},
			},
		},
		"UnsetCountsAreFoundationDBsChoice": {
			reason: "Counts the spec leaves unset are whatever the database runs.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) {
				c := &o.status.Cluster.Configuration.DatabaseConfiguration
				c.Logs, c.CommitProxies, c.GrvProxies, c.Resolvers = 3, 2, 1, 1
			}},
		},
		"Bounce": {
			reason: "Processes whose command line changed are restarted in one kill; the policy sees the shortest uptime.",
			mutate: []mutation{knob("knob_max_trace_lines=1000"), currentConfigMap(), loaded(), uptime("storage-2", 120)},
			want: &clusterStep{
				Step: step.Step{
					Reason:  "BouncedProcesses",
					Message: "restarted the processes of storage-1, storage-2, storage-3, storage-4, storage-5 to apply their new command lines",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"},
						Reason: "command line changed", Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(120)}},
				},
				Kind: kindBounce, Addresses: addrs("10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"),
			},
		},
		"RestartRequested": {
			reason: "The processes that started before their group's restart request are killed, gated as Kill.",
			mutate: []mutation{at(), restartRequested("storage-2", -time.Minute)},
			want: &clusterStep{
				Step: step.Step{
					Reason:  "BouncedProcesses",
					Message: "restarted the processes of storage-2 as their groups' restart requests ask",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-2"},
						Reason: "restart requested", Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600)}},
				},
				Kind: kindBounce, Addresses: addrs("10.0.0.3:4501"),
			},
		},
		"RestartRequestedWithABounce": {
			reason: "A restart request joins the bounce due: one kill, one recovery.",
			mutate: []mutation{at(), restartRequested("storage-2", -time.Minute), staleCommandLine("storage-3")},
			want: &clusterStep{
				Step: step.Step{
					Reason:  "BouncedProcesses",
					Message: "restarted the processes of storage-2, storage-3 to apply their new command lines, and as their groups' restart requests ask",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-2", "storage-3"},
						Reason: "command line changed; restart requested", Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600)}},
				},
				Kind: kindBounce, Addresses: addrs("10.0.0.3:4501", "10.0.0.4:4501"),
			},
		},
		"RestartRequestDone": {
			reason: "Processes that started after the request (the kill it asked for) are not restarted again.",
			mutate: []mutation{at(), restartRequested("storage-2", -time.Minute), uptime("storage-2", 30)},
		},
		"RestartRequestStillToCome": {
			reason: "A request for a time still to come is not honoured before it: the processes it restarted would have started before it too.",
			mutate: []mutation{at(), restartRequested("storage-2", time.Hour)},
		},
		"BounceOnlyDiffering": {
			reason: "Only the processes whose command line differs are restarted.",
			mutate: []mutation{staleCommandLine("storage-3"), uptime("storage-2", 120)},
			want: &clusterStep{
				Step: step.Step{
					Reason:  "BouncedProcesses",
					Message: "restarted the processes of storage-3 to apply their new command lines",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-3"},
						Reason: "command line changed", Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600)}},
				},
				Kind: kindBounce, Addresses: addrs("10.0.0.4:4501"),
			},
		},
		"BounceWaitsForTheMonitors": {
			reason: "A process restarts on the configuration its monitor loaded: no kill before every monitor whose processes report loaded the new one.",
			mutate: []mutation{knob("knob_max_trace_lines=1000"), currentConfigMap(), loaded(), unloaded("storage-3")},
			want:   waiting("waiting for the monitors of pods db-storage-3 to report loading the configuration the ConfigMap holds for them before their processes restart (at most 10m0s each)"),
		},
		"BounceSkipsRemovals": {
			reason: "Processes of groups being removed are not restarted.",
			mutate: []mutation{knob("knob_max_trace_lines=1000"), currentConfigMap(), loaded(), storage(4), removing("storage-5"), excluded(instance("storage-5"))},
			want: &clusterStep{
				Step: step.Step{
					Reason:  "BouncedProcesses",
					Message: "restarted the processes of storage-1, storage-2, storage-3, storage-4 to apply their new command lines",
					Action: &policy.Action{Type: apiv1alpha1.ActionKill, Targets: []string{"storage-1", "storage-2", "storage-3", "storage-4"},
						Reason: "command line changed", Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600)}},
				},
				Kind: kindBounce, Addresses: addrs("10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501", "10.0.0.5:4501"),
			},
		},
		"NoBounceWhileUnavailable": {
			reason: "Processes are not restarted while the database is unavailable.",
			mutate: []mutation{knob("knob_max_trace_lines=1000"), currentConfigMap(), unavailable()},
		},
		"Include": {
			reason: "Exclusions of groups that are gone are included in one batch; address exclusions are left alone.",
			mutate: []mutation{excluded(instance("storage-7"), instance("storage-6"), "10.0.0.99:4501")},
			want: &clusterStep{
				Step: step.Step{
					Reason: "IncludedProcessGroups", Message: "included removed process groups storage-6, storage-7",
					Action: &policy.Action{Type: apiv1alpha1.ActionInclude, Targets: []string{"storage-6", "storage-7"}, Reason: "removal finished"},
				},
				Kind: kindInclude, Addresses: addrs("locality_instance_id:storage-6", "locality_instance_id:storage-7"),
			},
		},
		"NoIncludeOfAnotherDataCenters": {
			reason: "The exclusion list is the database's: another data center's Cluster may be draining a group of its own, which this one never includes.",
			mutate: []mutation{excluded(instance("storage-7"), instance("dc2-storage-1"), instance("some-machine"))},
			want: &clusterStep{
				Step: step.Step{
					Reason: "IncludedProcessGroups", Message: "included removed process groups storage-7",
					Action: &policy.Action{Type: apiv1alpha1.ActionInclude, Targets: []string{"storage-7"}, Reason: "removal finished"},
				},
				Kind: kindInclude, Addresses: addrs("locality_instance_id:storage-7"),
			},
		},
		"NoIncludeOfExistingGroup": {
			reason: "The exclusion of a group that still exists is kept.",
			mutate: []mutation{excluded(instance("storage-5"))},
		},
		"DisruptionGrant": {
			reason: "While a fault domain holds the grant the cluster waits for it.",
			mutate: []mutation{granted("b", 1)},
			want:   waiting("fault domain b may recreate its pods (disruption grant of generation 1)"),
		},
		"DisruptionGrantForTheDisruptedOnly": {
			reason: "While another domain is disrupted too the grant lets only pods that serve nothing go, and the cluster says so.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, o *observation) {
				o.members, o.grant = o.disruptionMembers(cr), &disruption.Grant{Domain: "b", Generation: 1, DisruptedOnly: true}
			}},
			want: waiting("fault domain b holds the disruption grant (generation 1) while another domain is disrupted too: only pods that serve nothing may be recreated, in any domain"),
		},
		"DisruptionHold": {
			reason: "While no domain may be disrupted the cluster waits and says why.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) {
				o.holdWhy = "waiting for fault domains b, c to recover before disrupting another"
			}},
			want: waiting("waiting for fault domains b, c to recover before disrupting another"),
		},
		"PodDriftTakesTheGrant": {
			reason: "A pod whose spec drifted makes its zone take the grant, and the cluster waits for it once the zone is under maintenance.",
			mutate: []mutation{podDrifted("storage-2"), regrant(), maintenance("c", 600, "c")},
			want:   waiting("fault domain c may recreate its pods (disruption grant of generation 1)"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := tc.n
			if n == 0 {
				n = 5
			}
			cr, o := observed(n, tc.mutate...)
			if diff := cmp.Diff(tc.want, next(cr, o), compareGroups); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlanOrder makes two or more steps apply at once; the one the planner
// considers first wins.
func TestPlanOrder(t *testing.T) {
	type want struct {
		Kind    kind
		Message string
	}
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *want
	}{
		"ConfigMapBeforeCreateGroups": {
			reason: "The monitor configuration of a new class is written before its pods, which mount it, exist.",
			mutate: []mutation{logs(1)},
			want:   &want{kindWriteConfigMap, "updated ConfigMap db-config"},
		},
		"ConfigMapBeforeBounce": {
			reason: "A new command line is written to the ConfigMap before the processes restart to pick it up.",
			mutate: []mutation{knob("knob_max_trace_lines=1000")},
			want:   &want{kindWriteConfigMap, "updated ConfigMap db-config"},
		},
		"ConfigMapBeforeEverything": {
			reason: "Without a ConfigMap nothing else is planned.",
			mutate: []mutation{storage(7), removing("storage-1"), engine("ssd-redwood-1"), excluded(instance("storage-9")), granted("a", 1),
				func(_ *v1alpha1.Cluster, o *observation) { o.configMap = nil }},
			want: &want{kindWriteConfigMap, "updated ConfigMap db-config"},
		},
		"CreateGroupsBeforeFirstCoordinators": {
			reason: "Groups are created before the first coordinators are chosen from their pods.",
			mutate: []mutation{noDatabase(), storage(6)},
			want:   &want{kindCreateGroups, "created storage process groups storage-6"},
		},
		"CreateGroupsBeforeRemoveGroups": {
			reason: "A class below its count grows before another class above its count shrinks.",
			mutate: []mutation{addGroup(v1alpha1.ProcessClassLog, "log-1", "a", "10.0.1.1"), currentConfigMap(), storage(6)},
			want:   &want{kindCreateGroups, "created storage process groups storage-6"},
		},
		"CreateGroupsBeforeCoordinators": {
			reason: "A coordinator's group that is gone is replaced before the coordinators move.",
			mutate: []mutation{gone("storage-3")},
			want:   &want{kindCreateGroups, "created storage process groups storage-3"},
		},
		"FirstCoordinatorsBeforeConfigureNew": {
			reason: "The database is created only once there is a cluster file.",
			mutate: []mutation{unconfigured(), func(_ *v1alpha1.Cluster, o *observation) {
				o.clusterFile, o.status.Cluster.ConnectionString = "", ""
				o.configMap = monitorConfigMap("", v1alpha1.ProcessClassStorage)
			}},
			want: &want{kindFirstCoordinators, "chose initial coordinators 10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501"},
		},
		"ConfigureNewBeforeRemoveGroups": {
			reason: "The database is created before groups are removed.",
			mutate: []mutation{unconfigured(), storage(3)},
			want:   &want{kindConfigureNew, "created the database: configure new double ssd-2"},
		},
		"RemoveGroupsBeforeCoordinators": {
			reason: "Groups are marked for removal before coordinators move.",
			mutate: []mutation{storage(4), coordinators("storage-1", "storage-2", "storage-4")},
			want:   &want{kindRemoveGroups, "removing storage process groups storage-5"},
		},
		"CoordinatorsBeforeExclude": {
			reason: "A coordinator moves off a group being removed before that group is excluded.",
			mutate: []mutation{storage(4), removing("storage-1")},
			want: &want{kindChangeCoordinators,
				"changed coordinators to 10.0.0.3:4501,10.0.0.4:4501,10.0.0.5:4501: coordinator 10.0.0.2:4501 is missing, excluded, being removed or not eligible"},
		},
		"CoordinatorsWaitBlocksExclude": {
			reason: "While the coordinators cannot move off a group being removed, the group is not excluded.",
			mutate: []mutation{storage(4), removing("storage-3")},
			want: &want{kindWait,
				"coordinators must change (coordinator 10.0.0.4:4501 is missing, excluded, being removed or not eligible) but cannot choose coordinators: 3 needed in distinct zones, 2 eligible zones"},
		},
		"ExcludeBeforeConfigure": {
			reason: "A removal's exclusion comes before a configuration change.",
			mutate: []mutation{storage(4), removing("storage-5"), engine("ssd-redwood-1")},
			want:   &want{kindExclude, "excluded storage process groups storage-5"},
		},
		"ExcludeBeforeInclude": {
			reason: "A removal is excluded before finished removals are included.",
			mutate: []mutation{storage(4), removing("storage-5"), excluded(instance("storage-9"))},
			want:   &want{kindExclude, "excluded storage process groups storage-5"},
		},
		"IncludeWaitsForRemoval": {
			reason: "Finished removals are not included while another removal is in flight.",
			mutate: []mutation{storage(4), removing("storage-5"), excluded(instance("storage-5"), instance("storage-9"))},
			want:   &want{kindWait, "waiting for the removal of storage-5 before including storage-9 in one batch"},
		},
		"ConfigureBeforeBounce": {
			reason: "The configuration changes before processes restart.",
			mutate: []mutation{engine("ssd-redwood-1"), knob("knob_max_trace_lines=1000"), currentConfigMap()},
			want:   &want{kindConfigure, "changed the database configuration to double ssd-redwood-1 (storage servers migrate from ssd-2, storage_migration_type gradual)"},
		},
		"BounceBeforeInclude": {
			reason: "Processes restart before finished removals are included.",
			mutate: []mutation{staleCommandLine("storage-1"), excluded(instance("storage-9"))},
			want:   &want{kindBounce, "restarted the processes of storage-1 to apply their new command lines"},
		},
		"BounceBeforeDisruptionWait": {
			reason: "The wait for a disruption grant comes last.",
			mutate: []mutation{staleCommandLine("storage-1"), granted("b", 1)},
			want:   &want{kindBounce, "restarted the processes of storage-1 to apply their new command lines"},
		},
		"IncludeBeforeDisruptionWait": {
			reason: "The wait for a disruption grant comes after the inclusion.",
			mutate: []mutation{excluded(instance("storage-9")), granted("b", 1)},
			want:   &want{kindInclude, "included removed process groups storage-9"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			var got *want
			if s := next(cr, o); s != nil {
				got = &want{s.Kind, s.Message}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestStepCreateGroupsNewGroup checks the whole ProcessGroup a create step
// makes.
func TestStepCreateGroupsNewGroup(t *testing.T) {
	cr, o := observed(5, storage(6), func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.StorageServersPerPod = 2
	}, currentConfigMap())
	s := next(cr, o)
	if s == nil || s.Kind != kindCreateGroups || len(s.Groups) != 1 {
		t.Fatalf("next(...) = %+v, want one group to create", s)
	}
	want := &v1alpha1.ProcessGroup{
		ObjectMeta: metav1.ObjectMeta{
			Name: "db-storage-6", Namespace: "ns",
			Labels: map[string]string{
				workload.LabelCluster: "db", workload.LabelProcessClass: "storage", workload.LabelProcessGroup: "storage-6",
				workload.LabelManagedBy: workload.ManagedBy,
			},
			Annotations: map[string]string{"crossplane.io/external-name": "storage-6"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "foundationdb.m.crossplane.io/v1alpha1", Kind: "Cluster", Name: "db", UID: "0123456789abcdef",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: v1alpha1.ProcessGroupSpec{ForProvider: v1alpha1.ProcessGroupParameters{
			ClusterReference: v1alpha1.ClusterReference{ClusterName: "db"},
			ProcessClass:     v1alpha1.ProcessClassStorage, ProcessesPerPod: 2, FaultDomain: "a", FaultDomainKey: "topology.kubernetes.io/zone",
		}},
	}
	if diff := cmp.Diff(want, s.Groups[0]); diff != "" {
		t.Errorf("the new group: -want, +got:\n%s", diff)
	}
}

// TestPlanMembers checks the groups as the disruption grant sees them.
func TestPlanMembers(t *testing.T) {
	member := func(id, zone string) disruption.Member { return disruption.Member{Group: id, Zone: zone} }
	all := func(change func(ms []disruption.Member)) []disruption.Member {
		ms := []disruption.Member{member("storage-1", "b"), member("storage-2", "c"), member("storage-3", "a"), member("storage-4", "b"), member("storage-5", "c")}
		change(ms)
		return ms
	}
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   []disruption.Member
	}{
		"Converged": {
			reason: "Every group of a converged cluster is a member that neither wants nor suffers a disruption.",
			want:   all(func([]disruption.Member) {}),
		},
		"PodDrifted": {
			reason: "A pod whose spec annotation differs from the pod the group should run wants a disruption.",
			mutate: []mutation{podDrifted("storage-2")},
			want:   all(func(ms []disruption.Member) { ms[1].Wants = true }),
		},
		"SpecChanged": {
			reason: "A Cluster spec change that changes every pod makes every group want a disruption.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, _ *observation) {
				cr.Spec.ForProvider.Image.Repository = "registry.example.com/fdb"
			}},
			want: all(func(ms []disruption.Member) {
				for i := range ms {
					ms[i].Wants = true
				}
			}),
		},
		"NewMinorVersion": {
			reason: "A version of another protocol is staged in place and restarts the processes: no pod wants a disruption.",
			mutate: []mutation{version("7.4.1")},
			want:   all(func([]disruption.Member) {}),
		},
		"NewPatchVersion": {
			reason: "A monitor runs its image's fdbserver for every patch of the image's protocol: every group whose processes run another patch wants its pod recreated on an image of the new one.",
			mutate: []mutation{version("7.3.69")},
			want: all(func(ms []disruption.Member) {
				for i := range ms {
					ms[i].Wants = true
				}
			}),
		},
		"PatchRolled": {
			reason: "A group whose processes report the new patch wants nothing more.",
			mutate: []mutation{version("7.3.69"), func(_ *v1alpha1.Cluster, o *observation) {
				for k, p := range o.status.Cluster.Processes {
					if p.Locality.InstanceID != "storage-2" {
						p.Version = "7.3.69"
						o.status.Cluster.Processes[k] = p
					}
				}
			}},
			want: all(func(ms []disruption.Member) { ms[1].Wants = true }),
		},
		"LeftBehind": {
			reason: "A group whose process an upgrade left behind (an incompatible connection of a database on the spec's version) is disrupted and wants its pod recreated.",
			mutate: []mutation{notReporting("storage-3"), func(_ *v1alpha1.Cluster, o *observation) {
				o.status.Cluster.IncompatibleConnections = groupNamed(o, "storage-3").Status.AtProvider.Addresses
			}},
			want: all(func(ms []disruption.Member) { ms[2].Disrupted, ms[2].Wants = true, true }),
		},
		"StalePublicIP": {
			reason: "A group known by its Service's IP whose pod was made with another IP than its Service has now (the Service was made anew) wants its pod recreated.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, o *observation) {
				pg := groupNamed(o, "storage-3")
				pg.Spec.ForProvider.PublicIPSource = v1alpha1.PublicIPSourceService
				name := workload.PodName(cr, "storage-3")
				pod := workload.Pod(cr, pg, "storage-3") // its spec as the group's is now
				pod.Status = o.pods[name].Status
				pod.Annotations[workload.AnnotationPublicIP] = "10.96.0.1"
				o.pods[name] = pod
				o.groupServices = map[string]*corev1.Service{name: {ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.9"}}}
			}},
			want: all(func(ms []disruption.Member) { ms[2].Wants = true }),
		},
		"PodMissing": {
			reason: "A group without a pod is disrupted and wants nothing: there is no pod to replace.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, o *observation) { delete(o.pods, workload.PodName(cr, "storage-3")) }},
			want:   all(func(ms []disruption.Member) { ms[2].Disrupted = true }),
		},
		"PodNotRunning": {
			reason: "A group whose pod is not running is disrupted.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, o *observation) {
				o.pods[workload.PodName(cr, "storage-4")].Status.Phase = corev1.PodPending
			}},
			want: all(func(ms []disruption.Member) { ms[3].Disrupted = true }),
		},
		"PodTerminating": {
			reason: "A group whose pod is terminating is disrupted.",
			mutate: []mutation{func(cr *v1alpha1.Cluster, o *observation) {
				o.pods[workload.PodName(cr, "storage-1")].DeletionTimestamp = ptr.To(metav1.NewTime(time.Unix(1, 0)))
			}},
			want: all(func(ms []disruption.Member) { ms[0].Disrupted = true }),
		},
		"NotReporting": {
			reason: "A group whose processes do not report in the status is disrupted, though its pod runs.",
			mutate: []mutation{notReporting("storage-5")},
			want:   all(func(ms []disruption.Member) { ms[4].Disrupted = true }),
		},
		"RemovalsNeverWant": {
			reason: "A group being removed never wants a disruption, whatever its pod's spec: its pod goes with it.",
			mutate: []mutation{removing("storage-2", "storage-4"), podDrifted("storage-2")},
			want:   all(func(ms []disruption.Member) { ms[1].Removing, ms[3].Removing = true, true }),
		},
		"RemovalDownIsDisrupted": {
			reason: "A group being removed whose processes are down is disrupted until it is gone: no other domain is disrupted meanwhile.",
			mutate: []mutation{removing("storage-4"), notReporting("storage-4")},
			want:   all(func(ms []disruption.Member) { ms[3].Disrupted, ms[3].Removing = true, true }),
		},
		"ZoneFromSpec": {
			reason: "A group whose zone was not observed yet is in the zone its pod was placed in.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) {
				groupNamed(o, "storage-3").Status.AtProvider.FaultDomain = ""
			}},
			want: all(func([]disruption.Member) {}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			if diff := cmp.Diff(tc.want, o.disruptionMembers(cr)); diff != "" {
				t.Errorf("\n%s\ndisruptionMembers(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlanNextGrant checks the disruption grant a reconcile decides on.
func TestPlanNextGrant(t *testing.T) {
	holding := func(domain string, generation int64) mutation {
		return func(cr *v1alpha1.Cluster, _ *observation) {
			cr.Status.AtProvider.Disruption = &v1alpha1.DisruptionGrant{Domain: domain, Generation: generation}
		}
	}
	generation := func(g int64) mutation {
		return func(cr *v1alpha1.Cluster, _ *observation) { cr.SetGeneration(g) }
	}
	noStatus := func(_ *v1alpha1.Cluster, o *observation) { o.status = nil }
	cases := map[string]struct {
		reason string
		mutate []mutation
		grant  *disruption.Grant
		why    string
	}{
		"Converged": {
			reason: "Nothing wants a disruption: no grant, nothing to explain.",
		},
		"Drift": {
			reason: "A drifted pod's zone is granted under the Cluster's generation.",
			mutate: []mutation{generation(3), podDrifted("storage-4")},
			grant:  &disruption.Grant{Domain: "b", Generation: 3},
		},
		"LowestZone": {
			reason: "Of two zones that want a disruption the lowest-sorting is granted.",
			mutate: []mutation{podDrifted("storage-2"), podDrifted("storage-1")},
			grant:  &disruption.Grant{Domain: "b", Generation: 1},
		},
		"KeepWhileDisrupted": {
			reason: "The current grant is kept while its zone's pod is recreated, under the new generation.",
			mutate: []mutation{holding("c", 1), generation(2), podDrifted("storage-1"),
				func(cr *v1alpha1.Cluster, o *observation) { delete(o.pods, workload.PodName(cr, "storage-5")) }},
			grant: &disruption.Grant{Domain: "c", Generation: 2},
		},
		"RevokeWhenDone": {
			reason: "A grant whose zone is healthy and as its spec says is revoked.",
			mutate: []mutation{holding("c", 1)},
		},
		"Hold": {
			reason: "While two zones are disrupted no other zone may disrupt, and the reason names them.",
			mutate: []mutation{podDrifted("storage-3"), notReporting("storage-1"),
				func(cr *v1alpha1.Cluster, o *observation) {
					o.pods[workload.PodName(cr, "storage-2")].Status.Phase = corev1.PodPending
				}},
			why: "waiting for fault domains b, c to recover before disrupting another",
		},
		"NoStatusKeepsGrant": {
			reason: "Without a status the grant stays exactly as recorded, its generation included.",
			mutate: []mutation{holding("c", 1), generation(2), podDrifted("storage-1"), noStatus},
			grant:  &disruption.Grant{Domain: "c", Generation: 1},
		},
		"NoStatusNoGrant": {
			reason: "Without a status and without a grant none is made, though a pod drifted.",
			mutate: []mutation{podDrifted("storage-1"), noStatus},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			o.members = o.disruptionMembers(cr)
			grant, why := o.nextGrant(cr)
			if diff := cmp.Diff(tc.grant, grant); diff != "" {
				t.Errorf("\n%s\nnextGrant(...) grant: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.why, why); diff != "" {
				t.Errorf("\n%s\nnextGrant(...) why: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestIPv6ProcessRunsItsExpectedCommandLine checks that a process of an
// IPv6 pod, which FoundationDB reports at [address]:port, runs the command
// line its monitor configuration gives it on that pod: nothing to restart.
func TestIPv6ProcessRunsItsExpectedCommandLine(t *testing.T) {
	cr, o := converged(3)
	for i := range o.groups {
		pg := &o.groups[i]
		id := pg.ID()
		ip := "fd00::" + strconv.Itoa(i+1)
		pod := o.pods[workload.PodName(cr, id)]
		pod.Status.PodIP, pod.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
		p := o.status.Cluster.Processes[id+"-1"]
		p.Address = "[" + ip + "]:4501"
		p.CommandLine = workload.ProcessCommandLine(cr, workload.Density{Class: pg.Spec.ForProvider.ProcessClass, Processes: pg.Spec.ForProvider.ProcessesPerPod}, id, 1, workload.Placement{PublicIP: ip, Zone: p.Locality.ZoneID, Machine: ""}, workload.ImageVersion(pod))
		o.status.Cluster.Processes[id+"-1"] = p
	}
	if s := bounceStep(cr, o); s != nil {
		t.Errorf("bounce of IPv6 processes that run their command lines: %s %v", s.Message, s.Addresses)
	}
}
