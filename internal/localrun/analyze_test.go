package localrun_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/kubectlplugin"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// analyzeInclusionDelay waits for the scale-down to be denied its
// inclusion by the default delay after a recovery, then holds `kubectl
// foundationdb analyze` to naming the rule, the threshold and the time the
// inclusion becomes allowed, and to exit 1.
func analyzeInclusionDelay(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	const rule = "fdb-inclusion/min-recovery-time"
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 8*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		cr := &v1alpha1.Cluster{}
		if err := r.Client.Get(ctx, key, cr); err != nil {
			return false, err
		}
		d := cr.Status.AtProvider.LastPolicyDecision
		if d != nil {
			last = d.Result + " " + d.Rule + ": " + d.Message
		}
		return d != nil && d.Rule == rule && d.AllowedAt != nil, nil
	})
	if err != nil {
		t.Fatalf("the scale-down was never denied its inclusion by %s; last decision %q: %v", rule, last, err)
	}
	var out, errOut bytes.Buffer
	cmd := kubectlplugin.NewCommand("kubectl foundationdb", genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, clock.RealClock{})
	cmd.SetArgs([]string{"--kubeconfig", r.Kubeconfig(), "analyze", "-n", key.Namespace, key.Name})
	err = cmd.ExecuteContext(ctx)
	t.Logf("kubectl foundationdb analyze:\n%s%s", out.String(), errOut.String())
	var exit *kubectlplugin.ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Errorf("analyze of a waiting Cluster: %v, want exit code 1", err)
	}
	for _, want := range []string{"Waiting", "rule " + rule, "less than 600s ago", "allowed at "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("analyze says no %q", want)
		}
	}
}

// recoverNow deletes a log pod of the Cluster, as a failure would, and
// waits until the Cluster records the recovery that followed.
func recoverNow(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	t.Helper()
	cr := &v1alpha1.Cluster{}
	if err := r.Client.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	before := cr.Status.AtProvider.Health.LastRecoveryTime
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name, workload.LabelProcessClass: string(v1alpha1.ProcessClassLog)}); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatal("the Cluster has no log pod")
	}
	if err := r.Client.Delete(ctx, &pods.Items[0]); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		if err := r.Client.Get(ctx, key, cr); err != nil {
			return false, err
		}
		after := cr.Status.AtProvider.Health.LastRecoveryTime
		return after != nil && (before == nil || after.After(before.Time)), nil
	})
	if err != nil {
		t.Fatalf("no recovery recorded after log pod %s was deleted: %v", pods.Items[0].Name, err)
	}
}
