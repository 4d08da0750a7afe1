package controllertest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// shippedRole reads the provider's ClusterRole from its install manifests.
func shippedRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	objs, err := manifest.Read([]string{filepath.Join(testenv.ProviderManifests(), "clusterrole.yaml")}, "ClusterRole")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%d ClusterRoles in clusterrole.yaml, want 1", len(objs))
	}
	role := &rbacv1.ClusterRole{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, role); err != nil {
		t.Fatal(err)
	}
	return role
}

// without returns rules with verb on resource of group taken away, and every
// other permission kept. The resource is split off a rule that also names
// others; a rule names one group, as controller-gen writes them.
func without(rules []rbacv1.PolicyRule, group, resource, verb string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		if !slices.Contains(r.APIGroups, group) || !slices.Contains(r.Resources, resource) || !slices.Contains(r.Verbs, verb) {
			out = append(out, r)
			continue
		}
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == resource }); len(others) > 0 {
			o := *r.DeepCopy()
			o.Resources = others
			out = append(out, o)
		}
		if verbs := slices.DeleteFunc(slices.Clone(r.Verbs), func(s string) bool { return s == verb }); len(verbs) > 0 {
			o := *r.DeepCopy()
			o.Resources, o.Verbs = []string{resource}, verbs
			out = append(out, o)
		}
	}
	return out
}

func TestWithout(t *testing.T) {
	core := func(verbs []string, resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: resources, Verbs: verbs}
	}
	cases := map[string]struct {
		rules                 []rbacv1.PolicyRule
		group, resource, verb string
		want                  []rbacv1.PolicyRule
	}{
		"SplitsTheResourceOff": {
			rules:    []rbacv1.PolicyRule{core([]string{"create", "get"}, "configmaps", "pods")},
			resource: "pods", verb: "create",
			want: []rbacv1.PolicyRule{core([]string{"create", "get"}, "configmaps"), core([]string{"get"}, "pods")},
		},
		"DropsARuleLeftWithoutVerbs": {
			rules:    []rbacv1.PolicyRule{core([]string{"delete"}, "pods"), core([]string{"get"}, "nodes")},
			resource: "pods", verb: "delete",
			want: []rbacv1.PolicyRule{core([]string{"get"}, "nodes")},
		},
		"OtherGroupsKeepTheirRules": {
			rules:    []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"pods"}, Verbs: []string{"create"}}},
			resource: "pods", verb: "create",
			want: []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"pods"}, Verbs: []string{"create"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := without(tc.rules, tc.group, tc.resource, tc.verb)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("without(%s %q %s): -want, +got:\n%s", tc.verb, tc.group, tc.resource, diff)
			}
		})
	}
}

// setRules replaces the rules of the provider's ClusterRole on the API
// server.
func setRules(t *testing.T, name string, rules []rbacv1.PolicyRule) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		role := &rbacv1.ClusterRole{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, role); err != nil {
			return err
		}
		role.Rules = rules
		return env.Client.Update(context.Background(), role)
	}); err != nil {
		t.Fatal(err)
	}
}

// synced returns the managed resources of list in namespace ns with their
// Synced condition.
func synced(t *testing.T, ns string, list client.ObjectList) map[string]xpv2.Condition {
	t.Helper()
	if err := env.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := map[string]xpv2.Condition{}
	if err := apimeta.EachListItem(list, func(o runtime.Object) error {
		mg := o.(resource.Managed)
		out[mg.GetName()] = mg.GetCondition(xpv2.TypeSynced)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMissingPermission runs the provider with one verb taken from its
// shipped ClusterRole: the resource whose controller needs it reports, in
// its Synced condition and a Warning event, which verb on which resource
// Kubernetes forbade the provider's ServiceAccount, and carries on once the
// verb is back.
func TestMissingPermission(t *testing.T) {
	h := controllertest.For(t, env)
	role := shippedRole(t)
	cases := map[string]struct {
		reason                string
		group, resource, verb string
		// reports lists the kind whose controller needs the verb.
		reports client.ObjectList
	}{
		"CreatePods": {
			reason:   "A ProcessGroup creates its pod.",
			resource: "pods", verb: "create",
			reports: &v1alpha1.ProcessGroupList{},
		},
		"CreateProcessGroups": {
			reason: "A Cluster creates its ProcessGroups.",
			group:  v1alpha1.Group, resource: "processgroups", verb: "create",
			reports: &v1alpha1.ClusterList{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ns := h.Namespace(t, "rbac-"+strings.ToLower(name))
			reduced := without(role.Rules, tc.group, tc.resource, tc.verb)
			if cmp.Equal(reduced, role.Rules) {
				t.Fatalf("%s\nthe shipped ClusterRole grants no %s on %q %s", tc.reason, tc.verb, tc.group, tc.resource)
			}
			setRules(t, role.Name, reduced)
			t.Cleanup(func() { setRules(t, role.Name, role.Rules) })

			cr := &v1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
				Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
					Version:               "7.3.63",
					DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancySingle, StorageEngine: "ssd-2"},
					ProcessCounts:         v1alpha1.ProcessCounts{Storage: 1},
				}},
			}
			if err := env.Client.Create(context.Background(), cr); err != nil {
				t.Fatal(err)
			}

			// What Kubernetes says when it refuses a request, as the
			// condition and the event pass it on.
			forbidden := fmt.Sprintf("User %q cannot %s resource %q in API group %q", env.ProviderUser, tc.verb, tc.resource, tc.group)
			var refused string
			controllertest.Eventually(t, 30*time.Second, tc.reason+" It reports the forbidden "+tc.verb, func() (bool, string) {
				all := synced(t, ns, tc.reports)
				for name, c := range all {
					if c.Status == corev1.ConditionFalse && strings.Contains(c.Message, forbidden) {
						refused = name
						t.Logf("%s: Synced=False: %s", name, c.Message)
						return true, ""
					}
				}
				return false, fmt.Sprintf("no Synced=False naming %q: %v", forbidden, all)
			})
			h.WaitEvents(t, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: refused, Namespace: ns}}, forbidden)

			setRules(t, role.Name, role.Rules)
			controllertest.Eventually(t, 30*time.Second, tc.reason+" It carries on with the "+tc.verb+" back", func() (bool, string) {
				c := synced(t, ns, tc.reports)[refused]
				return c.Status == corev1.ConditionTrue, fmt.Sprintf("Synced=%s %s", c.Status, c.Message)
			})
		})
	}
}
