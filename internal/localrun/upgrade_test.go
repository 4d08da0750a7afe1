package localrun_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
)

// upgradePatch patches version: 7.3.69 on the live quickstart Cluster, as
// the issue asks of `make run`, and waits until the database runs it, the
// Cluster Ready and up to date. A monitor runs its image's own fdbserver for
// every patch of the image's major.minor, so every pod is recreated on an
// image of the new patch, zone by zone under maintenance; the coordinators,
// named by DNS name, stay. It logs how long that took.
func upgradePatch(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	const version = "7.3.69"
	c := r.Client
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	before, err := podsOf(ctx, c, key)
	if err != nil {
		t.Fatal(err)
	}
	cs := cr.Status.AtProvider.ConnectionString
	// The default minimum uptime holds the restart for ten minutes after
	// the processes last started; here it may run at once.
	patch := []byte(`{"spec":{"forProvider":{"version":"` + version + `","automation":{"minimumUptimeSecondsForBounce":1}}}}`)
	if err := c.Patch(ctx, cr, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var last string
	err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, _ = p.Report(ctx)
		if err := c.Get(ctx, key, cr); err != nil {
			return false, err
		}
		at, up := cr.Status.AtProvider, cr.GetCondition(xpv2.TypeUpToDate)
		last = fmt.Sprintf("running %s; UpToDate %s %s", at.RunningVersion, up.Status, up.Message)
		return at.RunningVersion == version && up.Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("the Cluster did not upgrade to %s: %s; provider log %s", version, last, r.ProviderLog())
	}
	t.Logf("upgraded to %s in %s", version, time.Since(start).Round(time.Second))
	after, err := podsOf(ctx, c, key)
	if err != nil {
		t.Fatal(err)
	}
	for name, uid := range before {
		if after[name] == uid {
			t.Errorf("pod %s was not recreated on an image of %s (pods before %v, after %v)", name, version, before, after)
		}
	}
	if got := cr.Status.AtProvider.ConnectionString; got != cs {
		t.Errorf("the connection string changed from %s to %s: want the same coordinators", cs, got)
	}
}
