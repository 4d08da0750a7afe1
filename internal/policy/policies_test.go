package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

func TestAssemble(t *testing.T) {
	def := func(name string) Policy { return Policy{Name: name, Key: "default:" + name} }
	obj := func(name string) Policy { return Policy{Name: name, Key: "object:" + name} }
	all := v1alpha1.SafetyPolicySpec{Actions: []v1alpha1.ActionType{v1alpha1.ActionAll}}
	missing := func(name string) Policy {
		return Policy{Name: name, Key: "missing:" + name, Spec: all, missing: "SafetyPolicy " + name + " is selected by the cluster but does not exist"}
	}
	inactive := func(name string) Policy {
		return Policy{Name: name, Key: "inactive:" + name, Spec: all, missing: "SafetyPolicy " + name + " is selected by the cluster but cannot exist: " +
			"the SafetyPolicy kind foundationdb.crossplane.io/v1alpha1 is not active: activate safetypolicies.foundationdb.crossplane.io with a ManagedResourceActivationPolicy, or install its CRD"}
	}
	type args struct {
		defaults, objects []Policy
		selected          []string
		// inactive assembles with AssembleInactive, without objects.
		inactive bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []Policy
	}{
		"DefaultsOnly": {
			reason: "With no objects the defaults apply, sorted by name.",
			args:   args{defaults: []Policy{def("b"), def("a")}},
			want:   []Policy{def("a"), def("b")},
		},
		"AllObjectsWhenNoneSelected": {
			reason: "A cluster that selects nothing gets every object.",
			args:   args{defaults: []Policy{def("a")}, objects: []Policy{obj("x"), obj("y")}},
			want:   []Policy{def("a"), obj("x"), obj("y")},
		},
		"Selected": {
			reason: "A cluster that selects objects gets only those besides the defaults.",
			args:   args{defaults: []Policy{def("a")}, objects: []Policy{obj("x"), obj("y")}, selected: []string{"y"}},
			want:   []Policy{def("a"), obj("y")},
		},
		"ObjectReplacesDefault": {
			reason: "An object named like a default replaces it, selected or not.",
			args:   args{defaults: []Policy{def("a"), def("b")}, objects: []Policy{obj("a"), obj("x")}, selected: []string{"x"}},
			want:   []Policy{obj("a"), def("b"), obj("x")},
		},
		"SelectedMissing": {
			reason: "A selected name without an object becomes a policy that denies every action.",
			args:   args{defaults: []Policy{def("a")}, selected: []string{"gone"}},
			want:   []Policy{def("a"), missing("gone")},
		},
		"SelectingADefault": {
			reason: "Selecting a default by name is not a missing policy.",
			args:   args{defaults: []Policy{def("a")}, selected: []string{"a"}},
			want:   []Policy{def("a")},
		},
		"InactiveNoneSelected": {
			reason: "While the kind is not active, a cluster that selects nothing gets the defaults.",
			args:   args{defaults: []Policy{def("b"), def("a")}, inactive: true},
			want:   []Policy{def("a"), def("b")},
		},
		"InactiveSelected": {
			reason: "While the kind is not active, a selected name that is not a default becomes a policy that denies every action and says the kind is not active; one of another key than a missing object's, so that the engine does not confuse their messages.",
			args:   args{defaults: []Policy{def("a")}, selected: []string{"a", "team"}, inactive: true},
			want:   []Policy{def("a"), inactive("team")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Assemble(tc.args.defaults, tc.args.objects, tc.args.selected)
			if tc.args.inactive {
				got = AssembleInactive(tc.args.defaults, tc.args.selected)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Policy{})); diff != "" {
				t.Errorf("\n%s\nAssemble(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParseManifest(t *testing.T) {
	cases := map[string]struct {
		doc     string
		want    string
		wantErr string
	}{
		"Valid": {
			doc:  "apiVersion: foundationdb.crossplane.io/v1alpha1\nkind: SafetyPolicy\nmetadata: {name: p}\nspec: {actions: [Kill], validations: [{name: r, expression: 'true'}]}\n",
			want: "p",
		},
		"UnknownField": {
			doc:     "apiVersion: foundationdb.crossplane.io/v1alpha1\nkind: SafetyPolicy\nmetadata: {name: p}\nspec: {action: [Kill]}\n",
			wantErr: `cannot parse SafetyPolicy manifest: error unmarshaling JSON: while decoding JSON: json: unknown field "action"`,
		},
		"WrongKind": {
			doc:     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\n",
			wantErr: "manifest is a v1 ConfigMap, not a foundationdb.crossplane.io/v1alpha1, Kind=SafetyPolicy",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := ParseManifest([]byte(tc.doc))
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("ParseManifest(...): -want error, +got error:\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, p.Name); diff != "" {
				t.Errorf("ParseManifest(...).Name: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestParseBuiltin(t *testing.T) {
	doc := []byte("apiVersion: foundationdb.crossplane.io/v1alpha1\nkind: SafetyPolicy\nmetadata: {name: p}\nspec: {actions: [Kill], validations: [{name: r, expression: 'true'}]}\n")
	m, err := ParseManifest(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseBuiltin(doc)
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Name, Key string
		Builtin   bool
	}
	want := view{Name: "p", Key: "builtin:" + m.Key, Builtin: true}
	if diff := cmp.Diff(want, view{Name: b.Name, Key: b.Key, Builtin: b.builtin}); diff != "" {
		t.Errorf("ParseBuiltin(...): -want, +got:\n%s", diff)
	}
	if m.builtin {
		t.Error("ParseManifest(...): want a policy that is not built in")
	}
	if _, err := ParseBuiltin([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\n")); err == nil {
		t.Error("ParseBuiltin(ConfigMap): want an error")
	}
}

func TestKeys(t *testing.T) {
	sp := &v1alpha1.SafetyPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u", Generation: 3}}
	if got, want := FromObject(sp).Key, "uid:u/3"; got != want {
		t.Errorf("FromObject(...).Key: want %q, got %q", want, got)
	}
	noUID := &v1alpha1.SafetyPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	changed := noUID.DeepCopy()
	changed.Spec.Enforcement = v1alpha1.EnforcementWarn
	if FromObject(noUID).Key == FromObject(changed).Key {
		t.Error("FromObject(...).Key: want different content keyed differently without a UID")
	}
	if FromObject(noUID).Key != FromObject(noUID.DeepCopy()).Key {
		t.Error("FromObject(...).Key: want equal content keyed equally")
	}
}
