package controller_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apisv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

// env is this binary's control plane; TestSafetyPolicyKindInactive removes
// the SafetyPolicy CRD from it before the provider starts.
var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// smallCluster is a double-redundancy Cluster that selects the
// SafetyPolicies named.
func smallCluster(ns string, policies ...string) *v1alpha1.Cluster {
	return &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
			Version:               "7.3.63",
			DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2"},
			ProcessCounts:         v1alpha1.ProcessCounts{Storage: 3, Log: 3},
			Safety:                v1alpha1.SafetySettings{Policies: policies},
		}},
	}
}

// TestSafetyPolicyKindInactive runs the provider as Crossplane starts it
// before a ManagedResourceActivationPolicy activates the SafetyPolicy kind:
// without its CRD. The provider keeps running past its controllers' cache
// sync, a Cluster that selects no policy comes up under the defaults, and
// one that selects a policy is held and says that the kind is not active.
// Activating the kind starts the SafetyPolicy controller, and once the
// selected policy exists the held Cluster comes up.
func TestSafetyPolicyKindInactive(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	crds, err := manifest.Read([]string{filepath.Join(testenv.Root(), "package", "crds", "foundationdb.crossplane.io_safetypolicies.yaml")}, "CustomResourceDefinition")
	if err != nil || len(crds) != 1 || crds[0].GetName() != apisv1alpha1.SafetyPolicyCRDName {
		t.Fatalf("cannot read the SafetyPolicy CRD: %d CRDs, error %v", len(crds), err)
	}
	if err := env.Client.Delete(ctx, crds[0]); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, 30*time.Second, "the SafetyPolicy CRD deleted", func() (bool, string) {
		err := env.Client.Get(ctx, client.ObjectKey{Name: apisv1alpha1.SafetyPolicyCRDName}, &apiextensionsv1.CustomResourceDefinition{})
		return kerrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})

	h := controllertest.For(t, env)
	h.Flow(true)
	open := smallCluster(h.Namespace(t, "defaults"))
	held := smallCluster(h.Namespace(t, "selects"), "team")
	for _, cr := range []*v1alpha1.Cluster{open, held} {
		if err := env.Client.Create(ctx, cr); err != nil {
			t.Fatal(err)
		}
	}

	ready := func(cr *v1alpha1.Cluster) {
		t.Helper()
		controllertest.Eventually(t, 120*time.Second, cr.Namespace+"/"+cr.Name+" Ready", func() (bool, string) {
			h.Get(t, cr)
			r, d := cr.GetCondition(xpv2.TypeReady), cr.Status.AtProvider.LastPolicyDecision
			return r.Status == corev1.ConditionTrue && d != nil && d.Result == "Allowed",
				fmt.Sprintf("Ready=%s %q; last decision %+v; PolicyAllowed %q", r.Status, r.Message, d, cr.GetCondition(gate.TypePolicyAllowed).Message)
		})
	}
	ready(open)

	const why = "SafetyPolicy team is selected by the cluster but cannot exist: the SafetyPolicy kind foundationdb.crossplane.io/v1alpha1 is not active: " +
		"activate safetypolicies.foundationdb.crossplane.io with a ManagedResourceActivationPolicy"
	controllertest.Eventually(t, 30*time.Second, "the Cluster that selects a policy held", func() (bool, string) {
		h.Get(t, held)
		c, d := held.GetCondition(gate.TypePolicyAllowed), held.Status.AtProvider.LastPolicyDecision
		return c.Status == corev1.ConditionFalse && c.Reason == gate.ReasonPolicyDenied && strings.Contains(c.Message, why) && d != nil && d.Rule == "team/(compile)",
			fmt.Sprintf("PolicyAllowed=%s %s %q; last decision %+v", c.Status, c.Reason, c.Message, d)
	})
	groups := &v1alpha1.ProcessGroupList{}
	if err := env.Client.List(ctx, groups, client.InNamespace(held.Namespace)); err != nil {
		t.Fatal(err)
	}
	if n := len(groups.Items); n != 0 {
		t.Errorf("the held Cluster has %d process groups, want none", n)
	}
	h.Running(t)

	if err := manifest.Apply(ctx, env.Client, crds); err != nil {
		t.Fatal(err)
	}
	if err := manifest.WaitEstablished(ctx, env.Client, apisv1alpha1.SafetyPolicyCRDName); err != nil {
		t.Fatal(err)
	}
	team := &apisv1alpha1.SafetyPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec: apisv1alpha1.SafetyPolicySpec{
			Actions:     []apisv1alpha1.ActionType{apisv1alpha1.ActionAll},
			Validations: []apisv1alpha1.Validation{{Name: "always", Expression: "true"}},
		},
	}
	if err := env.Client.Create(ctx, team); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, 30*time.Second, "the SafetyPolicy controller started and compiled the policy", func() (bool, string) {
		h.Get(t, team)
		c := team.Status.GetCondition(xpv2.TypeReady)
		return c.Status == corev1.ConditionTrue, fmt.Sprintf("Ready=%s %q", c.Status, c.Message)
	})
	ready(held)
}
