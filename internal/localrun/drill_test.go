package localrun_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// zoneLabel is the quickstart's fault domain key.
const zoneLabel = "topology.kubernetes.io/zone"

// crashLoopDrill asks for a crash-loop drill of a storage group while
// another storage group is down where it cannot come back: its pod is
// deleted, as a failure would, while every node of its zone is cordoned, and
// its volume keeps it in that zone. With the three storage groups the
// scale-down left, no other storage process may take its data (data
// distribution recruits storage servers on storage-class processes only),
// so the fault tolerance stays below the desired one until it is back, and
// the drill is denied for it. Once the zone is uncordoned the drill is
// allowed, the group's pod runs a command the image lacks, the drill ends
// by itself after its minute, and the Cluster is Ready at its desired fault
// tolerance.
func crashLoopDrill(ctx context.Context, t *testing.T, r *localrun.Run, p *localrun.Progress, key client.ObjectKey) {
	c := r.Client
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name, workload.LabelProcessClass: string(v1alpha1.ProcessClassStorage)}); err != nil {
		t.Fatal(err)
	}
	cr := &v1alpha1.Cluster{}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	zoneOf := map[string]string{}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		zoneOf[n.Name] = n.Labels[zoneLabel]
	}
	// The group to take down serves no coordinator when one such is there:
	// a coordinator change would come before the drill's decision.
	if len(pods.Items) < 2 {
		t.Fatalf("%d storage pods, want two or more", len(pods.Items))
	}
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	down := &pods.Items[0]
	for i := range pods.Items {
		if !coordinatorPod(cr, &pods.Items[i]) {
			down = &pods.Items[i]
			break
		}
	}
	var drilled *corev1.Pod
	for i := range pods.Items {
		if pod := &pods.Items[i]; zoneOf[pod.Spec.NodeName] != zoneOf[down.Spec.NodeName] {
			drilled = pod
			break
		}
	}
	if drilled == nil {
		t.Fatalf("no storage pod in another zone than %s's", down.Name)
	}
	zone, group := zoneOf[down.Spec.NodeName], drilled.Labels[workload.LabelProcessGroup]
	t.Logf("taking %s down in cordoned zone %s, then a crash-loop drill of %s", down.Name, zone, group)

	setUnschedulable := func(on bool) {
		for _, n := range nodes.Items {
			if zoneOf[n.Name] == zone {
				patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, on)
				if err := c.Patch(context.WithoutCancel(ctx), &corev1.Node{ObjectMeta: n.ObjectMeta}, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
					t.Error(err)
				}
			}
		}
	}
	setUnschedulable(true)
	if err := c.Delete(ctx, down); err != nil {
		t.Fatal(err)
	}
	healed := false
	heal := func() {
		if !healed {
			healed = true
			setUnschedulable(false)
		}
	}
	defer heal()
	defer func() {
		_ = c.Patch(context.WithoutCancel(ctx), cr, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"forProvider":{"drill":null}}}`)))
	}()

	poll := func(what string, timeout time.Duration, cond func(*v1alpha1.Cluster) (bool, string)) {
		t.Helper()
		var last string
		err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
			_, _ = p.Report(ctx)
			if err := c.Get(ctx, key, cr); err != nil {
				return false, err
			}
			done, why := cond(cr)
			last = why
			return done, nil
		})
		if err != nil {
			t.Fatalf("%s: %s: %v; provider log %s", what, last, err, r.ProviderLog())
		}
	}
	poll("the fault tolerance drops", 3*time.Minute, func(cr *v1alpha1.Cluster) (bool, string) {
		h := cr.Status.AtProvider.Health
		return h.FaultTolerance < 2, fmt.Sprintf("fault tolerance %d", h.FaultTolerance)
	})
	drill := fmt.Sprintf(`{"spec":{"forProvider":{"drill":{"name":"d1","fault":"CrashLoop","processGroups":[%q],"durationSeconds":60}}}}`, group)
	if err := c.Patch(ctx, cr, client.RawPatch(types.MergePatchType, []byte(drill))); err != nil {
		t.Fatal(err)
	}
	poll("the drill is denied below the desired fault tolerance", 3*time.Minute, func(cr *v1alpha1.Cluster) (bool, string) {
		d := cr.Status.AtProvider.LastPolicyDecision
		return d != nil && d.Action == "Drill" && d.Result == "Denied" && d.Rule == "fdb-drill/desired-fault-tolerance",
			fmt.Sprintf("decision %+v", d)
	})
	heal()
	pod := func() *corev1.Pod {
		pod := &corev1.Pod{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: drilled.Name}, pod); err != nil {
			return &corev1.Pod{}
		}
		return pod
	}
	command := func() []string {
		if m := workload.MainContainer(pod()); m != nil {
			return m.Command
		}
		return nil
	}
	poll("the drill starts and the group's pod crash-loops", 6*time.Minute, func(cr *v1alpha1.Cluster) (bool, string) {
		d, cmd, crashing := cr.Status.AtProvider.Drill, command(), testenv.CrashLoopBackOff(pod())
		return d != nil && d.Name == "d1" && len(cmd) > 0 && cmd[0] == workload.DrillCommand && crashing,
			fmt.Sprintf("drill %+v, command %v, CrashLoopBackOff %t, decision %+v", d, cmd, crashing, cr.Status.AtProvider.LastPolicyDecision)
	})
	poll("the drill ends by itself and the database is back to full health", 8*time.Minute, func(cr *v1alpha1.Cluster) (bool, string) {
		d, cmd, h := cr.Status.AtProvider.Drill, command(), cr.Status.AtProvider.Health
		return d != nil && d.Ended && len(cmd) == 0 && h.FaultTolerance == 2 && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue,
			fmt.Sprintf("drill %+v, command %v, fault tolerance %d, Ready %s", d, cmd, h.FaultTolerance, cr.GetCondition(xpv2.TypeReady).Status)
	})
}

// coordinatorPod reports whether pod serves one of the Cluster's
// coordinators, by its DNS name or its IP.
func coordinatorPod(cr *v1alpha1.Cluster, pod *corev1.Pod) bool {
	for _, coord := range cr.Status.AtProvider.Coordinators {
		host := fdb.ProcessAddress(coord).Host()
		if host == pod.Status.PodIP || strings.HasPrefix(host, pod.Name+".") {
			return true
		}
	}
	return false
}
