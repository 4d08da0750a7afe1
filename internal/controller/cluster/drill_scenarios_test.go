package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestCrashLoopDrill asks for a crash-loop drill of one storage group: it
// is denied while another group's processes are down (the database below
// its desired fault tolerance), allowed once they are back; the group's
// pod then runs a command that does not exist and its processes stop;
// after the drill's duration the pod runs the monitor again and the
// database returns to full fault tolerance, Ready, nothing replaced.
func TestCrashLoopDrill(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "crash-loop-drill"))
	createReady(t, cr)
	db := h.Sim(t, cr)
	reporting := func(id string) bool {
		st, err := db.Status(ctx)
		if err != nil {
			return false
		}
		for _, p := range st.Cluster.Processes {
			if p.Locality.InstanceID == id {
				return true
			}
		}
		return false
	}
	command := func(id string) []string {
		pod := &corev1.Pod{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.PodName(cr, id)}, pod); err != nil {
			return nil
		}
		if main := workload.MainContainer(pod); main != nil {
			return main.Command
		}
		return nil
	}

	// The clock stands still while storage-2 is down: data distribution
	// heals nothing meanwhile, and the drill is decided on the loss.
	h.Flow(false)
	if err := db.LosePod("storage-2", 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the Cluster sees the fault tolerance drop", func() (bool, string) {
		get(t, cr)
		ft := cr.Status.AtProvider.Health.FaultTolerance
		return ft < 2, fmt.Sprintf("fault tolerance %d", ft)
	})
	update(t, cr, func(cr *v1alpha1.Cluster) {
		cr.Spec.ForProvider.Drill = &v1alpha1.Drill{Name: "d1", Fault: v1alpha1.DrillCrashLoop, ProcessGroups: []string{"storage-1"}, DurationSeconds: 3600}
	})
	eventually(t, 60*time.Second, "the drill denied below the desired fault tolerance", func() (bool, string) {
		get(t, cr)
		d := cr.Status.AtProvider.LastPolicyDecision
		return d != nil && d.Action == "Drill" && d.Result == "Denied" && d.Rule == "fdb-drill/desired-fault-tolerance" && cr.Status.AtProvider.Drill == nil,
			fmt.Sprintf("decision %+v, drill %+v", d, cr.Status.AtProvider.Drill)
	})
	h.Flow(true)

	eventually(t, 120*time.Second, "the drill started and storage-1 crash-loops", func() (bool, string) {
		get(t, cr)
		rec := cr.Status.AtProvider.Drill
		cmd := command("storage-1")
		return rec != nil && rec.Name == "d1" && !rec.Ended && len(cmd) > 0 && cmd[0] == workload.DrillCommand && !reporting("storage-1"),
			fmt.Sprintf("drill %+v, command %v, reporting %t, decision %+v", rec, cmd, reporting("storage-1"), cr.Status.AtProvider.LastPolicyDecision)
	})
	eventually(t, 30*time.Second, "storage-1's pod runs, not ready, its main container backing off", func() (bool, string) {
		pod := &corev1.Pod{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(cr), Name: workload.PodName(cr, "storage-1")}, pod); err != nil {
			return false, err.Error()
		}
		return testenv.CrashLoopBackOff(pod), fmt.Sprintf("phase %s, conditions %v, containers %v", pod.Status.Phase, pod.Status.Conditions, pod.Status.ContainerStatuses)
	})
	h.Clock.Step(time.Hour)
	eventually(t, 120*time.Second, "the drill ended by itself and the database is back to full health", func() (bool, string) {
		get(t, cr)
		rec := cr.Status.AtProvider.Drill
		cmd := command("storage-1")
		h := cr.Status.AtProvider.Health
		return rec != nil && rec.Ended && len(cmd) == 0 && reporting("storage-1") && h.FaultTolerance == 2 &&
				cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue,
			fmt.Sprintf("drill %+v, command %v, reporting %t, fault tolerance %d", rec, cmd, reporting("storage-1"), h.FaultTolerance)
	})
	for _, pg := range groupsOf(t, cr) {
		if pg.Replacing() {
			t.Errorf("the drill had %s replaced", pg.ID())
		}
	}
	if n := eventCount(t, cr, "StartedDrill"); n != 1 {
		t.Errorf("%d drills started, want 1: %v", n, events(t, cr))
	}
}
