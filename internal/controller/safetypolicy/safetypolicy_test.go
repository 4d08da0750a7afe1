package safetypolicy

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

var errBoom = errors.New("boom")

type spMod func(*v1alpha1.SafetyPolicy)

func safetyPolicy(mods ...spMod) *v1alpha1.SafetyPolicy {
	sp := &v1alpha1.SafetyPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "team", UID: "u1", Generation: 2},
		Spec: v1alpha1.SafetyPolicySpec{
			Actions:     []v1alpha1.ActionType{v1alpha1.ActionExclude},
			Validations: []v1alpha1.Validation{{Name: "available", Expression: "cluster.available"}},
		},
	}
	for _, m := range mods {
		m(sp)
	}
	return sp
}

func withExpression(e string) spMod {
	return func(sp *v1alpha1.SafetyPolicy) { sp.Spec.Validations[0].Expression = e }
}

func withStatus(c xpv2.Condition) spMod {
	return func(sp *v1alpha1.SafetyPolicy) {
		sp.Status.ObservedGeneration = sp.Generation
		sp.Status.SetConditions(c)
	}
}

func deleting(sp *v1alpha1.SafetyPolicy) {
	now := metav1.Now()
	sp.DeletionTimestamp = &now
}

func TestReconcile(t *testing.T) {
	compileErr := `cannot compile SafetyPolicy team: validation "available": must evaluate to bool, not int: cluster.activeGenerations`
	type want struct {
		err    error
		status *v1alpha1.SafetyPolicy
	}
	cases := map[string]struct {
		reason string
		get    test.MockGetFn
		update error
		want   want
	}{
		"Compiled": {
			reason: "A policy that compiles is Ready=True/Compiled at its generation.",
			get:    test.NewMockGetFn(nil, func(o client.Object) error { safetyPolicy().DeepCopyInto(o.(*v1alpha1.SafetyPolicy)); return nil }),
			want: want{
				status: safetyPolicy(withStatus(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionTrue, Reason: ReasonCompiled, ObservedGeneration: 2})),
			},
		},
		"CompileFailed": {
			reason: "A policy that does not compile (the gates deny what it matches) is Ready=False with the compiler's message.",
			get: test.NewMockGetFn(nil, func(o client.Object) error {
				safetyPolicy(withExpression("cluster.activeGenerations")).DeepCopyInto(o.(*v1alpha1.SafetyPolicy))
				return nil
			}),
			want: want{
				status: safetyPolicy(withExpression("cluster.activeGenerations"), withStatus(xpv2.Condition{
					Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: ReasonCompileFailed, Message: compileErr, ObservedGeneration: 2,
				})),
			},
		},
		"NotFound": {
			reason: "A policy that is gone has no status to write.",
			get:    test.NewMockGetFn(kerrors.NewNotFound(schema.GroupResource{}, "team")),
			want:   want{},
		},
		"Deleting": {
			reason: "A policy being deleted is not compiled.",
			get: test.NewMockGetFn(nil, func(o client.Object) error {
				safetyPolicy(deleting).DeepCopyInto(o.(*v1alpha1.SafetyPolicy))
				return nil
			}),
			want: want{},
		},
		"GetError": {
			reason: "An error getting the policy is returned.",
			get:    test.NewMockGetFn(errBoom),
			want:   want{err: errors.Wrap(errBoom, errGetPolicy)},
		},
		"UpdateStatusError": {
			reason: "An error updating the status is returned.",
			get:    test.NewMockGetFn(nil, func(o client.Object) error { safetyPolicy().DeepCopyInto(o.(*v1alpha1.SafetyPolicy)); return nil }),
			update: errBoom,
			want: want{
				err:    errors.Wrap(errBoom, errUpdateStatus),
				status: safetyPolicy(withStatus(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionTrue, Reason: ReasonCompiled, ObservedGeneration: 2})),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// A UID and generation name one content; the cases reuse them.
			e, err := policy.NewEngine()
			if err != nil {
				t.Fatal(err)
			}
			var status *v1alpha1.SafetyPolicy
			c := &test.MockClient{
				MockGet: tc.get,
				MockStatusUpdate: func(_ context.Context, o client.Object, _ ...client.SubResourceUpdateOption) error {
					status = o.(*v1alpha1.SafetyPolicy).DeepCopy()
					return tc.update
				},
			}
			r := NewReconciler(c, e, logging.NewNopLogger())
			_, err = r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "team"}})
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nReconcile(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.status, status, test.EquateConditions()); diff != "" {
				t.Errorf("\n%s\nstatus update: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestServes(t *testing.T) {
	type crdMod func(*apiextensionsv1.CustomResourceDefinition)
	crd := func(mods ...crdMod) *apiextensionsv1.CustomResourceDefinition {
		c := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.SafetyPolicyCRDName},
			Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: true}}},
			Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
				{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
				{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
			}},
		}
		for _, m := range mods {
			m(c)
		}
		return c
	}
	cases := map[string]struct {
		reason string
		crd    *apiextensionsv1.CustomResourceDefinition
		want   bool
	}{
		"Established": {
			reason: "An established CRD that serves v1alpha1 serves the kind.",
			crd:    crd(),
			want:   true,
		},
		"NotEstablished": {
			reason: "A CRD that is not established yet does not serve the kind.",
			crd: crd(func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Status.Conditions[1].Status = apiextensionsv1.ConditionFalse
			}),
		},
		"NoConditions": {
			reason: "A CRD without conditions does not serve the kind.",
			crd:    crd(func(c *apiextensionsv1.CustomResourceDefinition) { c.Status.Conditions = nil }),
		},
		"Deleting": {
			reason: "A CRD being deleted does not serve the kind.",
			crd:    crd(func(c *apiextensionsv1.CustomResourceDefinition) { now := metav1.Now(); c.DeletionTimestamp = &now }),
		},
		"VersionNotServed": {
			reason: "A CRD that does not serve v1alpha1 does not serve the kind as the provider reads it.",
			crd:    crd(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Served = false }),
		},
		"OtherVersion": {
			reason: "A CRD that serves only another version does not serve the kind as the provider reads it.",
			crd:    crd(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Name = "v1beta1" }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, serves(tc.crd)); diff != "" {
				t.Errorf("\n%s\nserves(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
