package chaos

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// recent is how many trace lines a violation carries.
const recent = 12

// A Report is what one seed's run did and found.
type Report struct {
	Seed     uint64
	Workload string
	Steps    int
	// Faults counts the faults injected, by kind.
	Faults map[string]int
	// Phases places the faults and the provider's mutations in the thirds
	// of the operations with faults.
	Phases Phases
	// Defaults is true when the run's Clusters ran on the built-in time
	// thresholds.
	Defaults bool
	// Skips counts the steps at which the clock skipped ahead (idleSkip).
	Skips int
	// Checks counts the invariant checks made.
	Checks     int
	Violations []Violation
	// Trace fingerprints the run: replaying the seed gives the same one.
	Trace uint64
	// Lines are the run's trace, step by step.
	Lines []string
}

// A Violation is a broken invariant, with the step it broke at and what
// led to it.
type Violation struct {
	Seed     uint64
	Workload string
	Step     int
	Check    string
	Detail   string
	// Recent are the trace lines up to the step.
	Recent []string
}

func (v Violation) String() string {
	return fmt.Sprintf("seed %d step %d %s: %s (replay: CHAOS_SEED=%d CHAOS_WORKLOAD=%s)", v.Seed, v.Step, v.Check, v.Detail, v.Seed, v.Workload)
}

// violate records a violation at the current step.
func (r *run) violate(check, detail string) {
	from := max(len(r.trace)-recent, 0)
	r.report.Violations = append(r.report.Violations, Violation{Seed: r.seed, Workload: r.report.Workload, Step: r.step, Check: check, Detail: detail,
		Recent: slices.Clone(r.trace[from:])})
	r.log("VIOLATION %s: %s", check, detail)
}

// Phases sums up how faults met the operations that have them, by the
// first, second and last third of each.
type Phases struct {
	// Faults are the faults that struck in each third of the operation's
	// steps, from its start to the step it was first seen converged.
	Faults [3]int
	// Taken are the provider's mutations in each third of the operation's
	// mutations, in order; UnderFault those of them taken while a fault
	// was in force (within 90 s after it struck, faultWindow).
	Taken, UnderFault [3]int
}

// add adds o to p.
func (p *Phases) add(o Phases) {
	for i := range p.Faults {
		p.Faults[i] += o.Faults[i]
		p.Taken[i] += o.Taken[i]
		p.UnderFault[i] += o.UnderFault[i]
	}
}

// Summary adds up the reports of a seed budget.
type Summary struct {
	Seeds  int
	Steps  int
	Checks int
	Faults map[string]int
	// Phases places the faults and mutations in their operations' thirds;
	// Defaults counts the seeds on the built-in thresholds, Skips the
	// steps at which the clock skipped ahead.
	Phases   Phases
	Defaults int `json:",omitempty"`
	Skips    int `json:",omitempty"`
	// ByWorkload counts seeds and violations per workload.
	ByWorkload map[string][2]int
	Violations []Violation
}

// Summarize adds up reports.
func Summarize(reports []*Report) Summary {
	s := Summary{Faults: map[string]int{}, ByWorkload: map[string][2]int{}}
	for _, r := range reports {
		defaults := 0
		if r.Defaults {
			defaults = 1
		}
		s.Add(Summary{Seeds: 1, Steps: r.Steps, Checks: r.Checks, Faults: r.Faults, Phases: r.Phases, Defaults: defaults, Skips: r.Skips,
			ByWorkload: map[string][2]int{r.Workload: {1, len(r.Violations)}}, Violations: r.Violations})
	}
	return s
}

// Add adds o to s, which Summarize made.
func (s *Summary) Add(o Summary) {
	s.Seeds += o.Seeds
	s.Steps += o.Steps
	s.Checks += o.Checks
	s.Defaults += o.Defaults
	s.Skips += o.Skips
	s.Phases.add(o.Phases)
	for k, n := range o.Faults {
		s.Faults[k] += n
	}
	for k, n := range o.ByWorkload {
		w := s.ByWorkload[k]
		s.ByWorkload[k] = [2]int{w[0] + n[0], w[1] + n[1]}
	}
	s.Violations = append(s.Violations, o.Violations...)
}

// Print writes the summary as tables, then every violation with the seed
// that replays it and the trace that led to it.
func (s Summary) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "seeds\ton default thresholds\tsteps\tskipped ahead\tchecks\tviolations\n%d\t%d\t%d\t%d\t%d\t%d\n\n",
		s.Seeds, s.Defaults, s.Steps, s.Skips, s.Checks, len(s.Violations))
	fmt.Fprintf(tw, "workload\tseeds\tviolations\n")
	for _, k := range slices.Sorted(maps.Keys(s.ByWorkload)) {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", k, s.ByWorkload[k][0], s.ByWorkload[k][1])
	}
	fmt.Fprintf(tw, "\nfault\tinjected\n")
	for _, k := range slices.Sorted(maps.Keys(s.Faults)) {
		fmt.Fprintf(tw, "%s\t%d\n", k, s.Faults[k])
	}
	p := s.Phases
	fmt.Fprintf(tw, "\noperations with faults, by third\tfirst\tsecond\tlast\n")
	fmt.Fprintf(tw, "faults struck (thirds of the steps)\t%d\t%d\t%d\n", p.Faults[0], p.Faults[1], p.Faults[2])
	fmt.Fprintf(tw, "mutations taken (thirds of the mutations)\t%d\t%d\t%d\n", p.Taken[0], p.Taken[1], p.Taken[2])
	fmt.Fprintf(tw, "of them under a fault\t%d\t%d\t%d\n", p.UnderFault[0], p.UnderFault[1], p.UnderFault[2])
	_ = tw.Flush()
	for _, v := range s.Violations {
		fmt.Fprintf(w, "\n%s\n", v)
		for _, l := range v.Recent {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
