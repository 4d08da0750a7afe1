// Command fdbpolicy tests and explains provider-foundationdb safety policies
// without a cluster.
//
//	fdbpolicy test DIR...                      run the PolicyTest files in each DIR
//	fdbpolicy eval -f INPUT [-p DIR] [-o FMT]  print the decision trace for one input
//
// Both use the built-in default policies plus the SafetyPolicy manifests in
// the directories given, as if they were objects in the cluster.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/suite"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitInvalid = 2
)

const usage = `usage:
  fdbpolicy test DIR...
      Run the PolicyTest files in each DIR against the default policies and
      the SafetyPolicy manifests in DIR. Exits 1 when a test fails.
  fdbpolicy eval -f INPUT [-p DIR] [-o text|yaml|json]
      Decide on the input in INPUT (YAML: action, cluster, processGroups,
      params, policies, object, and optionally now) and print the trace.
`

const (
	errNoDir    = "test needs at least one directory"
	errNoInput  = "eval needs -f INPUT"
	errFormat   = "unknown output format %q"
	errReadFile = "cannot read %s"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInvalid
	}
	var (
		code int
		err  error
	)
	switch args[0] {
	case "test":
		code, err = test(ctx, args[1:], stdout)
	case "eval":
		code, err = eval(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, usage)
		return exitInvalid
	}
	if err != nil {
		fmt.Fprintf(stderr, "fdbpolicy: %s\n", err)
		return exitInvalid
	}
	return code
}

func test(ctx context.Context, dirs []string, stdout io.Writer) (int, error) {
	if len(dirs) == 0 {
		return exitInvalid, errors.New(errNoDir)
	}
	d, err := defaults.Policies()
	if err != nil {
		return exitInvalid, err
	}
	failed, err := suite.TestDirs(ctx, d, dirs, stdout)
	switch {
	case err != nil:
		return exitInvalid, err
	case failed > 0:
		return exitFailed, nil
	}
	return exitOK, nil
}

// evalFile is an eval input: an Input with an optional time.
type evalFile struct {
	Now *metav1.Time `json:"now,omitempty"`
}

func eval(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "input file")
	dir := fs.String("p", "", "directory of SafetyPolicy manifests to use besides the defaults")
	format := fs.String("o", "text", "output format: text, yaml or json")
	if err := fs.Parse(args); err != nil {
		return exitInvalid, err
	}
	if *file == "" {
		return exitInvalid, errors.New(errNoInput)
	}
	b, err := os.ReadFile(*file)
	if err != nil {
		return exitInvalid, errors.Wrapf(err, errReadFile, *file)
	}
	ef := evalFile{}
	if err := yaml.Unmarshal(b, &ef); err != nil {
		return exitInvalid, errors.Wrapf(err, errReadFile, *file)
	}
	// The input is the file without its time: a merge patch deletes it.
	in, err := suite.ParseInput(b, []byte(`{"now": null}`))
	if err != nil {
		return exitInvalid, err
	}
	var objects []policy.Policy
	if *dir != "" {
		s, err := suite.Load(*dir)
		if err != nil {
			return exitInvalid, err
		}
		objects = s.Policies
	}
	d, err := defaults.Policies()
	if err != nil {
		return exitInvalid, err
	}
	r, err := suite.NewRunner(d, objects)
	if err != nil {
		return exitInvalid, err
	}
	now := suite.DefaultNow
	if ef.Now != nil {
		now = ef.Now.UTC()
	}
	return exitOK, write(stdout, *format, r.Decide(ctx, now, in))
}

func write(w io.Writer, format string, d policy.Decision) error {
	switch format {
	case "text":
		suite.PrintTrace(w, d)
		return nil
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(d)
	case "yaml":
		b, err := yaml.Marshal(d)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	default:
		return errors.Errorf(errFormat, format)
	}
}
