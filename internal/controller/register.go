// Package controller registers every controller of the provider with a
// manager.
package controller

import (
	"context"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apisv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/clusterindex"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/backup"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/config"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/processgroup"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/restore"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/safetypolicy"
)

const errNoSafeStart = "cannot register the controllers: the options name no safe-start gate"

// managedKinds are the managed-resource controllers, the kind each
// reconciles and the other kinds of the provider it watches or reads (every
// one reads its Cluster and the Cluster's ProcessGroups).
var managedKinds = []struct {
	gvk        schema.GroupVersionKind
	watches    []schema.GroupVersionKind
	setup      func(ctrl.Manager, options.Options) error
	reconciler func(ctrl.Manager, options.Options) (*managed.Reconciler, error)
}{
	{v1alpha1.ClusterGroupVersionKind, []schema.GroupVersionKind{v1alpha1.ProcessGroupGroupVersionKind}, cluster.Setup, cluster.NewReconciler},
	{v1alpha1.ProcessGroupGroupVersionKind, []schema.GroupVersionKind{v1alpha1.ClusterGroupVersionKind}, processgroup.Setup, processgroup.NewReconciler},
	{v1alpha1.BackupGroupVersionKind, clusterKinds, backup.Setup, backup.NewReconciler},
	{v1alpha1.RestoreGroupVersionKind, clusterKinds, restore.Setup, restore.NewReconciler},
}

// clusterKinds are the kinds of a database the Backup and Restore
// controllers read.
var clusterKinds = []schema.GroupVersionKind{v1alpha1.ClusterGroupVersionKind, v1alpha1.ProcessGroupGroupVersionKind}

// A gated controller starts once the CRDs of the kinds it watches are
// established; a managed kind's after the cache indexes what belongs to
// each Cluster (clusterindex), which needs the ProcessGroup CRD.
type gated struct {
	kinds   []schema.GroupVersionKind
	setup   func(ctrl.Manager, options.Options) error
	indexed bool
}

// controllers are every controller of the provider: the config kinds', the
// SafetyPolicy controller and the managed kinds'.
func controllers() []gated {
	var out []gated
	for _, k := range config.Kinds {
		out = append(out, gated{
			kinds: []schema.GroupVersionKind{k, apisv1alpha1.ProviderConfigUsageGroupVersionKind},
			setup: func(mgr ctrl.Manager, o options.Options) error { return config.Setup(mgr, o.Options, o.Shard, k) },
		})
	}
	out = append(out, gated{kinds: []schema.GroupVersionKind{apisv1alpha1.SafetyPolicyGroupVersionKind}, setup: safetypolicy.Setup})
	for _, k := range managedKinds {
		out = append(out, gated{kinds: append([]schema.GroupVersionKind{k.gvk}, k.watches...), setup: k.setup, indexed: true})
	}
	return out
}

// CacheOptions are the options of the manager's cache, which resyncs every
// resource every syncPeriod (controller-runtime's default when nil). The
// cached objects drop their managedFields, which no controller reads (the
// provider never applies server-side; an update without them keeps those
// the API server holds): at a fleet's size they were a large part of the
// provider's memory. CRDs keep only what the safe-start gate reads.
func CacheOptions(syncPeriod *time.Duration) cache.Options {
	return cache.Options{
		SyncPeriod:       syncPeriod,
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&apiextensionsv1.CustomResourceDefinition{}: {Transform: customresourcesgate.TransformStripCRDSchema},
		},
	}
}

// Setup registers every controller with crossplane-runtime's safe-start
// gate in the options (its controller.Options.Gate, the only "gate" here
// that is not the safety-policy gate): each starts only once the CRDs of the
// kinds it watches are established, so a kind Crossplane has not activated
// (it makes a ManagedResourceDefinition of every CRD of the package but the
// ProviderConfig kinds, SafetyPolicy included) starts no controller that
// would wait for its informer, and stop the provider, for ever. The safety
// gates do without the SafetyPolicy controller (see safetypolicy.Source).
// The gate opens as crossplane-runtime's customresourcesgate controller
// sees the CRDs.
func Setup(mgr ctrl.Manager, o options.Options) error {
	safeStart := o.Options.Gate
	if safeStart == nil {
		return errors.New(errNoSafeStart)
	}
	log := o.Logger.WithValues("component", "safe-start")
	var indexOnce sync.Once
	var indexErr error
	index := func() error {
		indexOnce.Do(func() { indexErr = clusterindex.Register(context.Background(), mgr.GetFieldIndexer()) })
		return indexErr
	}
	for _, c := range controllers() {
		safeStart.Register(func() {
			if c.indexed {
				if err := index(); err != nil {
					log.Info("cannot set up controller", "kind", c.kinds[0].Kind, "error", err)
					return
				}
			}
			if err := c.setup(mgr, o); err != nil {
				log.Info("cannot set up controller", "kind", c.kinds[0].Kind, "error", err)
			}
		}, c.kinds...)
	}
	return nil
}
