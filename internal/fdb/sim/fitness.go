package sim

// How well a process class fits each role the cluster controller recruits,
// as FoundationDB ranks them (apple/foundationdb fdbrpc/Locality.cpp,
// ProcessClass::machineClassFitness, 7.3.79): lower is better, and a class
// at NeverAssign never gets the role. The values are FoundationDB's
// (fdbrpc/include/fdbrpc/Locality.h, ProcessClass::Fitness), so that ties
// fall where its fall.
const (
	bestFit     = 0
	goodFit     = 1
	unsetFit    = 2
	okayFit     = 3
	worstFit    = 4
	neverAssign = 6
)

// A role is one the cluster controller recruits processes for.
type role int

// The roles the simulator recruits.
const (
	roleStorage role = iota
	roleLog
	roleCommitProxy
	roleGrvProxy
	roleMaster
	roleResolver
	roleClusterController
	roleDataDistributor
	roleRatekeeper
	roleLogRouter
)

// More --class values FoundationDB knows (Locality.h, ProcessClass(string)).
const (
	ClassResolution      = "resolution"
	ClassCommitProxy     = "commit_proxy"
	ClassGrvProxy        = "grv_proxy"
	ClassMaster          = "master"
	ClassRouter          = "router"
	ClassDataDistributor = "data_distributor"
	ClassRatekeeper      = "ratekeeper"
	ClassCoordinator     = "coordinator"
)

// ownClass is the class that fits each stateless role best.
var ownClass = map[role]string{
	roleCommitProxy:       ClassCommitProxy,
	roleGrvProxy:          ClassGrvProxy,
	roleMaster:            ClassMaster,
	roleResolver:          ClassResolution,
	roleClusterController: ClassClusterController,
	roleDataDistributor:   ClassDataDistributor,
	roleRatekeeper:        ClassRatekeeper,
	roleLogRouter:         ClassRouter,
}

// fitness is how well a process of class fits role r.
func fitness(r role, class string) int {
	switch r {
	case roleStorage:
		switch class {
		case ClassStorage:
			return bestFit
		case ClassUnset:
			return unsetFit
		case ClassTransaction, ClassLog:
			return worstFit
		}
		return neverAssign
	case roleLog:
		switch class {
		case ClassLog:
			return bestFit
		case ClassTransaction:
			return goodFit
		case ClassUnset:
			return unsetFit
		case ClassStorage:
			return worstFit
		}
		return neverAssign
	}
	switch {
	case class == ClassCoordinator:
		return neverAssign
	case class == ownClass[r]:
		return bestFit
	case class == ClassStateless:
		return goodFit
	case class == ClassUnset:
		return unsetFit
	}
	switch r {
	case roleCommitProxy, roleGrvProxy, roleMaster, roleResolver, roleLogRouter:
		if class == ClassTransaction {
			return okayFit
		}
	case roleClusterController:
		switch class {
		case ClassMaster, ClassResolution, ClassTransaction, ClassCommitProxy, ClassGrvProxy, ClassRouter:
			return okayFit
		}
	case roleDataDistributor, roleRatekeeper:
		if class == ClassMaster {
			return okayFit
		}
	}
	return worstFit
}
