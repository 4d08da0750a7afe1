package policy

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValuesMatchSchema keeps the hand-written CEL values of the input types
// in step with the schema the type checker sees, which is derived from the
// structs' JSON tags.
func TestValuesMatchSchema(t *testing.T) {
	s, err := newSchema(reflect.TypeFor[Action](), reflect.TypeFor[Cluster](), reflect.TypeFor[ProcessGroup](), reflect.TypeFor[Targets]())
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]map[string]any{
		"Action":       Action{}.value(),
		"Cluster":      Cluster{}.value(),
		"DataMovement": DataMovement{}.value(),
		"ProcessGroup": ProcessGroup{}.value(),
		"Condition":    Condition{}.value(),
		"Targets":      Targets{}.value(),
	}
	for name, v := range values {
		want, ok := s.FindStructFieldNames(typePrefix + name)
		if !ok {
			t.Errorf("schema lacks %s", name)
			continue
		}
		if diff := cmp.Diff(slices.Sorted(slices.Values(want)), slices.Sorted(maps.Keys(v))); diff != "" {
			t.Errorf("%s: keys of value(): -schema, +value:\n%s", name, diff)
		}
	}
	if got := len(s.fields); got != len(values) {
		t.Errorf("schema declares %d types, the test checks %d", got, len(values))
	}
}
