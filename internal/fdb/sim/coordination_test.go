package sim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
)

// TestRecoverLostCoordinators: once a majority of the coordinators lost
// their disks the database never recovers; copying a surviving
// coordinator's files to new coordinators and restarting every process on
// their connection string brings it back on them, and nothing less does. A process left on its old cluster
// file never finds the database again.
func TestRecoverLostCoordinators(t *testing.T) {
	lost := []string{"stateless-1", "stateless-2"}
	recovered := fdb.ConnectionString{Description: "test", ID: "initial", Coordinators: dnsAddresses("storage-1", "storage-2", "storage-3")}
	all := func(c *fdbtest.Cluster) []string {
		var ids []string
		for _, g := range c.Groups {
			ids = append(ids, g.ID)
		}
		return ids
	}
	cases := map[string]struct {
		copyFrom string   // the process the files are copied from, "" for no copy
		copyTo   []string // the processes they are copied to
		reset    func(c *fdbtest.Cluster) []string
		wantErr  bool
		want     bool // available on the recovered connection string
		stranded []string
	}{
		"Recovered": {
			copyFrom: "storage-1", copyTo: []string{"storage-2", "storage-3"},
			reset: all, want: true,
		},
		"NoFilesCopied": {
			reset: all,
		},
		"CopiedFromALostCoordinator": {
			copyFrom: "stateless-1", copyTo: []string{"storage-2", "storage-3"},
			reset: all, wantErr: true,
		},
		"NoRestart": {
			copyFrom: "storage-1", copyTo: []string{"storage-2", "storage-3"},
			reset: func(*fdbtest.Cluster) []string { return nil },
		},
		"OneProcessLeftOnTheOldFile": {
			copyFrom: "storage-1", copyTo: []string{"storage-2", "storage-3"},
			reset: func(c *fdbtest.Cluster) []string {
				return slices.DeleteFunc(all(c), func(id string) bool { return id == "log-4" })
			},
			want: true, stranded: []string{"log-4"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newDNSCluster(t, dnsAddresses("stateless-1", "stateless-2", "storage-1")...)
			for _, id := range lost {
				must(t, c.Sim.LoseDisk(id))
			}
			// The transaction system runs on until its next recovery,
			// which cannot read the coordinated state.
			must(t, c.Sim.Recover())
			c.Clock.Step(time.Minute)
			if s := c.Status(t); s.Client.DatabaseStatus.Available {
				t.Fatalf("database available after a majority of its coordinators lost their disks")
			}
			for _, to := range tc.copyTo {
				if err := c.Sim.CopyCoordinationFiles(tc.copyFrom, to); err != nil {
					if !tc.wantErr {
						t.Fatalf("CopyCoordinationFiles(%s, %s): %v", tc.copyFrom, to, err)
					}
					return
				}
			}
			if tc.wantErr {
				t.Fatalf("CopyCoordinationFiles from %s succeeded, want an error", tc.copyFrom)
			}
			for _, id := range tc.reset(c) {
				must(t, c.Sim.RestartOnClusterFile(id, recovered.String()))
			}
			for range 120 {
				c.Clock.Step(time.Second)
			}
			s := c.Status(t)
			if got := s.Client.DatabaseStatus.Available && c.Sim.ConnectionString() == recovered.String(); got != tc.want {
				t.Errorf("available on %s after two minutes: %v, want %v (connection string %s)", recovered, got, tc.want, c.Sim.ConnectionString())
			}
			var out []string
			for _, g := range c.Groups {
				if _, ok := s.Cluster.Processes[g.ID]; !ok && tc.want {
					out = append(out, g.ID)
				}
			}
			if !slices.Equal(out, tc.stranded) {
				t.Errorf("processes missing from the recovered database: %v, want %v", out, tc.stranded)
			}
		})
	}
}

// TestRecoverLostCoordinatorsInPlace: where the coordinators stay (no other
// valid set), the survivor's files copied to the blank ones and every
// process restarted on the same connection string bring the state back.
func TestRecoverLostCoordinatorsInPlace(t *testing.T) {
	cs := fdb.ConnectionString{Description: "test", ID: "initial", Coordinators: dnsAddresses("stateless-1", "stateless-2", "storage-1")}
	for name, copied := range map[string]bool{"Copied": true, "NotCopied": false} {
		t.Run(name, func(t *testing.T) {
			c := newDNSCluster(t, cs.Coordinators...)
			must(t, c.Sim.LoseDisk("stateless-1"))
			must(t, c.Sim.LoseDisk("stateless-2"))
			must(t, c.Sim.Recover())
			c.Clock.Step(time.Minute)
			if copied {
				must(t, c.Sim.CopyCoordinationFiles("storage-1", "stateless-1"))
				must(t, c.Sim.CopyCoordinationFiles("storage-1", "stateless-2"))
			}
			for _, g := range c.Groups {
				must(t, c.Sim.RestartOnClusterFile(g.ID, cs.String()))
			}
			for range 120 {
				c.Clock.Step(time.Second)
			}
			if got := c.Status(t).Client.DatabaseStatus.Available; got != copied {
				t.Errorf("available after the restart on the same connection string: %v, want %v", got, copied)
			}
		})
	}
}
