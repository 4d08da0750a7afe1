package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestDecodeParams(t *testing.T) {
	cases := map[string]struct {
		raw     *runtime.RawExtension
		want    map[string]any
		wantErr bool
	}{
		"Nil":   {},
		"Empty": {raw: &runtime.RawExtension{}},
		"Numbers": {
			raw:  &runtime.RawExtension{Raw: []byte(`{"a": 120, "b": 0.5, "c": 1e3, "d": [1, 2.5], "e": {"f": -3}}`)},
			want: map[string]any{"a": int64(120), "b": 0.5, "c": int64(1000), "d": []any{int64(1), 2.5}, "e": map[string]any{"f": int64(-3)}},
		},
		"NotAnObject": {raw: &runtime.RawExtension{Raw: []byte(`[1]`)}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeParams(tc.raw)
			if (err != nil) != tc.wantErr {
				t.Fatalf("DecodeParams(...): want error %t, got %v", tc.wantErr, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("DecodeParams(...): -want, +got:\n%s", diff)
			}
		})
	}
}

func TestDecodeParamsError(t *testing.T) {
	_, err := DecodeParams(&runtime.RawExtension{Raw: []byte(`{`)})
	if err == nil || !strings.HasPrefix(err.Error(), errDecodeParams+": ") {
		t.Errorf("DecodeParams(`{`): want an error starting with %q, got %v", errDecodeParams, err)
	}
}

func TestNormalize(t *testing.T) {
	in := map[string]any{"int": 3, "int32": int32(4), "float": 2.0, "frac": 2.5, "big": 1e300, "s": "x", "b": true}
	want := map[string]any{"int": int64(3), "int32": int64(4), "float": int64(2), "frac": 2.5, "big": 1e300, "s": "x", "b": true}
	if diff := cmp.Diff(want, normalizeMap(in)); diff != "" {
		t.Errorf("normalizeMap(...): -want, +got:\n%s", diff)
	}
}
