package policy

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

const errDecodeParams = "cannot decode params"

// DecodeParams decodes a params object, e.g. a Cluster's
// spec.forProvider.safety.params. Whole numbers become int64 so that CEL
// compares them with ints without conversions.
func DecodeParams(raw *runtime.RawExtension) (map[string]any, error) {
	if raw == nil || len(raw.Raw) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw.Raw))
	d.UseNumber()
	m := map[string]any{}
	if err := d.Decode(&m); err != nil {
		return nil, errors.Wrap(err, errDecodeParams)
	}
	return normalizeMap(m), nil
}

// overlay returns base with every key of over replaced: base itself when
// over is empty, else a copy. Neither is modified.
func overlay(base, over map[string]any) map[string]any {
	if len(over) == 0 && base != nil {
		return base
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// normalizeMap returns m with numbers normalised by normalize; never nil.
func normalizeMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = normalize(v)
	}
	return out
}

// normalize turns the numbers that JSON and YAML decoders produce into the
// int64 and float64 that CEL expects, recursively: a whole number becomes an
// int64, any other a float64.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return normalizeMap(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return normalize(f)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
		return v
	case int:
		return int64(v)
	case int32:
		return int64(v)
	default:
		return v
	}
}

// Param is the value of parameter key of the policy named name among
// policies for input in: the Cluster's params (in.Params) over the
// policy's own, as its rules see them; false when the policy is not among
// them or neither sets the key.
func Param(policies []Policy, name, key string, in Input) (any, bool) {
	for _, p := range policies {
		if p.Name != name || p.missing != "" {
			continue
		}
		own, err := DecodeParams(p.Spec.Params)
		if err != nil {
			return nil, false
		}
		v, ok := overlay(own, in.Params)[key]
		return v, ok
	}
	return nil, false
}
