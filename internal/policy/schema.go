package policy

import (
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// typePrefix qualifies the CEL object types of the input model, e.g.
// fdb.Cluster.
const typePrefix = "fdb."

// schema declares the input model's Go structs to the CEL type checker as
// object types whose fields carry the JSON names, so that a misspelt field or
// a comparison of mismatched types fails at compile time. At run time the
// values are maps over the structs (objects, see object.go and the field
// tables in input.go); the interpreter selects their fields by name.
type schema struct {
	*types.Registry
	fields map[string]map[string]*types.Type
	names  map[string][]string
}

func newSchema(roots ...reflect.Type) (*schema, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	s := &schema{
		Registry: reg,
		fields:   map[string]map[string]*types.Type{},
		names:    map[string][]string{},
	}
	for _, t := range roots {
		s.celType(t)
	}
	return s, nil
}

// celType returns the CEL type of a Go type, declaring structs on the way.
func (s *schema) celType(t reflect.Type) *types.Type {
	switch t.Kind() {
	case reflect.String:
		return types.StringType
	case reflect.Bool:
		return types.BoolType
	case reflect.Int, reflect.Int32, reflect.Int64:
		return types.IntType
	case reflect.Float64:
		return types.DoubleType
	case reflect.Slice:
		return types.NewListType(s.celType(t.Elem()))
	case reflect.Map:
		return types.NewMapType(s.celType(t.Key()), s.celType(t.Elem()))
	case reflect.Struct:
		return s.declare(t)
	default:
		return types.DynType
	}
}

func (s *schema) declare(t reflect.Type) *types.Type {
	name := typePrefix + t.Name()
	if _, ok := s.fields[name]; ok {
		return types.NewObjectType(name)
	}
	fields := map[string]*types.Type{}
	s.fields[name] = fields
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		fields[tag] = s.celType(f.Type)
		s.names[name] = append(s.names[name], tag)
	}
	return types.NewObjectType(name)
}

// FindStructType implements types.Provider.
func (s *schema) FindStructType(name string) (*types.Type, bool) {
	if _, ok := s.fields[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return s.Registry.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (s *schema) FindStructFieldNames(name string) ([]string, bool) {
	if n, ok := s.names[name]; ok {
		return n, true
	}
	return s.Registry.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider. The field has no getter, so
// the interpreter reads it from the map value by name.
func (s *schema) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	fields, ok := s.fields[name]
	if !ok {
		return s.Registry.FindStructFieldType(name, field)
	}
	t, ok := fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

// options installs the schema in a CEL environment.
func (s *schema) options() []cel.EnvOption {
	return []cel.EnvOption{cel.CustomTypeAdapter(s.Registry), cel.CustomTypeProvider(s)}
}
