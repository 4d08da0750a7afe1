// Command testsummary reads `go test -json` output on stdin, prints each
// package's result and the output of every failed test, and ends with one
// line "N passed, N failed, N skipped". It exits non-zero when a test or a
// package failed, or when no test ran at all.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (test2json) output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	passed, failed, skipped := 0, 0, 0
	output := map[string]*strings.Builder{}
	var failures []string
	packageFailed := false
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for in.Scan() {
		var e event
		if err := json.Unmarshal(in.Bytes(), &e); err != nil {
			fmt.Println(in.Text()) // build errors and other plain output
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if output[key] == nil {
				output[key] = &strings.Builder{}
			}
			output[key].WriteString(e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				report(e, output[key])
				packageFailed = packageFailed || e.Action == "fail"
				continue
			}
			switch e.Action {
			case "pass":
				passed++
			case "skip":
				skipped++
			case "fail":
				failed++
				failures = append(failures, key)
				if b := output[key]; b != nil {
					fmt.Print(b.String())
				}
			}
		}
	}
	sort.Strings(failures)
	for _, f := range failures {
		fmt.Println("FAILED:", f)
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || packageFailed || passed == 0 {
		os.Exit(1)
	}
}

// report prints a package's result line, and its output when it failed
// outside any test (build errors, TestMain failures).
func report(e event, out *strings.Builder) {
	switch e.Action {
	case "pass":
		fmt.Printf("ok   %s %.1fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Printf("---  %s (no tests)\n", e.Package)
	case "fail":
		if out != nil {
			fmt.Print(out.String())
		}
		fmt.Printf("FAIL %s %.1fs\n", e.Package, e.Elapsed)
	}
}
