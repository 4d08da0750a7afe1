package localrun_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/smoke"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// TestSmokeLocal runs `make smoke` in its local mode, so that it does not
// rot: on the local cluster of `make run` with the provider on the
// simulator (and no quickstart of the run's own), every phase runs as on a
// real cluster — the provider's Deployment applied and available (its pod
// runs nothing; the provider runs beside the cluster), the quickstart
// Cluster created in a namespace that enforces the restricted Pod Security
// Standard and Ready, storage scaled down by one, the patch upgrade
// through the provider's gated steps, the deletion until every object is
// gone — except writing and reading a key with fdbcli, which needs a
// container and must say so, skipped. The counts must show what each phase
// did: the pods and processes it left, the events it caused, and the
// policy decisions that gated it.
func TestSmokeLocal(t *testing.T) {
	o := runOptions(t, testenv.Getenv(t, testenv.LocalRunPathEnv, "hack/controlplane.sh --all"), "fdb-smoke-test")
	o.Quickstart = false
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	start := time.Now()
	r, err := localrun.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	t.Logf("the local cluster and the provider started in %s", time.Since(start).Round(time.Second))
	cfg, err := clientcmd.BuildConfigFromFlags("", r.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}

	phases := time.Now()
	report, err := smoke.Run(ctx, smoke.Options{
		Mode: smoke.Local, Config: cfg, Root: o.Root, Install: smoke.InstallDeployment, ProviderImage: "provider-foundationdb:local",
		Namespace: "fdb-smoke", ClusterName: "quickstart", Version: "7.3.63", UpgradeTo: "7.3.69",
		// Hang guards, not speed goals: removing a storage group waits
		// for the simulator to move its data (about 90 s), and CI runs
		// this beside TestQuickstart and other packages on two cores
		// (a scale down took over 3 minutes there on ef5457d).
		Timeouts: smoke.Timeouts{Install: 2 * time.Minute, Ready: 5 * time.Minute, Key: time.Minute, ScaleDown: 8 * time.Minute, Upgrade: 8 * time.Minute, Delete: 4 * time.Minute},
		Poll:     500 * time.Millisecond, Out: testenv.LogWriter{T: t},
	})
	var table bytes.Buffer
	if werr := report.Write(&table); werr != nil {
		t.Fatal(werr)
	}
	t.Logf("the phases took %s:\n%s", time.Since(phases).Round(time.Second), table.String())
	if err != nil {
		t.Fatalf("%v; provider log %s", err, r.ProviderLog())
	}

	key := report.Find("write and read a key")
	if key == nil || key.Status != smoke.Skipped || !strings.HasPrefix(key.Note, "kwok pods run no containers: would run ") {
		t.Errorf("the fdbcli phase on kwok: %+v, want skipped because kwok pods run no containers", key)
	}
	for _, res := range report {
		if res.Status != smoke.OK && !strings.HasPrefix(res.Phase, "write and read a key") {
			t.Errorf("phase %q: %s (%s)", res.Phase, res.Status, res.Note)
		}
	}
	// The quickstart has 5 storage, 4 log and 2 stateless groups of one
	// process each; every phase after the creation is gated.
	for _, want := range []struct {
		phase                string
		pods, processes      int
		minEvents, decisions int
	}{
		{phase: "wait for Ready", pods: 11, processes: 11, minEvents: 1, decisions: 1},
		{phase: "scale storage down by one", pods: 10, processes: 10, minEvents: 1, decisions: 1},
		{phase: "upgrade 7.3.63 -> 7.3.69", pods: 10, processes: 10, decisions: 1},
		{phase: "delete the Cluster", pods: 0, processes: 0, minEvents: 1, decisions: 1},
	} {
		res := report.Find(want.phase)
		if res == nil {
			t.Errorf("no phase %q in the report", want.phase)
			continue
		}
		if c := res.Counts; c.Pods != want.pods || c.Processes != want.processes || c.Events < want.minEvents || c.Decisions < want.decisions {
			t.Errorf("phase %q counts %+v: want %d pods, %d processes, at least %d events and %d policy decisions",
				want.phase, c, want.pods, want.processes, want.minEvents, want.decisions)
		}
	}
	if table := table.String(); !strings.Contains(table, "write and read a key with fdbcli  skipped") {
		t.Errorf("the table does not show the fdbcli phase skipped:\n%s", table)
	}
}
