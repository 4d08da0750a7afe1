package localrun_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// podsCanStart checks the quickstart's pods for what a real cluster asks
// before any FoundationDB process runs: the namespace enforces the
// "restricted" Pod Security Standard (so the API server itself admitted
// them) and each pod passes it by the Pod Security Admission library too;
// each names a ServiceAccount that the API server says may get, list, watch
// and patch the pod, as fdb-kubernetes-monitor does before it starts
// fdbserver; every container asks for CPU and memory; every pod has one
// main container, a volume at the data directory (an empty directory for
// a stateless pod), and the storage pods the memory the example's pod
// template asks for, merged into that container. The backup agents' pods,
// made by the cluster's ReplicaSet controller under the same admission,
// exist and pass too.
func podsCanStart(ctx context.Context, t *testing.T, r *localrun.Run, key client.ObjectKey) {
	c := r.Client
	ns := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKey{Name: key.Namespace}, ns); err != nil {
		t.Fatal(err)
	}
	if got := ns.Labels[localrun.EnforcePodSecurity]; got != "restricted" {
		t.Errorf("namespace %s enforces %q, want restricted", key.Namespace, got)
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	restricted := func(p *corev1.Pod) {
		t.Helper()
		r := policy.AggregateCheckResults(evaluator.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, &p.ObjectMeta, &p.Spec))
		if !r.Allowed {
			t.Errorf("pod %s is refused at restricted: %s: %s", p.Name, r.ForbiddenReason(), r.ForbiddenDetail())
		}
	}
	requests := func(p *corev1.Pod) {
		t.Helper()
		for _, ct := range p.Spec.Containers {
			if ct.Resources.Requests.Cpu().IsZero() || ct.Resources.Requests.Memory().IsZero() {
				t.Errorf("pod %s container %s asks for no CPU or memory: %v", p.Name, ct.Name, ct.Resources.Requests)
			}
		}
	}

	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelCluster: key.Name}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatal("the quickstart has no pods")
	}
	classes := map[string]int{}
	for i := range pods.Items {
		p := &pods.Items[i]
		class := p.Labels[workload.LabelProcessClass]
		classes[class]++
		restricted(p)
		requests(p)
		mains := 0
		for _, ct := range p.Spec.Containers {
			if ct.Name == "foundationdb" {
				mains++
			}
		}
		if mains != 1 {
			t.Errorf("pod %s has %d containers named foundationdb, want 1", p.Name, mains)
		}
		_, vol := workload.DataVolume(p)
		switch {
		case vol == nil:
			t.Errorf("pod %s mounts no volume at its data directory", p.Name)
		case class == string(v1alpha1.ProcessClassStateless) && vol.EmptyDir == nil:
			t.Errorf("stateless pod %s's data volume is no empty directory: %+v", p.Name, vol.VolumeSource)
		}
		if main := workload.MainContainer(p); class == string(v1alpha1.ProcessClassStorage) && main != nil && main.Resources.Requests.Memory().String() != "6Gi" {
			t.Errorf("storage pod %s asks for %s of memory, want the template's 6Gi", p.Name, main.Resources.Requests.Memory())
		}
		for _, verb := range workload.MonitorVerbs {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   "system:serviceaccount:" + p.Namespace + ":" + p.Spec.ServiceAccountName,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + p.Namespace, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: p.Namespace, Verb: verb, Resource: "pods", Name: p.Name,
				},
			}}
			if err := c.Create(ctx, review); err != nil {
				t.Fatal(err)
			}
			if !review.Status.Allowed {
				t.Errorf("pod %s's ServiceAccount %q may not %s it: %s", p.Name, p.Spec.ServiceAccountName, verb, review.Status.Reason)
			}
		}
	}
	for _, class := range []v1alpha1.ProcessClass{v1alpha1.ProcessClassStorage, v1alpha1.ProcessClassLog, v1alpha1.ProcessClassStateless} {
		if classes[string(class)] == 0 {
			t.Errorf("the quickstart has no %s pod: %v", class, classes)
		}
	}

	agents := &corev1.PodList{}
	var last string
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.List(ctx, agents, client.InNamespace(key.Namespace), client.MatchingLabels{workload.LabelComponent: workload.ComponentBackupAgent}); err != nil {
			return false, err
		}
		last = fmt.Sprintf("%d backup-agent pods", len(agents.Items))
		return len(agents.Items) > 0, nil
	})
	if err != nil {
		t.Fatalf("no backup-agent pod was admitted: %s", last)
	}
	for i := range agents.Items {
		restricted(&agents.Items[i])
		requests(&agents.Items[i])
	}
}
