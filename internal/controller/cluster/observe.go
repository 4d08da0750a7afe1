package cluster

import (
	"context"
	"sort"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errListGroups = "cannot list the cluster's ProcessGroups"
	errListNodes  = "cannot list the target cluster's nodes"
)

// observation is everything one reconcile knows of a Cluster's world, read
// once.
type observation struct {
	// groups are the cluster's ProcessGroups, sorted by ID.
	groups []v1alpha1.ProcessGroup
	// status is the database's status; nil when there is no database yet
	// or it could not be read (statusErr says why).
	status    *fdb.Status
	statusErr error
	// zones are the fault domains of the target cluster's Ready nodes.
	zones []string
}

// groupID is the process group ID of a ProcessGroup.
func groupID(pg *v1alpha1.ProcessGroup) string { return pg.ID() }

// deleting reports whether removal of the group began.
func deleting(pg *v1alpha1.ProcessGroup) bool { return pg.GetDeletionTimestamp() != nil }

func (e *external) observe(ctx context.Context, cr *v1alpha1.Cluster) (*observation, error) {
	obs := &observation{}
	groups := &v1alpha1.ProcessGroupList{}
	if err := e.Kube.List(ctx, groups, client.InNamespace(cr.GetNamespace()), client.MatchingLabels{workload.LabelCluster: cr.GetName()}); err != nil {
		return nil, errors.Wrap(err, errListGroups)
	}
	obs.groups = groups.Items
	sort.Slice(obs.groups, func(i, j int) bool { return groupID(&obs.groups[i]) < groupID(&obs.groups[j]) })

	nodes := &corev1.NodeList{}
	if err := e.session.Target.List(ctx, nodes); err != nil {
		return nil, errors.Wrap(err, errListNodes)
	}
	seen := map[string]bool{}
	for _, n := range nodes.Items {
		if z := n.Labels[workload.FaultDomainKey(cr)]; z != "" && nodeReady(&n) && !seen[z] {
			seen[z] = true
			obs.zones = append(obs.zones, z)
		}
	}
	sort.Strings(obs.zones)

	if e.session.FDB != nil {
		obs.status, obs.statusErr = e.session.FDB.Status(ctx)
	}
	return obs, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// configured reports whether the database was created (configure new).
func (o *observation) configured() bool {
	return o.status != nil && o.status.Cluster.Configuration.RedundancyMode != ""
}

// available reports whether the database serves transactions.
func (o *observation) available() bool {
	return o.status != nil && o.status.Client.DatabaseStatus.Available
}

// removing returns the IDs of the groups whose removal began.
func (o *observation) removing() map[string]bool {
	out := map[string]bool{}
	for i := range o.groups {
		if deleting(&o.groups[i]) {
			out[groupID(&o.groups[i])] = true
		}
	}
	return out
}

// atProvider is the observed state of the cluster.
func (o *observation) atProvider(connectionString string, previous v1alpha1.ClusterObservation) v1alpha1.ClusterObservation {
	at := v1alpha1.ClusterObservation{
		ConnectionString:   connectionString,
		Configured:         o.configured(),
		LastPolicyDecision: previous.LastPolicyDecision,
		ProcessGroups:      v1alpha1.ProcessGroupCounts{Total: len(o.groups), ByClass: map[string]int{}},
	}
	if cs, err := fdb.ParseConnectionString(connectionString); err == nil {
		for _, c := range cs.Coordinators {
			at.Coordinators = append(at.Coordinators, string(c))
		}
	}
	for i := range o.groups {
		pg := &o.groups[i]
		at.ProcessGroups.ByClass[string(pg.Spec.ForProvider.ProcessClass)]++
		if pg.Status.AtProvider.Excluded {
			at.ProcessGroups.Excluded++
		}
		if deleting(pg) {
			at.ProcessGroups.Removing++
		}
	}
	if s := o.status; s != nil {
		ft := s.Cluster.FaultTolerance
		at.Health = v1alpha1.ClusterHealth{
			Available:                s.Client.DatabaseStatus.Available,
			Healthy:                  s.Client.DatabaseStatus.Healthy,
			FullReplication:          s.Cluster.Data.State.Healthy,
			FaultTolerance:           min(ft.MaxZoneFailuresWithoutLosingData, ft.MaxZoneFailuresWithoutLosingAvailability),
			RecoveryState:            s.Cluster.RecoveryState.Name,
			ActiveGenerations:        s.Cluster.RecoveryState.ActiveGenerations,
			SecondsSinceLastRecovery: int64(s.Cluster.RecoveryState.SecondsSinceLastRecovered),
		}
		at.RunningVersion = runningVersion(s)
	}
	return at
}

// runningVersion is the version most processes run (ties: the lowest).
func runningVersion(s *fdb.Status) string {
	count := map[string]int{}
	for _, p := range s.Cluster.Processes {
		if p.Version != "" {
			count[p.Version]++
		}
	}
	best := ""
	for v, n := range count {
		if n > count[best] || (n == count[best] && strings.Compare(v, best) < 0) {
			best = v
		}
	}
	return best
}
