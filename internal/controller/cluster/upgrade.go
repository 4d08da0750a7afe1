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

// reasonUpgraded is the event reason of an in-place upgrade.
const reasonUpgraded = "UpgradedProcesses"

// An upgrade changes no pod. Every ProcessGroup changes the image of its
// pod's sidecar in place, which stages the new version's binaries in the
// pod; the ConfigMap's command lines name the new binary at once (a
// process picks it up only when it restarts). Once every pod staged the
// version, one gated Upgrade kill restarts every process of the database
// together: one recovery, the same addresses, no coordinator change, and
// processes of protocol-incompatible versions never meet in one cluster.

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
		if workload.ImageTag(workload.SidecarImage(pod)) != version || runs && workload.StagedVersion(pod) != version {
			out = append(out, id)
		}
	}
	return out
}

// upgradeStep restarts every process of the database on the spec's
// version in one kill, gated as Upgrade, once every pod staged it; until
// then nothing is restarted (a process restarted before its pod staged the
// version would not start), and stagingStep says why it waits. Processes
// already on the new version (a pod recreated meanwhile) are restarted
// too when they report; when they cannot (another protocol) they join once
// the others restart.
func upgradeStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	version := cr.Spec.ForProvider.Version
	if !o.available() || !upgrading(cr, o) || len(o.unstaged(cr, version)) > 0 {
		return nil
	}
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
	from := fdb.RunningVersion(o.status)
	details := map[string]any{
		policy.DetailMinimumUptimeSeconds: uptime,
		policy.DetailFromVersion:          from,
		policy.DetailToVersion:            version,
		policy.DetailProtocolCompatible:   fdb.ProtocolCompatible(from, version),
		policy.DetailClientsAcknowledged:  cr.GetAnnotations()[policy.AnnotationAllowUnsupportedClients] == version,
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

// stagingStep waits while pods stage the binaries of the spec's version.
func stagingStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	if !upgrading(cr, o) {
		return nil
	}
	ids := o.unstaged(cr, cr.Spec.ForProvider.Version)
	if len(ids) == 0 {
		return nil
	}
	return wait("waiting for the pods of %s to stage FoundationDB %s before every process restarts on it", strings.Join(ids, ", "), cr.Spec.ForProvider.Version)
}
