package suite

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Report prints a table of results, the details of every failure and a
// closing "N passed, M failed" line. It returns the number of failures.
func Report(w io.Writer, results []Result) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tACTION\tEXPECTED\tGOT\tRESULT")
	failed := 0
	for _, r := range results {
		verdict := "PASS"
		if !r.Pass {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Test.Name, r.Test.Input.Action.Type, r.Test.Expect.Result, r.Decision.Result, verdict)
	}
	_ = tw.Flush()
	for _, r := range results {
		if r.Pass {
			continue
		}
		fmt.Fprintf(w, "\nFAIL %s: %q\n  expected: %s", r.Test.File, r.Test.Name, r.Test.Expect.Result)
		if r.Test.Expect.Message != "" {
			fmt.Fprintf(w, " with a message containing %q", r.Test.Expect.Message)
		}
		fmt.Fprintf(w, "\n  got:      %s: %s\n", r.Decision.Result, r.Decision.Message)
	}
	fmt.Fprintf(w, "\n%d passed, %d failed\n", len(results)-failed, failed)
	return failed
}

// PrintTrace prints a decision and how every policy that applies reached
// it; the policies that do not apply to the action are listed last.
func PrintTrace(w io.Writer, d policy.Decision) {
	fmt.Fprintf(w, "RESULT:  %s\nMESSAGE: %s\nCOST:    %d\n", d.Result, d.Message, d.Cost)
	for _, x := range d.Warnings {
		fmt.Fprintf(w, "WARNING: %s\n", x)
	}
	for _, t := range d.Trace {
		fmt.Fprintf(w, "\npolicy %s (%s): ", t.Policy, t.Enforcement)
		if t.Matched {
			fmt.Fprintf(w, "%s, cost %d\n", t.Result, t.Cost)
		} else {
			fmt.Fprintf(w, "skipped by its match conditions, cost %d\n", t.Cost)
		}
		if t.CompileError != "" {
			fmt.Fprintf(w, "  compile error: %s\n", t.CompileError)
		}
		printExprs(w, "match", t.MatchConditions, true)
		printExprs(w, "variable", t.Variables, false)
		printExprs(w, "rule", t.Validations, true)
	}
	if len(d.NotApplying) > 0 {
		fmt.Fprintf(w, "\nnot applying to %s: %s\n", d.Action, strings.Join(d.NotApplying, ", "))
	}
}

// printExprs prints expression traces: a verdict for match conditions and
// rules, the value for variables.
func printExprs(w io.Writer, kind string, xs []policy.ExprTrace, verdicts bool) {
	for _, x := range xs {
		verdict := "= " + x.Value
		switch {
		case x.Error != "":
			verdict = "ERROR"
		case verdicts && x.Passed:
			verdict = "PASS"
		case verdicts:
			verdict = "FAIL"
		}
		fmt.Fprintf(w, "  %-8s %s %s (cost %d)\n    %s\n", kind, x.Name, verdict, x.Cost, x.Expression)
		switch {
		case x.Error != "":
			fmt.Fprintf(w, "    error: %s\n", x.Error)
		case x.Message != "":
			fmt.Fprintf(w, "    message: %s\n", x.Message)
		}
	}
}

// TestDirs runs the PolicyTest files of each directory against the
// default policies and the directory's SafetyPolicy manifests, printing a
// report per directory; failed is the number of failed tests.
func TestDirs(ctx context.Context, defaults []policy.Policy, dirs []string, w io.Writer) (failed int, err error) {
	for _, dir := range dirs {
		s, err := Load(dir)
		if err != nil {
			return failed, err
		}
		results, err := s.Run(ctx, defaults)
		if err != nil {
			return failed, err
		}
		fmt.Fprintf(w, "%s\n", dir)
		failed += Report(w, results)
	}
	return failed, nil
}
