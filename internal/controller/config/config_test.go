package config

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// TestUsersAreCounted runs both config controllers against a real API server:
// each config kind counts the namespaced ProviderConfigUsages that name it and
// cannot be deleted while one exists.
func TestUsersAreCounted(t *testing.T) {
	testenv.Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	env.RunController(t, func(mgr ctrl.Manager, o controller.Options) error {
		for _, k := range Kinds {
			if err := Setup(mgr, o, shard.Shard{}, k); err != nil {
				return err
			}
		}
		return nil
	})

	c := env.Client
	creds := v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "counted"}, Spec: creds}
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "counted", Namespace: "default"}, Spec: creds}
	for _, o := range []client.Object{cpc, pc} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	// Usages without a controller are treated as stale and deleted, so each
	// is owned as a managed resource would own it.
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "usage-owner", Namespace: "default"}}
	if err := c.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	usage := func(name, kind string) *v1alpha1.ProviderConfigUsage {
		u := &v1alpha1.ProviderConfigUsage{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{
			xpv2.LabelKeyProviderName: "counted", xpv2.LabelKeyProviderKind: kind,
		}, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)}}}}
		u.ProviderConfigReference = xpv2.ProviderConfigReference{Kind: kind, Name: "counted"}
		u.ResourceReference = xpv2.TypedReference{APIVersion: "foundationdb.m.crossplane.io/v1alpha1", Kind: "Cluster", Name: name}
		return u
	}
	for _, u := range []*v1alpha1.ProviderConfigUsage{usage("a", "ClusterProviderConfig"), usage("b", "ClusterProviderConfig"), usage("c", "ProviderConfig")} {
		if err := c.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
	}

	waitUsers := func(o client.Object, users func() int64, want int64) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			return users() == want, nil
		})
		if err != nil {
			t.Fatalf("%s %s: users=%d, want %d", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), users(), want)
		}
	}
	waitUsers(cpc, cpc.GetUsers, 2)
	waitUsers(pc, pc.GetUsers, 1)

	// A config in use survives deletion (held by its in-use finalizer).
	if err := c.Delete(ctx, cpc); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := c.Get(ctx, client.ObjectKeyFromObject(cpc), cpc); err != nil {
		t.Fatalf("ClusterProviderConfig in use was deleted: %v", err)
	}

	// Once its users are gone, it goes.
	for _, n := range []string{"a", "b"} {
		if err := c.Delete(ctx, usage(n, "ClusterProviderConfig")); err != nil {
			t.Fatal(err)
		}
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cpc), &v1alpha1.ClusterProviderConfig{})), nil
	})
	if err != nil {
		t.Fatal("ClusterProviderConfig without users was not deleted")
	}
}
