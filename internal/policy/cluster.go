package policy

import (
	"slices"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const errConvertObject = "cannot convert object to unstructured content"

// NewInput returns the input for action a on Cluster cr: its spec, its
// safety settings, its process groups, and what status (the database's
// status read in this reconcile) says of the database. With a nil status the
// observed fields stay unknown (zero) and Observed is false: a decision never
// rests on a status recorded by an earlier reconcile. The Cluster is the
// object; callers acting on another resource replace it.
func NewInput(cr *fdbv1alpha1.Cluster, groups []fdbv1alpha1.ProcessGroup, status *fdb.Status, now time.Time, a Action) (Input, error) {
	params, err := DecodeParams(cr.Spec.ForProvider.Safety.Params)
	if err != nil {
		return Input{}, err
	}
	obj, err := ObjectOf(cr)
	if err != nil {
		return Input{}, err
	}
	fp := cr.Spec.ForProvider
	in := Input{
		Action: a,
		Cluster: Cluster{
			Name:                          cr.Name,
			Namespace:                     cr.Namespace,
			Version:                       fp.Version,
			RedundancyMode:                string(fp.DatabaseConfiguration.RedundancyMode),
			DesiredCounts:                 map[string]int64{},
			MinimumUptimeSecondsForBounce: int64(fp.Automation.MinimumUptimeSecondsForBounce),
			DeletionProtection:            fp.DeletionProtection,
			DesiredFaultTolerance:         DesiredFaultTolerance(string(fp.DatabaseConfiguration.RedundancyMode)),
		},
		Params:   params,
		Policies: fp.Safety.Policies,
		Object:   obj,
	}
	for class, n := range fp.ProcessCounts.ByClass() {
		in.Cluster.DesiredCounts[string(class)] = int64(n)
	}
	in.Cluster.TLS = tlsFacts(cr.Status.AtProvider.TLS, now)
	if status != nil {
		in.observe(status)
	}
	for i := range groups {
		in.ProcessGroups = append(in.ProcessGroups, FromProcessGroup(&groups[i], status, in.Cluster.Coordinators, now))
	}
	return in, nil
}

// FromProcessGroup returns the input of a ProcessGroup. Its ID is the
// external name (the name when unset). What it holds, whether it is
// excluded and its roles come from status, the database status read in this
// reconcile (fdb.DrainOf), never from what the group recorded earlier;
// without a status it holds data and is not fully excluded (fail closed).
// It is a coordinator when one of its addresses, by IP or by its DNS name,
// is among coordinators, or the status says so.
func FromProcessGroup(pg *fdbv1alpha1.ProcessGroup, status *fdb.Status, coordinators []string, now time.Time) ProcessGroup {
	at := pg.Status.AtProvider
	id := meta.GetExternalName(pg)
	if id == "" {
		id = pg.Name
	}
	names := fdb.AddressNames(at.DNSName, at.Addresses...)
	g := ProcessGroup{
		ID:          id,
		Class:       string(pg.Spec.ForProvider.ProcessClass),
		Addresses:   at.Addresses,
		Removing:    at.RemovalTime != nil || pg.DeletionTimestamp != nil,
		Coordinator: slices.ContainsFunc(names, func(a string) bool { return slices.Contains(coordinators, a) }),
		HoldsData:   true,
		Drain:       "the database status could not be read",
	}
	if status != nil {
		d := fdb.DrainOf(status, id, pg.Spec.ForProvider.ProcessesPerPod, names)
		g.Excluded, g.Roles, g.HoldsData, g.Reporting = d.Excluded, d.Roles, d.HoldsData, d.Reporting
		g.FullyExcluded, g.Drain = d.Drained, d.Why
		g.Coordinator = g.Coordinator || slices.Contains(d.Roles, fdb.RoleCoordinator)
	}
	for _, c := range at.ProcessGroupConditions {
		g.Conditions = append(g.Conditions, Condition{Type: string(c.Type), AgeSeconds: int64(now.Sub(c.Since.Time) / time.Second)})
	}
	return g
}

// ObjectOf returns a resource as the unstructured content of the CEL
// variable object, e.g. to gate a Backup's action with the Backup as object.
func ObjectOf(o runtime.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	return u, errors.Wrap(err, errConvertObject)
}

// observe fills the observed fields of the input's cluster from a status
// read in this reconcile.
func (in *Input) observe(s *fdb.Status) {
	c := &in.Cluster
	in.Observed = true
	c.RunningVersion = fdb.RunningVersion(s)
	c.Available = s.Client.DatabaseStatus.Available
	c.Healthy = s.Client.DatabaseStatus.Healthy
	c.RecoveryState = s.Cluster.RecoveryState.Name
	c.ActiveGenerations = int64(s.Cluster.RecoveryState.ActiveGenerations)
	c.SecondsSinceLastRecovery = -1
	if d, ok := s.Cluster.RecoveryState.SinceRecovered(); ok {
		c.SecondsSinceLastRecovery = int64(d / time.Second)
	}
	c.FaultTolerance = int64(s.ZoneFailuresTolerated())
	c.DataMovement = DataMovement{
		InFlightBytes: s.Cluster.Data.MovingData.InFlightBytes,
		InQueueBytes:  s.Cluster.Data.MovingData.InQueueBytes,
		Healthy:       s.Cluster.Data.State.Healthy,
		State:         s.Cluster.Data.State.Name,

		MinReplicasRemaining: int64(s.Cluster.Data.State.MinReplicasRemaining),
	}
	if cs, err := fdb.ParseConnectionString(s.Cluster.ConnectionString); err == nil {
		for _, a := range cs.Coordinators {
			c.Coordinators = append(c.Coordinators, string(a))
		}
	}
}

// tlsFacts are the TLS facts of what a Cluster observed this reconcile
// (status.atProvider.tls, which its Observe writes before it plans).
func tlsFacts(at *fdbv1alpha1.TLSObservation, now time.Time) TLS {
	var out TLS
	if at == nil {
		return out
	}
	out.Coordinators, out.Listeners = at.Coordinators, at.Listeners
	for _, t := range []*metav1.Time{at.CertificateNotAfter, at.ClientCertificateNotAfter} {
		if t == nil {
			continue
		}
		if left := int64(t.Sub(now).Seconds()); !out.Certificates || left < out.CertificateSecondsLeft {
			out.Certificates, out.CertificateSecondsLeft = true, left
		}
	}
	return out
}
