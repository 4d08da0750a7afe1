package cluster_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// steadyReads are the admin calls that only read: a reconcile of a
// converged resource makes no other.
var steadyReads = []sim.Op{sim.OpStatus, sim.OpBackupStatus, sim.OpRestoreStatus}

// TestConvergedWritesNothing polls a converged Cluster (its process groups,
// a paused Backup and a completed Restore of it) for several poll
// intervals of each while virtual time passes, and sees nothing written:
// none of them, their Secrets, ConfigMaps, Services, pods, volume claims,
// Deployments or ProviderConfigUsages changes, and no event is recorded.
// Nor is anything asked of the database but reads, and no reconcile reads
// its status more than once.
func TestConvergedWritesNothing(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	ns := namespace(t, "converged")
	cr := smallCluster(ns, nil)
	createReady(t, cr)
	b := &v1alpha1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns},
		Spec: v1alpha1.BackupSpec{ForProvider: v1alpha1.BackupParameters{
			ClusterReference: v1alpha1.ClusterReference{ClusterName: cr.Name},
			// Paused, a backup makes no progress: a running one's
			// restorable version moves on, and its status with it.
			BackupState: v1alpha1.BackupPaused,
			BlobStore:   v1alpha1.BlobStore{AccountName: "backup@minio.storage.svc:9000"},
		}},
	}
	r := &v1alpha1.Restore{
		ObjectMeta: metav1.ObjectMeta{Name: "yesterday", Namespace: ns},
		Spec: v1alpha1.RestoreSpec{ForProvider: v1alpha1.RestoreParameters{
			ClusterReference:         v1alpha1.ClusterReference{ClusterName: cr.Name},
			BlobStore:                v1alpha1.BlobStore{AccountName: "backup@minio.storage.svc:9000", BackupName: "yesterday"},
			AllowNonEmptyDestination: true,
		}},
	}
	for _, o := range []client.Object{b, r} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 90*time.Second, "everything converged", func() (bool, string) { return converged(t, cr, b, r) })
	// Each resource is reconciled at least once more, and the events of
	// its convergence, recorded asynchronously, have arrived.
	resources := len(groupsOf(t, cr)) + 3
	polls(t, cr, resources)

	before, from, sent, t0 := objects(t, ns), h.AdminCalls(cr), h.WriteRequests(ns), h.Clock.Now()
	polls(t, cr, 5*resources)
	after, to := objects(t, ns), h.AdminCalls(cr)
	// Not even a write the API server finds changes nothing: each costs
	// it a decode, validation, admission and comparison of the object.
	for req, n := range h.WriteRequests(ns) {
		if n > sent[req] {
			t.Errorf("%d write requests %s", n-sent[req], req)
		}
	}
	sessions, calls := to.Sessions-from.Sessions, map[sim.Op]int{}
	for op, n := range to.Calls {
		if d := n - from.Calls[op]; d > 0 {
			calls[op] = d
		}
	}
	t.Logf("%d reconciles over %s of virtual time, admin calls %v", sessions, h.Clock.Since(t0).Round(time.Second), calls)

	for _, k := range slices.Sorted(maps.Keys(after)) {
		was, is := before[k], after[k]
		switch {
		case was == nil:
			t.Errorf("%s was created%s", k, eventText(is))
		case was.GetResourceVersion() != is.GetResourceVersion():
			t.Errorf("%s was written: -before, +after:\n%s", k, cmp.Diff(was, is, cmpopts.IgnoreFields(metav1.ObjectMeta{}, "ResourceVersion", "ManagedFields")))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if after[k] == nil {
			t.Errorf("%s was deleted", k)
		}
	}

	// Reads only, and no reconcile reads the status twice: every session
	// is one reconcile of a resource of the Cluster.
	if n := calls[sim.OpStatus]; n > sessions {
		t.Errorf("%d status reads in %d reconciles, want at most one each", n, sessions)
	}
	mutations := maps.Clone(calls)
	maps.DeleteFunc(mutations, func(op sim.Op, _ int) bool { return slices.Contains(steadyReads, op) })
	if diff := cmp.Diff(map[sim.Op]int{}, mutations); diff != "" {
		t.Errorf("admin calls other than reads in %d reconciles: -want, +got:\n%s", sessions, diff)
	}
}

// unsettled says why a managed resource is not Ready, up to date and
// synced; nothing when it is.
func unsettled(mg resource.Managed) []string {
	var why []string
	for _, ct := range []xpv2.ConditionType{xpv2.TypeReady, xpv2.TypeUpToDate, xpv2.TypeSynced} {
		if c := mg.GetCondition(ct); c.Status != corev1.ConditionTrue {
			why = append(why, fmt.Sprintf("%T %s: %s=%s %s", mg, mg.GetName(), ct, c.Status, c.Message))
		}
	}
	return why
}

// converged reports whether the Cluster, its process groups, Backup b and
// Restore r are Ready, up to date and synced, the database healthy at full
// fault tolerance with no data moving, the backup paused, the restore
// completed, and each group's status shows the roles the database gives
// it now that make removing it matter; if not, why.
func converged(t testing.TB, cr *v1alpha1.Cluster, b *v1alpha1.Backup, r *v1alpha1.Restore) (bool, string) {
	t.Helper()
	get(t, cr)
	get(t, b)
	get(t, r)
	st, err := h.Sim(t, cr).Status(context.Background())
	if err != nil {
		return false, err.Error()
	}
	groups := groupsOf(t, cr)
	var why []string
	for _, mg := range []resource.Managed{cr, b, r} {
		why = append(why, unsettled(mg)...)
	}
	for i := range groups {
		pg := &groups[i]
		why = append(why, unsettled(pg)...)
		at := pg.Status.AtProvider
		if roles := fdb.RemovalRoles(fdb.DrainOf(st, pg.ID(), max(pg.Spec.ForProvider.ProcessesPerPod, 1), fdb.AddressNames(at.DNSName, at.Addresses...)).Roles); !slices.Equal(roles, at.Roles) {
			why = append(why, fmt.Sprintf("%s records roles %v, the database gives it %v", pg.ID(), at.Roles, roles))
		}
	}
	if health := cr.Status.AtProvider.Health; !health.Available || !health.Healthy || !health.FullReplication || health.FaultTolerance != 1 {
		why = append(why, fmt.Sprintf("health %+v", health))
	}
	if d := st.Cluster.Data; !d.State.Healthy || d.MovingData != (fdb.MovingData{}) {
		why = append(why, fmt.Sprintf("data %+v", d))
	}
	if at := b.Status.AtProvider; !at.Paused || !at.Running {
		why = append(why, fmt.Sprintf("backup %+v", at))
	}
	if at := r.Status.AtProvider; at.State != v1alpha1.RestoreCompleted {
		why = append(why, fmt.Sprintf("restore %+v", at))
	}
	return len(why) == 0, strings.Join(why, "; ")
}

// polls waits until the resources of cr opened n more sessions on its
// database: n more reconciles of them.
func polls(t testing.TB, cr *v1alpha1.Cluster, n int) {
	t.Helper()
	from := h.AdminCalls(cr).Sessions
	eventually(t, 60*time.Second, fmt.Sprintf("%d reconciles", n), func() (bool, string) {
		got := h.AdminCalls(cr).Sessions - from
		return got >= n, fmt.Sprintf("%d reconciles", got)
	})
}

// objects are the objects of namespace ns a reconcile could write, by
// kind and name, as the API server holds them.
func objects(t testing.TB, ns string) map[string]client.Object {
	t.Helper()
	lists := []client.ObjectList{
		&v1alpha1.ClusterList{}, &v1alpha1.ProcessGroupList{}, &v1alpha1.BackupList{}, &v1alpha1.RestoreList{},
		&apiv1alpha1.ProviderConfigUsageList{}, &corev1.SecretList{}, &corev1.ConfigMapList{}, &corev1.ServiceList{},
		&corev1.PodList{}, &corev1.PersistentVolumeClaimList{}, &appsv1.DeploymentList{}, &corev1.EventList{},
	}
	out := map[string]client.Object{}
	for _, l := range lists {
		if err := env.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if err := apimeta.EachListItem(l, func(o runtime.Object) error {
			mo := o.(client.Object)
			out[fmt.Sprintf("%T %s", o, mo.GetName())] = mo
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// eventText is ": <kind> <name>: <reason>: <message>" of an event, for a
// failure message; "" for other objects, which their kind and name say.
func eventText(o client.Object) string {
	e, ok := o.(*corev1.Event)
	if !ok {
		return ""
	}
	return fmt.Sprintf(": %s %s: %s: %s", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
}

// TestConvergedDatabaseIsReadOncePerPoll polls a converged Cluster of 30
// process groups, each of which needs the database's status on every
// reconcile, and sees the status read at most once per poll interval:
// the reconciles of the database share their reads (statuscache).
func TestConvergedDatabaseIsReadOncePerPoll(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "read-once")
	cr := tripleCluster(ns)
	cr.Spec.ForProvider.ProcessCounts = v1alpha1.ProcessCounts{Storage: 20, Log: 6, Stateless: 4}
	createReady(t, cr)
	allSettled(t, cr, 30)
	// The harness polls settled groups hourly (their drift arrives as
	// events); these ask to be polled every second, as the Cluster is.
	for _, pg := range groupsOf(t, cr) {
		patch := client.MergeFrom(pg.DeepCopy())
		meta.AddAnnotations(&pg, map[string]string{meta.AnnotationKeyPollInterval: "1s"})
		if err := env.Client.Patch(context.Background(), &pg, patch); err != nil {
			t.Fatal(err)
		}
	}
	polls(t, cr, 31)

	from, t0 := h.AdminCalls(cr), time.Now()
	polls(t, cr, 5*31)
	to, elapsed := h.AdminCalls(cr), time.Since(t0)
	reads, sessions := to.Calls[sim.OpStatus]-from.Calls[sim.OpStatus], to.Sessions-from.Sessions
	// The harness polls a settled resource every second.
	limit := int(elapsed/time.Second) + 1
	t.Logf("%d status reads in %d reconciles over %s", reads, sessions, elapsed.Round(time.Millisecond))
	if reads > limit {
		t.Errorf("%d status reads in %d reconciles over %s, want at most one per poll interval (%d)", reads, sessions, elapsed.Round(time.Millisecond), limit)
	}
}

// TestSettledGroupNoticesItsProcessesWithoutPolling crashes the process of
// a settled group, whose pod, claim and node do not change: the harness
// polls such a group hourly, so it records MissingProcesses within seconds
// only because the status its Cluster read nudged it (groupnudge).
func TestSettledGroupNoticesItsProcessesWithoutPolling(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "nudged")
	cr := smallCluster(ns, nil)
	createReady(t, cr)
	allSettled(t, cr, 0)
	// A group is settled once its poll hook ran on a Ready, up-to-date
	// group: let each of them be reconciled once more.
	polls(t, cr, 2*len(groupsOf(t, cr)))

	db := h.Sim(t, cr)
	status, err := db.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const id = "storage-2"
	var crashed []string
	for _, p := range status.Cluster.Processes {
		if p.Locality.InstanceID == id {
			crashed = append(crashed, p.Locality.ProcessID)
			if err := db.CrashProcess(p.Locality.ProcessID, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(crashed) == 0 {
		t.Fatalf("no process of group %s in the status", id)
	}
	pg := &v1alpha1.ProcessGroup{}
	eventually(t, 20*time.Second, fmt.Sprintf("group %s records MissingProcesses", id), func() (bool, string) {
		for _, g := range groupsOf(t, cr) {
			if g.ID() == id {
				pg = &g
			}
		}
		_, missing := pg.Status.AtProvider.ConditionSince(v1alpha1.MissingProcesses)
		return missing, fmt.Sprintf("conditions %v", pg.Status.AtProvider.ProcessGroupConditions)
	})
}

// allSettled waits until the Cluster and its n process groups (any number
// when n is 0) are Ready, up to date and synced.
func allSettled(t testing.TB, cr *v1alpha1.Cluster, n int) {
	t.Helper()
	eventually(t, 90*time.Second, "every group settled", func() (bool, string) {
		groups := groupsOf(t, cr)
		var why []string
		for i := range groups {
			why = append(why, unsettled(&groups[i])...)
		}
		get(t, cr)
		why = append(why, unsettled(cr)...)
		return (n == 0 || len(groups) == n) && len(why) == 0, fmt.Sprintf("%d groups; %s", len(groups), strings.Join(why, "; "))
	})
}
