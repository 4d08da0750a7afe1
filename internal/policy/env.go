package policy

import (
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
)

// Cost limits, as Kubernetes bounds the CEL of admission policies.
const (
	// DefaultRuntimeCostLimit bounds one evaluation of one expression
	// (Kubernetes' PerCallLimit).
	DefaultRuntimeCostLimit = 1_000_000
	// DefaultStaticCostLimit bounds the estimated worst-case cost of one
	// expression; a policy with a costlier expression does not compile.
	DefaultStaticCostLimit = 10_000_000
)

// Sizes the cost estimator assumes for collections and strings of unknown
// size, so that a comprehension over processGroups has a finite worst case.
const (
	// MaxProcessGroups is the most process groups (and targets) a cluster is
	// assumed to have: the largest process counts the Cluster API allows.
	MaxProcessGroups = 2000
	maxSmallList     = 16
	// maxSize bounds any other string, bytes, list or map, e.g. in params.
	maxSize = 1024
)

// The names of the CEL variables.
const (
	varAction        = "action"
	varCluster       = "cluster"
	varProcessGroups = "processGroups"
	varTargets       = "targets"
	varBudget        = "budget"
	varParams        = "params"
	varNow           = "now"
	varObject        = "object"
	varVariables     = "variables."
)

// newEnv returns the environment every policy expression compiles in.
func newEnv() (*cel.Env, error) {
	s, err := newSchema(reflect.TypeFor[Action](), reflect.TypeFor[Cluster](), reflect.TypeFor[ProcessGroup](), reflect.TypeFor[Targets]())
	if err != nil {
		return nil, err
	}
	opts := append(s.options(),
		cel.Variable(varAction, cel.ObjectType(typePrefix+"Action")),
		cel.Variable(varCluster, cel.ObjectType(typePrefix+"Cluster")),
		cel.Variable(varProcessGroups, cel.ListType(cel.ObjectType(typePrefix+"ProcessGroup"))),
		cel.Variable(varTargets, cel.ObjectType(typePrefix+"Targets")),
		cel.Variable(varBudget, cel.MapType(cel.StringType, cel.IntType)),
		cel.Variable(varParams, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(varNow, cel.TimestampType),
		cel.Variable(varObject, cel.MapType(cel.StringType, cel.DynType)),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		cel.EagerlyValidateDeclarations(true),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		ext.Math(),
	)
	return cel.NewEnv(opts...)
}

// knownSizes are the largest sizes of the input model's collections, by
// field name.
var knownSizes = map[string]uint64{
	varProcessGroups: MaxProcessGroups,
	"targets":        MaxProcessGroups,
	"groups":         MaxProcessGroups,
	"unknown":        MaxProcessGroups,
	"conditions":     maxSmallList,
	"roles":          maxSmallList,
	"addresses":      maxSmallList,
	"coordinators":   maxSmallList,
	"desiredCounts":  maxSmallList,
	varBudget:        maxSmallList,
}

// sizeEstimator bounds the sizes the static cost estimate assumes.
type sizeEstimator struct{}

// EstimateSize implements checker.CostEstimator.
func (sizeEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if p := n.Path(); len(p) > 0 {
		if size, ok := knownSizes[p[len(p)-1]]; ok {
			return &checker.SizeEstimate{Max: size}
		}
	}
	switch n.Type().Kind() {
	case types.StringKind, types.BytesKind, types.ListKind, types.MapKind, types.DynKind, types.AnyKind:
		return &checker.SizeEstimate{Max: maxSize}
	default:
		return nil
	}
}

// EstimateCallCost implements checker.CostEstimator with CEL's defaults.
func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
