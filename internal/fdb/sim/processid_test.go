package sim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// processesOf returns the process IDs and addresses group id reports, as
// <process ID>@<address>.
func processesOf(t *testing.T, c *fdbtest.Cluster, id string) []string {
	t.Helper()
	var out []string
	for _, p := range fdb.ProcessesByInstance(c.Status(t))[id] {
		out = append(out, p.Locality.ProcessID+"@"+p.Address)
	}
	return out
}

// TestProcessIDsByDensity: a pod of one process runs it under the group ID,
// a pod of several runs <group>-<n> on port 4499+2n, as fdb.ProcessID and
// fdb.ProcessPort say, and the faults find them by those IDs.
func TestProcessIDsByDensity(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 1, StorageProcessesPerPod: 2}, sim.Options{Seed: 2})
	c.Create(t, fdb.RedundancyDouble)
	got := map[string][]string{}
	for _, id := range []string{"storage-1", "log-1", "stateless-1"} {
		got[id] = processesOf(t, c, id)
	}
	want := map[string][]string{
		"storage-1":   {"storage-1-1@10.1.0.2:4501", "storage-1-2@10.1.0.2:4503"},
		"log-1":       {"log-1@10.2.0.2:4501"},
		"stateless-1": {"stateless-1@10.3.0.2:4501"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("processes by group (-want +got):\n%s", diff)
	}
	for _, id := range []string{"storage-2-2", "log-2", "stateless-1"} {
		if err := c.Sim.CrashProcess(id, time.Second); err != nil {
			t.Errorf("CrashProcess(%q): %v", id, err)
		}
	}
	for _, id := range []string{"storage-2", "log-2-1"} {
		if err := c.Sim.CrashProcess(id, time.Second); err == nil {
			t.Errorf("CrashProcess(%q): got no error for a process that does not exist", id)
		}
	}
}

// TestProcessIDsAreUnique: a group whose process would be named like
// another group's, kept or new, is refused.
func TestProcessIDsAreUnique(t *testing.T) {
	pair := fdbtest.Topology{StorageProcessesPerPod: 2}.Group(sim.ClassStorage, 1) // runs storage-1-1, storage-1-2
	clash := sim.ProcessGroup{ID: "storage-1-2", Class: sim.ClassStorage, IP: "10.9.0.1", Version: fdbtest.Version}
	cases := map[string]struct {
		before, after []sim.ProcessGroup
	}{
		"New":  {after: []sim.ProcessGroup{pair, clash}},
		"Kept": {before: []sim.ProcessGroup{pair}, after: []sim.ProcessGroup{pair, clash}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Topology{Logs: 1}, sim.Options{Seed: 2})
			logs := c.Groups
			if tc.before != nil {
				c.SetGroups(t, append(slices.Clone(tc.before), logs...))
			}
			err := c.Sim.SetProcessGroups(append(slices.Clone(tc.after), logs...))
			if err == nil || !strings.Contains(err.Error(), `groups "storage-1" and "storage-1-2" would both run process "storage-1-2"`) {
				t.Errorf("SetProcessGroups: got %v, want the error that two groups run process storage-1-2", err)
			}
		})
	}
}

// TestDensityChangeKeepsProcesses: changing a group's ProcessesPerPod in
// place keeps its processes under the names they were created with (one
// process per n), adds the new ones and removes those beyond it.
func TestDensityChangeKeepsProcesses(t *testing.T) {
	cases := map[string]struct {
		from, to int
		want     []string
	}{
		"OneToTwo":   {from: 1, to: 2, want: []string{"storage-1@10.1.0.2:4501", "storage-1-2@10.1.0.2:4503"}},
		"TwoToOne":   {from: 2, to: 1, want: []string{"storage-1-1@10.1.0.2:4501"}},
		"TwoToThree": {from: 2, to: 3, want: []string{"storage-1-1@10.1.0.2:4501", "storage-1-2@10.1.0.2:4503", "storage-1-3@10.1.0.2:4505"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 1, Logs: 1, StorageProcessesPerPod: tc.from}, sim.Options{Seed: 2})
			groups := append([]sim.ProcessGroup(nil), c.Groups...)
			groups[0].ProcessesPerPod = tc.to
			c.SetGroups(t, groups)
			if diff := cmp.Diff(tc.want, processesOf(t, c, "storage-1")); diff != "" {
				t.Errorf("processes of storage-1 (-want +got):\n%s", diff)
			}
		})
	}
}
