// Package fdbcli implements fdb.Client by running the version specific
// fdbcli, fdbbackup and fdbrestore binaries of a FoundationDB release, the
// way the FoundationDB operator's default mode does: one temporary cluster
// file per call, --exec with a --timeout, and errors mapped from the tools'
// output to the typed errors of package fdb.
package fdbcli

import (
	"context"
	"os"
	"os/exec"
	"slices"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// A Runner runs one tool invocation and returns its combined output. A
// non-zero exit status is an error; the output is returned with it. env
// holds settings (NAME=value) the tool gets in its environment for this
// invocation alone, beyond those every invocation gets.
type Runner interface {
	Run(ctx context.Context, binary string, env []string, args ...string) ([]byte, error)
}

// EnvLogGroup is the environment setting that names the tools' trace log
// group, which the database lists with each connected client. fdbcli reads
// FDB_NETWORK_OPTION_<OPTION> settings when it sets up its network
// (MultiVersionApi::loadEnvironmentVariableNetworkOptions), while its
// --log-group flag takes effect only with --log.
const EnvLogGroup = "FDB_NETWORK_OPTION_TRACE_LOG_GROUP=" + fdb.ToolsLogGroup

// ExecRunner runs binaries with os/exec, in the provider's environment
// plus Env (EnvLogGroup when nil) plus the invocation's own settings, which
// win over both.
type ExecRunner struct {
	Env []string
}

// Run implements Runner.
func (r ExecRunner) Run(ctx context.Context, binary string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, binary, args...)
	common := r.Env
	if common == nil {
		common = []string{EnvLogGroup}
	}
	cmd.Env = slices.Concat(os.Environ(), common, env)
	return cmd.CombinedOutput()
}
