// Package managedkind wires the controller of one managed kind the same way
// for every kind: an event recorder, the safety-policy gate, the session
// connector, crossplane-runtime's managed reconciler with the provider's
// options, the controller-runtime controller with its cadence (priority
// queue and poll budget) and the recorder of the kind's state metrics. It also finds the Cluster a resource belongs to.
package managedkind

import (
	"context"

	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/clusterindex"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cadence"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/groupnudge"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/uncopied"
	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
)

const (
	errGetCluster       = "cannot get the resource's Cluster"
	errListGroups       = "cannot list the cluster's ProcessGroups"
	errAddStateRecorder = "cannot add the state-metrics recorder"
)

// Deps are what every external client of the provider works with.
type Deps struct {
	// Kube is the client of the control plane the managed resources live in.
	Kube client.Client
	// Live reads that control plane without a cache: for the few reads a
	// disruption is fenced with.
	Live client.Reader
	// Connector opens a session on a target cluster and database.
	Connector *connector.Connector
	// Gate decides on every mutation.
	Gate   *gate.Gate
	Clock  clock.PassiveClock
	Record event.Recorder
	// Journal, when set, receives every mutation taken with its decision.
	Journal func(step.Mutation)
	// Nudges, when set, wakes the groups whose processes changed in a
	// status a Cluster read.
	Nudges *groupnudge.Nudger
	// Metrics, when set, receives the database figures each reconcile
	// observed.
	Metrics *dbmetrics.Recorder
}

// IdempotentCreate is the reconciler option of a kind whose Create is
// idempotent (what already exists is taken as created): no creation grace
// period. An Observe that does not see yet what Create made then costs one
// more idempotent Create, and what goes missing later (the pod of a group
// without a volume, deleted to be recreated) is made again at once, not
// after crossplane-runtime's 30 s of wall time during which it would wait
// for the last creation to show.
var IdempotentCreate = managed.WithCreationGracePeriod(0)

// Setup adds the controller of the managed kind gvk, whose resources are
// like obj and listed in lists like list, to mgr. newConnector receives the
// kind's Deps; watch may add watches to the controller (nil for none);
// extra options go to the managed reconciler after the shared ones. The
// kind's own events pass crossplane-runtime's DesiredStateChanged filter.
// The controller reconciles only the resources of the options' shard. It runs at the kind's cadence (package cadence): a priority
// queue on which converging resources come before drift polls, and polls
// that take a token of the options' Budget; crossplane-runtime's global
// rate limiter does not hold it back.
// When the options carry MR state metrics, a recorder of the kind's state
// (crossplane_managed_resource_exists, _ready and _synced) starts with the
// controller: behind safe-start, only once the kind's CRD is established.
func Setup[T resource.ModernManaged](mgr ctrl.Manager, o options.Options, gvk schema.GroupVersionKind, obj T, list resource.ManagedList,
	newConnector func(Deps) managed.TypedExternalConnector[T], watch func(*builder.Builder) *builder.Builder, extra ...managed.ReconcilerOption) error {
	name := managed.ControllerName(gvk.Kind)
	c := cadence.New(name, o.Converging, o.Budget)
	r, err := NewReconciler(mgr, o, gvk, newConnector, append(slices.Clip(extra), managed.WithPollIntervalHook(c.Hook(o.PollIntervalHook())))...)
	if err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(c.Options(o.ForControllerRuntime())).
		For(obj, builder.WithPredicates(resource.DesiredStateChanged(), o.Shard.Predicate()))
	if watch != nil {
		b = watch(b)
	}
	if err := b.Complete(c.Reconciler(o.Shard.Reconciler(r))); err != nil {
		return err
	}
	if m := o.MetricOptions; m != nil && m.MRStateMetrics != nil {
		rec := statemetrics.NewMRStateRecorder(uncopied.Client(mgr.GetClient()), o.Logger.WithValues("controller", name), m.MRStateMetrics, list, m.PollStateMetricInterval)
		return errors.Wrap(mgr.Add(rec), errAddStateRecorder)
	}
	return nil
}

// NewReconciler returns the managed reconciler of kind gvk as Setup runs it
// under a controller: an event recorder, the safety-policy gate, the
// connector newConnector builds from the kind's Deps (mgr's client, its
// uncached reader, the options' backend, clock and journal), a reference
// resolver that costs nothing when nothing changed, the shared reconciler
// options, then extra. A gated step its external client left to the next
// reconcile (ErrSecondhand) ends the reconcile without an error. Its status updates that would change nothing are
// skipped (quietManager). A driver that calls Reconcile itself —
// the fault-injection harness — builds it without a controller.
func NewReconciler[T resource.ModernManaged](mgr ctrl.Manager, o options.Options, gvk schema.GroupVersionKind,
	newConnector func(Deps) managed.TypedExternalConnector[T], extra ...managed.ReconcilerOption) (*managed.Reconciler, error) {
	name := managed.ControllerName(gvk.Kind)
	//lint:ignore SA1019 crossplane-runtime's event.NewAPIRecorder takes the old record.EventRecorder
	rec := event.NewAPIRecorder(mgr.GetEventRecorderFor(name))
	g, err := o.PolicyGate(rec)
	if err != nil {
		return nil, err
	}
	deps := Deps{Kube: mgr.GetClient(), Live: mgr.GetAPIReader(), Connector: o.Connector(mgr), Gate: g, Clock: o.Clock, Record: rec, Journal: o.Journal, Nudges: o.Nudges, Metrics: o.Metrics}
	return managed.NewReconciler(quietManager{mgr}, resource.ManagedKind(gvk),
		append(append(o.ReconcilerOptions(name, managed.WithRecorder(rec)), managed.WithReferenceResolver(newQuickResolver(mgr.GetClient())),
			managed.WithTypedExternalConnector[T](firsthandConnector[T]{newConnector(deps)})), extra...)...), nil
}

// ClusterOf returns the Cluster named name in mg's namespace. gone is true
// when that Cluster is missing or being deleted; a missing one is returned
// as a stand-in that carries only its name and namespace, enough to find
// and delete what a resource created for it.
func (d Deps) ClusterOf(ctx context.Context, mg client.Object, name string) (cr *v1alpha1.Cluster, gone bool, err error) {
	cr = &v1alpha1.Cluster{}
	err = d.Kube.Get(ctx, client.ObjectKey{Namespace: mg.GetNamespace(), Name: name}, cr)
	switch {
	case kerrors.IsNotFound(err):
		cr.SetName(name)
		cr.SetNamespace(mg.GetNamespace())
		return cr, true, nil
	case err != nil:
		return nil, false, errors.Wrap(err, errGetCluster)
	}
	return cr, cr.GetDeletionTimestamp() != nil, nil
}

// Groups lists the ProcessGroups of the Cluster named cluster in namespace,
// sorted by ID, from the provider's cache c (indexed by clusterindex).
func Groups(ctx context.Context, c client.Reader, namespace, cluster string) ([]v1alpha1.ProcessGroup, error) {
	groups := &v1alpha1.ProcessGroupList{}
	if err := c.List(ctx, groups, clusterindex.Indexed(namespace, cluster)...); err != nil {
		return nil, errors.Wrap(err, errListGroups)
	}
	slices.SortFunc(groups.Items, func(a, b v1alpha1.ProcessGroup) int { return strings.Compare(a.ID(), b.ID()) })
	return groups.Items, nil
}

// Belonging is what a resource that belongs to a Cluster works with during
// one reconcile.
type Belonging struct {
	// Cluster is the resource's Cluster, or a stand-in with its name when
	// it is missing.
	Cluster *v1alpha1.Cluster
	// ClusterGone is true when the Cluster is missing or being deleted.
	ClusterGone bool
	// TeardownConsent is true when the Cluster is being deleted with Delete
	// in its management policies: the only case in which what belongs to it
	// may be torn down without its normal removal (and then still gated as
	// DeleteCluster). A Cluster that vanished any other way, e.g. orphaned,
	// consents to nothing.
	TeardownConsent bool
	Session         *connector.Session
}

// Open finds the Cluster named clusterName that mg belongs to and opens a
// session on its target cluster and database.
func (d Deps) Open(ctx context.Context, mg resource.ModernManaged, clusterName string) (*Belonging, error) {
	cr, gone, err := d.ClusterOf(ctx, mg, clusterName)
	if err != nil {
		return nil, err
	}
	s, err := d.Connector.Session(ctx, mg, cr)
	if err != nil {
		return nil, err
	}
	consent := cr.GetDeletionTimestamp() != nil && deletes(cr.GetManagementPolicies())
	return &Belonging{Cluster: cr, ClusterGone: gone, TeardownConsent: consent, Session: s}, nil
}

// BelongingConnector connects the external client of a resource that
// belongs to a Cluster: it finds the Cluster the resource names and opens a
// session (see Open), then builds the client with New.
type BelongingConnector[T resource.ModernManaged] struct {
	Deps
	// ClusterName is the name of the Cluster mg belongs to.
	ClusterName func(mg T) string
	// New builds the external client.
	New func(d Deps, b *Belonging) managed.TypedExternalClient[T]
}

// Connect finds mg's Cluster, opens a session on its target cluster and
// database, and returns mg's external client.
func (c *BelongingConnector[T]) Connect(ctx context.Context, mg T) (managed.TypedExternalClient[T], error) {
	b, err := c.Open(ctx, mg, c.ClusterName(mg))
	if err != nil {
		return nil, err
	}
	return c.New(c.Deps, b), nil
}

// deletes reports whether management policies let the provider delete what
// a resource manages: the default (none set), "*" or Delete.
func deletes(p xpv2.ManagementPolicies) bool {
	return len(p) == 0 || slices.Contains(p, xpv2.ManagementActionAll) || slices.Contains(p, xpv2.ManagementActionDelete)
}
