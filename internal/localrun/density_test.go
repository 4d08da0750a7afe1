package localrun_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// densityMigration patches storageServersPerPod: 2 on the live quickstart
// Cluster, as the SRE did on `make run`, and waits until every
// storage group was replaced by one of density two: five storage groups,
// each with two storage process IDs and a pod, the ConfigMap holding the
// density-2 monitor configuration and not the density-1 one, the Cluster
// Ready and up to date. It logs how long that took and the connection
// strings it saw on the way (sampled every second), and expects at most one
// coordinator change off the storage groups (storageCoordinatorChanges). (The Cluster's events cannot count its steps here:
// client-go's event recorder drops an object's events beyond a burst of 25;
// TestDensityMigration counts them on the simulator.)
func densityMigration(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	// The default policies hold exclusions, inclusions and coordinator
	// changes for minutes after a recovery; here they may run at once.
	patch := []byte(`{"spec":{"forProvider":{"storageServersPerPod":2,"safety":{"params":{` +
		`"minSecondsSinceRecoveryForExclude":0,"minSecondsSinceRecoveryForInclude":0,"minSecondsSinceRecoveryForCoordinatorChange":0}}}}}`)
	if err := c.Patch(ctx, cr, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	seen := []string{cr.Status.AtProvider.ConnectionString}
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 8*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		done, why, cs, err := migrated(ctx, c, key, 5, 2)
		if cs != "" && cs != seen[len(seen)-1] {
			seen = append(seen, cs)
		}
		last = why
		return done, err
	})
	if err != nil {
		t.Fatalf("storage did not migrate to two storage servers per pod: %s; provider log %s", last, r.ProviderLog())
	}
	t.Logf("density 1 → 2 in %s, %d coordinator changes: %v", time.Since(start).Round(time.Second), len(seen)-1, seen)
	if n := storageCoordinatorChanges(t, key, seen); n > 1 {
		t.Errorf("density migration moved coordinators off storage groups %d times, want at most once", n)
	}
}

// storageCoordinatorChanges counts the changes between the connection
// strings seen, in order, that dropped a coordinator not known to be of
// another class than storage (by its DNS name, the group's pod's): the
// changes the migration made. One that only drops others (the previous
// subtest's failed node can leave a coordinator to move once its group is
// back) is logged, not counted.
func storageCoordinatorChanges(t *testing.T, key client.ObjectKey, seen []string) int {
	n := 0
	for i := 1; i < len(seen); i++ {
		before, err := fdb.ParseConnectionString(seen[i-1])
		if err != nil {
			t.Fatal(err)
		}
		after, err := fdb.ParseConnectionString(seen[i])
		if err != nil {
			t.Fatal(err)
		}
		var dropped []string
		storage := false
		for _, c := range before.Coordinators {
			if !slices.Contains(after.Coordinators, c) {
				dropped = append(dropped, string(c))
				host, _, _ := strings.Cut(string(c), ".")
				storage = storage || strings.HasPrefix(host, key.Name+"-storage-") || !strings.HasPrefix(host, key.Name+"-")
			}
		}
		if storage {
			n++
			continue
		}
		t.Logf("coordinator change %d dropped no storage coordinator (%v): not the migration's", i, dropped)
	}
	return n
}

// migrated holds when the Cluster has want storage groups, each of the
// given density with as many storage process IDs and one pod, the monitor
// configuration of no other density is left in the ConfigMap, and the
// Cluster is Ready and up to date. It also returns the Cluster's
// connection string.
func migrated(ctx context.Context, c client.Client, key client.ObjectKey, want, density int) (bool, string, string, error) {
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		return false, "", "", err
	}
	storage, err := groupsOf(ctx, c, key, v1alpha1.ProcessClassStorage)
	if err != nil {
		return false, "", "", err
	}
	pods, err := podsOf(ctx, c, key)
	if err != nil {
		return false, "", "", err
	}
	var desc []string
	done := len(storage) == want
	for _, g := range storage {
		_, pod := pods[workload.PodName(cr, g.ID())]
		desc = append(desc, fmt.Sprintf("%s:%d:%v:pod=%t", g.ID(), g.Spec.ForProvider.ProcessesPerPod, g.Status.AtProvider.ProcessIDs, pod))
		done = done && pod && g.Spec.ForProvider.ProcessesPerPod == density && len(g.Status.AtProvider.ProcessIDs) == density
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: workload.ConfigMapName(cr)}, cm); err != nil {
		return false, "", "", err
	}
	var confs []string
	for k := range cm.Data {
		if strings.HasPrefix(k, "fdbmonitor-conf-storage-density-") {
			confs = append(confs, k)
		}
	}
	ready, upToDate := cr.GetCondition(xpv2.TypeReady).Status, cr.GetCondition(xpv2.TypeUpToDate).Status
	done = done && len(confs) == 1 && confs[0] == fmt.Sprintf("fdbmonitor-conf-storage-density-%d", density) &&
		ready == corev1.ConditionTrue && upToDate == corev1.ConditionTrue
	why := fmt.Sprintf("storage groups %s; storage configurations %v; Ready %s, UpToDate %s", strings.Join(desc, " "), confs, ready, upToDate)
	return done, why, cr.Status.AtProvider.ConnectionString, nil
}

// TestStorageCoordinatorChanges counts the coordinator changes of the
// quickstart's CI run at 1acf405, where the node-failure subtest's
// coordinator move off log-1 landed after the migration began: one change
// the migration made.
func TestStorageCoordinatorChanges(t *testing.T) {
	cs := func(id string, groups ...string) string {
		var hosts []string
		for _, g := range groups {
			hosts = append(hosts, "quickstart-"+g+".quickstart.default.svc.cluster.local:4500:tls")
		}
		return "quickstart:" + id + "@" + strings.Join(hosts, ",")
	}
	seen := []string{
		cs("9ff6e2e4", "log-1", "log-2", "log-3", "log-4", "storage-5"),
		cs("bC2fJapZ", "log-2", "log-3", "log-4", "storage-1", "storage-5"),
		cs("SbOqPf9e", "log-1", "log-2", "log-3", "log-4", "storage-10"),
	}
	if got := storageCoordinatorChanges(t, client.ObjectKey{Namespace: "default", Name: "quickstart"}, seen); got != 1 {
		t.Errorf("storageCoordinatorChanges: want 1, got %d", got)
	}
}
