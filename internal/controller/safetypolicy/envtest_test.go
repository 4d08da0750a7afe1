package safetypolicy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// TestStatusOnARealAPIServer runs the controller against a real API server:
// a policy that does not compile reports the compiler's message on its
// status and, listed by the gates' Source, denies the actions it matches
// (fail closed); fixing it makes it Ready and lets them pass; deleting it
// unloads it.
func TestStatusOnARealAPIServer(t *testing.T) {
	testenv.Require(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := policy.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	var src Source
	env.RunController(t, func(mgr ctrl.Manager, o controller.Options) error {
		src = Source{Cache: mgr.GetCache()}
		return Setup(mgr, options.Options{Options: o, Engine: e, Policies: src})
	})
	list := func() []policy.Policy {
		ps, err := src.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}

	sp := &v1alpha1.SafetyPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "broken"},
		Spec: v1alpha1.SafetyPolicySpec{
			Actions:     []v1alpha1.ActionType{v1alpha1.ActionExclude},
			Validations: []v1alpha1.Validation{{Name: "typo", Expression: "cluster.availble", Message: "x"}},
		},
	}
	if err := env.Client.Create(ctx, sp); err != nil {
		t.Fatal(err)
	}
	ready := func(want corev1.ConditionStatus, msg string) {
		t.Helper()
		var c xpv2.Condition
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(sp), sp); err != nil {
				return false, nil
			}
			c = sp.Status.GetCondition(xpv2.TypeReady)
			return c.Status == want && strings.Contains(c.Message, msg) && sp.Status.ObservedGeneration == sp.Generation, nil
		})
		if err != nil {
			t.Fatalf("Ready=%s %q, want %s containing %q", c.Status, c.Message, want, msg)
		}
	}
	loaded := func() bool {
		for _, p := range list() {
			if p.Name == "broken" {
				return true
			}
		}
		return false
	}

	decide := func() policy.Decision {
		in := policy.Input{Action: policy.Action{Type: v1alpha1.ActionExclude}, Cluster: policy.Cluster{Available: true}}
		return e.Decide(ctx, list(), in)
	}
	ready(corev1.ConditionFalse, "availble")
	if d := decide(); d.Result != policy.ResultDenied || !strings.Contains(d.Message, "broken") {
		t.Errorf("a policy that does not compile: %s %q, want a denial naming it", d.Result, d.Message)
	}

	sp.Spec.Validations[0].Expression = "cluster.available"
	if err := env.Client.Update(ctx, sp); err != nil {
		t.Fatal(err)
	}
	ready(corev1.ConditionTrue, "")
	if d := decide(); d.Result != policy.ResultAllowed {
		t.Errorf("the fixed policy: %s %q, want Allowed", d.Result, d.Message)
	}

	if err := env.Client.Delete(ctx, sp); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) { return !loaded(), nil }); err != nil {
		t.Error("the deleted policy is still loaded")
	}
}
