package fdb_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestCheckVersion(t *testing.T) {
	cases := map[string]struct {
		want       fdb.Version
		majorMinor string
		wantErr    error
	}{
		"7.1.27":  {want: fdb.Version{Major: 7, Minor: 1, Patch: 27}, majorMinor: "7.1"},
		"7.3.0":   {want: fdb.Version{Major: 7, Minor: 3}, majorMinor: "7.3"},
		"7.0.99":  {wantErr: fdb.ErrUnsupportedVersion},
		"6.3.25":  {wantErr: fdb.ErrUnsupportedVersion},
		"7.1":     {wantErr: fdb.ErrUnsupportedVersion},
		"7.1.x":   {wantErr: fdb.ErrUnsupportedVersion},
		"7.1.-1":  {wantErr: fdb.ErrUnsupportedVersion},
		"":        {wantErr: fdb.ErrUnsupportedVersion},
		"10.0.0":  {want: fdb.Version{Major: 10}, majorMinor: "10.0"},
		"7.10.1":  {want: fdb.Version{Major: 7, Minor: 10, Patch: 1}, majorMinor: "7.10"},
		"7.1.2.3": {wantErr: fdb.ErrUnsupportedVersion},
	}
	for in, tc := range cases {
		t.Run(in, func(t *testing.T) {
			got, err := fdb.CheckVersion(in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("CheckVersion(%q): error %v, want %v", in, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CheckVersion(%q) (-want +got):\n%s", in, diff)
			}
			if err == nil && got.MajorMinor() != tc.majorMinor {
				t.Errorf("MajorMinor: got %q, want %q", got.MajorMinor(), tc.majorMinor)
			}
		})
	}
}

func TestReplicas(t *testing.T) {
	cases := map[fdb.RedundancyMode][2]int{
		fdb.RedundancySingle:        {1, 1},
		fdb.RedundancyDouble:        {2, 2},
		fdb.RedundancyTriple:        {3, 3},
		fdb.RedundancyThreeDataHall: {3, 4},
	}
	for mode, want := range cases {
		storage, err := mode.StorageReplicas()
		if err != nil {
			t.Fatal(err)
		}
		logs, err := mode.LogReplicas()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, [2]int{storage, logs}); diff != "" {
			t.Errorf("%s storage and log replicas (-want +got):\n%s", mode, diff)
		}
	}
	if _, err := fdb.RedundancyMode("quadruple").StorageReplicas(); err == nil {
		t.Error("unknown mode: got no error")
	}
}
