package controller_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbcontroller "github.com/crossplane-contrib/provider-foundationdb/internal/controller"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// TestCacheDropsManagedFields: an object read through the provider's cache
// carries no managedFields, and an update made from it keeps the field
// managers the API server holds (another manager's ownership survives).
func TestCacheDropsManagedFields(t *testing.T) {
	testenv.Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := fdbcontroller.CacheOptions(nil)
	opts.Scheme = env.Scheme
	c, err := cache.New(env.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
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
