package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// proc builds a status process for group id (<class>-<n>) in zone with one
// process at ip:4501, reporting the DNS name <id>.db (dnsName) unless
// its ip is 10.0.9.x.
func proc(id, zone, ip string, excluded bool) (string, fdb.Process) {
	class := id[:strings.LastIndex(id, "-")]
	p := fdb.Process{
		Address: ip + ":4501", ClassType: class, Excluded: excluded,
		Locality: fdb.Locality{InstanceID: id, ProcessID: id, ZoneID: zone},
	}
	if !strings.HasPrefix(ip, "10.0.9.") {
		p.Locality.DNSName = dnsName(id)
	}
	return id + "-1", p
}

func dnsName(id string) string { return id + ".db" }

func status(procs ...func() (string, fdb.Process)) *fdb.Status {
	s := &fdb.Status{Cluster: fdb.ClusterStatus{Processes: map[string]fdb.Process{}}}
	for _, p := range procs {
		k, v := p()
		s.Cluster.Processes[k] = v
	}
	return s
}

func p(id, zone, ip string) func() (string, fdb.Process) {
	return func() (string, fdb.Process) { return proc(id, zone, ip, false) }
}

func excluded(id, zone, ip string) func() (string, fdb.Process) {
	return func() (string, fdb.Process) { return proc(id, zone, ip, true) }
}

// inHall builds a process like p's in data hall hall.
func inHall(hall, id, zone, ip string) func() (string, fdb.Process) {
	return func() (string, fdb.Process) {
		k, v := proc(id, zone, ip, false)
		v.Locality.DataHall = hall
		return k, v
	}
}

// inDC builds a process like p's in data center dc.
func inDC(dc, id, zone, ip string) func() (string, fdb.Process) {
	return func() (string, fdb.Process) {
		k, v := proc(id, zone, ip, false)
		v.Locality.DCID = dc
		return k, v
	}
}

// twoRegions has four log or storage processes in distinct zones in each
// of data centers dc1 and dc3 (main) and three in dc2 and dc4 (satellites).
func twoRegions() *fdb.Status {
	var procs []func() (string, fdb.Process)
	for i, dc := range []string{"dc1", "dc2", "dc3", "dc4"} {
		n := 4
		if dc == "dc2" || dc == "dc4" {
			n = 3
		}
		for j := 1; j <= n; j++ {
			id := fmt.Sprintf("log-%d%d", i+1, j)
			procs = append(procs, inDC(dc, id, fmt.Sprintf("%s-z%d", dc, j), fmt.Sprintf("10.%d.0.%d", i+1, j)))
		}
	}
	return status(procs...)
}

// threeHalls has four log or storage processes in distinct zones in each of
// data halls a and b and two in c, and a stateless one.
func threeHalls() *fdb.Status {
	return status(
		inHall("a", "log-1", "a1", "10.0.1.1"), inHall("a", "storage-1", "a2", "10.0.1.2"), inHall("a", "storage-2", "a3", "10.0.1.3"), inHall("a", "storage-3", "a4", "10.0.1.4"),
		inHall("b", "log-2", "b1", "10.0.2.1"), inHall("b", "storage-4", "b2", "10.0.2.2"), inHall("b", "storage-5", "b3", "10.0.2.3"), inHall("b", "storage-6", "b4", "10.0.2.4"),
		inHall("c", "log-3", "c1", "10.0.3.1"), inHall("c", "storage-7", "c2", "10.0.3.2"), inHall("c", "stateless-1", "c3", "10.0.3.3"),
	)
}

func TestChooseCoordinators(t *testing.T) {
	fiveZones := status(
		p("log-1", "z1", "10.0.0.1"), p("log-2", "z2", "10.0.0.2"), p("log-3", "z2", "10.0.0.3"),
		p("storage-1", "z3", "10.0.0.4"), p("storage-2", "z4", "10.0.0.5"), p("storage-3", "z5", "10.0.0.6"),
		p("storage-4", "z1", "10.0.0.7"), p("stateless-1", "z6", "10.0.0.8"),
	)
	cases := map[string]struct {
		status      *fdb.Status
		mode        fdb.RedundancyMode
		dataCenters int
		removing    map[string]bool
		dns         bool
		classes     map[string]int
		want        []fdb.ProcessAddress
		wantErr     string
	}{
		"CoordinatorClassFirst": {
			status: status(
				p("log-1", "z1", "10.0.0.1"), p("log-2", "z2", "10.0.0.2"), p("log-3", "z3", "10.0.0.3"),
				p("coordinator-1", "z1", "10.0.0.11"), p("coordinator-2", "z2", "10.0.0.12"), p("coordinator-3", "z3", "10.0.0.13"),
			),
			mode: fdb.RedundancyDouble,
			want: []fdb.ProcessAddress{"10.0.0.11:4501", "10.0.0.12:4501", "10.0.0.13:4501"},
		},
		"SelectionOfStorageOnly": {
			status: fiveZones, mode: fdb.RedundancyDouble, classes: map[string]int{"storage": 0},
			want: []fdb.ProcessAddress{"10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"},
		},
		"SelectionRanksStorageFirst": {
			status: fiveZones, mode: fdb.RedundancyTriple, classes: map[string]int{"storage": 2, "log": 1},
			want: []fdb.ProcessAddress{"10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501", "10.0.0.7:4501"},
		},
		"SelectionNeverTakesStateless": {
			status: fiveZones, mode: fdb.RedundancyDouble, classes: map[string]int{"stateless": 1},
			wantErr: "3 needed in distinct zones, 0 eligible zones",
		},
		"FourDataCentersAtMostThreeInEach": {
			status: twoRegions(), mode: fdb.RedundancyDouble, dataCenters: 4,
			want: []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501", "10.1.0.3:4501", "10.2.0.1:4501", "10.2.0.2:4501", "10.2.0.3:4501",
				"10.3.0.1:4501", "10.3.0.2:4501", "10.3.0.3:4501"},
		},
		// Two main data centers of four eligible processes each: no
		// ninth zone, and never a sixth coordinator in one of them.
		"TwoDataCentersShortOfOne": {
			status: func() *fdb.Status {
				s := twoRegions()
				maps.DeleteFunc(s.Cluster.Processes, func(_ string, p fdb.Process) bool { return p.Locality.DCID == "dc2" || p.Locality.DCID == "dc4" })
				return s
			}(),
			mode: fdb.RedundancyDouble, dataCenters: 2,
			wantErr: "9 needed in distinct zones, at most 5 in a data center; found 8 in 2 data centers",
		},
		"TwoDataCentersAtMostFiveInOne": {
			status: func() *fdb.Status {
				s := twoRegions()
				maps.DeleteFunc(s.Cluster.Processes, func(_ string, p fdb.Process) bool { return p.Locality.DCID == "dc3" || p.Locality.DCID == "dc4" })
				for i := 4; i <= 7; i++ {
					k, v := inDC("dc1", fmt.Sprintf("storage-1%d", i), fmt.Sprintf("dc1-z%d", i), fmt.Sprintf("10.1.1.%d", i))()
					s.Cluster.Processes[k] = v
				}
				return s
			}(),
			// Eight zones in dc1, three in dc2: at most five of dc1's.
			mode: fdb.RedundancyDouble, dataCenters: 2,
			wantErr: "9 needed in distinct zones, at most 5 in a data center; found 8 in 2 data centers",
		},
		"DNSNamesThemByDNSName": {
			status: fiveZones, mode: fdb.RedundancyDouble, dns: true,
			want: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "storage-1.db:4501"},
		},
		"DNSSkipsProcessesWithoutDNSName": {
			status: status(p("log-1", "z1", "10.0.9.1"), p("log-2", "z2", "10.0.0.2"), p("storage-1", "z3", "10.0.0.3"), p("storage-2", "z1", "10.0.0.4")),
			mode:   fdb.RedundancyDouble, dns: true,
			want: []fdb.ProcessAddress{"log-2.db:4501", "storage-1.db:4501", "storage-2.db:4501"},
		},
		"DoublePrefersLogsOnePerZone": {
			status: fiveZones, mode: fdb.RedundancyDouble,
			want: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.4:4501"},
		},
		"TripleNeedsFiveZonesAndSkipsStateless": {
			status: fiveZones, mode: fdb.RedundancyTriple,
			want: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.4:4501", "10.0.0.5:4501", "10.0.0.6:4501"},
		},
		"GroupsBeingRemovedAreSkipped": {
			status: fiveZones, mode: fdb.RedundancyDouble, removing: map[string]bool{"log-2": true},
			want: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.3:4501", "10.0.0.4:4501"},
		},
		"ExcludedAreSkipped": {
			status: status(excluded("log-1", "z1", "10.0.0.1"), p("storage-1", "z2", "10.0.0.2"), p("storage-2", "z3", "10.0.0.3"), p("storage-3", "z1", "10.0.0.4")),
			mode:   fdb.RedundancyDouble,
			want:   []fdb.ProcessAddress{"10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"},
		},
		"NeverTwoInOneZone": {
			status: status(p("log-1", "z1", "10.0.0.1"), p("log-2", "z1", "10.0.0.2"), p("storage-1", "z2", "10.0.0.3")),
			mode:   fdb.RedundancyDouble, wantErr: "3 needed in distinct zones, 2 eligible zones",
		},
		"ThreeDataHallsNeverMoreThanThreeInOne": {
			status: func() *fdb.Status {
				s := threeHalls()
				k, v := inHall("c", "storage-8", "c4", "10.0.3.4")()
				s.Cluster.Processes[k] = v
				return s
			}(),
			mode: fdb.RedundancyThreeDataHall,
			want: []fdb.ProcessAddress{"10.0.1.1:4501", "10.0.1.2:4501", "10.0.1.3:4501", "10.0.2.1:4501", "10.0.2.2:4501", "10.0.2.3:4501",
				"10.0.3.1:4501", "10.0.3.2:4501", "10.0.3.4:4501"},
		},
		// Nine zones, but one hall holds only two eligible processes.
		"ThreeDataHallsShortOfAHall": {
			status: threeHalls(), mode: fdb.RedundancyThreeDataHall,
			wantErr: "9 needed in distinct zones, at most 3 in a data hall; found 8 in 3 data halls",
		},
		// Processes that report no data hall are all in the empty one.
		"ThreeDataHallsWithoutDataHalls": {
			status: status(p("log-1", "z1", "10.0.0.1"), p("log-2", "z2", "10.0.0.2"), p("log-3", "z3", "10.0.0.3"), p("storage-1", "z4", "10.0.0.4"),
				p("storage-2", "z5", "10.0.0.5"), p("storage-3", "z6", "10.0.0.6"), p("storage-4", "z7", "10.0.0.7"), p("storage-5", "z8", "10.0.0.8"),
				p("storage-6", "z9", "10.0.0.9")),
			mode: fdb.RedundancyThreeDataHall, wantErr: "found 3 in 1 data halls",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rules := RulesFor(tc.mode, tc.dataCenters)
			rules.Classes = tc.classes
			got, err := ChooseCoordinators(Processes(tc.status), rules, tc.removing, Form{DNS: tc.dns})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

// TestChooseCoordinatorsAnew: coordinators on blank disks are moved off
// when a valid set avoids them; otherwise a set that differs all the same,
// so that the change writes the coordinated state to every one it names.
func TestChooseCoordinatorsAnew(t *testing.T) {
	current := []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.3:4501"}
	logs := []func() (string, fdb.Process){p("log-1", "z1", "10.0.0.1"), p("log-2", "z2", "10.0.0.2"), p("log-3", "z3", "10.0.0.3")}
	cases := map[string]struct {
		reason  string
		status  *fdb.Status
		blank   map[string]bool
		want    []fdb.ProcessAddress
		wantErr string
	}{
		"NoneBlank": {
			reason: "Without blank groups it chooses as ChooseCoordinators does.",
			status: status(append(logs, p("storage-2", "z2", "10.0.0.5"))...),
			want:   current,
		},
		"AvoidsTheBlank": {
			reason: "log-2's zone has another eligible process: it takes log-2's place.",
			status: status(append(logs, p("storage-2", "z2", "10.0.0.5"))...),
			blank:  map[string]bool{"log-2": true},
			want:   []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.3:4501", "10.0.0.5:4501"},
		},
		"RewritesTheBlankInPlace": {
			reason: "log-2 is the only eligible process of its zone: another coordinator changes, and the change writes the state to log-2 too.",
			status: status(append(logs, p("storage-1", "z1", "10.0.0.4"))...),
			blank:  map[string]bool{"log-2": true},
			want:   []fdb.ProcessAddress{"10.0.0.2:4501", "10.0.0.3:4501", "10.0.0.4:4501"},
		},
		"OnlyTheCurrentSet": {
			reason:  "When the current set is the only valid one, no change can write the state.",
			status:  status(logs...),
			blank:   map[string]bool{"log-2": true},
			wantErr: "cannot choose coordinators: 3 needed in distinct zones, 2 eligible zones",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ChooseCoordinatorsAnew(Processes(tc.status), current, RulesFor(fdb.RedundancyDouble, 0), nil, tc.blank, Form{})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || gotErr != tc.wantErr {
				t.Errorf("\n%s\nChooseCoordinatorsAnew(...): error %q, want %q; -want, +got:\n%s", tc.reason, gotErr, tc.wantErr, diff)
			}
		})
	}
}

// TestStatelessCoordinatorProblem: a current coordinator, by either of its
// names, in a blank group is a problem; a blank group that is no
// coordinator is none.
func TestStatelessCoordinatorProblem(t *testing.T) {
	procs := Processes(status(p("log-1", "z1", "10.0.0.1"), p("log-2", "z2", "10.0.0.2"), p("log-3", "z3", "10.0.0.3"), p("storage-1", "z1", "10.0.0.4")))
	cases := map[string]struct {
		current []fdb.ProcessAddress
		blank   map[string]bool
		want    string
	}{
		"ByIP": {
			current: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.3:4501"}, blank: map[string]bool{"log-2": true},
			want: "coordinator 10.0.0.2:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
		},
		"ByDNSName": {
			current: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "log-3.db:4501"}, blank: map[string]bool{"log-3": true},
			want: "coordinator log-3.db:4501 may hold no coordinated state: its volume was made after the coordinator change that named it",
		},
		"BlankButNoCoordinator": {
			current: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.3:4501"}, blank: map[string]bool{"storage-1": true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := StatelessCoordinatorProblem(procs, tc.current, tc.blank); got != tc.want {
				t.Errorf("StatelessCoordinatorProblem(...): got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCoordinatorProblem(t *testing.T) {
	s := status(p("log-1", "z1", "10.0.0.1"), p("log-2", "z2", "10.0.0.2"), p("storage-1", "z3", "10.0.0.3"),
		excluded("storage-2", "z4", "10.0.0.4"), p("storage-3", "z3", "10.0.0.5"), p("stateless-1", "z5", "10.0.0.6"))
	good := []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.3:4501"}
	restarting := map[string]string{"storage-9.db": "z3", "storage-8.db": "z1"}
	cases := map[string]struct {
		current    []fdb.ProcessAddress
		removing   map[string]bool
		restarting map[string]string
		classes    map[string]int
		want       string
	}{
		"Valid":                 {current: good},
		"ClassNoLongerSelected": {current: good, classes: map[string]int{"storage": 1, "transaction": 1}, want: "coordinator 10.0.0.1:4501 is missing, excluded, being removed or not eligible"},
		"ClassesSelected":       {current: good, classes: map[string]int{"storage": 1, "log": 2}},
		"TooFew":                {current: good[:2], want: "the cluster has 2 coordinators and needs 3"},
		"Excluded":              {current: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.4:4501"}, want: "coordinator 10.0.0.4:4501 is missing, excluded"},
		"Missing":               {current: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.9.9.9:4501"}, want: "coordinator 10.9.9.9:4501 is missing"},
		"BeingRemoved":          {current: good, removing: map[string]bool{"log-2": true}, want: "coordinator 10.0.0.2:4501 is missing, excluded, being removed"},
		"Stateless":             {current: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.6:4501"}, want: "not eligible"},
		"SharedZone":            {current: []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.3:4501", "10.0.0.5:4501"}, want: "two coordinators share zone z3"},
		"NoneAtAllYet":          {want: "the cluster has 0 coordinators and needs 3"},
		"ByDNSName":             {current: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "storage-1.db:4501"}},
		"DNSNameGone":           {current: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "storage-9.db:4501"}, want: "coordinator storage-9.db:4501 is missing"},
		"MixedNames":            {current: []fdb.ProcessAddress{"log-1.db:4501", "10.0.0.2:4501", "storage-1.db:4501"}},
		"ExactlyNeeded":         {current: good, removing: map[string]bool{"storage-3": true}},
		"DNSNameRestarting":     {current: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "storage-9.db:4501"}, restarting: restarting},
		"RestartingSharesZone": {current: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "storage-8.db:4501"}, restarting: restarting,
			want: "two coordinators share zone z1"},
		"IPOfRestartingPod": {current: []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501", "10.9.9.9:4501"}, restarting: map[string]string{"10.9.9.9": "z3"},
			want: "coordinator 10.9.9.9:4501 is missing"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rules := RulesFor(fdb.RedundancyDouble, 0)
			rules.Classes = tc.classes
			got := CoordinatorProblem(Processes(s), tc.current, rules, tc.removing, tc.restarting)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("CoordinatorProblem() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCoordinatorProblemSpread: nine coordinators, at most three in a data
// hall (three_data_hall) or in a data center (four data centers).
func TestCoordinatorProblemSpread(t *testing.T) {
	halls := threeHalls()
	k, v := inHall("c", "storage-8", "c4", "10.0.3.4")()
	halls.Cluster.Processes[k] = v
	hallSpread := []fdb.ProcessAddress{"10.0.1.1:4501", "10.0.1.2:4501", "10.0.1.3:4501", "10.0.2.1:4501", "10.0.2.2:4501", "10.0.2.3:4501",
		"10.0.3.1:4501", "10.0.3.2:4501", "10.0.3.4:4501"}
	dcSpread := []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501", "10.1.0.3:4501", "10.2.0.1:4501", "10.2.0.2:4501", "10.2.0.3:4501",
		"10.3.0.1:4501", "10.3.0.2:4501", "10.3.0.3:4501"}
	cases := map[string]struct {
		status  *fdb.Status
		rules   CoordinatorRules
		current []fdb.ProcessAddress
		want    string
	}{
		"ThreePerHall": {status: halls, rules: RulesFor(fdb.RedundancyThreeDataHall, 0), current: hallSpread},
		"FourInOneHall": {status: halls, rules: RulesFor(fdb.RedundancyThreeDataHall, 0), current: append(slices.Clone(hallSpread[:8]), "10.0.1.4:4501"),
			want: `more than 3 coordinators in data hall "a"`},
		"ThreePerDataCenter": {status: twoRegions(), rules: RulesFor(fdb.RedundancyDouble, 4), current: dcSpread},
		"FourInOneDataCenter": {status: twoRegions(), rules: RulesFor(fdb.RedundancyDouble, 4), current: append(slices.Clone(dcSpread[:8]), "10.1.0.4:4501"),
			want: `more than 3 coordinators in data center "dc1"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CoordinatorProblem(Processes(tc.status), tc.current, tc.rules, nil, nil); got != tc.want {
				t.Errorf("CoordinatorProblem() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRulesFor(t *testing.T) {
	cases := map[string]struct {
		mode        fdb.RedundancyMode
		dataCenters int
		want        CoordinatorRules
	}{
		"Single":          {mode: fdb.RedundancySingle, want: CoordinatorRules{Count: 1}},
		"Double":          {mode: fdb.RedundancyDouble, want: CoordinatorRules{Count: 3}},
		"Triple":          {mode: fdb.RedundancyTriple, want: CoordinatorRules{Count: 5}},
		"ThreeDataHall":   {mode: fdb.RedundancyThreeDataHall, want: CoordinatorRules{Count: 9, PerDataHall: 3}},
		"OneDataCenter":   {mode: fdb.RedundancyTriple, dataCenters: 1, want: CoordinatorRules{Count: 5}},
		"TwoDataCenters":  {mode: fdb.RedundancyDouble, dataCenters: 2, want: CoordinatorRules{Count: 9, PerDataCenter: 5}},
		"FourDataCenters": {mode: fdb.RedundancyTriple, dataCenters: 4, want: CoordinatorRules{Count: 9, PerDataCenter: 3}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RulesFor(tc.mode, tc.dataCenters)); diff != "" {
				t.Errorf("RulesFor(%s, %d): -want, +got:\n%s", tc.mode, tc.dataCenters, diff)
			}
		})
	}
}

// TestCoordinatorFormProblem: coordinators are renamed when the cluster
// file's form changes, and move between TLS and plain-text addresses only
// once every eligible process listens on the new kind (the operator's
// coordinator change waits for the same, operator-facts in
// /work/shared/reference/tls-sources.md §6.5).
func TestCoordinatorFormProblem(t *testing.T) {
	ips := []fdb.ProcessAddress{"10.0.0.1:4501", "10.0.0.2:4501"}
	names := []fdb.ProcessAddress{"log-1.db:4501", "log-2.db:4501"}
	tlsIPs := []fdb.ProcessAddress{"10.0.0.1:4500:tls", "10.0.0.2:4500:tls"}
	proc := func(ip string, listens ...string) Process {
		return Process{Address: fdb.ProcessAddress(listens[0]), Class: "log", Zone: ip, Listens: listens}
	}
	plainOnly := []Process{proc("a", "10.0.0.1:4501"), proc("b", "10.0.0.2:4501")}
	both := []Process{proc("a", "10.0.0.1:4500:tls", "10.0.0.1:4501"), proc("b", "10.0.0.2:4500:tls", "10.0.0.2:4501")}
	halfway := []Process{both[0], plainOnly[1]}
	cases := map[string]struct {
		procs   []Process
		current []fdb.ProcessAddress
		form    Form
		want    string
	}{
		"IPsWithoutDNS":                         {current: ips},
		"NamesWithDNS":                          {current: names, form: Form{DNS: true}},
		"IPsWithDNS":                            {current: ips, form: Form{DNS: true}, want: "coordinator 10.0.0.1:4501 is named by IP address and the cluster file uses DNS names"},
		"NamesWithoutDNS":                       {current: names, want: "coordinator log-1.db:4501 is named by DNS name and the cluster file uses IP addresses"},
		"OneIPWithDNS":                          {current: []fdb.ProcessAddress{names[0], ips[1]}, form: Form{DNS: true}, want: "coordinator 10.0.0.2:4501 is named by IP address"},
		"ToTLSBeforeEveryProcessListensWithTLS": {procs: halfway, current: ips, form: Form{TLS: true}},
		"ToTLSOnceEveryProcessListensWithTLS":   {procs: both, current: ips, form: Form{TLS: true}, want: "coordinator 10.0.0.1:4501 is a plain-text address and the database moves to TLS"},
		"TLSAsWanted":                           {procs: both, current: tlsIPs, form: Form{TLS: true}},
		"BackToPlain":                           {procs: both, current: tlsIPs, want: "coordinator 10.0.0.1:4500:tls is a TLS address and the database moves to plain text"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := CoordinatorFormProblem(tc.procs, tc.current, tc.form)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("CoordinatorFormProblem() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestListenedKind: new coordinators are named by the kind of address the
// database wants once every eligible process listens on it, and by the
// kind they all still listen on while the restart that brings the new one
// has not reached them all (chaos seed 59: a coordinator's group removed
// in the middle of a migration back to plain text waited for coordinators
// of a kind most processes did not listen on yet, and the restart waited
// for the coordinator change).
func TestListenedKind(t *testing.T) {
	proc := func(class string, listens ...string) Process {
		return Process{Address: fdb.ProcessAddress(listens[0]), Class: class, Listens: listens}
	}
	tlsOnly, plainOnly := proc("log", "10.0.0.1:4500:tls"), proc("log", "10.0.0.2:4501")
	both := proc("log", "10.0.0.3:4500:tls", "10.0.0.3:4501")
	cases := map[string]struct {
		procs []Process
		want  bool
		got   bool
	}{
		"PlainWantedAllListenPlain":      {procs: []Process{plainOnly, both}, want: false, got: false},
		"PlainWantedSomeListenTLSOnly":   {procs: []Process{tlsOnly, both}, want: false, got: true},
		"TLSWantedSomeListenPlainOnly":   {procs: []Process{plainOnly, both}, want: true, got: false},
		"TLSWantedNeitherKindEverywhere": {procs: []Process{plainOnly, tlsOnly}, want: true, got: true},
		"StatelessProcessesDoNotCount":   {procs: []Process{both, proc("stateless", "10.0.0.4:4501")}, want: true, got: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ListenedKind(tc.procs, tc.want); got != tc.got {
				t.Errorf("ListenedKind(..., %t) = %t, want %t", tc.want, got, tc.got)
			}
		})
	}
}

func TestNewGroupIDs(t *testing.T) {
	cases := map[string]struct {
		prefix string
		taken  map[string]bool
		want   []string
	}{
		"Alone": {taken: map[string]bool{"storage-1": true, "storage-3": true, "log-2": true}, want: []string{"storage-2", "storage-4", "storage-5"}},
		"DataCenter": {prefix: "dc1-", taken: map[string]bool{"dc1-storage-1": true, "storage-2": true},
			want: []string{"dc1-storage-2", "dc1-storage-3", "dc1-storage-4"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, NewGroupIDs(tc.prefix, "storage", 3, tc.taken)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
			for _, id := range tc.want {
				if n := GroupNumber(id); n == 0 {
					t.Errorf("GroupNumber(%q) = 0, want its number", id)
				}
			}
		})
	}
}

func TestAssignZones(t *testing.T) {
	cases := map[string]struct {
		zones    []string
		existing map[string]int
		vacated  []string
		n        int
		want     []string
	}{
		"SpreadEvenly":         {zones: []string{"c", "a", "b"}, n: 5, want: []string{"a", "b", "c", "a", "b"}},
		"FillTheEmptiestFirst": {zones: []string{"a", "b", "c"}, existing: map[string]int{"a": 2, "b": 1}, n: 3, want: []string{"c", "b", "c"}},
		"NoZonesKnown":         {n: 2, want: []string{"", ""}},
		"ReplacementTakesOverItsZone": {zones: []string{"a", "b", "c", "d", "e"}, existing: map[string]int{"b": 1, "c": 1}, vacated: []string{"e"}, n: 1,
			want: []string{"e"}},
		"VacatedOnlyAmongTheEmptiest": {zones: []string{"a", "b", "c"}, existing: map[string]int{"a": 1, "c": 1}, vacated: []string{"c", "c"}, n: 3,
			want: []string{"b", "c", "a"}},
		"VacatedZoneGone": {zones: []string{"a", "b"}, existing: map[string]int{"b": 1}, vacated: []string{"x"}, n: 1, want: []string{"a"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, AssignZones(tc.zones, tc.existing, tc.vacated, tc.n)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

func TestCoverCoordinatorZones(t *testing.T) {
	five := []string{"a", "b", "c", "d", "e"}
	logsAtoD := map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}
	cases := map[string]struct {
		zones    []string
		picks    []string
		existing map[string]int
		eligible map[string]int
		mode     fdb.RedundancyMode
		want     []string
	}{
		"FewerStorageThanZones": {zones: five, picks: []string{"a", "b", "c"}, eligible: logsAtoD, mode: fdb.RedundancyTriple,
			want: []string{"a", "b", "e"}},
		"EveryZoneCoveredAlready": {zones: five, picks: []string{"a", "b", "c", "d", "e"}, eligible: logsAtoD, mode: fdb.RedundancyTriple,
			want: []string{"a", "b", "c", "d", "e"}},
		"NoZoneLeftUncovered": {zones: five, picks: []string{"a", "b", "c", "d"}, mode: fdb.RedundancyTriple,
			want: []string{"a", "b", "c", "d"}},
		"ReplacementCoversAZone": {zones: five, picks: []string{"a"}, existing: map[string]int{"b": 1, "c": 1},
			eligible: map[string]int{"a": 1, "b": 2, "c": 2, "d": 1}, mode: fdb.RedundancyTriple, want: []string{"e"}},
		"TwoZonesToCover": {zones: five, picks: []string{"a", "b", "c"}, eligible: map[string]int{"a": 1, "b": 1, "c": 1}, mode: fdb.RedundancyTriple,
			want: []string{"a", "e", "d"}},
		"DoubleNeedsThree": {zones: []string{"a", "b", "c"}, picks: []string{"a", "b"}, eligible: map[string]int{"a": 1, "b": 1}, mode: fdb.RedundancyDouble,
			want: []string{"a", "c"}},
		"FewerZonesThanCoordinators": {zones: []string{"a", "b"}, picks: []string{"a", "b"}, eligible: map[string]int{"a": 1}, mode: fdb.RedundancyTriple,
			want: []string{"a", "b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CoverCoordinatorZones(tc.zones, tc.picks, tc.existing, tc.eligible, RulesFor(tc.mode, 0))); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

func TestChooseRemovals(t *testing.T) {
	groups := []Group{
		{ID: "storage-1", Zone: "a", Coordinator: true}, {ID: "storage-2", Zone: "b"}, {ID: "storage-3", Zone: "c"},
		{ID: "storage-4", Zone: "a"}, {ID: "storage-5", Zone: "b", Coordinator: true},
	}
	cases := map[string]struct {
		n    int
		want []string
	}{
		// a and b have two each; within a the coordinator stays, within b too.
		"TwoKeepsOnePerZone":                 {n: 2, want: []string{"storage-2", "storage-4"}},
		"OneFromTheFullestZoneHighestNumber": {n: 1, want: []string{"storage-4"}},
		"MoreThanThereAre":                   {n: 9, want: []string{"storage-1", "storage-2", "storage-3", "storage-4", "storage-5"}},
		"None":                               {n: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ChooseRemovals(groups, tc.n)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

func TestGroupNumber(t *testing.T) {
	for id, want := range map[string]int{"storage-12": 12, "cluster_controller-3": 3, "odd": 0, "x-y": 0} {
		if got := GroupNumber(id); got != want {
			t.Errorf("GroupNumber(%q) = %d, want %d", id, got, want)
		}
	}
}

// TestOwnsGroupID: a Cluster owns the IDs its prefix and one class make,
// and no other data center's, however alike their names.
func TestOwnsGroupID(t *testing.T) {
	cases := map[string]struct {
		prefix, id string
		want       bool
	}{
		"Own":                  {"dc1-", "dc1-storage-2", true},
		"OwnClassWithUnder":    {"dc1-", "dc1-cluster_controller-1", true},
		"AloneOwn":             {"", "storage-12", true},
		"AnotherDataCenter":    {"dc1-", "dc2-storage-2", false},
		"LongerDataCenterName": {"dc1-", "dc1s-log-1", false},
		"DashedDataCenter":     {"dc1-", "dc1-b-storage-1", false},
		"AloneNotAnother":      {"", "dc1-storage-2", false},
		"NoNumber":             {"dc1-", "dc1-storage", false},
		"ZeroNumber":           {"dc1-", "dc1-storage-0", false},
		"NoClass":              {"dc1-", "dc1--3", false},
		"HumanExclusion":       {"", "some-machine", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := OwnsGroupID(tc.prefix, tc.id); got != tc.want {
				t.Errorf("OwnsGroupID(%q, %q) = %t, want %t", tc.prefix, tc.id, got, tc.want)
			}
		})
	}
}
