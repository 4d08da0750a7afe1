// Command dashboard writes the Grafana dashboard of internal/dashboard to
// the file its argument names (`make generate`: examples/dashboard).
package main

import (
	"fmt"
	"os"

	"github.com/crossplane-contrib/provider-foundationdb/internal/dashboard"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dashboard FILE")
		os.Exit(2)
	}
	out, err := dashboard.JSON()
	if err == nil {
		err = os.WriteFile(os.Args[1], out, 0o644) //nolint:gosec // an example to commit, readable by all
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
