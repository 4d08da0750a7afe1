package workload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMonitorBinaryByRelease checks which fdbserver each monitor release
// runs for a configured version (readConfiguration): before 7.1.62 and
// 7.3.48 the image's only for its own version, from them on for any
// version of its major.minor.
func TestMonitorBinaryByRelease(t *testing.T) {
	cases := map[string]struct {
		release, version, want string
	}{
		"OlderSameVersion":          {release: "7.1.61", version: "7.1.61", want: "/usr/bin/fdbserver"},
		"OlderOtherPatch":           {release: "7.1.61", version: "7.1.67", want: "/var/fdb/shared-binaries/bin/7.1.67/fdbserver"},
		"Older73OtherPatch":         {release: "7.3.47", version: "7.3.63", want: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver"},
		"First71ProtocolRule":       {release: "7.1.62", version: "7.1.67", want: "/usr/bin/fdbserver"},
		"First73ProtocolRule":       {release: "7.3.48", version: "7.3.63", want: "/usr/bin/fdbserver"},
		"LaterPatchBeforeTheImage":  {release: "7.3.63", version: "7.3.69", want: "/usr/bin/fdbserver"},
		"OtherMinor":                {release: "7.1.67", version: "7.3.63", want: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver"},
		"UnknownReleaseSameVersion": {release: "", version: "7.3.63", want: "/var/fdb/shared-binaries/bin/7.3.63/fdbserver"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MonitorBinary(tc.release, tc.version)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
