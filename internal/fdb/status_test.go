package fdb_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// summary is what the controllers derive from a status.
type summary struct {
	Available, Healthy, Quorum, Incomplete bool
	Recovery                               string
	Generations                            int
	LogGenerations                         int
	Instances                              map[string][]string // instance → process addresses
	Exclusions                             []fdb.ProcessAddress
	Excluded                               []string // processes reporting excluded: "address roles…"
	Data                                   string
	MinReplicas                            int
	MovingBytes                            int64
	FaultTolerance                         fdb.FaultTolerance
	Coordinators                           int
	BackupTags                             []string
	WorstDataLagSeconds                    float64
}

func summarize(s *fdb.Status) summary {
	sum := summary{
		Available:           s.Client.DatabaseStatus.Available,
		Healthy:             s.Client.DatabaseStatus.Healthy,
		Quorum:              s.Client.Coordinators.QuorumReachable,
		Incomplete:          s.Incomplete(),
		Recovery:            s.Cluster.RecoveryState.Name,
		Generations:         s.Cluster.RecoveryState.ActiveGenerations,
		LogGenerations:      len(s.Cluster.Logs),
		Instances:           map[string][]string{},
		Exclusions:          fdb.Exclusions(s),
		Data:                s.Cluster.Data.State.Name,
		MinReplicas:         s.Cluster.Data.State.MinReplicasRemaining,
		MovingBytes:         s.Cluster.Data.MovingData.InFlightBytes + s.Cluster.Data.MovingData.InQueueBytes,
		FaultTolerance:      s.Cluster.FaultTolerance,
		WorstDataLagSeconds: s.Cluster.Qos.WorstDataLagStorageServer.Seconds,
	}
	for id, ps := range fdb.ProcessesByInstance(s) {
		for _, p := range ps {
			sum.Instances[id] = append(sum.Instances[id], p.Address)
		}
	}
	for _, p := range s.Cluster.Processes {
		if p.Excluded {
			sum.Excluded = append(sum.Excluded, strings.Join(append([]string{p.Address}, roles(p)...), " "))
		}
	}
	slices.Sort(sum.Excluded)
	for _, c := range s.Client.Coordinators.Coordinators {
		if c.Reachable {
			sum.Coordinators++
		}
	}
	for tag := range s.Cluster.Layers.Backup.Tags {
		sum.BackupTags = append(sum.BackupTags, tag)
	}
	slices.Sort(sum.BackupTags)
	return sum
}

// roles returns the roles p serves.
func roles(p fdb.Process) []string {
	var out []string
	for _, r := range p.Roles {
		out = append(out, r.Role)
	}
	return out
}

// instances returns the layout of the healthy fixtures: five storage pods,
// three logs, two stateless, one process each.
func instances() map[string][]string {
	return map[string][]string{
		"storage-1": {"10.1.0.1:4501"}, "storage-2": {"10.1.0.2:4501"}, "storage-3": {"10.1.0.3:4501"},
		"storage-4": {"10.1.0.4:4501"}, "storage-5": {"10.1.0.5:4501"},
		"log-1": {"10.2.0.1:4501"}, "log-2": {"10.2.0.2:4501"}, "log-3": {"10.2.0.3:4501"},
		"stateless-1": {"10.3.0.1:4501"}, "stateless-2": {"10.3.0.2:4501"},
	}
}

func TestParseStatusFixtures(t *testing.T) {
	healthy := summary{
		Available: true, Healthy: true, Quorum: true,
		Recovery: fdb.RecoveryFullyRecovered, Generations: 1, LogGenerations: 1,
		Instances: instances(),
		Data:      fdb.DataHealthy, MinReplicas: 3,
		FaultTolerance: fdb.FaultTolerance{
			MaxZoneFailuresWithoutLosingAvailability: 1,
			MaxZoneFailuresWithoutLosingData:         2,
		},
		Coordinators:        3,
		BackupTags:          []string{fdb.DefaultBackupTag},
		WorstDataLagSeconds: 0.48,
	}
	edit := func(edit func(s *summary)) summary {
		s := healthy
		s.Instances = instances()
		edit(&s)
		return s
	}
	cases := map[string]summary{
		"healthy_triple.json": healthy,
		"recovery_in_progress.json": edit(func(s *summary) {
			s.Healthy, s.Recovery, s.Generations, s.LogGenerations = false, fdb.RecoveryAcceptingCommits, 3, 3
		}),
		"unavailable.json": {
			Incomplete: true, Instances: map[string][]string{},
			Coordinators: 1,
		},
		"exclusions_in_progress.json": edit(func(s *summary) {
			s.Exclusions = []fdb.ProcessAddress{"10.1.0.1:4501", fdb.InstanceTarget("storage-2")}
			s.Excluded = []string{"10.1.0.1:4501 storage", "10.1.0.2:4501"}
			s.Data, s.MovingBytes = fdb.DataHealthyRemovingServer, 402653184
		}),
		"missing_processes.json": edit(func(s *summary) {
			s.Healthy, s.Coordinators = false, 2
			delete(s.Instances, "storage-5")
			delete(s.Instances, "log-3")
			s.Exclusions = []fdb.ProcessAddress{fdb.InstanceTarget("storage-5")}
			s.Data, s.MinReplicas, s.MovingBytes = fdb.DataHealing, 2, 1207959552
			s.FaultTolerance = fdb.FaultTolerance{MaxZoneFailuresWithoutLosingData: 1}
		}),
		"multi_process_pods.json": edit(func(s *summary) {
			s.Instances = instances()
			for n, id := range []string{"storage-1", "storage-2", "storage-3"} {
				ip := "10.1.0." + string(rune('1'+n))
				s.Instances[id] = []string{ip + ":4501", ip + ":4503"}
			}
			delete(s.Instances, "storage-4")
			delete(s.Instances, "storage-5")
		}),
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			s, err := fdb.ParseStatus(out)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, summarize(s)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseStatusIncomplete: FoundationDB always writes cluster.messages,
// where it says what the status lacks; a cluster section that lists
// processes without it, or a message without a name, reads as incomplete.
func TestParseStatusIncomplete(t *testing.T) {
	process := `"processes": {"p1": {"address": "10.0.0.1:4500", "roles": []}}`
	cases := map[string]struct {
		out  string
		want bool
	}{
		"NoMessages":       {out: `{"cluster": {` + process + `}}`, want: true},
		"NullMessages":     {out: `{"cluster": {` + process + `, "messages": null}}`},
		"EmptyMessages":    {out: `{"cluster": {` + process + `, "messages": []}}`},
		"StatusIncomplete": {out: `{"cluster": {` + process + `, "messages": [{"name": "status_incomplete"}]}}`, want: true},
		"UnnamedMessage":   {out: `{"cluster": {` + process + `, "messages": [{"description": "?"}]}}`, want: true},
		"OtherMessage":     {out: `{"cluster": {` + process + `, "messages": [{"name": "client_issues"}]}}`},
		"NoProcesses":      {out: `{"cluster": {"messages": []}}`, want: true},
		"NoClusterSection": {out: `{"client": {}}`, want: true},
		"EmptyCluster":     {out: `{"cluster": {}}`, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := fdb.ParseStatus([]byte(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Incomplete(); got != tc.want {
				t.Errorf("Incomplete() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseStatusErrors(t *testing.T) {
	cases := map[string]struct {
		out     string
		wantErr error
	}{
		"Empty":           {out: "", wantErr: fdb.ErrUnexpectedOutput},
		"NotJSON":         {out: "ERROR: Unable to connect to cluster", wantErr: fdb.ErrUnexpectedOutput},
		"Truncated":       {out: `{"client": {"database_status": {`, wantErr: fdb.ErrUnexpectedOutput},
		"WrongType":       {out: `{"client": {"database_status": {"available": "yes"}}}`, wantErr: fdb.ErrUnexpectedOutput},
		"LeadingWarning":  {out: "WARNING: Long delay (Ctrl-C to interrupt)\n{\"client\": {}}"},
		"UnknownFieldsOK": {out: `{"cluster": {"brand_new_section": {"x": 1}}}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := fdb.ParseStatus([]byte(tc.out))
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("ParseStatus: got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestZoneFailuresTolerated(t *testing.T) {
	process := func(addr, zone string) fdb.Process {
		return fdb.Process{Address: addr, Locality: fdb.Locality{ZoneID: zone}}
	}
	status := func(reported int, procs []fdb.Process, coordinators ...fdb.CoordinatorStatus) *fdb.Status {
		s := &fdb.Status{}
		s.Cluster.FaultTolerance = fdb.FaultTolerance{MaxZoneFailuresWithoutLosingData: reported, MaxZoneFailuresWithoutLosingAvailability: reported}
		s.Cluster.Processes = map[string]fdb.Process{}
		for _, p := range procs {
			s.Cluster.Processes[p.Address] = p
		}
		s.Client.Coordinators.Coordinators = coordinators
		return s
	}
	up := func(a string) fdb.CoordinatorStatus {
		return fdb.CoordinatorStatus{Address: fdb.ProcessAddress(a), Reachable: true}
	}
	down := func(a string) fdb.CoordinatorStatus { return fdb.CoordinatorStatus{Address: fdb.ProcessAddress(a)} }
	nine := []fdb.Process{
		process("10.0.0.1:4501", "a"), process("10.0.0.2:4501", "a"), process("10.0.0.3:4501", "a"),
		process("10.0.0.4:4501", "b"), process("10.0.0.5:4501", "b"), process("10.0.0.6:4501", "b"),
		process("10.0.0.7:4501", "c"),
	}
	cases := map[string]struct {
		status *fdb.Status
		want   int
	}{
		"three coordinators in three zones": {
			status: status(1, nine, up("10.0.0.1:4501"), up("10.0.0.4:4501"), up("10.0.0.7:4501")),
			want:   1,
		},
		"the status reports fewer": {
			status: status(0, nine, up("10.0.0.1:4501"), up("10.0.0.4:4501"), up("10.0.0.7:4501")),
			want:   0,
		},
		"one of three coordinators unreachable": {
			status: status(1, nine, up("10.0.0.1:4501"), up("10.0.0.4:4501"), down("10.0.0.7:4501")),
			want:   0,
		},
		// Seed 658's state: two of nine lost, three in each zone left; status
		// still says one zone may fail, and losing zone a loses the quorum.
		"two of nine unreachable, three to a zone": {
			status: status(1, nine, up("10.0.0.1:4501"), up("10.0.0.2:4501"), up("10.0.0.3:4501"),
				up("10.0.0.4:4501"), up("10.0.0.5:4501"), up("10.0.0.6:4501"),
				up("10.0.0.7:4501"), down("10.0.0.8:4501"), down("10.0.0.9:4501")),
			want: 0,
		},
		"a reachable coordinator no process reports counts as lost": {
			status: status(1, nine, up("10.0.0.1:4501"), up("10.0.0.4:4501"), up("10.0.0.8:4501")),
			want:   0,
		},
		"coordinators by DNS name": {
			status: status(1, []fdb.Process{
				{Address: "10.0.0.1:4501", Locality: fdb.Locality{ZoneID: "a", DNSName: "p1.svc"}},
				{Address: "10.0.0.2:4501", Locality: fdb.Locality{ZoneID: "b", DNSName: "p2.svc"}},
				{Address: "10.0.0.3:4501", Locality: fdb.Locality{ZoneID: "c", DNSName: "p3.svc"}},
			}, up("p1.svc:4501"), up("p2.svc:4501"), up("p3.svc:4501")),
			want: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.status.ZoneFailuresTolerated()); diff != "" {
				t.Errorf("ZoneFailuresTolerated() (-want +got):\n%s", diff)
			}
		})
	}
}
