package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/client-go/util/retry"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// TestRestartRequest asks for a restart of one storage group's processes
// (the annotation kubectl foundationdb restart writes): its processes are
// killed once, gated as Kill, and no other process restarts.
func TestRestartRequest(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "restart"))
	createReady(t, cr)
	db := h.Sim(t, cr)
	h.Clock.Step(time.Hour) // past the minimum uptime for a bounce
	kills := h.AdminCalls(cr).Calls[sim.OpKill]
	uptimes := func() map[string]float64 {
		st, err := db.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, p := range st.Cluster.Processes {
			out[p.Locality.InstanceID] = p.UptimeSeconds
		}
		return out
	}
	before := uptimes()
	requested := h.Clock.Now()
	var target v1alpha1.ProcessGroup
	for _, pg := range groupsOf(t, cr) {
		if pg.ID() == "storage-2" {
			target = pg
		}
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		get(t, &target)
		meta.AddAnnotations(&target, map[string]string{v1alpha1.AnnotationRestart: requested.UTC().Format(time.RFC3339)})
		return env.Client.Update(ctx, &target)
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "storage-2's processes restarted", func() (bool, string) {
		up := uptimes()
		return up["storage-2"] < h.Clock.Since(requested).Seconds()+1, fmt.Sprintf("storage-2 up %.0fs, requested %s ago", up["storage-2"], h.Clock.Since(requested))
	})
	h.Clock.Step(time.Minute)
	polls(t, cr, 3)
	if n := h.AdminCalls(cr).Calls[sim.OpKill] - kills; n != 1 {
		t.Errorf("%d kills for one restart request, want 1: %v", n, events(t, cr))
	}
	after := uptimes()
	for id, up := range before {
		if id != "storage-2" && after[id] < up {
			t.Errorf("%s restarted too (up %.0fs, was %.0fs)", id, after[id], up)
		}
	}
}
