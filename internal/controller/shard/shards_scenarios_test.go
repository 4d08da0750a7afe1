package shard_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/shard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// TestTwoShardsNeverActOnTheSameCluster runs two provider instances, shards
// 0/2 and 1/2, on one control plane and brings up a database in each of
// four namespaces, two owned by each shard: every session on a Cluster's
// database (every reconcile of the Cluster and of its ProcessGroups that
// reached it) and every step on a ProcessGroup is the instance's of the
// shard that owns its namespace, and no other's.
func TestTwoShardsNeverActOnTheSameCluster(t *testing.T) {
	testenv.Require(t, env)
	h, err := controllertest.StartShards(env, 2)
	if err != nil {
		t.Fatal(err)
	}
	h.Running(t)
	h.Flow(true)
	ctx := context.Background()
	owned := map[int][]string{}
	for i := 0; len(owned[0]) < 2 || len(owned[1]) < 2; i++ {
		ns := fmt.Sprintf("shards-%d", i)
		if o := shard.Of(ns, 2); len(owned[o]) < 2 {
			owned[o] = append(owned[o], ns)
		}
	}
	var all []*v1alpha1.Cluster
	for _, nss := range owned {
		for _, ns := range nss {
			cr := &v1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: h.Namespace(t, ns)},
				Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
					Version:               "7.3.63",
					DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2"},
					ProcessCounts:         v1alpha1.ProcessCounts{Storage: 3, Log: 3},
				}},
			}
			if err := env.Client.Create(ctx, cr); err != nil {
				t.Fatal(err)
			}
			all = append(all, cr)
		}
	}
	for _, cr := range all {
		controllertest.Eventually(t, 120*time.Second, cr.Namespace+" Ready", func() (bool, string) {
			h.Get(t, cr)
			c := cr.GetCondition(xpv2.TypeReady)
			return c.Status == corev1.ConditionTrue, c.Message
		})
	}
	for _, cr := range all {
		want := []int{shard.Of(cr.Namespace, 2)}
		if got := h.Acted(v1alpha1.ClusterKind, cr.Namespace, cr.Name); !slices.Equal(got, want) {
			t.Errorf("Cluster %s/%s: acted on by shards %v, want only %v", cr.Namespace, cr.Name, got, want)
		}
		groups := &v1alpha1.ProcessGroupList{}
		if err := env.Client.List(ctx, groups, client.InNamespace(cr.Namespace)); err != nil {
			t.Fatal(err)
		}
		for _, pg := range groups.Items {
			if got := h.Acted(v1alpha1.ProcessGroupKind, pg.Namespace, pg.Name); len(got) > 0 && !slices.Equal(got, want) {
				t.Errorf("ProcessGroup %s/%s: steps taken by shards %v, want only %v", pg.Namespace, pg.Name, got, want)
			}
		}
	}
}
