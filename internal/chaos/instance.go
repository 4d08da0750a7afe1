package chaos

import (
	"maps"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// An instance is one deployment of the provider: the one of most
// workloads, or one per data center's Kubernetes cluster for a
// multi-region database, each managing its own data centers' Clusters.
// Its provider (the incarnation) crashes and restarts; the instance stays.
type instance struct {
	name string
	prov *provider
	// pausedUntil is when the instance resumes after a pause (a long
	// garbage-collection pause, a partition from its API server): it
	// reconciles nothing before, and its global lock may expire meanwhile.
	pausedUntil time.Time
}

// by names the instance in a trace line when there are several of n.
func (in *instance) by(n int) string {
	if n < 2 {
		return ""
	}
	return " by " + in.name
}

// instanceCount is how many instances owners name.
func instanceCount(owners map[string]int) int {
	n := 1
	for _, i := range owners {
		n = max(n, i+1)
	}
	return n
}

// ownerOf returns the index of the instance that reconciles o: the one that
// manages o's Cluster. Every instance reconciles the SafetyPolicies; the
// seeded source picks which one does now.
func (r *run) ownerOf(o client.Object) int {
	switch x := o.(type) {
	case *fdbv1alpha1.Cluster:
		return r.owners[x.GetName()]
	case *fdbv1alpha1.ProcessGroup:
		return r.owners[x.Spec.ForProvider.ClusterName]
	case *fdbv1alpha1.Backup:
		return r.owners[x.Spec.ForProvider.ClusterName]
	case *fdbv1alpha1.Restore:
		return r.owners[x.Spec.ForProvider.ClusterName]
	}
	if len(r.instances) < 2 {
		return 0
	}
	return r.sched.IntN(len(r.instances))
}

// writeMarks notes how many writes each instance's provider has made.
func (r *run) writeMarks() []int {
	out := make([]int, len(r.instances))
	for i, in := range r.instances {
		out[i] = len(in.prov.client.writes)
	}
	return out
}

// writesSince returns the writes the instances made since marks (a
// provider restarted since has made none of its own before).
func (r *run) writesSince(marks []int) []write {
	var out []write
	for i, in := range r.instances {
		ws := in.prov.client.writes
		out = append(out, ws[min(marks[i], len(ws)):]...)
	}
	return out
}

// clusters returns the names of the Clusters w makes, sorted, and the
// instance that manages each: the one Cluster clusterName under one
// instance unless w says otherwise.
func (w Workload) clusters() ([]string, map[string]int) {
	if len(w.Clusters) == 0 {
		return []string{clusterName}, map[string]int{clusterName: 0}
	}
	return slices.Sorted(maps.Keys(w.Clusters)), w.Clusters
}
