package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// TestStorageEngineMigration changes the storage engine of a running
// database. FoundationDB refuses that while storage_migration_type is
// disabled, its default: the Cluster configures the engine with a gradual
// migration and the perpetual wiggle in one command, is not up to date
// while storage servers run the old engine, and is up to date once every
// storage server runs the new one. The database never drops below its
// fault tolerance on the way.
func TestStorageEngineMigration(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := smallCluster(namespace(t, "storage-migration"), nil)
	createReady(t, cr)
	db := h.Sim(t, cr)
	desired := cr.Status.AtProvider.Health.FaultTolerance
	update(t, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.DatabaseConfiguration.StorageEngine = "ssd-redwood-1" })
	var progress []string
	lowest := desired
	eventually(t, 300*time.Second, "every storage server runs ssd-redwood-1", func() (bool, string) {
		get(t, cr)
		if m := cr.Status.AtProvider.StorageMigration; m != nil {
			if p := fmt.Sprintf("%d/%d", m.Migrated, m.Total); len(progress) == 0 || progress[len(progress)-1] != p {
				progress = append(progress, p)
			}
		}
		lowest = min(lowest, cr.Status.AtProvider.Health.FaultTolerance)
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		if n := oldEngineServers(st, "ssd-redwood-1"); n > 0 || st.Cluster.Configuration.StorageEngine != "ssd-redwood-1" {
			return false, fmt.Sprintf("configured %s, %d storage servers on another engine; %s", st.Cluster.Configuration.StorageEngine, n, cr.GetCondition(xpv2.TypeUpToDate).Message)
		}
		return cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue && cr.Status.AtProvider.StorageMigration == nil, cr.GetCondition(xpv2.TypeUpToDate).Message
	})
	if lowest < desired {
		t.Errorf("fault tolerance fell to %d during the migration, want %d throughout", lowest, desired)
	}
	if d := cr.Status.AtProvider.LastPolicyDecision; d == nil || d.Action != "ConfigureDatabase" || d.Result != "Allowed" {
		t.Errorf("the Cluster records the last decision %+v, want an allowed ConfigureDatabase", d)
	}
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
	// What the status said on the way, as far as the polls caught it: a
	// migration of three servers in virtual time may pass between two
	// (the plan's tests hold what it says, TestPlanSteps).
	t.Logf("progress seen: %v; lowest fault tolerance %d of %d", progress, lowest, desired)
}

// oldEngineServers counts the storage servers of status st that run
// another engine than engine, or do not say which.
func oldEngineServers(st *fdb.Status, engine string) int {
	n := 0
	for _, p := range st.Cluster.Processes {
		for _, r := range p.Roles {
			if r.Role == fdb.RoleStorage && (r.StorageMetadata == nil || r.StorageMetadata.StorageEngine != engine) {
				n++
			}
		}
	}
	return n
}
