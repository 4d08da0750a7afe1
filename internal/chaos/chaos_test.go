package chaos

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// Environment variables of the seed budget.
const (
	// SeedsEnv is how many seeds TestChaos runs (DefaultSeeds when unset).
	SeedsEnv = "CHAOS_SEEDS"
	// SeedEnv replays one seed.
	SeedEnv = "CHAOS_SEED"
	// WorkloadEnv, with SeedEnv, names the workload the seed runs instead
	// of the one whose turn it is: a violation names its workload, so that
	// it replays after workloads were added.
	WorkloadEnv = "CHAOS_WORKLOAD"
	// TraceEnv, when set, prints every run's trace.
	TraceEnv = "CHAOS_TRACE"
	// FirstEnv is the first seed of the budget (1 when unset).
	FirstEnv = "CHAOS_FIRST"
	// ParallelEnv is how many seeds run at once, each on a control plane
	// of its own (1 when unset).
	ParallelEnv = "CHAOS_PARALLEL"
	// LedgerEnv names a file that keeps the summary of each whole block
	// of a hundred seeds run: a budget run again with the same ledger runs
	// only the blocks it lacks, and sums up all of them. `make chaos` keys
	// it by the code (every file but the docs) and sets it only for code
	// without changes, so that a long budget can run in parts, in several
	// sittings, on the same code.
	LedgerEnv = "CHAOS_LEDGER"
)

// DefaultSeeds, the budget when CHAOS_SEEDS is unset, covers every
// workload once.
var DefaultSeeds = len(Workloads)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// runs counts the runs of this binary, for unique namespaces.
var runs atomic.Int64

// runSeed runs seed's workload (seeds take the workloads in turn, unless
// a replay names one) on e.
func runSeed(t *testing.T, e *testenv.Env, seed uint64) *Report {
	t.Helper()
	w := Workloads[seed%uint64(len(Workloads))]
	if name := os.Getenv(WorkloadEnv); name != "" && os.Getenv(SeedEnv) != "" {
		i := slices.IndexFunc(Workloads, func(w Workload) bool { return w.Name == name })
		if i < 0 {
			t.Fatalf("%s=%q: no such workload", WorkloadEnv, name)
		}
		w = Workloads[i]
	}
	rep, err := Run(context.Background(), e, seed, w, DefaultSteps, fmt.Sprintf("chaos-%d-%d", seed, runs.Add(1)))
	if err != nil {
		t.Errorf("seed %d: %v", seed, err)
		return nil
	}
	return rep
}

// seeds returns the seeds to run: CHAOS_SEED alone, or CHAOS_SEEDS of
// them from CHAOS_FIRST.
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
	first := uint64(1)
	if s := os.Getenv(FirstEnv); s != "" {
		var err error
		if first, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: %v", FirstEnv, err)
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out
}

// TestChaos runs the seed budget on CHAOS_PARALLEL control planes at once
// (each run has one to itself) and fails on any violation, printing the
// summary and the seeds that replay them. Long budgets print their
// progress every hundred seeds. With CHAOS_LEDGER, the seeds the ledger
// keeps count without running again.
func TestChaos(t *testing.T) {
	testenv.Require(t, env)
	l := ledger(os.Getenv(LedgerEnv))
	if os.Getenv(SeedEnv) != "" {
		l = "" // a replay runs
	}
	budget := seeds(t)
	kept, all := l.read(t, budget)
	if kept.Seeds > 0 {
		fmt.Printf("ledger %s: %d seeds already run, %d to run\n", l, kept.Seeds, len(all))
	}
	blocks := l.tally(budget)
	envs := []*testenv.Env{env}
	if s := os.Getenv(ParallelEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", ParallelEnv, s)
		}
		for range n - 1 {
			e, err := testenv.Start()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.Stop() })
			envs = append(envs, e)
		}
	}
	todo := make(chan uint64)
	done := make(chan *Report)
	var workers sync.WaitGroup
	for _, e := range envs {
		workers.Go(func() {
			for seed := range todo {
				done <- runSeed(t, e, seed)
			}
		})
	}
	go func() {
		for _, seed := range all {
			todo <- seed
		}
		close(todo)
		workers.Wait()
		close(done)
	}()
	var reports []*Report
	for rep := range done {
		if rep == nil {
			continue
		}
		blocks.add(t, rep)
		t.Logf("seed %d (%s): %d steps, %d checks, %d violations", rep.Seed, rep.Workload, rep.Steps, rep.Checks, len(rep.Violations))
		for _, v := range rep.Violations {
			t.Log(v)
		}
		if os.Getenv(TraceEnv) != "" {
			for _, line := range rep.Lines {
				fmt.Println(line)
			}
		}
		rep.Lines = nil // a long budget keeps only the figures
		reports = append(reports, rep)
		if len(reports)%blockSize == 0 && len(all) > blockSize {
			s := Summarize(reports)
			s.Add(kept)
			fmt.Printf("progress: %d of %d seeds, %d steps, %d checks, %d violations\n", s.Seeds, len(budget), s.Steps, s.Checks, len(s.Violations))
		}
	}
	s := kept
	s.Add(Summarize(reports))
	slices.SortStableFunc(s.Violations, func(a, b Violation) int { return cmp.Compare(a.Seed, b.Seed) })
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
	a, b := runSeed(t, env, seed), runSeed(t, env, seed)
	if a == nil || b == nil || a.Trace == b.Trace {
		return
	}
	for i := range min(len(a.Lines), len(b.Lines)) {
		if a.Lines[i] != b.Lines[i] {
			t.Fatalf("seed %d diverged at trace line %d:\n first: %s\nsecond: %s", seed, i, a.Lines[i], b.Lines[i])
		}
	}
	t.Fatalf("seed %d: a run of %d trace lines, then one of %d", seed, len(a.Lines), len(b.Lines))
}
