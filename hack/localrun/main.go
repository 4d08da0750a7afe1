// Command localrun is `make run` and `make stop`: the whole product on one
// machine (see internal/localrun).
//
//	localrun run  --bin-path DIRS   start, report until the quickstart is Ready, print next steps, run until Ctrl-C
//	localrun stop --bin-path DIRS   stop what a killed run left behind
//
// DIRS is what hack/controlplane.sh --all prints.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "run" && os.Args[1] != "stop") {
		fmt.Fprintln(os.Stderr, "usage: localrun run|stop --bin-path DIRS [flags]")
		os.Exit(2)
	}
	o := localrun.DefaultOptions()
	fs := flag.NewFlagSet("localrun "+os.Args[1], flag.ExitOnError)
	fs.StringVar(&o.BinPath, "bin-path", "", "Directories of the control-plane binaries, as hack/controlplane.sh --all prints them.")
	fs.StringVar(&o.StateDir, "state-dir", o.StateDir, "Where the run keeps its cluster, provider binary, logs and pid files.")
	fs.StringVar(&o.Root, "root", o.Root, "The repository root.")
	fs.IntVar(&o.Zones, "zones", o.Zones, "Zones of fake nodes.")
	fs.IntVar(&o.NodesPerZone, "nodes-per-zone", o.NodesPerZone, "Fake nodes per zone.")
	_ = fs.Parse(os.Args[2:])

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var err error
	if os.Args[1] == "stop" {
		err = localrun.Cleanup(ctx, o)
		if err == nil {
			fmt.Println("stopped; nothing of a local run is left running")
		}
	} else {
		err = run(ctx, cancel, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localrun:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cancel context.CancelFunc, o localrun.Options) error {
	r, err := localrun.Start(ctx, o)
	if err != nil {
		return err
	}
	go func() {
		select {
		case err := <-r.ProviderExited():
			fmt.Fprintf(os.Stderr, "the provider exited (%v); see %s\n", err, r.ProviderLog())
			cancel()
		case <-ctx.Done():
		}
	}()
	fmt.Println("==> waiting for the quickstart Cluster to be Ready (one line per change)")
	p := localrun.NewProgress(r.Client, localrun.Namespace, os.Stdout)
	if err := r.WaitReady(ctx, p); err == nil {
		_ = r.NextSteps(ctx, os.Stdout)
		// Keep reporting, so scale-downs and policy decisions show here.
		_ = p.ReportUntil(ctx, 2*time.Second, nil)
	}
	fmt.Println("\n==> stopping the provider and the local cluster")
	stopCtx, stop := context.WithTimeout(context.Background(), 2*time.Minute)
	defer stop()
	if err := r.Stop(stopCtx); err != nil {
		return err
	}
	fmt.Println("stopped; nothing of this run is left running")
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}
