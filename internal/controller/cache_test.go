package controller_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/clusterindex"
	fdbcontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/uncopied"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// providerCache starts a cache with the provider's options on the test
// API server, prepared by prepare before it starts, until ctx ends.
func providerCache(ctx context.Context, t *testing.T, prepare func(cache.Cache) error) cache.Cache {
	t.Helper()
	opts := fdbcontroller.CacheOptions(nil)
	opts.Scheme = env.Scheme
	c, err := cache.New(env.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := prepare(c); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	return c
}

// TestCacheDropsManagedFields: an object read through the provider's cache
// carries no managedFields, and an update made from it keeps the field
// managers the API server holds (another manager's ownership survives).
func TestCacheDropsManagedFields(t *testing.T) {
	testenv.Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := providerCache(ctx, t, func(cache.Cache) error { return nil })
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "managed-fields", Labels: map[string]string{"team": "a"}}, Data: map[string]string{"k": "v"}}
	if err := env.Client.Create(ctx, cm, client.FieldOwner("someone-else")); err != nil {
		t.Fatal(err)
	}
	cached := &corev1.ConfigMap{}
	controllertest.Eventually(t, 10*time.Second, "the ConfigMap in the cache", func() (bool, string) {
		err := c.Get(ctx, client.ObjectKeyFromObject(cm), cached)
		return err == nil, ""
	})
	if n := len(cached.ManagedFields); n != 0 {
		t.Errorf("the cached ConfigMap carries %d managedFields entries, want none", n)
	}
	cached.Data["k"] = "w"
	if err := env.Client.Update(ctx, cached, client.FieldOwner("provider")); err != nil {
		t.Fatal(err)
	}
	live := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), live); err != nil {
		t.Fatal(err)
	}
	managers := map[string]bool{}
	for _, f := range live.ManagedFields {
		managers[f.Manager] = true
	}
	if !managers["someone-else"] || !managers["provider"] {
		t.Errorf("after an update from the cache the API server holds field managers %v, want someone-else's and the provider's", managers)
	}
}

// TestCacheIndexesClusters: with the Cluster index registered, a list of
// one Cluster's objects from the provider's cache returns exactly those
// its label selects in the Cluster's namespace: not another Cluster's
// beside it, nor a namespace's of the same name.
func TestCacheIndexesClusters(t *testing.T) {
	testenv.Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := providerCache(ctx, t, func(c cache.Cache) error { return clusterindex.Register(ctx, c) })
	for _, ns := range []string{"index-a", "index-b"} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct{ ns, name, cluster string }{
		{"index-a", "db-storage-1", "db"}, {"index-a", "db-log-1", "db"}, {"index-a", "other-storage-1", "other"},
		{"index-a", "unlabelled", ""}, {"index-b", "db-storage-1", "db"},
	} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: p.name},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
		}
		if p.cluster != "" {
			pod.Labels = map[string]string{workload.LabelCluster: p.cluster}
		}
		if err := env.Client.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}
	names := func(l *corev1.PodList) []string {
		out := make([]string, 0, len(l.Items))
		for _, p := range l.Items {
			out = append(out, p.Namespace+"/"+p.Name)
		}
		slices.Sort(out)
		return out
	}
	labelled := &corev1.PodList{}
	if err := env.Client.List(ctx, labelled, clusterindex.Labelled("index-a", "db")...); err != nil {
		t.Fatal(err)
	}
	want := []string{"index-a/db-log-1", "index-a/db-storage-1"}
	if diff := cmp.Diff(want, names(labelled)); diff != "" {
		t.Fatalf("the API server's list by label (-want +got):\n%s", diff)
	}
	controllertest.Eventually(t, 10*time.Second, "the Cluster's pods from the cache's index", func() (bool, string) {
		indexed := &corev1.PodList{}
		if err := c.List(ctx, indexed, clusterindex.Indexed("index-a", "db")...); err != nil {
			return false, err.Error()
		}
		diff := cmp.Diff(want, names(indexed))
		return diff == "", diff
	})
}

// TestUncopiedListsShareTheCache: a list through uncopied.Client returns
// the cache's objects (their maps are the cache's own), a plain list
// copies.
func TestUncopiedListsShareTheCache(t *testing.T) {
	testenv.Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := providerCache(ctx, t, func(cache.Cache) error { return nil })
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "uncopied", Labels: map[string]string{"list": "uncopied"}}, Data: map[string]string{"k": "v"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	cached, err := client.New(env.Config, client.Options{Scheme: env.Scheme, Cache: &client.CacheOptions{Reader: c}})
	if err != nil {
		t.Fatal(err)
	}
	// data lists the ConfigMap twice through l and returns its Data maps.
	data := func(l client.Client) (map[string]string, map[string]string) {
		var maps []map[string]string
		for range 2 {
			list := &corev1.ConfigMapList{}
			if err := l.List(ctx, list, client.MatchingLabels{"list": "uncopied"}); err != nil || len(list.Items) != 1 {
				t.Fatalf("list: %d ConfigMaps, %v; want one", len(list.Items), err)
			}
			maps = append(maps, list.Items[0].Data)
		}
		return maps[0], maps[1]
	}
	controllertest.Eventually(t, 10*time.Second, "the ConfigMap in the cache", func() (bool, string) {
		list := &corev1.ConfigMapList{}
		err := cached.List(ctx, list, client.MatchingLabels{"list": "uncopied"})
		return err == nil && len(list.Items) == 1, ""
	})
	if a, b := data(uncopied.Client(cached)); reflect.ValueOf(a).Pointer() != reflect.ValueOf(b).Pointer() {
		t.Error("two lists through uncopied.Client returned different copies, want the cache's object both times")
	}
	if a, b := data(cached); reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() {
		t.Error("two plain lists returned the same object, want copies")
	}
}
