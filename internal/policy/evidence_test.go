package policy

import (
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

func TestRequiresStatus(t *testing.T) {
	cases := map[string]struct {
		a    Action
		want bool
	}{
		"CreateProcessGroup":        {a: Action{Type: v1alpha1.ActionCreateProcessGroup}},
		"DeleteCluster":             {a: Action{Type: v1alpha1.ActionDeleteCluster}},
		"InitialCoordinators":       {a: Action{Type: v1alpha1.ActionChangeCoordinators, Details: map[string]any{DetailInitial: true}}},
		"ConfigureNew":              {a: Action{Type: v1alpha1.ActionConfigureDatabase, Details: map[string]any{DetailNewDatabase: true}}},
		"ChangeCoordinators":        {a: Action{Type: v1alpha1.ActionChangeCoordinators}, want: true},
		"ConfigureDatabase":         {a: Action{Type: v1alpha1.ActionConfigureDatabase}, want: true},
		"Exclude":                   {a: Action{Type: v1alpha1.ActionExclude}, want: true},
		"ForceDeletePod":            {a: Action{Type: v1alpha1.ActionForceDeletePod}, want: true},
		"RemoveUnreachable":         {a: Action{Type: v1alpha1.ActionRemoveUnreachableProcessGroup}, want: true},
		"ReplaceRequested":          {a: Action{Type: v1alpha1.ActionReplaceProcessGroup, Details: map[string]any{DetailAutomatic: false}}, want: true},
		"ReplaceAutomatic":          {a: Action{Type: v1alpha1.ActionReplaceProcessGroup, Details: map[string]any{DetailAutomatic: true}}, want: true},
		"ReplaceWithoutAnyDetails":  {a: Action{Type: v1alpha1.ActionReplaceProcessGroup}, want: true},
		"ForceDeleteWithoutDetails": {a: Action{Type: v1alpha1.ActionForceDeletePod, Details: map[string]any{}}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.a.RequiresStatus(); got != tc.want {
				t.Errorf("RequiresStatus(): want %t, got %t", tc.want, got)
			}
		})
	}
}
