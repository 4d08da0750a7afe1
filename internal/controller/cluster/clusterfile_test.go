package cluster_test

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// write is one write of a Cluster's ConfigMap (the cluster file it held)
// or of the Cluster (the connection string its status recorded), at etcd's
// revision, which orders the writes of every kind. Kubernetes calls
// resource versions opaque; the API server these tests run on etcd gives
// its revisions.
type write struct {
	revision  uint64
	configMap bool
	cs        string
}

// clusterFileWrites watches cr's ConfigMap and cr until the returned
// function is called, which returns the writes in etcd's order. Call it
// before cr is created.
func clusterFileWrites(t testing.TB, cr *v1alpha1.Cluster) func() []write {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		writes []write
		wg     sync.WaitGroup
	)
	follow := func(list client.ObjectList, ns, name string, of func(client.Object) (string, bool)) {
		w, err := wc.Watch(ctx, list, client.InNamespace(ns), client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", name)})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case ev, ok := <-w.ResultChan():
					if !ok {
						return
					}
					o, isObject := ev.Object.(client.Object)
					if !isObject || ev.Type == watch.Deleted || ev.Type == watch.Bookmark || ev.Type == watch.Error {
						continue
					}
					rev, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
					if err != nil {
						t.Errorf("resource version %q: %v", o.GetResourceVersion(), err)
						continue
					}
					cs, isConfigMap := of(o)
					mu.Lock()
					writes = append(writes, write{rev, isConfigMap, cs})
					mu.Unlock()
				}
			}
		}()
	}
	follow(&corev1.ConfigMapList{}, workload.Namespace(cr), workload.ConfigMapName(cr), func(o client.Object) (string, bool) {
		return o.(*corev1.ConfigMap).Data[workload.KeyClusterFile], true
	})
	follow(&v1alpha1.ClusterList{}, cr.GetNamespace(), cr.GetName(), func(o client.Object) (string, bool) {
		return o.(*v1alpha1.Cluster).Status.AtProvider.ConnectionString, false
	})
	return func() []write {
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		slices.SortFunc(writes, func(a, b write) int { return cmp.Compare(a.revision, b.revision) })
		return writes
	}
}

// recordsEachClusterFile fails unless each cluster file written into the
// ConfigMap — the seed joined with, the first coordinators, each change of
// coordinators — is the connection string of the Cluster's next write: the
// reconcile that wrote it records it, so that a ConfigMap lost before the
// next one gets it back instead of what was observed before the write.
func recordsEachClusterFile(t testing.TB, name string, writes []write) {
	t.Helper()
	var file string
	pending := false
	for _, w := range writes {
		switch {
		case w.configMap && w.cs != file:
			file, pending = w.cs, w.cs != ""
		case !w.configMap && pending:
			if w.cs != file {
				t.Errorf("%s: the ConfigMap's cluster file became %q; the Cluster's next write (revision %d) recorded %q", name, file, w.revision, w.cs)
			}
			pending = false
		}
	}
}
