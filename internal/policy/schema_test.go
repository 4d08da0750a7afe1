package policy

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValuesMatchSchema keeps the hand-written CEL fields of the input types
// in step with the schema the type checker sees, which is derived from the
// structs' JSON tags.
func TestValuesMatchSchema(t *testing.T) {
	s, err := newSchema(reflect.TypeFor[Action](), reflect.TypeFor[Cluster](), reflect.TypeFor[ProcessGroup](), reflect.TypeFor[Targets]())
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]map[string]any{
		"Action":       fieldMap(&Action{}),
		"Cluster":      fieldMap(&Cluster{}),
		"DataMovement": fieldMap(&DataMovement{}),
		"TLS":          fieldMap(&TLS{}),
		"ProcessGroup": fieldMap(&ProcessGroup{}),
		"Condition":    fieldMap(&Condition{}),
		"Targets":      fieldMap(&Targets{}),
	}
	for name, v := range values {
		want, ok := s.FindStructFieldNames(typePrefix + name)
		if !ok {
			t.Errorf("schema lacks %s", name)
			continue
		}
		if diff := cmp.Diff(slices.Sorted(slices.Values(want)), slices.Sorted(maps.Keys(v))); diff != "" {
			t.Errorf("%s: CEL fields: -schema, +fields:\n%s", name, diff)
		}
	}
	if got := len(s.fields); got != len(values) {
		t.Errorf("schema declares %d types, the test checks %d", got, len(values))
	}
}
