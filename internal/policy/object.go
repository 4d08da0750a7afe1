package policy

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// fields are the CEL fields of a type of the input model: a getter by JSON
// name, which the schema (see schema.go) declares to the type checker; a
// test keeps both in step.
type fields[T any] map[string]func(*T) any

// A model is a pointer to a type of the input model.
type model[T any] interface {
	*T
	fields() fields[T]
}

// An object is a value of the input model as a CEL map from its fields' JSON
// names to their values. It converts a field only when an expression selects
// it; everything else a map does (iteration, equality, conversion, e.g. to
// render a trace) it leaves to the map of all its fields, built on demand.
// A pointer in size, it is stored in an interface without an allocation.
type object[T any, P model[T]] struct {
	v P
}

// objectOf returns the CEL value of v.
func objectOf[T any, P model[T]](v P) object[T, P] {
	return object[T, P]{v: v}
}

// objectList returns the CEL list of the objects of s.
func objectList[T any, P model[T]](s []T) traits.Lister {
	vals := make([]ref.Val, len(s))
	for i := range s {
		vals[i] = objectOf[T, P](&s[i])
	}
	return types.NewRefValList(types.DefaultTypeAdapter, vals)
}

// fieldMap returns the native values of v's fields by JSON name.
func fieldMap[T any, P model[T]](v P) map[string]any {
	f := v.fields()
	m := make(map[string]any, len(f))
	for name, get := range f {
		m[name] = get(v)
	}
	return m
}

// asMap is the map of all of o's fields.
func (o object[T, P]) asMap() traits.Mapper {
	return types.NewStringInterfaceMap(types.DefaultTypeAdapter, fieldMap[T, P](o.v))
}

// Find implements traits.Mapper: a field by name, converted.
func (o object[T, P]) Find(key ref.Val) (ref.Val, bool) {
	name, ok := key.(types.String)
	if !ok {
		return o.asMap().Find(key)
	}
	get, ok := o.v.fields()[string(name)]
	if !ok {
		return nil, false
	}
	return types.DefaultTypeAdapter.NativeToValue(get(o.v)), true
}

// Get implements traits.Indexer.
func (o object[T, P]) Get(key ref.Val) ref.Val {
	if v, ok := o.Find(key); ok {
		return v
	}
	return o.asMap().Get(key)
}

// Contains implements traits.Container.
func (o object[T, P]) Contains(key ref.Val) ref.Val {
	if _, ok := key.(types.String); ok {
		_, found := o.Find(key)
		return types.Bool(found)
	}
	return o.asMap().Contains(key)
}

// Size implements traits.Sizer.
func (o object[T, P]) Size() ref.Val {
	return types.Int(len(o.v.fields()))
}

// Iterator implements traits.Iterable.
func (o object[T, P]) Iterator() traits.Iterator {
	return o.asMap().Iterator()
}

// ConvertToNative implements ref.Val.
func (o object[T, P]) ConvertToNative(t reflect.Type) (any, error) {
	return o.asMap().ConvertToNative(t)
}

// ConvertToType implements ref.Val.
func (o object[T, P]) ConvertToType(t ref.Type) ref.Val {
	return o.asMap().ConvertToType(t)
}

// Equal implements ref.Val.
func (o object[T, P]) Equal(other ref.Val) ref.Val {
	return o.asMap().Equal(other)
}

// Type implements ref.Val.
func (o object[T, P]) Type() ref.Type {
	return types.MapType
}

// Value implements ref.Val.
func (o object[T, P]) Value() any {
	return o.asMap().Value()
}

// IsZeroValue implements traits.Zeroer as a map does: empty is zero.
func (o object[T, P]) IsZeroValue() bool {
	return len(o.v.fields()) == 0
}

// String formats o as its map.
func (o object[T, P]) String() string {
	return fmt.Sprint(o.asMap())
}
