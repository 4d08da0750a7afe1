package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// serviceIPs maps the cluster IP of each Service of cr's process groups to
// its group.
func serviceIPs(t testing.TB, cr *v1alpha1.Cluster) map[string]string {
	t.Helper()
	list := &corev1.ServiceList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(workload.Namespace(cr)), client.MatchingLabels{workload.LabelCluster: cr.Name}); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range list.Items {
		if id := s.Labels[workload.LabelProcessGroup]; id != "" && s.Spec.ClusterIP != "" {
			out[s.Spec.ClusterIP] = id
		}
	}
	return out
}

// knownByServices says which processes of the database's status are not
// known by their group's Service's IP ("" when all are), and how many are.
func knownByServices(t testing.TB, cr *v1alpha1.Cluster, st *fdb.Status) (string, int) {
	t.Helper()
	ips := serviceIPs(t, cr)
	var off []string
	for _, p := range st.Cluster.Processes {
		if ips[fdb.ProcessAddress(p.Address).Host()] != p.Locality.InstanceID {
			off = append(off, p.Locality.InstanceID+"@"+p.Address)
		}
	}
	return strings.Join(off, " "), len(st.Cluster.Processes)
}

// TestServiceIPsOutlivePods runs a triple cluster whose processes are
// known by their groups' Services' IPs (publicIPSource service): every
// process reports its Service's IP, the cluster file names the
// coordinators by those IPs, and when every pod is deleted at once the
// pods come back on new pod IPs while the database comes back on the same
// coordinators, with no coordinator change.
func TestServiceIPsOutlivePods(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "service-ip"))
	cr.Spec.ForProvider.Routing.PublicIPSource = v1alpha1.PublicIPSourceService
	createReady(t, cr)
	db := h.Sim(t, cr)
	st, err := db.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if off, n := knownByServices(t, cr, st); off != "" || n == 0 {
		t.Errorf("processes not known by their Service's IP: %s (of %d)", off, n)
	}
	get(t, cr)
	cs, err := fdb.ParseConnectionString(cr.Status.AtProvider.ConnectionString)
	if err != nil {
		t.Fatal(err)
	}
	ips := serviceIPs(t, cr)
	for _, c := range cs.Coordinators {
		if ips[fdb.ProcessAddress(c).Host()] == "" {
			t.Errorf("coordinator %s of %s is no group's Service IP", c, cs)
		}
	}

	recreateAllPods(t, cr, cs.String())
	if ev := events(t, cr); containsAny(ev, "ChangedCoordinators: changed coordinators") {
		t.Errorf("coordinators changed, want them kept by their Services' IPs: %v", ev)
	}
	if got := serviceIPs(t, cr); len(got) != len(ips) {
		t.Errorf("Service IPs %v after the pods came back, want %v", got, ips)
	}
}

// TestPublicIPSourceMigration moves a triple cluster from pod IPs to
// Service IPs: every process group is replaced by one known by its
// Service's IP, the cluster settles at full fault tolerance with every
// process known by its Service's IP, and the ConfigMap keeps no
// configuration of pod IPs.
func TestPublicIPSourceMigration(t *testing.T) {
	start(t)
	h.Flow(true)
	ctx := context.Background()
	cr := tripleCluster(namespace(t, "public-ip-migration"))
	createReady(t, cr)
	before, was := len(groupsOf(t, cr)), countsOf(t, cr)

	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.Routing.PublicIPSource = v1alpha1.PublicIPSourceService
	})
	eventually(t, 240*time.Second, "every group known by its Service's IP", func() (bool, string) {
		var pod []string
		n := 0
		for _, pg := range groupsOf(t, cr) {
			if pg.GetDeletionTimestamp() != nil {
				continue
			}
			n++
			if !pg.Spec.ForProvider.PublicIPSource.Service() {
				pod = append(pod, pg.ID())
			}
		}
		return len(pod) == 0 && n == before, fmt.Sprintf("%d groups, on pod IPs: %v", n, pod)
	})
	settled(t, cr, 180*time.Second)
	t.Logf("pod IPs → Service IPs: %+v", countsOf(t, cr).minus(was))
	st, err := h.Sim(t, cr).Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if off, n := knownByServices(t, cr, st); off != "" || n == 0 {
		t.Errorf("processes not known by their Service's IP: %s (of %d)", off, n)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: workload.ConfigMapName(cr), Namespace: cr.Namespace}}
	get(t, cm)
	for k := range cm.Data {
		if strings.HasPrefix(k, "fdbmonitor-conf-") && !strings.HasSuffix(k, "-service-ip") {
			t.Errorf("the ConfigMap keeps %s, a configuration of pod IPs no pod uses", k)
		}
	}
	if got := serviceIPs(t, cr); len(got) != before {
		t.Errorf("group Services %v, want one per group (%d)", got, before)
	}
}
