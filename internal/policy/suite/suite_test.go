package suite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
)

// A team policy that warns about exclusions outside a change window, and
// tests for it that exercise merging, a custom now and the defaults.
const teamDir = `
apiVersion: foundationdb.crossplane.io/v1alpha1
kind: SafetyPolicy
metadata: {name: change-window}
spec:
  actions: [Exclude]
  enforcement: Warn
  params: {openHour: 8}
  validations:
  - name: office-hours
    expression: now.getHours() >= params.openHour
    messageExpression: "'it is %d:00, changes start at %d:00'.format([now.getHours(), params.openHour])"
---
apiVersion: foundationdb.crossplane.io/v1alpha1
kind: PolicyTest
now: "2025-01-01T06:00:00Z"
input:
  action: {type: Exclude, targets: [storage-1], processClass: storage}
  cluster: {available: true, secondsSinceLastRecovery: 3600, desiredFaultTolerance: 1, desiredCounts: {storage: 1}}
  processGroups: [{id: storage-1, class: storage, reporting: true}]
tests:
- name: early exclusion warns
  expect: {result: Warned, message: "warned by change-window/office-hours: it is 6:00, changes start at 8:00"}
- name: params move the window
  input: {params: {openHour: 5}}
  expect: {result: Allowed}
- name: a deny beats the warning
  input: {cluster: {available: false}}
  expect: {result: Denied, message: database-available}
- name: null deletes and lists replace
  input: {processGroups: [], cluster: {desiredCounts: null}}
  expect: {result: Denied, message: exclusion budget of 0}
`

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func defaultPolicies(t *testing.T) []policy.Policy {
	t.Helper()
	ps, err := defaults.Policies()
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestRun(t *testing.T) {
	s, err := Load(writeDir(t, map[string]string{"team.yaml": teamDir, "README.md": "ignored"}))
	if err != nil {
		t.Fatal(err)
	}
	results, err := s.Run(context.Background(), defaultPolicies(t))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Name   string
		Result policy.Result
		Pass   bool
	}
	want := []got{
		{"early exclusion warns", policy.ResultWarned, true},
		{"params move the window", policy.ResultAllowed, true},
		{"a deny beats the warning", policy.ResultDenied, true},
		{"null deletes and lists replace", policy.ResultDenied, true},
	}
	var gots []got
	for _, r := range results {
		gots = append(gots, got{r.Test.Name, r.Decision.Result, r.Pass})
		if !r.Pass {
			t.Logf("%s: %s", r.Test.Name, r.Decision.Message)
		}
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("Run(...): -want, +got:\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	test := func(body string) string {
		return "kind: PolicyTest\ninput: {action: {type: Kill}}\ntests:\n" + body
	}
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"UnknownKind": {
			files: map[string]string{"a.yaml": "kind: ConfigMap\n"},
			want:  `document 1 of DIR/a.yaml: kind "ConfigMap" is neither SafetyPolicy nor PolicyTest`,
		},
		"BadResult": {
			files: map[string]string{"a.yaml": test("- {name: t, expect: {result: Allow}}\n")},
			want:  `cannot parse document 1 of DIR/a.yaml: test "t": expected result "Allow" is not one of Allowed, Denied, Warned, Audited`,
		},
		"UnknownInputField": {
			files: map[string]string{"a.yml": test("- {name: t, input: {cluster: {availabel: true}}, expect: {result: Allowed}}\n")},
			want:  `cannot parse document 1 of DIR/a.yml: cannot parse test "t": cannot parse input: json: unknown field "availabel"`,
		},
		"UnknownTestField": {
			files: map[string]string{"a.yaml": test("- {name: t, expected: {result: Allowed}}\n")},
			want:  `cannot parse document 1 of DIR/a.yaml: error unmarshaling JSON: while decoding JSON: json: unknown field "expected"`,
		},
		"BadPolicy": {
			files: map[string]string{"a.yaml": "---\nkind: SafetyPolicy\napiVersion: foundationdb.crossplane.io/v1alpha1\nspec: {bogus: 1}\n"},
			want:  `cannot parse document 1 of DIR/a.yaml: cannot parse SafetyPolicy manifest: error unmarshaling JSON: while decoding JSON: json: unknown field "bogus"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := writeDir(t, tc.files)
			_, err := Load(dir)
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), dir, "DIR")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Load(...): -want error, +got error:\n%s", diff)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Load(missing directory): want an error")
	}
}

func TestReport(t *testing.T) {
	results := []Result{
		{Test: Test{File: "a.yaml", Name: "ok", Input: policy.Input{Action: policy.Action{Type: "Kill"}}, Expect: Expectation{Result: policy.ResultAllowed}}, Decision: policy.Decision{Result: policy.ResultAllowed}, Pass: true},
		{
			Test:     Test{File: "a.yaml", Name: "bad", Input: policy.Input{Action: policy.Action{Type: "Exclude"}}, Expect: Expectation{Result: policy.ResultDenied, Message: "budget"}},
			Decision: policy.Decision{Result: policy.ResultAllowed, Message: "exclude allowed"},
		},
	}
	want := `NAME  ACTION   EXPECTED  GOT      RESULT
ok    Kill     Allowed   Allowed  PASS
bad   Exclude  Denied    Allowed  FAIL

FAIL a.yaml: "bad"
  expected: Denied with a message containing "budget"
  got:      Allowed: exclude allowed

1 passed, 1 failed
`
	b := &bytes.Buffer{}
	if failed := Report(b, results); failed != 1 {
		t.Errorf("Report(...): want 1 failure, got %d", failed)
	}
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Report(...) output: -want, +got:\n%s", diff)
	}
}

func TestPrintTrace(t *testing.T) {
	r, err := NewRunner(defaultPolicies(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := ParseInput([]byte(`{action: {type: Include, targets: [storage-1]}, cluster: {available: true, secondsSinceLastRecovery: 10, recoveryState: fully_recovered}}`))
	if err != nil {
		t.Fatal(err)
	}
	b := &bytes.Buffer{}
	PrintTrace(b, r.Decide(context.Background(), DefaultNow, in))
	for _, want := range []string{
		"RESULT:  Denied\n",
		"MESSAGE: include storage-1 denied by fdb-inclusion/min-recovery-time: the last recovery was less than 600s ago\n",
		"policy fdb-inclusion (Deny): Denied, cost ",
		"  rule     min-recovery-time FAIL (cost ",
		"    message: the last recovery was less than 600s ago\n",
		"  rule     recovery-state PASS (cost ",
		"not applying to Include: fdb-backup, fdb-bounce, fdb-configuration, fdb-coordinator-recovery, fdb-coordinators, fdb-deletion, fdb-drill, fdb-exclusion, fdb-failover, fdb-fault-tolerance, fdb-locks, fdb-pod-deletion, fdb-removal, fdb-replacement, fdb-restore, fdb-tls, fdb-unreachable-removal, fdb-upgrade\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("PrintTrace(...): want output containing %q, got:\n%s", want, b.String())
		}
	}
}
