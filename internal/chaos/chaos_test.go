package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// Environment variables of the seed budget.
const (
	// SeedsEnv is how many seeds TestChaos runs (DefaultSeeds when unset).
	SeedsEnv = "CHAOS_SEEDS"
	// SeedEnv replays one seed.
	SeedEnv = "CHAOS_SEED"
	// TraceEnv, when set, prints every run's trace.
	TraceEnv = "CHAOS_TRACE"
	// DefaultSeeds covers every workload once.
	DefaultSeeds = 8
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// runs counts the runs of this binary, for unique namespaces.
var runs int

// runSeed runs seed's workload (seeds take the workloads in turn).
func runSeed(t *testing.T, seed uint64) *Report {
	t.Helper()
	runs++
	w := Workloads[seed%uint64(len(Workloads))]
	rep, err := Run(context.Background(), env, seed, w, DefaultSteps, fmt.Sprintf("chaos-%d-%d", seed, runs))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return rep
}

// seeds returns the seeds to run: CHAOS_SEED alone, or the first
// CHAOS_SEEDS.
func seeds(t *testing.T) []uint64 {
	t.Helper()
	if s := os.Getenv(SeedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", SeedEnv, err)
		}
		return []uint64{n}
	}
	n := DefaultSeeds
	if s := os.Getenv(SeedsEnv); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("%s: %v", SeedsEnv, err)
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// TestChaos runs the seed budget and fails on any violation, printing the
// summary and the seeds that replay them.
func TestChaos(t *testing.T) {
	testenv.Require(t, env)
	var reports []*Report
	for _, seed := range seeds(t) {
		rep := runSeed(t, seed)
		t.Logf("seed %d (%s): %d steps, %d checks, %d violations", seed, rep.Workload, rep.Steps, rep.Checks, len(rep.Violations))
		if os.Getenv(TraceEnv) != "" {
			for _, l := range rep.Lines {
				fmt.Println(l)
			}
		}
		reports = append(reports, rep)
	}
	s := Summarize(reports)
	s.Print(os.Stdout)
	for _, v := range s.Violations {
		t.Error(v)
	}
}

// TestChaosReplays runs a seed twice: the runs are the same, step by step.
func TestChaosReplays(t *testing.T) {
	testenv.Require(t, env)
	seed := uint64(1)
	if s := seeds(t); len(s) == 1 {
		seed = s[0]
	}
	a, b := runSeed(t, seed), runSeed(t, seed)
	if a.Trace == b.Trace {
		return
	}
	for i := range min(len(a.Lines), len(b.Lines)) {
		if a.Lines[i] != b.Lines[i] {
			t.Fatalf("seed %d diverged at trace line %d:\n first: %s\nsecond: %s", seed, i, a.Lines[i], b.Lines[i])
		}
	}
	t.Fatalf("seed %d: a run of %d trace lines, then one of %d", seed, len(a.Lines), len(b.Lines))
}
