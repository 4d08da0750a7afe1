package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// onNodes binds every pod to a Ready node of its zone, its containers
// running and ready as the kubelet reports them.
func onNodes() mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		o.nodes = map[string]*corev1.Node{}
		for _, pod := range o.pods {
			name := "node-" + pod.Spec.NodeSelector["topology.kubernetes.io/zone"]
			pod.Spec.NodeName = name
			o.nodes[name] = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
			pod.Status.ContainerStatuses = nil
			for _, c := range pod.Spec.Containers {
				pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
			}
		}
	}
}

// version asks for another FoundationDB version.
func version(v string) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.Version = v }
}

// sidecar changes the image of the groups' sidecars to the spec's version,
// as their ProcessGroups do; reported tells whether the kubelet reports it
// running yet.
func sidecar(reported bool, ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			pod := o.pods[workload.PodName(cr, id)]
			for i := range pod.Spec.Containers {
				if pod.Spec.Containers[i].Name == workload.SidecarContainer {
					pod.Spec.Containers[i].Image = workload.Image(cr)
				}
			}
			for i := range pod.Status.ContainerStatuses {
				if s := &pod.Status.ContainerStatuses[i]; reported && s.Name == workload.SidecarContainer {
					s.Image = workload.Image(cr)
				}
			}
		}
	}
}

// restarted restarts every process as its pod's monitor starts it from the
// current configuration: on the fdbserver the monitor chooses by the
// version of the pod's image, with the arguments of the Cluster's monitor
// configuration expanded with the pod's environment, reporting the version
// of that binary (the main image's own for /usr/bin/fdbserver).
func restarted() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for k, p := range o.status.Cluster.Processes {
			pg := groupNamed(o, p.Locality.InstanceID)
			pod := o.pods[workload.PodName(cr, p.Locality.InstanceID)]
			cfg := workload.MonitorConfiguration(cr, workload.Density{Class: pg.Spec.ForProvider.ProcessClass, Processes: pg.Spec.ForProvider.ProcessesPerPod})
			line, err := cfg.CommandLine(1, workload.MonitorEnvironment(pod), workload.ImageVersion(pod))
			if err != nil {
				panic(err) // the fixture's pods set every variable
			}
			p.CommandLine, p.Locality.MachineID = line, pod.Spec.NodeName
			p.Version = workload.BinaryVersion(line)
			if p.Version == "" {
				p.Version = workload.ImageVersion(pod)
			}
			o.status.Cluster.Processes[k] = p
		}
	}
}

// podPending makes the group's pod wait for a node.
func podPending(id string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		pod := o.pods[workload.PodName(cr, id)]
		pod.Spec.NodeName, pod.Status = "", corev1.PodStatus{Phase: corev1.PodPending}
	}
}

// clients makes the status list an application that loaded the client
// libraries of versions, and the provider's own tools.
func clients(versions ...string) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		app, tools := fdb.ConnectedClient{Address: "10.9.0.1:40001", LogGroup: "app"}, fdb.ConnectedClient{Address: "10.0.0.2:50001", LogGroup: fdb.ToolsLogGroup}
		o.status.Cluster.Clients = &fdb.ClientsStatus{Count: 2}
		for _, v := range versions {
			o.status.Cluster.Clients.SupportedVersions = append(o.status.Cluster.Clients.SupportedVersions,
				fdb.SupportedVersion{ClientVersion: v, Count: 1, ConnectedClients: []fdb.ConnectedClient{app}})
		}
		o.status.Cluster.Clients.SupportedVersions = append(o.status.Cluster.Clients.SupportedVersions,
			fdb.SupportedVersion{ClientVersion: "7.3.63", Count: 1, ConnectedClients: []fdb.ConnectedClient{tools}})
	}
}

// acknowledged makes the Cluster accept that clients without a library of
// version lose the database.
func acknowledged(version string) mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.SetAnnotations(map[string]string{policy.AnnotationAllowUnsupportedClients: version})
	}
}

// withDetails is the step with the details added to its action's.
func withDetails(s *clusterStep, details map[string]any) *clusterStep {
	for k, v := range details {
		s.Action.Details[k] = v
	}
	return s
}

var everyStorage = []string{"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"}

// upgrade is the step that restarts the processes of the groups at at
// on version to, of another protocol than 7.3.63.
func upgrade(to string, ids, at []string, uptime int64) *clusterStep {
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonUpgraded,
			Message: fmt.Sprintf("restarted every process (%d) on FoundationDB %s, staged in every pod, in one kill", len(at), to),
			Action: &policy.Action{Type: apiv1alpha1.ActionUpgrade, Targets: ids, Reason: "upgrade from 7.3.63 to " + to,
				Details: map[string]any{policy.DetailMinimumUptimeSeconds: uptime, policy.DetailFromVersion: "7.3.63", policy.DetailToVersion: to,
					policy.DetailProtocolCompatible: false, policy.DetailClientsAcknowledged: false, policy.DetailDownCoordinators: []string{}}},
		},
		Kind: kindBounce, Addresses: addrs(at...),
	}
}

// configMapNaming is the step that writes the ConfigMap of the Cluster
// converged(5) with its monitor configurations naming version.
func configMapNaming(version string) *clusterStep {
	cr, _ := converged(5)
	return &clusterStep{Step: step.Step{Reason: reasonConfigMap, Message: "updated ConfigMap db-config"}, Kind: kindWriteConfigMap,
		ConfigMap: workload.ConfigMapAt(cr, convergedCS, map[workload.Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 1}: true}, version).Data}
}

// incorrectConfigMapSince records that the group's ProcessGroup found its
// monitor reporting another configuration than the ConfigMap's for ago.
func incorrectConfigMapSince(id string, ago time.Duration) mutation {
	return func(_ *v1alpha1.Cluster, o *observation) {
		pg := groupNamed(o, id)
		pg.Status.AtProvider.ProcessGroupConditions = append(pg.Status.AtProvider.ProcessGroupConditions,
			v1alpha1.ProcessGroupCondition{Type: v1alpha1.IncorrectConfigMap, Since: metav1.NewTime(o.now.Add(-ago))})
	}
}

// unloaded makes the groups' monitors report the configuration they loaded
// in converged(5), before any mutation.
func unloaded(ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		_, before := converged(5)
		for _, id := range ids {
			name := workload.PodName(cr, id)
			o.pods[name].Annotations[workload.AnnotationCurrentConfiguration] = before.pods[name].Annotations[workload.AnnotationCurrentConfiguration]
		}
	}
}

// TestPlanUpgrade: an upgrade to another protocol is staged in every pod,
// then named in the ConfigMap, then loaded by every monitor, then every
// process restarts on it in one gated kill; nothing restarts before. A
// patch release restarts nothing: its pods roll (TestPlanMembers).
func TestPlanUpgrade(t *testing.T) {
	all := []string{"10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"}
	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"PatchNamedAtOnce": {
			reason: "A monitor runs its image's fdbserver for a patch of its protocol: it can load the new version at once.",
			mutate: []mutation{onNodes(), version("7.3.69")},
			want:   configMapNaming("7.3.69"),
		},
		"MinorNotNamedBeforeStaging": {
			reason: "A monitor refuses a version whose fdbserver its pod has not staged, and looks again only when asked: the ConfigMap names the old one while pods stage.",
			mutate: []mutation{onNodes(), version("7.4.1")},
			want:   waiting("waiting for the pods of storage-1, storage-2, storage-3, storage-4, storage-5 to stage FoundationDB 7.4.1 before every process restarts on it"),
		},
		"WaitsForTheKubelet": {
			reason: "A sidecar changed but not yet reported running the new image has staged nothing yet.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, "storage-1", "storage-2", "storage-3", "storage-5"), sidecar(false, "storage-4")},
			want:   waiting("waiting for the pods of storage-4 to stage FoundationDB 7.4.1 before every process restarts on it"),
		},
		"MinorNamedOnceStaged": {
			reason: "Every pod staged the version: the ConfigMap names it.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...)},
			want:   configMapNaming("7.4.1"),
		},
		"WaitsForTheMonitors": {
			reason: "The kubelet delivers the ConfigMap up to a sync period later: no process restarts before its monitor reports the new configuration.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), unloaded("storage-2", "storage-4")},
			want:   waiting("waiting for the monitors of pods db-storage-2, db-storage-4 to report loading the configuration the ConfigMap holds for them before their processes restart (at most 10m0s each)"),
		},
		"MonitorThatNeverConfirms": {
			reason: "A monitor that has not reported the configuration for the time the Cluster waits no longer holds the kill back; the kill names it.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), unloaded("storage-2"), incorrectConfigMapSince("storage-2", 11*time.Minute)},
			want: func() *clusterStep {
				s := withDetails(upgrade("7.4.1", everyStorage, all, 3600), map[string]any{policy.DetailUnconfirmedPods: []string{"db-storage-2"}})
				s.Message += "; the monitors of db-storage-2 did not report loading the ConfigMap's configuration within 10m0s, and their processes restart on the one they loaded"
				return s
			}(),
		},
		"MinorUpgrade": {
			reason: "Every pod staged the version and every monitor loaded it: every process restarts in one kill, gated as Upgrade with the shortest uptime.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), uptime("storage-3", 900)},
			want:   upgrade("7.4.1", everyStorage, all, 900),
		},
		"MinorUpgradeWithAnOldClient": {
			reason: "The policy is told which clients loaded no library of the new protocol; the provider's own tools are not counted.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), clients("7.3.63")},
			want: withDetails(upgrade("7.4.1", everyStorage, all, 3600), map[string]any{
				policy.DetailUnsupportedClientCount: 1, policy.DetailUnsupportedClients: []string{"10.9.0.1:40001 (app)"}}),
		},
		"MinorUpgradeAcknowledged": {
			reason: "The Cluster's annotation naming the version acknowledges the clients' loss.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), clients("7.3.63"), acknowledged("7.4.1")},
			want: withDetails(upgrade("7.4.1", everyStorage, all, 3600), map[string]any{policy.DetailClientsAcknowledged: true,
				policy.DetailUnsupportedClientCount: 1, policy.DetailUnsupportedClients: []string{"10.9.0.1:40001 (app)"}}),
		},
		"MinorUpgradeMultiVersionClient": {
			reason: "A client that loaded the new version's library too is no obstacle.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), clients("7.3.63", "7.4.0")},
			want: withDetails(upgrade("7.4.1", everyStorage, all, 3600), map[string]any{
				policy.DetailUnsupportedClientCount: 0, policy.DetailUnsupportedClients: []string{}}),
		},
		"PodThatDoesNotRun": {
			reason: "A pod that does not run stages the version when it starts: the others do not wait for it, nor for its monitor.",
			mutate: []mutation{onNodes(), version("7.4.1"), podPending("storage-5"), notReporting("storage-5"),
				sidecar(true, everyStorage...), currentConfigMap(), loaded(), unloaded("storage-5")},
			want: upgrade("7.4.1", everyStorage[:4], all[:4], 3600),
		},
		"GroupsBeingRemovedRestartToo": {
			reason: "A group being drained restarts with the others: it would not speak the new protocol otherwise.",
			mutate: []mutation{onNodes(), version("7.4.1"), storage(4), removing("storage-5"), excluded(instance("storage-5")),
				sidecar(true, everyStorage...), currentConfigMap(), loaded()},
			want: upgrade("7.4.1", everyStorage, all, 3600),
		},
		"BeforeCoordinators": {
			reason: "A coordinator that does not report (its pod recreated on the new, incompatible version) is brought back by the upgrade, not by a coordinator change.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), notReporting("storage-1"),
				coordinatorsUnreachable("storage-1"), leftBehind("storage-1")},
			want: upgrade("7.4.1", everyStorage[1:], all[1:], 3600),
		},
		"DownCoordinatorReplacedFirst": {
			reason: "A coordinator that is down, not on another protocol, is replaced before a kill to another protocol, which could split the other two.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), notReporting("storage-1"),
				coordinatorsUnreachable("storage-1")},
			want: coordinatorsChanged("coordinator 10.0.0.2:4501 is missing, excluded, being removed or not eligible", "10.0.0.3:4501", "10.0.0.4:4501", "10.0.0.5:4501"),
		},
		"CutOffCoordinatorToldToThePolicy": {
			reason: "A coordinator whose process reports but that the client cannot reach needs no change of coordinators: the policy, told, holds the kill.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), coordinatorsUnreachable("storage-1")},
			want:   withDetails(upgrade("7.4.1", everyStorage, all, 3600), map[string]any{policy.DetailDownCoordinators: []string{"10.0.0.2:4501"}}),
		},
		"PatchKillsNothing": {
			reason: "A restart would bring the processes of a patch upgrade back on the image's old binary: nothing is killed, the pods roll.",
			mutate: []mutation{onNodes(), version("7.3.69"), sidecar(true, everyStorage...), currentConfigMap(), loaded()},
		},
		"ConvergedOnTheMonitorsCommandLines": {
			reason: "Processes that run the command line their monitor starts them with (/usr/bin/fdbserver, the pod's image being of the version) are not bounced.",
			mutate: []mutation{onNodes(), restarted()},
		},
		"PatchNotBounced": {
			reason: "A patch changes no command line: the monitor keeps the image's /usr/bin/fdbserver for a version of the same major.minor.",
			mutate: []mutation{onNodes(), restarted(), version("7.3.69"), currentConfigMap(), loaded(), sidecar(true, everyStorage...), restarted()},
		},
		"MinorUpgradeDoneNotBounced": {
			reason: "After a minor upgrade the processes run the staged binary the monitor chose for another major.minor than its image's: no bounce.",
			mutate: []mutation{onNodes(), restarted(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), restarted()},
		},
		"MinorUpgradeRestartsOnTheStagedBinary": {
			reason: "Before the kill, processes still run the image's binary of the old major.minor: the upgrade restarts them, no bounce comes first.",
			mutate: []mutation{onNodes(), restarted(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded()},
			want:   upgrade("7.4.1", everyStorage, all, 3600),
		},
		"MinorDowngradeRefused": {
			reason: "FoundationDB cannot downgrade to an earlier major.minor: the ConfigMap goes on naming the running version, and the Upgrade is put to the policies only to be refused.",
			mutate: []mutation{onNodes(), version("7.1.67"), sidecar(true, everyStorage...)},
			want: &clusterStep{Step: step.Step{Reason: reasonDowngradeRefused,
				Message: "left every process on FoundationDB 7.3.63: it cannot be downgraded to 7.1.67, an earlier major.minor",
				Action: &policy.Action{Type: apiv1alpha1.ActionUpgrade, Targets: everyStorage, Reason: "downgrade from 7.3.63 to 7.1.67",
					Details: map[string]any{policy.DetailMinimumUptimeSeconds: int64(3600), policy.DetailFromVersion: "7.3.63", policy.DetailToVersion: "7.1.67",
						policy.DetailProtocolCompatible: false, policy.DetailClientsAcknowledged: false, policy.DetailDownCoordinators: []string{}}}},
				Kind: kindWait},
		},
		"PatchDowngradeNamedAtOnce": {
			reason: "An earlier patch of the same major.minor is a patch release like any other.",
			mutate: []mutation{onNodes(), version("7.3.48")},
			want:   configMapNaming("7.3.48"),
		},
		"NoUpgradeWhileUnavailable": {
			reason: "Nothing restarts while the database is unavailable.",
			mutate: []mutation{onNodes(), version("7.4.1"), sidecar(true, everyStorage...), currentConfigMap(), loaded(), unavailable()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			if diff := cmp.Diff(tc.want, next(cr, o), compareGroups); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// coordinatorsUnreachable makes the status report the coordinators on the
// groups' addresses, by IP or DNS name, unreachable.
func coordinatorsUnreachable(ids ...string) mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for _, id := range ids {
			pg := groupNamed(o, id)
			names := fdb.AddressNames(workload.DNSName(cr, id), pg.Status.AtProvider.Addresses...)
			for k, c := range o.status.Client.Coordinators.Coordinators {
				if slices.Contains(names, string(c.Address)) {
					o.status.Client.Coordinators.Coordinators[k].Reachable = false
				}
			}
		}
	}
}

// dnsCoordinatorList makes the status list the coordinators by the DNS
// names of their pods, as a cluster file using DNS names does.
func dnsCoordinatorList() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		for k, c := range o.status.Client.Coordinators.Coordinators {
			for i := range o.groups {
				if pg := &o.groups[i]; slices.Contains(pg.Status.AtProvider.Addresses, string(c.Address)) {
					o.status.Client.Coordinators.Coordinators[k].Address = fdb.HostAddress(workload.DNSName(cr, groupID(pg)), string(c.Address))
				}
			}
		}
	}
}

// TestDownCoordinators: a coordinator is down when the client cannot reach
// it and its process runs on no other protocol either; DNS names resolve
// through the pods.
func TestDownCoordinators(t *testing.T) {
	cases := map[string]struct {
		reason    string
		mutate    []mutation
		want      []string
		wantKnown bool
	}{
		"AllReachable": {
			reason: "Every coordinator reachable: none is down.",
			want:   []string{}, wantKnown: true,
		},
		"NotListed": {
			reason: "A status that lists no coordinators says nothing.",
			mutate: []mutation{func(_ *v1alpha1.Cluster, o *observation) { o.status.Client.Coordinators = fdb.CoordinatorsStatus{} }},
		},
		"Unreachable": {
			reason: "An unreachable coordinator not on another protocol is down.",
			mutate: []mutation{coordinatorsUnreachable("storage-2")},
			want:   []string{"10.0.0.3:4501"}, wantKnown: true,
		},
		"OnAnotherProtocol": {
			reason: "An unreachable coordinator among the incompatible connections runs, on another protocol.",
			mutate: []mutation{coordinatorsUnreachable("storage-2"), leftBehind("storage-2")},
			want:   []string{}, wantKnown: true,
		},
		"UnreachableByDNSName": {
			reason: "A coordinator named by DNS name is down when its pod's IP is no incompatible connection.",
			mutate: []mutation{dnsNames(true), dnsCoordinatorList(), coordinatorsUnreachable("storage-2")},
			want:   []string{"db-storage-2.db.ns.svc.cluster.local:4501"}, wantKnown: true,
		},
		"OnAnotherProtocolByDNSName": {
			reason: "A coordinator named by DNS name runs on another protocol when its pod's IP is an incompatible connection.",
			mutate: []mutation{dnsNames(true), dnsCoordinatorList(), coordinatorsUnreachable("storage-2"), leftBehind("storage-2")},
			want:   []string{}, wantKnown: true,
		},
		"DNSNameWithoutAPod": {
			reason: "A coordinator named by DNS name whose pod is gone is down, whatever else is incompatible.",
			mutate: []mutation{dnsNames(true), dnsCoordinatorList(), coordinatorsUnreachable("storage-2"), leftBehind("storage-2"),
				func(cr *v1alpha1.Cluster, o *observation) { delete(o.pods, workload.PodName(cr, "storage-2")) }},
			want: []string{"db-storage-2.db.ns.svc.cluster.local:4501"}, wantKnown: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			got, known := o.downCoordinators(cr)
			if diff := cmp.Diff(tc.want, got); diff != "" || known != tc.wantKnown {
				t.Errorf("\n%s\ndownCoordinators(...): known %t, want %t; -want, +got:\n%s", tc.reason, known, tc.wantKnown, diff)
			}
		})
	}
}
