package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFitness checks the table against FoundationDB's
// machineClassFitness (fdbrpc/Locality.cpp, 7.3.79), cell by cell for a
// row of each kind.
func TestFitness(t *testing.T) {
	roles := []role{roleStorage, roleLog, roleCommitProxy, roleGrvProxy, roleMaster, roleResolver, roleClusterController, roleDataDistributor, roleRatekeeper, roleLogRouter}
	cases := map[string][]int{
		ClassStorage:           {bestFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit},
		ClassTransaction:       {worstFit, goodFit, okayFit, okayFit, okayFit, okayFit, okayFit, worstFit, worstFit, okayFit},
		ClassResolution:        {neverAssign, neverAssign, worstFit, worstFit, worstFit, bestFit, okayFit, worstFit, worstFit, worstFit},
		ClassStateless:         {neverAssign, neverAssign, goodFit, goodFit, goodFit, goodFit, goodFit, goodFit, goodFit, goodFit},
		ClassLog:               {worstFit, bestFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit},
		ClassCommitProxy:       {neverAssign, neverAssign, bestFit, worstFit, worstFit, worstFit, okayFit, worstFit, worstFit, worstFit},
		ClassGrvProxy:          {neverAssign, neverAssign, worstFit, bestFit, worstFit, worstFit, okayFit, worstFit, worstFit, worstFit},
		ClassMaster:            {neverAssign, neverAssign, worstFit, worstFit, bestFit, worstFit, okayFit, okayFit, okayFit, worstFit},
		ClassClusterController: {neverAssign, neverAssign, worstFit, worstFit, worstFit, worstFit, bestFit, worstFit, worstFit, worstFit},
		ClassDataDistributor:   {neverAssign, neverAssign, worstFit, worstFit, worstFit, worstFit, worstFit, bestFit, worstFit, worstFit},
		ClassRatekeeper:        {neverAssign, neverAssign, worstFit, worstFit, worstFit, worstFit, worstFit, worstFit, bestFit, worstFit},
		ClassRouter:            {neverAssign, neverAssign, worstFit, worstFit, worstFit, worstFit, okayFit, worstFit, worstFit, bestFit},
		ClassCoordinator:       {neverAssign, neverAssign, neverAssign, neverAssign, neverAssign, neverAssign, neverAssign, neverAssign, neverAssign, neverAssign},
		ClassUnset:             {unsetFit, unsetFit, unsetFit, unsetFit, unsetFit, unsetFit, unsetFit, unsetFit, unsetFit, unsetFit},
	}
	for class, want := range cases {
		t.Run(class, func(t *testing.T) {
			got := make([]int, len(roles))
			for i, r := range roles {
				got[i] = fitness(r, class)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fitness of class %s by role: -want, +got:\n%s", class, diff)
			}
		})
	}
}
