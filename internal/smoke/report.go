package smoke

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Status is how a phase went.
type Status string

// Statuses of a phase.
const (
	OK      Status = "ok"
	Failed  Status = "FAILED"
	Skipped Status = "skipped"
	NotRun  Status = "not run"
)

// Counts are what a phase left, as seen when it ended.
type Counts struct {
	// Pods of the Cluster's process groups.
	Pods int
	// Processes the process groups report (their process IDs).
	Processes int
	// Events about the Cluster, its process groups and their pods and
	// volume claims last seen during the phase.
	Events int
	// Decisions are the distinct safety-policy decisions recorded on the
	// Cluster and its process groups that the phase's polls saw: a lower
	// bound, since a decision a later one replaced between two polls is
	// not seen.
	Decisions int
}

// Result is one phase's line of the report.
type Result struct {
	Phase  string
	Status Status
	// Note says what the phase did, why it was skipped, or why it
	// failed.
	Note   string
	Took   time.Duration
	Counts Counts
}

// Report is the result of every phase, in order.
type Report []Result

// Failed returns the phase that failed, nil when none did.
func (r Report) Failed() *Result {
	for i := range r {
		if r[i].Status == Failed {
			return &r[i]
		}
	}
	return nil
}

// Find returns the result of the phase whose name starts with prefix, nil
// when there is none.
func (r Report) Find(prefix string) *Result {
	for i := range r {
		if strings.HasPrefix(r[i].Phase, prefix) {
			return &r[i]
		}
	}
	return nil
}

// Write prints the report as a table, a row per phase with its status,
// time and counts, and its note on the line below; a phase that did not
// run has no counts.
func (r Report) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\tresult\ttime\tpods\tprocesses\tevents\tdecisions\t")
	for _, res := range r {
		if res.Status == NotRun {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t\n", res.Phase, res.Status)
			continue
		}
		c := res.Counts
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", res.Phase, res.Status, res.Took.Round(100*time.Millisecond), c.Pods, c.Processes, c.Events, c.Decisions)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, res := range r {
		if res.Note != "" {
			if _, err := fmt.Fprintf(w, "%s: %s\n", res.Phase, res.Note); err != nil {
				return err
			}
		}
	}
	return nil
}

// skipped is the error a phase returns when it cannot run here; the report
// says why.
type skipped struct{ why string }

func (s *skipped) Error() string { return s.why }

func asSkipped(err error, s **skipped) bool { return errors.As(err, s) }
