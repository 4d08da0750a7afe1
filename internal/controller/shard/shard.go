// Package shard divides the provider's objects among several provider
// instances, each given its shard by a flag (--shard=INDEX/COUNT): an
// instance reconciles the namespaced objects of the namespaces whose hash
// falls to its index, and shard 0 also the cluster-scoped ones
// (ClusterProviderConfigs, SafetyPolicies). A Cluster, its ProcessGroups,
// Backups, Restores and namespaced ProviderConfigs share a namespace, so
// one instance acts on all of them; the shards are disjoint by
// construction and cover every namespace, with no list to keep. Each
// shard elects its own leader (LeaderElectionID), so a shard's standby
// replicas take over only that shard.
//
// What divides: reconciles, admin calls, API requests and the poll budget.
// What does not: each instance's caches still hold every object of the
// kinds it watches.
package shard

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Shard is one of Count shards; Index counts from 0. The zero value, like
// 0/1, owns everything.
type Shard struct {
	Index, Count int
}

// Parse reads a shard as INDEX/COUNT, e.g. 0/3.
func Parse(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, errIndex := strconv.Atoi(i)
	count, errCount := strconv.Atoi(n)
	if !ok || errIndex != nil || errCount != nil {
		return Shard{}, fmt.Errorf("shard %q is not INDEX/COUNT, e.g. 0/3", s)
	}
	if count < 1 || index < 0 || index >= count {
		return Shard{}, fmt.Errorf("shard %q: the index must be at least 0 and less than the count, and the count at least 1", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// String is the shard as Parse reads it.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, max(s.Count, 1)) }

// Of returns the index of the shard of Count that owns namespace: the
// 32-bit FNV-1a hash of its name modulo Count; 0 for cluster-scoped
// objects (namespace "").
func Of(namespace string, count int) int {
	if namespace == "" || count <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(namespace))
	return int(h.Sum32() % uint32(count))
}

// Owns reports whether the shard reconciles the objects of namespace.
func (s Shard) Owns(namespace string) bool { return Of(namespace, s.Count) == s.Index }

// Predicate passes the events of the objects the shard owns.
func (s Shard) Predicate() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return s.Owns(o.GetNamespace()) })
}

// Reconciler returns r for the requests the shard owns; any other request
// (one a watch of another kind mapped, e.g. from a pod) ends at once.
func (s Shard) Reconciler(r reconcile.Reconciler) reconcile.Reconciler {
	if s.Count <= 1 {
		return r
	}
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if !s.Owns(req.Namespace) {
			return reconcile.Result{}, nil
		}
		return r.Reconcile(ctx, req)
	})
}

// LeaderElectionID is base for a provider of one shard, else base with
// the shard appended: each shard elects its own leader.
func (s Shard) LeaderElectionID(base string) string {
	if s.Count <= 1 {
		return base
	}
	return fmt.Sprintf("%s-shard-%d-of-%d", base, s.Index, s.Count)
}
