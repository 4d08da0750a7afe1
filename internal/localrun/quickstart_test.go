package localrun_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// BinPathEnv names the directories of the local cluster's binaries, as
// hack/controlplane.sh --all prints them; `make test` sets it.
const BinPathEnv = "FDB_LOCALRUN_PATH"

// logWriter writes each line to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// TestQuickstart walks `make run`'s path headless: start everything, wait
// for the quickstart Cluster to be Ready, scale its storage down from 5 to 3
// (with the policies' recovery-time thresholds lowered, so it takes seconds
// instead of minutes), see the two storage process groups and their pods
// go, stop, and find no process of the run left.
func TestQuickstart(t *testing.T) {
	binPath := os.Getenv(BinPathEnv)
	if binPath == "" {
		why := BinPathEnv + " is not set; run `make test` or export " + BinPathEnv + "=$(hack/controlplane.sh --all)"
		if os.Getenv(testenv.RequireEnv) != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	o := localrun.DefaultOptions()
	o.Root = testenv.Root()
	o.StateDir = t.TempDir()
	o.BinPath = binPath
	o.ClusterName = "fdb-quickstart-test"
	o.Out = logWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()

	start := time.Now()
	r, err := localrun.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = r.Stop(context.Background())
		}
	})
	t.Logf("started in %s", time.Since(start).Round(time.Second))
	p := localrun.NewProgress(r.Client, localrun.Namespace, logWriter{t})
	readyCtx, readyCancel := context.WithTimeout(ctx, 5*time.Minute)
	defer readyCancel()
	if err := r.WaitReady(readyCtx, p); err != nil {
		t.Fatalf("the quickstart Cluster is not Ready: %v; provider log %s", err, r.ProviderLog())
	}
	t.Logf("Ready %s after the start", time.Since(start).Round(time.Second))

	cr := &v1alpha1.Cluster{}
	key := client.ObjectKey{Namespace: localrun.Namespace, Name: localrun.ClusterName}
	patch := []byte(`{"spec":{"forProvider":{"processCounts":{"storage":3},"safety":{"params":{"minSecondsSinceRecoveryForExclude":0,"minSecondsSinceRecoveryForInclude":0}}}}}`)
	cr.Name, cr.Namespace = key.Name, key.Namespace
	if err := r.Client.Patch(ctx, cr, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatal(err)
	}
	scaled := time.Now()
	var last string
	err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		done, why, err := scaledDown(ctx, r.Client, key, 3)
		last = why
		return done, err
	})
	if err != nil {
		t.Fatalf("storage did not scale down to 3: %s; provider log %s", last, r.ProviderLog())
	}
	t.Logf("scaled down in %s", time.Since(scaled).Round(time.Second))

	stopped = true
	if err := r.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	pids, err := localrun.Processes(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 0 {
		t.Errorf("processes of the run still run after Stop: %v", pids)
	}
}

// scaledDown holds when the Cluster has want storage process groups, every
// pod of a removed group is gone, and the Cluster is Ready and up to date.
func scaledDown(ctx context.Context, c client.Client, key client.ObjectKey, want int) (bool, string, error) {
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		return false, "", err
	}
	groups := &v1alpha1.ProcessGroupList{}
	if err := c.List(ctx, groups, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}); err != nil {
		return false, "", err
	}
	storage := 0
	for _, g := range groups.Items {
		if g.Spec.ForProvider.ProcessClass == v1alpha1.ProcessClassStorage {
			storage++
		}
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{
		workload.LabelCluster: key.Name, workload.LabelProcessClass: string(v1alpha1.ProcessClassStorage),
	}); err != nil {
		return false, "", err
	}
	ready, upToDate := cr.GetCondition(xpv2.TypeReady).Status, cr.GetCondition(xpv2.TypeUpToDate).Status
	why := fmt.Sprintf("%d storage groups, %d storage pods, Ready %s, UpToDate %s", storage, len(pods.Items), ready, upToDate)
	return storage == want && len(pods.Items) == want && ready == corev1.ConditionTrue && upToDate == corev1.ConditionTrue, why, nil
}
