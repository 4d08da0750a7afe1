package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const defaultSuite = "../../internal/policy/defaults/tests"

func runCLI(args ...string) (int, string, string) {
	stdout, stderr := &bytes.Buffer{}, &bytes.Buffer{}
	code := run(context.Background(), args, stdout, stderr)
	return code, stdout.String(), stderr.String()
}

// TestDefaultSuite runs the default policies' suite as `fdbpolicy test`.
func TestDefaultSuite(t *testing.T) {
	code, out, errOut := runCLI("test", defaultSuite)
	if code != exitOK {
		t.Fatalf("fdbpolicy test: want exit %d, got %d\n%s%s", exitOK, code, out, errOut)
	}
	if !strings.Contains(out, " passed, 0 failed\n") || strings.Contains(out, "FAIL") {
		t.Errorf("fdbpolicy test: want every test to pass, got:\n%s", out)
	}
}

// TestFlippedExpectation copies the default suite, flips one expectation and
// checks that the mismatch fails the run.
func TestFlippedExpectation(t *testing.T) {
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(defaultSuite, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "exclusion.yaml" {
			flipped := strings.Replace(string(b), "expect: {result: Allowed}", "expect: {result: Denied}", 1)
			if flipped == string(b) {
				t.Fatal("exclusion.yaml has no allowed expectation to flip")
			}
			b = []byte(flipped)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := runCLI("test", dir)
	if code != exitFailed {
		t.Errorf("fdbpolicy test: want exit %d, got %d", exitFailed, code)
	}
	var row string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "120s since recovery allows an exclusion ") {
			row = strings.Join(strings.Fields(line), " ")
		}
	}
	if want := "120s since recovery allows an exclusion Exclude Denied Allowed FAIL"; row != want {
		t.Errorf("fdbpolicy test: want the row %q, got %q", want, row)
	}
	for _, want := range []string{
		"FAIL exclusion.yaml: \"120s since recovery allows an exclusion\"\n  expected: Denied\n  got:      Allowed: exclude storage-1 allowed\n",
		" passed, 1 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fdbpolicy test: want output containing %q, got:\n%s", want, out)
		}
	}
}

func TestEval(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.yaml")
	body := `now: "2025-06-01T00:00:00Z"
action: {type: Exclude, targets: [storage-3], processClass: storage}
cluster: {available: true, activeGenerations: 1, secondsSinceLastRecovery: 42, desiredFaultTolerance: 1, desiredCounts: {storage: 3}}
processGroups: [{id: storage-1, class: storage, reporting: true}, {id: storage-2, class: storage, reporting: true}, {id: storage-3, class: storage, reporting: true}]
`
	if err := os.WriteFile(input, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want []string
	}{
		"Text": {
			args: []string{"eval", "-f", input},
			want: []string{
				"RESULT:  Denied\nMESSAGE: exclude storage-3 denied by fdb-exclusion/min-recovery-time: the last recovery was less than 120s ago\n",
				"  variable classBudget = 1 (cost ",
			},
		},
		"YAML": {
			args: []string{"eval", "-f", input, "-o", "yaml"},
			want: []string{"result: Denied\n", "rule: min-recovery-time\n", "time: \"2025-06-01T00:00:00Z\"\n"},
		},
		"JSON": {
			args: []string{"eval", "-f", input, "-o", "json"},
			want: []string{`"result": "Denied"`, `"policy": "fdb-exclusion"`},
		},
		"PolicyDir": {
			args: []string{"eval", "-f", input, "-p", "../../internal/policy/defaults"},
			want: []string{"RESULT:  Denied\n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			if code != exitOK {
				t.Fatalf("fdbpolicy %v: want exit 0, got %d: %s", tc.args, code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("fdbpolicy %v: want output containing %q, got:\n%s", tc.args, w, out)
				}
			}
		})
	}
}

func TestInvalidUsage(t *testing.T) {
	cases := map[string]struct {
		args   []string
		stderr string
	}{
		"NoCommand":      {stderr: "usage:"},
		"UnknownCommand": {args: []string{"verify"}, stderr: "usage:"},
		"TestNoDir":      {args: []string{"test"}, stderr: "fdbpolicy: test needs at least one directory\n"},
		"TestMissingDir": {args: []string{"test", "/nonexistent"}, stderr: "fdbpolicy: cannot read directory /nonexistent"},
		"EvalNoInput":    {args: []string{"eval"}, stderr: "fdbpolicy: eval needs -f INPUT\n"},
		"EvalNoFile":     {args: []string{"eval", "-f", "testdata-missing.yaml"}, stderr: "fdbpolicy: cannot read testdata-missing.yaml"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := runCLI(tc.args...)
			if code != exitInvalid {
				t.Errorf("fdbpolicy %v: want exit %d, got %d", tc.args, exitInvalid, code)
			}
			if !strings.Contains(errOut, tc.stderr) {
				t.Errorf("fdbpolicy %v: want stderr containing %q, got %q", tc.args, tc.stderr, errOut)
			}
		})
	}
}
