// Package suite tests safety policies without a cluster, like kyverno test
// or gator verify: PolicyTest files give inputs and expected decisions, which
// are checked against the default policies and any SafetyPolicy manifests
// beside them.
package suite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// KindPolicyTest is the kind of a policy test file.
const KindPolicyTest = "PolicyTest"

const (
	errReadDir     = "cannot read directory %s"
	errReadFile    = "cannot read %s"
	errParseDoc    = "cannot parse document %d of %s"
	errUnknownKind = "document %d of %s: kind %q is neither %s nor %s"
	errParseInput  = "cannot parse input"
	errParseCase   = "cannot parse test %q"
	errBadResult   = "test %q: expected result %q is not one of Allowed, Denied, Warned, Audited"
)

// DefaultNow is the time of decisions whose file sets none, so that results
// do not depend on when the suite runs.
var DefaultNow = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// A File is a PolicyTest document.
type File struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	// Now is the time of every decision in the file; DefaultNow when unset.
	Now *metav1.Time `json:"now,omitempty"`
	// Input is the base input of every test: each test's input is merged
	// onto it as a JSON merge patch (objects merge, lists are replaced).
	Input json.RawMessage `json:"input,omitempty"`
	// Tests are the cases.
	Tests []Case `json:"tests"`
}

// A Case is one test.
type Case struct {
	Name string `json:"name"`
	// Input is merged onto the file's input.
	Input json.RawMessage `json:"input,omitempty"`
	// Expect is the expected decision.
	Expect Expectation `json:"expect"`
}

// An Expectation is what a decision should be.
type Expectation struct {
	// Result is Allowed, Denied, Warned or Audited.
	Result policy.Result `json:"result"`
	// Message is a fragment the decision's message must contain.
	Message string `json:"message,omitempty"`
}

// A Test is a case ready to run.
type Test struct {
	File   string
	Name   string
	Now    time.Time
	Input  policy.Input
	Expect Expectation
}

// A Suite is the content of a test directory.
type Suite struct {
	// Policies are the SafetyPolicy manifests, as if they were objects.
	Policies []policy.Policy
	Tests    []Test
}

// Load reads every .yaml and .yml file directly in dir: SafetyPolicy
// manifests and PolicyTest files, several per file separated by ---.
func Load(dir string) (*Suite, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, errors.Wrapf(err, errReadDir, dir)
	}
	s := &Suite{}
	for _, e := range entries {
		if e.IsDir() || !slices.Contains([]string{".yaml", ".yml"}, filepath.Ext(e.Name())) {
			continue
		}
		if err := s.loadFile(filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Suite) loadFile(path string) error {
	b, err := os.ReadFile(path) //nolint:gosec // Reading the files the user points at is the point.
	if err != nil {
		return errors.Wrapf(err, errReadFile, path)
	}
	docs, err := documents(b)
	if err != nil {
		return errors.Wrapf(err, errReadFile, path)
	}
	for i, doc := range docs {
		tm := metav1.TypeMeta{}
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return errors.Wrapf(err, errParseDoc, i+1, path)
		}
		switch tm.Kind {
		case v1alpha1.SafetyPolicyKind:
			p, err := policy.ParseManifest(doc)
			if err != nil {
				return errors.Wrapf(err, errParseDoc, i+1, path)
			}
			s.Policies = append(s.Policies, p)
		case KindPolicyTest:
			tests, err := parseTests(path, doc)
			if err != nil {
				return errors.Wrapf(err, errParseDoc, i+1, path)
			}
			s.Tests = append(s.Tests, tests...)
		default:
			return errors.Errorf(errUnknownKind, i+1, path, tm.Kind, v1alpha1.SafetyPolicyKind, KindPolicyTest)
		}
	}
	return nil
}

// documents splits a YAML stream into its non-empty documents.
func documents(b []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			out = append(out, doc)
		}
	}
}

func parseTests(path string, doc []byte) ([]Test, error) {
	f := File{}
	if err := yaml.UnmarshalStrict(doc, &f); err != nil {
		return nil, err
	}
	now := DefaultNow
	if f.Now != nil {
		now = f.Now.UTC()
	}
	out := make([]Test, 0, len(f.Tests))
	for _, c := range f.Tests {
		if !slices.Contains([]policy.Result{policy.ResultAllowed, policy.ResultDenied, policy.ResultWarned, policy.ResultAudited}, c.Expect.Result) {
			return nil, errors.Errorf(errBadResult, c.Name, c.Expect.Result)
		}
		in, err := ParseInput(f.Input, c.Input)
		if err != nil {
			return nil, errors.Wrapf(err, errParseCase, c.Name)
		}
		out = append(out, Test{File: filepath.Base(path), Name: c.Name, Now: now, Input: in, Expect: c.Expect})
	}
	return out, nil
}

// ParseInput parses an input, JSON or YAML, strictly: unknown fields are
// errors. Each further patch is merged onto it as a JSON merge patch.
func ParseInput(doc []byte, patches ...[]byte) (policy.Input, error) {
	merged, err := toJSONValue(doc)
	if err != nil {
		return policy.Input{}, errors.Wrap(err, errParseInput)
	}
	for _, p := range patches {
		v, err := toJSONValue(p)
		if err != nil {
			return policy.Input{}, errors.Wrap(err, errParseInput)
		}
		merged = mergePatch(merged, v)
	}
	// Marshalling values just decoded from JSON cannot fail.
	b, _ := json.Marshal(merged)
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	in := policy.Input{}
	return in, errors.Wrap(d.Decode(&in), errParseInput)
}

func toJSONValue(doc []byte) (any, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return map[string]any{}, nil
	}
	var v any
	return v, yaml.Unmarshal(doc, &v)
}

// mergePatch applies an RFC 7386 JSON merge patch: objects merge key by
// key, null deletes a key, anything else replaces.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	out := make(map[string]any, len(t)+len(p))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

// A Runner decides with a fixed set of policies at a given time.
type Runner struct {
	engine   *policy.Engine
	clock    *clocktesting.FakePassiveClock
	defaults []policy.Policy
	objects  []policy.Policy
}

// NewRunner returns a runner for the defaults and the SafetyPolicy
// manifests given as objects. It tracks the cost of every policy, the
// defaults' too, so that its traces show costs.
func NewRunner(defaults, objects []policy.Policy) (*Runner, error) {
	c := clocktesting.NewFakePassiveClock(DefaultNow)
	e, err := policy.NewEngine(policy.WithClock(c), policy.WithBuiltinCosts())
	if err != nil {
		return nil, err
	}
	return &Runner{engine: e, clock: c, defaults: defaults, objects: objects}, nil
}

// Decide decides on an input at a time, with the policies in effect for it.
func (r *Runner) Decide(ctx context.Context, now time.Time, in policy.Input) policy.Decision {
	r.clock.SetTime(now)
	return r.engine.Decide(ctx, policy.Assemble(r.defaults, r.objects, in.Policies), in)
}

// AllowedAfter is how long after now the policies in effect for in would
// allow its action, which they deny at now, if nothing but the clock moved
// (policy.Engine.AllowedAfter).
func (r *Runner) AllowedAfter(ctx context.Context, now time.Time, in policy.Input) (time.Duration, bool) {
	r.clock.SetTime(now)
	return r.engine.AllowedAfter(ctx, policy.Assemble(r.defaults, r.objects, in.Policies), in)
}

// A Result is the outcome of a test.
type Result struct {
	Test     Test
	Decision policy.Decision
	Pass     bool
}

// Run runs every test of the suite.
func (s *Suite) Run(ctx context.Context, defaults []policy.Policy) ([]Result, error) {
	r, err := NewRunner(defaults, s.Policies)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(s.Tests))
	for _, t := range s.Tests {
		d := r.Decide(ctx, t.Now, t.Input)
		pass := d.Result == t.Expect.Result && strings.Contains(d.Message, t.Expect.Message)
		out = append(out, Result{Test: t, Decision: d, Pass: pass})
	}
	return out, nil
}
