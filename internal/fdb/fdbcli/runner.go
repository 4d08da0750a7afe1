// Package fdbcli implements fdb.Client by running the version specific
// fdbcli, fdbbackup and fdbrestore binaries of a FoundationDB release, the
// way the FoundationDB operator's default mode does: one temporary cluster
// file per call, --exec with a --timeout, and errors mapped from the tools'
// output to the typed errors of package fdb.
package fdbcli

import (
	"context"
	"os/exec"
)

// A Runner runs one tool invocation and returns its combined output. A
// non-zero exit status is an error; the output is returned with it.
type Runner interface {
	Run(ctx context.Context, binary string, args ...string) ([]byte, error)
}

// ExecRunner runs binaries with os/exec.
type ExecRunner struct{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, binary string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, binary, args...).CombinedOutput()
}
