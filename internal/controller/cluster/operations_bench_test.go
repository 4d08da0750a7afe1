package cluster_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// BenchmarkOperations measures what the day-to-day operations cost the
// triple cluster of BenchmarkRollouts (9 process groups: 5 storage, 3 log,
// 1 stateless in five zones), each from a cluster just created and at full
// fault tolerance: recoveries, coordinator changes, virtual seconds below
// the desired fault tolerance (2), virtual seconds until it converged and,
// as ns/op, wall time (at 1000 virtual seconds per wall second).
//
//   - Bootstrap: the Cluster created, until Ready at fault tolerance 2. The
//     database tolerates nothing before it exists, so its time below fault
//     tolerance is all of it; its coordinator changes do not count the
//     initial choice.
//   - ScaleDown: storage from 5 groups to 4.
//   - Replacement: storage-2 listed in processGroupsToReplace.
//   - DensityMigration: storageServersPerPod from 1 to 2.
//   - Upgrade: BenchmarkRollouts' patch upgrade, a roll with DNS names.
func BenchmarkOperations(b *testing.B) {
	start(b)
	b.Run("Bootstrap", func(b *testing.B) { benchmarkCost(b, func() opCost { return bootstrap(b) }) })
	upgrade := patchUpgrade.operation()
	upgrade.name = "Upgrade"
	for _, op := range []operation{
		{name: "ScaleDown", change: scaleStorageDown},
		{name: "Replacement", change: replaceStorage2},
		{name: "DensityMigration", change: migrateStorageDensity},
		upgrade,
	} {
		b.Run(op.name, func(b *testing.B) { benchmarkCost(b, func() opCost { return op.run(b) }) })
	}
}

// bootstrap creates a benchmark cluster and waits until it is Ready at
// fault tolerance 2.
func bootstrap(b *testing.B) opCost {
	b.StopTimer()
	h.Flow(true)
	cr := benchCluster(b, "bootstrap")
	began := h.Clock.Now()
	b.StartTimer()
	createReady(b, cr)
	db := h.Sim(b, cr)
	atFullTolerance(b, db)
	b.StopTimer()
	took := h.Clock.Now().Sub(began)
	return checked(b, "Bootstrap", cr, db, opCost{
		recoveries:         db.Recoveries(),
		coordinatorChanges: int(eventCount(b, cr, "ChangedCoordinators")) - 1,
		belowTolerance:     took,
		virtual:            took,
	})
}

// scaleStorageDown removes one of the five storage groups; it is done once
// four remain and nothing is excluded.
func scaleStorageDown(b *testing.B, cr *v1alpha1.Cluster) doneFunc {
	setStorage(b, cr, 4)
	return func(cr *v1alpha1.Cluster, st *fdb.Status) (bool, string) {
		groups := groupsOf(b, cr)
		storage := ids(groups, v1alpha1.ProcessClassStorage)
		return len(storage) == 4 && len(groups) == 8 && nothingExcluded(st), fmt.Sprintf("storage groups %v, exclusions %v", storage, fdb.Exclusions(st))
	}
}

// replaceStorage2 asks for storage-2 to be replaced, as
// TestReplacementAskedFor does; it is done once storage-6 took its place
// and nothing is excluded.
func replaceStorage2(b *testing.B, cr *v1alpha1.Cluster) doneFunc {
	update(b, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.ProcessGroupsToReplace = []string{"storage-2"} })
	want := []string{"storage-1", "storage-3", "storage-4", "storage-5", "storage-6"}
	return func(cr *v1alpha1.Cluster, st *fdb.Status) (bool, string) {
		groups := groupsOf(b, cr)
		storage := ids(groups, v1alpha1.ProcessClassStorage)
		return slices.Equal(storage, want) && len(groups) == 9 && nothingExcluded(st), fmt.Sprintf("storage groups %v, exclusions %v", storage, fdb.Exclusions(st))
	}
}

// migrateStorageDensity moves storage to two servers per pod, as
// TestDensityMigration does; it is done once five storage groups run two
// processes each and nothing is excluded.
func migrateStorageDensity(b *testing.B, cr *v1alpha1.Cluster) doneFunc {
	update(b, cr, func(cr *v1alpha1.Cluster) { cr.Spec.ForProvider.StorageServersPerPod = 2 })
	return func(cr *v1alpha1.Cluster, st *fdb.Status) (bool, string) {
		var storage []string
		migrated := 0
		for _, pg := range groupsOf(b, cr) {
			if pg.Spec.ForProvider.ProcessClass != v1alpha1.ProcessClassStorage {
				continue
			}
			storage = append(storage, fmt.Sprintf("%s:%d", pg.ID(), len(pg.Status.AtProvider.ProcessIDs)))
			if pg.Spec.ForProvider.ProcessesPerPod == 2 && len(pg.Status.AtProvider.ProcessIDs) == 2 {
				migrated++
			}
		}
		return migrated == 5 && len(storage) == 5 && nothingExcluded(st),
			fmt.Sprintf("storage groups (ID:processes) %s, exclusions %v", strings.Join(storage, " "), fdb.Exclusions(st))
	}
}

// nothingExcluded reports whether the database excludes no process.
func nothingExcluded(st *fdb.Status) bool { return len(fdb.Exclusions(st)) == 0 }
