package fdb_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestProcessID(t *testing.T) {
	cases := map[string]struct {
		group      string
		n, density int
		want       string
	}{
		"DensityUnset":      {group: "storage-3", n: 1, density: 0, want: "storage-3"},
		"DensityOne":        {group: "storage-3", n: 1, density: 1, want: "storage-3"},
		"DensityTwoFirst":   {group: "storage-3", n: 1, density: 2, want: "storage-3-1"},
		"DensityTwoSecond":  {group: "storage-3", n: 2, density: 2, want: "storage-3-2"},
		"DensityEightLast":  {group: "storage-12", n: 8, density: 8, want: "storage-12-8"},
		"MonitorInstanceID": {group: "$INSTANCE_ID", n: 2, density: 2, want: "$INSTANCE_ID-2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fdb.ProcessID(tc.group, tc.n, tc.density)); diff != "" {
				t.Errorf("ProcessID(%q, %d, %d): -want, +got:\n%s", tc.group, tc.n, tc.density, diff)
			}
		})
	}
}

func TestProcessNumber(t *testing.T) {
	cases := map[string]struct {
		group, processID string
		want             int
	}{
		// A density-1 process is named after its group: a group ID that
		// ends in a number is not a process number.
		"GroupID":            {group: "storage-3", processID: "storage-3", want: 1},
		"DensityTwoFirst":    {group: "storage-3", processID: "storage-3-1", want: 1},
		"DensityTwoSecond":   {group: "storage-3", processID: "storage-3-2", want: 2},
		"TwoDigits":          {group: "storage-1", processID: "storage-1-12", want: 12},
		"OtherGroup":         {group: "storage-1", processID: "storage-12", want: 1},
		"OtherGroupsProcess": {group: "storage-3", processID: "log-1-2", want: 1},
		"Zero":               {group: "storage-1", processID: "storage-1-0", want: 1},
		"Negative":           {group: "storage-1", processID: "storage-1--2", want: 1},
		"LeadingZero":        {group: "storage-1", processID: "storage-1-02", want: 1},
		"NotANumber":         {group: "storage-1", processID: "storage-1-x", want: 1},
		"Empty":              {group: "storage-1", processID: "", want: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fdb.ProcessNumber(tc.group, tc.processID)); diff != "" {
				t.Errorf("ProcessNumber(%q, %q): -want, +got:\n%s", tc.group, tc.processID, diff)
			}
		})
	}
}

func TestProcessNumberInvertsProcessID(t *testing.T) {
	for _, group := range []string{"log-1", "storage-3", "storage-10"} {
		for density := 0; density <= 8; density++ {
			for n := 1; n <= max(density, 1); n++ {
				if got := fdb.ProcessNumber(group, fdb.ProcessID(group, n, density)); got != n {
					t.Errorf("ProcessNumber(%q, ProcessID(%q, %d, %d)) = %d, want %d", group, group, n, density, got, n)
				}
			}
		}
	}
}

func TestProcessPort(t *testing.T) {
	var got []int
	for n := 1; n <= 4; n++ {
		got = append(got, fdb.ProcessPort(n))
	}
	if diff := cmp.Diff([]int{4501, 4503, 4505, 4507}, got); diff != "" {
		t.Errorf("ProcessPort(1..4): -want, +got:\n%s", diff)
	}
}
