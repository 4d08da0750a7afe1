package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func tripleCluster(ns string) *v1alpha1.Cluster {
	return &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: v1alpha1.ClusterSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{WriteConnectionSecretToReference: &xpv2.LocalSecretReference{Name: "db-conn"}},
			ForProvider: v1alpha1.ClusterParameters{
				Version:               "7.3.63",
				DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyTriple, StorageEngine: "ssd-2"},
				ProcessCounts:         v1alpha1.ProcessCounts{Storage: 5, Log: 4, Stateless: 2},
			},
		},
	}
}

// ready waits until the cluster is Ready and up to date.
func ready(t *testing.T, cr *v1alpha1.Cluster, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, "cluster Ready", func() (bool, string) {
		get(t, cr)
		r, u := cr.GetCondition(xpv2.TypeReady), cr.GetCondition(xpv2.TypeUpToDate)
		return r.Status == corev1.ConditionTrue && u.Status == corev1.ConditionTrue,
			fmt.Sprintf("Ready=%s %s; UpToDate=%s %s; Synced=%s; events=%v", r.Status, r.Message, u.Status, u.Message, cr.GetCondition(xpv2.TypeSynced).Message, events(t, cr))
	})
}

func TestBootstrapTripleCluster(t *testing.T) {
	start(t)
	ctx := context.Background()
	ns := namespace(t, "bootstrap")
	flowing.Store(true)
	cr := tripleCluster(ns)
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	ready(t, cr, 90*time.Second)

	// Process groups across the zones, each with a running pod.
	groups := &v1alpha1.ProcessGroupList{}
	if err := env.Client.List(ctx, groups, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(groups.Items) != 11 {
		t.Errorf("%d process groups, want 11", len(groups.Items))
	}
	// The connection secret holds a cluster file with five coordinators in
	// distinct zones.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-conn", Namespace: ns}}
	get(t, secret)
	cs, err := fdb.ParseConnectionString(string(secret.Data["connectionString"]))
	if err != nil {
		t.Fatalf("connection secret: %v", err)
	}
	zoneOf := map[string]string{}
	for _, pg := range groups.Items {
		for _, a := range pg.Status.AtProvider.Addresses {
			zoneOf[a] = pg.Status.AtProvider.FaultDomain
		}
	}
	seen := map[string]bool{}
	for _, c := range cs.Coordinators {
		z := zoneOf[string(c)]
		if z == "" || seen[z] {
			t.Errorf("coordinator %s in zone %q: zones must be distinct and known", c, z)
		}
		seen[z] = true
	}
	if len(cs.Coordinators) != 5 {
		t.Errorf("%d coordinators, want 5", len(cs.Coordinators))
	}
	if string(secret.Data["clusterFile"]) != cs.String()+"\n" {
		t.Errorf("clusterFile %q does not hold the connection string %q", secret.Data["clusterFile"], cs.String())
	}
	// The simulated database is configured triple and sees all processes.
	st, err := backend.Sim(cr).Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Cluster.Configuration.RedundancyMode != fdb.RedundancyTriple || len(st.Cluster.Processes) != 11 {
		t.Errorf("database: redundancy %q with %d processes, want triple with 11", st.Cluster.Configuration.RedundancyMode, len(st.Cluster.Processes))
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: ns}}
	get(t, cm)
	if cm.Data[workload.KeyClusterFile] != cs.String() {
		t.Errorf("ConfigMap cluster file %q, want %q", cm.Data[workload.KeyClusterFile], cs.String())
	}
	if v := backend.Sim(cr).Check(); len(v) != 0 {
		t.Errorf("invariant violations: %v", v)
	}
}
