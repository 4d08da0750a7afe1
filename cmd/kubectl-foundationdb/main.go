// Command kubectl-foundationdb is the kubectl plugin of provider-foundationdb:
// put it on PATH and run `kubectl foundationdb`. Linked or copied as
// kubectl_complete-foundationdb, it completes the plugin's command lines
// for kubectl's shell completion.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-foundationdb/internal/kubectlplugin"
)

// completer is the name kubectl runs to complete a plugin's arguments.
const completer = "kubectl_complete-foundationdb"

func main() {
	args := os.Args[1:]
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == completer {
		args = append([]string{"__complete"}, args...)
	}
	cmd := kubectlplugin.NewCommand("kubectl foundationdb", genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, clock.RealClock{})
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	var exit *kubectlplugin.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.Code)
	case err != nil:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
}
