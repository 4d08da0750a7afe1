package cluster

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Event reasons of upgrades: an in-place upgrade; a downgrade to an earlier
// major.minor the policies allowed, which the provider does not make.
const (
	reasonUpgraded         = "UpgradedProcesses"
	reasonDowngradeRefused = "RefusedDowngrade"
)

// An upgrade takes effect as fdb-kubernetes-monitor lets it (apple/
// foundationdb fdbkubernetesmonitor/monitor.go readConfiguration, 7.1.62
// and later, 7.3.48 and later): a monitor runs its image's own fdbserver for
// every version of the image's protocol (major.minor), and the fdbserver its
// pod's sidecar staged for any other; it refuses a configuration whose
// binary is not staged, keeps the one it runs, and reads the file again only
// when it changes or its pod asks it to (workload.AnnotationOutdatedConfigMap).
//
// To another protocol (7.1 to 7.3) no pod is recreated: every ProcessGroup
// changes the image of its pod's sidecar in place, which stages the new
// version; once every pod staged it the ConfigMap names it
// (configuredVersion), so that no monitor sees a version it cannot run; once
// every monitor whose processes report loaded it (afterLoad), one gated
// Upgrade kill restarts every process of the database together: one
// recovery, the same addresses, no coordinator change, and processes of
// protocol-incompatible versions never meet in one cluster.
//
// Within a protocol (a patch release) a restart changes nothing: the
// monitor goes on running its image's binary. The pods roll instead, one
// fault domain at a time under the disruption grant and its maintenance
// (each ProcessGroup whose processes run another patch recreates its pod,
// gated as DeletePod, on an image of the new one), as pods roll for a new
// template.

// upgrading reports whether a process of the database runs another version
// than the spec asks for: the version it reports, or else the one whose
// binary its command line runs (one that says neither is no evidence).
func upgrading(cr *v1alpha1.Cluster, o *observation) bool {
	return o.status != nil && slices.ContainsFunc(slices.Collect(maps.Values(o.status.Cluster.Processes)), func(p fdb.Process) bool {
		v := cmp.Or(p.Version, workload.BinaryVersion(p.CommandLine))
		return v != "" && v != cr.Spec.ForProvider.Version
	})
}

// unstaged are the IDs of the groups whose pod has not staged version: its
// sidecar is of another version, or it runs on a Ready node and its
// sidecar does not report the version running and ready. A pod that does
// not run stages the version when it starts; a pod being deleted is
// followed by one of the new version.
func (o *observation) unstaged(cr *v1alpha1.Cluster, version string) []string {
	var out []string
	for i := range o.groups {
		id := groupID(&o.groups[i])
		pod := o.pods[workload.PodName(cr, id)]
		if pod == nil || pod.DeletionTimestamp != nil {
			continue
		}
		node := o.nodes[pod.Spec.NodeName]
		runs := pod.Status.Phase == corev1.PodRunning && node != nil && workload.NodeReady(node)
		if workload.ImageTagVersion(workload.SidecarImage(pod)) != version || runs && workload.StagedVersion(pod) != version {
			out = append(out, id)
		}
	}
	return out
}

// runningVersion is the version the database runs: as the status of this
// reconcile reports it, else as the Cluster recorded it; "" before any.
func runningVersion(cr *v1alpha1.Cluster, o *observation) string {
	if o.status != nil {
		if v := fdb.RunningVersion(o.status); v != "" {
			return v
		}
	}
	return cr.Status.AtProvider.RunningVersion
}

// incompatibleUpgrade reports whether the spec asks for a version of another
// protocol than the database runs.
func incompatibleUpgrade(cr *v1alpha1.Cluster, o *observation) bool {
	from := runningVersion(cr, o)
	return from != "" && !fdb.ProtocolCompatible(from, cr.Spec.ForProvider.Version)
}

// downgrade reports whether the spec asks for an earlier major.minor than the
// database runs, which FoundationDB cannot do: its files are not read by
// the releases before (its administration guide, "Upgrading"; the
// FoundationDB operator refuses such a change too).
func downgrade(cr *v1alpha1.Cluster, o *observation) bool {
	from, errFrom := fdb.ParseVersion(runningVersion(cr, o))
	to, errTo := fdb.ParseVersion(cr.Spec.ForProvider.Version)
	return errFrom == nil && errTo == nil && to.MajorMinor() != from.MajorMinor() && !from.Less(to)
}

// configuredVersion is the version the ConfigMap's monitor configurations
// name: the spec's, except while an upgrade to another protocol waits for
// pods to stage it, when it stays what they name now (the running version
// when they name none). A monitor that sees a version its pod has not staged
// refuses it and does not look again on its own.
func configuredVersion(cr *v1alpha1.Cluster, o *observation) string {
	spec := cr.Spec.ForProvider.Version
	if !incompatibleUpgrade(cr, o) || !downgrade(cr, o) && len(o.unstaged(cr, spec)) == 0 {
		return spec
	}
	return cmp.Or(workload.ConfiguredVersion(o.configMap), runningVersion(cr, o))
}

// upgradeStep restarts every process of the database on the spec's
// version, of another protocol, in one kill, gated as Upgrade, once every
// pod staged it and every monitor whose processes report loaded the
// configuration that names it (afterLoad); until then nothing is restarted
// (a process restarted before would start on the old version), and
// stagingStep and loadingStep say why it waits.
func upgradeStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	return o.afterLoad(cr, upgradeKill(cr, o))
}

// upgradeKill is upgradeStep's kill, before the wait for the monitors.
// Processes already on the new version (a pod recreated meanwhile) are
// restarted too when they report; when they cannot (another protocol) they
// join once the others restart. Before a kill to another protocol, a
// coordinator that is down is replaced when it can be (coordinatorsStep): a
// kill that restarts only some processes splits the coordinators between
// two protocols, and with one down neither side may keep a quorum.
func upgradeKill(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	version := cr.Spec.ForProvider.Version
	if !o.available() || !upgrading(cr, o) || !incompatibleUpgrade(cr, o) {
		return nil
	}
	from := fdb.RunningVersion(o.status)
	if downgrade(cr, o) {
		return downgradeRefusal(cr, from, restartAll(cr, o, from))
	}
	if len(o.unstaged(cr, version)) > 0 {
		return nil
	}
	if down, _ := o.downCoordinators(cr); len(down) > 0 {
		// A coordinator that is down is replaced first, if it can be:
		// the policy holds the kill until every coordinator runs.
		if s := coordinatorsStep(cr, o); s != nil {
			return s
		}
	}
	return restartAll(cr, o, from)
}

// restartAll is the kill of every process of the database the status
// reports, gated as the Upgrade from version from to the spec's, with what
// the policies weigh: the shortest uptime, the coordinators that are down,
// the clients that cannot speak the new version's protocol.
func restartAll(cr *v1alpha1.Cluster, o *observation, from string) *clusterStep {
	version := cr.Spec.ForProvider.Version
	down, known := o.downCoordinators(cr)
	var addrs []fdb.ProcessAddress
	targets := map[string]bool{}
	uptime := int64(-1)
	for _, p := range o.status.Cluster.Processes {
		addrs = append(addrs, fdb.ProcessAddress(p.Address))
		targets[cmp.Or(p.Locality.InstanceID, p.Address)] = true
		if up := int64(p.UptimeSeconds); uptime < 0 || up < uptime {
			uptime = up
		}
	}
	details := map[string]any{
		policy.DetailMinimumUptimeSeconds: uptime,
		policy.DetailFromVersion:          from,
		policy.DetailToVersion:            version,
		policy.DetailProtocolCompatible:   false,
		policy.DetailClientsAcknowledged:  cr.GetAnnotations()[policy.AnnotationAllowUnsupportedClients] == version,
	}
	if known {
		details[policy.DetailDownCoordinators] = down
	}
	if v, err := fdb.ParseVersion(version); err == nil {
		if n, sample, known := fdb.ClientsWithout(o.status, v, fdb.ToolsLogGroup); known {
			details[policy.DetailUnsupportedClientCount], details[policy.DetailUnsupportedClients] = n, append([]string{}, sample...)
		}
	}
	return &clusterStep{
		Step: step.Step{
			Reason:  reasonUpgraded,
			Message: fmt.Sprintf("restarted every process (%d) on FoundationDB %s, staged in every pod, in one kill", len(addrs), version),
			Action: &policy.Action{Type: apiv1alpha1.ActionUpgrade, Targets: slices.Sorted(maps.Keys(targets)),
				Reason: fmt.Sprintf("upgrade from %s to %s", from, version), Details: details},
		},
		Kind: kindBounce, Addresses: fdb.SortedAddresses(addrs),
	}
}

// downgradeRefusal is the step for a spec that names an earlier major.minor
// than the database runs: kill, the Upgrade it would be, put to the
// policies (fdb-upgrade denies it, naming both versions), that changes
// nothing whatever they decide. The ConfigMap goes on naming the running
// version (configuredVersion), so no process ever restarts on the earlier
// one.
func downgradeRefusal(cr *v1alpha1.Cluster, from string, kill *clusterStep) *clusterStep {
	to := cr.Spec.ForProvider.Version
	kill.Reason = reasonDowngradeRefused
	kill.Message = fmt.Sprintf("left every process on FoundationDB %s: it cannot be downgraded to %s, an earlier major.minor", from, to)
	kill.Action.Reason = fmt.Sprintf("downgrade from %s to %s", from, to)
	kill.Kind, kill.Addresses = kindWait, nil
	return kill
}

// downCoordinators are the coordinators the status reports unreachable
// whose process does not run on another protocol either (its pod's IP is
// not among the incompatible connections): down, partitioned away or
// without a pod. known is false when the status lists no coordinators.
func (o *observation) downCoordinators(cr *v1alpha1.Cluster) (down []string, known bool) {
	listed := o.status.Client.Coordinators.Coordinators
	if len(listed) == 0 {
		return nil, false
	}
	ips := map[string]string{} // pod DNS name: pod IP
	for _, p := range o.pods {
		if name := workload.PodDNSName(cr, p); name != "" {
			ips[name] = workload.PublicIP(p)
		}
	}
	incompatible := map[string]bool{}
	for _, a := range o.status.Cluster.IncompatibleConnections {
		incompatible[fdb.ProcessAddress(a).Host()] = true
	}
	down = []string{}
	for _, c := range listed {
		host := c.Address.Host()
		if c.Address.IsHostname() {
			host = ips[host]
		}
		if !c.Reachable && (host == "" || !incompatible[host]) {
			down = append(down, string(c.Address))
		}
	}
	return down, true
}

// stagingStep waits while pods stage the binaries of an upgrade to another
// protocol.
func stagingStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !upgrading(cr, o) || !incompatibleUpgrade(cr, o) || downgrade(cr, o) {
		return nil
	}
	ids := o.unstaged(cr, cr.Spec.ForProvider.Version)
	if len(ids) == 0 {
		return nil
	}
	return wait("waiting for the pods of %s to stage FoundationDB %s before every process restarts on it", strings.Join(ids, ", "), cr.Spec.ForProvider.Version)
}
