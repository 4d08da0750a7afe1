// Package connector resolves what a managed resource's external client works
// against: it records the resource's use of its ProviderConfig or
// ClusterProviderConfig (a ProviderConfigUsage), reads the config, and
// returns a client for the target Kubernetes cluster that runs the
// FoundationDB pods — the provider's own cluster (InjectedIdentity) or a
// remote one from a kubeconfig Secret.
package connector

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apisv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/clusterindex"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Error strings.
const (
	errTrackUsage    = "cannot track ProviderConfig usage"
	errNoConfigRef   = "cannot find providerConfigRef: the managed resource names no ProviderConfig"
	errGetPC         = "cannot get ProviderConfig"
	errGetCPC        = "cannot get ClusterProviderConfig"
	errConfigKind    = "cannot use providerConfigRef: kind must be ProviderConfig or ClusterProviderConfig, not %q"
	errGetCreds      = "cannot get credentials"
	errKubeconfig    = "cannot parse kubeconfig from credentials"
	errNewClient     = "cannot create a client for the target cluster"
	errNoCredentials = "cannot use credentials: source %q is not supported; use InjectedIdentity or Secret"
)

// NewClientFn returns a client for the cluster a kubeconfig describes, and
// its REST config.
type NewClientFn func(kubeconfig []byte) (client.Client, *rest.Config, error)

// Target reaches the cluster that runs the pods.
type Target struct {
	// Client reads through the provider's cache where it has one.
	client.Client
	// Live reads without a cache: for the few reads that a decision which
	// cannot be undone depends on (e.g. the zone a new group is pinned to).
	Live client.Reader
	// Cached is true when Client reads the provider's cache, which indexes
	// the objects of each Cluster (clusterindex).
	Cached bool
	// Config reaches the cluster's API server (for pods/exec); nil when
	// unknown.
	Config *rest.Config
}

// OfCluster selects, in a List of t's Client, the objects labelled as
// Cluster c's in its workload namespace: by the cache's index where t has
// it.
func (t Target) OfCluster(c *v1alpha1.Cluster) []client.ListOption {
	if t.Cached {
		return clusterindex.Indexed(workload.Namespace(c), c.GetName())
	}
	return clusterindex.Labelled(workload.Namespace(c), c.GetName())
}

// Targets finds the target cluster of managed resources.
type Targets struct {
	// kube is the client of the control plane the managed resources live in;
	// with live, its uncached reader, it is also the target for
	// InjectedIdentity.
	kube      client.Client
	live      client.Reader
	local     *rest.Config
	usage     resource.ModernTracker
	newClient NewClientFn
}

// NewTargets returns Targets that read configs with kube and build remote
// clients with newClient; live reads kube's cluster without a cache, and
// local reaches its API server.
func NewTargets(kube client.Client, live client.Reader, local *rest.Config, newClient NewClientFn) *Targets {
	return &Targets{
		kube:      kube,
		live:      live,
		local:     local,
		usage:     resource.NewProviderConfigUsageTracker(kube, &apisv1alpha1.ProviderConfigUsage{}),
		newClient: newClient,
	}
}

// Finding the target records the resource's ProviderConfigUsage, reads its
// ProviderConfig or ClusterProviderConfig and, for a remote cluster, the
// kubeconfig Secret.
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=providerconfigusages,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups=foundationdb.crossplane.io,resources=providerconfigs;clusterproviderconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// Client records mg's use of its provider config and returns the target
// cluster the config names.
func (t *Targets) Client(ctx context.Context, mg resource.ModernManaged) (Target, error) {
	if err := t.usage.Track(ctx, mg); err != nil {
		return Target{}, errors.Wrap(err, errTrackUsage)
	}
	spec, err := config(ctx, t.kube, mg)
	if err != nil {
		return Target{}, err
	}
	switch src := spec.Credentials.Source; src {
	case xpv2.CredentialsSourceInjectedIdentity:
		return Target{Client: t.kube, Live: t.live, Cached: true, Config: t.local}, nil
	case xpv2.CredentialsSourceSecret:
		data, err := resource.CommonCredentialExtractor(ctx, src, t.kube, spec.Credentials.CommonCredentialSelectors)
		if err != nil {
			return Target{}, errors.Wrap(err, errGetCreds)
		}
		c, cfg, err := t.newClient(data)
		if err != nil {
			return Target{}, errors.Wrap(err, errNewClient)
		}
		return Target{Client: c, Live: c, Config: cfg}, nil // a remote client has no cache
	default:
		return Target{}, errors.Errorf(errNoCredentials, src)
	}
}

// Local reports whether mg's ProviderConfig or ClusterProviderConfig, read
// with r, targets the provider's own cluster (InjectedIdentity).
func Local(ctx context.Context, r client.Reader, mg resource.ModernManaged) (bool, error) {
	spec, err := config(ctx, r, mg)
	if err != nil {
		return false, err
	}
	return spec.Credentials.Source == xpv2.CredentialsSourceInjectedIdentity, nil
}

// config reads mg's ProviderConfig or ClusterProviderConfig with r.
func config(ctx context.Context, r client.Reader, mg resource.ModernManaged) (*apisv1alpha1.ProviderConfigSpec, error) {
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return nil, errors.New(errNoConfigRef)
	}
	switch ref.Kind {
	case apisv1alpha1.ProviderConfigKind:
		pc := &apisv1alpha1.ProviderConfig{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: mg.GetNamespace(), Name: ref.Name}, pc); err != nil {
			return nil, errors.Wrap(err, errGetPC)
		}
		return &pc.Spec, nil
	case apisv1alpha1.ClusterProviderConfigKind:
		cpc := &apisv1alpha1.ClusterProviderConfig{}
		if err := r.Get(ctx, client.ObjectKey{Name: ref.Name}, cpc); err != nil {
			return nil, errors.Wrap(err, errGetCPC)
		}
		return &cpc.Spec, nil
	default:
		return nil, errors.Errorf(errConfigKind, ref.Kind)
	}
}

// KubeconfigClient returns a NewClientFn that builds clients with the
// supplied client options (notably the scheme).
func KubeconfigClient(o client.Options) NewClientFn {
	return func(kubeconfig []byte) (client.Client, *rest.Config, error) {
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
		if err != nil {
			return nil, nil, errors.Wrap(err, errKubeconfig)
		}
		c, err := client.New(cfg, o)
		return c, cfg, err
	}
}
