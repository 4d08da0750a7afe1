package localrun_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
)

// engineMigration changes the live Cluster's storage engine to
// ssd-redwood-1, as a user of `make run` would, by replacing its storage
// groups (storageMigrationMethod ReplaceGroups), and waits until every
// storage server runs it: the Cluster's status shows the progress
// (atProvider.storageMigration, storage processes migrated of all), and
// the fault tolerance it records never drops below the one it had (the
// new groups come before the old ones go). The default method, the
// perpetual wiggle, rests a minute between servers, as FoundationDB does:
// ten servers would take this test's whole budget of wall-clock time; the
// envtest scenario and the chaos workload run it on the virtual clock.
func engineMigration(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	ftBefore := cr.Status.AtProvider.Health.FaultTolerance
	patch := []byte(`{"spec":{"forProvider":{"storageMigrationMethod":"ReplaceGroups","databaseConfiguration":{"storageEngine":"ssd-redwood-1"}}}}`)
	if err := c.Patch(ctx, &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	lowest, progress, last := ftBefore, map[string]bool{}, ""
	err := wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		if err := c.Get(ctx, key, cr); err != nil {
			return false, err
		}
		at := cr.Status.AtProvider
		lowest = min(lowest, at.Health.FaultTolerance)
		if m := at.StorageMigration; m != nil {
			progress[fmt.Sprintf("%d of %d", m.Migrated, m.Total)] = true
		}
		ready, upToDate := cr.GetCondition(xpv2.TypeReady).Status, cr.GetCondition(xpv2.TypeUpToDate).Status
		last = fmt.Sprintf("storage migration %+v, Ready %s, UpToDate %s", at.StorageMigration, ready, upToDate)
		return len(progress) > 0 && at.StorageMigration == nil && ready == corev1.ConditionTrue && upToDate == corev1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("the storage servers did not migrate to ssd-redwood-1: %s; provider log %s", last, r.ProviderLog())
	}
	t.Logf("storage engine ssd-2 → ssd-redwood-1 in %s, progress seen %v, fault tolerance %d before, lowest %d", time.Since(start).Round(time.Second), progress, ftBefore, lowest)
	if lowest < ftBefore {
		t.Errorf("fault tolerance fell to %d during the migration, from %d", lowest, ftBefore)
	}
}
