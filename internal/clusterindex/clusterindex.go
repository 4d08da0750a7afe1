// Package clusterindex lists what belongs to one Cluster — its
// ProcessGroups, pods, volume claims, Services and backup agents'
// Deployments — from
// the provider's cache by an index on their cluster label, so that a list
// costs what it returns, not the whole namespace. A fleet's Clusters often
// share a namespace: walking it on every list made each reconcile cost
// more with every database beside it.
package clusterindex

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Field names the index: an object's cluster label
// (workload.LabelCluster), within its namespace.
const Field = "index.foundationdb.crossplane.io/cluster"

const errIndex = "cannot index %T by Cluster"

// Register adds the index to the kinds listed by Cluster in indexer, the
// manager's cache. It needs the ProcessGroup CRD.
func Register(ctx context.Context, indexer client.FieldIndexer) error {
	for _, o := range []client.Object{&corev1.Pod{}, &corev1.PersistentVolumeClaim{}, &corev1.Service{}, &appsv1.Deployment{}, &v1alpha1.ProcessGroup{}} {
		if err := indexer.IndexField(ctx, o, Field, Of); err != nil {
			return errors.Wrapf(err, errIndex, o)
		}
	}
	return nil
}

// Of is the index's value of o: its Cluster's name, if it has one.
func Of(o client.Object) []string {
	if name := o.GetLabels()[workload.LabelCluster]; name != "" {
		return []string{name}
	}
	return nil
}

// Indexed selects, in a List from a cache Register indexed, the objects
// labelled as Cluster name's in namespace.
func Indexed(namespace, name string) []client.ListOption {
	return []client.ListOption{client.InNamespace(namespace), client.MatchingFields{Field: name}}
}

// Labelled selects the same objects by their label, in a List from any
// reader (an API server, or a cache without the index).
func Labelled(namespace, name string) []client.ListOption {
	return []client.ListOption{client.InNamespace(namespace), client.MatchingLabels{workload.LabelCluster: name}}
}
