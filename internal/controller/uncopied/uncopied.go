// Package uncopied hands crossplane-runtime's listers that only read what
// they list — the config reconciler counting a config's usages and the
// managed-resource state recorder counting Ready and Synced resources — a
// client that lists from the cache without a deep copy. Both list every
// object of a kind, over and over: the config reconciler once per new
// managed resource while a fleet comes up, the recorder every few seconds.
// At 1,000 databases (12,000 managed resources) the copies were a tenth of
// the provider's CPU (docs/PERFORMANCE.md, Fleet).
package uncopied

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Manager is mgr with GetClient returning Client(mgr.GetClient()).
func Manager(mgr ctrl.Manager) ctrl.Manager {
	return manager{Manager: mgr}
}

type manager struct {
	ctrl.Manager
}

func (m manager) GetClient() client.Client {
	return Client(m.Manager.GetClient())
}

// Client is c listing with client.UnsafeDisableDeepCopy: the listed
// objects share their maps, slices and pointers with the cache, so whoever
// lists through it must not change them. Everything else is c's.
func Client(c client.Client) client.Client {
	return listClient{Client: c}
}

type listClient struct {
	client.Client
}

func (c listClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.Client.List(ctx, list, append(opts, client.UnsafeDisableDeepCopy)...)
}
