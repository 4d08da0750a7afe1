package fdb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// drainStatus is a complete status, with the configuration, in which storage-1's one process
// reports at 10.0.0.1:4500, excluded and serving nothing, and 10.0.0.9 is
// the coordinator.
func drainStatus(mod ...func(*Status)) *Status {
	s := &Status{}
	s.Cluster.ConnectionString = "db:abc@10.0.0.9:4500"
	s.Cluster.RecoveryState.ActiveGenerations = 1
	s.Cluster.Configuration.StorageEngine = "ssd-2"
	s.Cluster.Processes = map[string]Process{
		"p1": {Address: "10.0.0.1:4500", Excluded: true, Locality: Locality{InstanceID: "storage-1", ProcessID: "storage-1"}, Roles: []ProcessRole{}},
		"p9": {Address: "10.0.0.9:4500", Locality: Locality{InstanceID: "log-1", ProcessID: "log-1"}, Roles: []ProcessRole{{Role: RoleLog}}},
	}
	for _, m := range mod {
		m(s)
	}
	return s
}

func TestDrainOf(t *testing.T) {
	gone := func(s *Status) {
		delete(s.Cluster.Processes, "p1")
		s.Cluster.Configuration.ExcludedServers = []ExcludedServer{{Locality: "locality_instance_id:storage-1"}}
	}
	cases := map[string]struct {
		reason    string
		status    *Status
		processes int
		addresses []string
		want      Drain
	}{
		"Drained": {
			reason: "Every process reports, excluded, serving nothing, in a complete status: positive evidence.",
			status: drainStatus(), processes: 1,
			want: Drain{Drained: true, Complete: true, Reporting: true, Excluded: true},
		},
		"NotReporting": {
			reason: "A group whose processes do not report looks empty but proves nothing: it holds data until shown otherwise.",
			status: drainStatus(gone), processes: 1,
			want: Drain{Complete: true, Excluded: true, HoldsData: true, Why: "0 of its 1 processes report: a group that does not report cannot prove it holds no data"},
		},
		"SomeProcessesMissing": {
			reason: "Two processes per pod, one reports: the other may hold data.",
			status: drainStatus(), processes: 2,
			want: Drain{Complete: true, Excluded: true, HoldsData: true, Why: "1 of its 2 processes report: a group that does not report cannot prove it holds no data"},
		},
		"StillStorage": {
			reason: "An excluded process that still serves storage keeps data.",
			status: drainStatus(func(s *Status) {
				p := s.Cluster.Processes["p1"]
				p.Roles = []ProcessRole{{Role: RoleStorage}}
				s.Cluster.Processes["p1"] = p
			}), processes: 1,
			want: Drain{Complete: true, Reporting: true, Excluded: true, HoldsData: true, Roles: []string{"storage"}, Why: "it still serves storage"},
		},
		"ConfigurationUnreadable": {
			reason: "An unavailable database's status has no exclusion list nor excluded flags: it says nothing of the exclusion.",
			status: drainStatus(func(s *Status) {
				s.Cluster.Configuration = Configuration{}
				p := s.Cluster.Processes["p1"]
				p.Excluded = false
				s.Cluster.Processes["p1"] = p
			}), processes: 1,
			want: Drain{Complete: true, Reporting: true, Why: "the status cannot show whether it is excluded: the cluster controller could not read the database's configuration"},
		},
		"NotExcluded": {
			reason: "A group that is not excluded is not drained.",
			status: drainStatus(func(s *Status) {
				p := s.Cluster.Processes["p1"]
				p.Excluded = false
				s.Cluster.Processes["p1"] = p
			}), processes: 1,
			want: Drain{Complete: true, Reporting: true, Why: "it is not excluded"},
		},
		"CoordinatorByKnownAddress": {
			reason: "A group whose pod listened on a coordinator's address is a coordinator, even when that process is down.",
			status: drainStatus(), processes: 1, addresses: []string{"10.0.0.9:4500"},
			want: Drain{Complete: true, Reporting: true, Excluded: true, Roles: []string{"coordinator"}, Why: "it still serves coordinator"},
		},
		"StorageServersError": {
			reason: "Under storage_servers_error roles may be missing: nothing is drained.",
			status: drainStatus(func(s *Status) { s.Cluster.Messages = []Message{{Name: MessageStorageServersError}} }), processes: 1,
			want: Drain{Reporting: true, Excluded: true, HoldsData: true, Why: "the status is incomplete (storage_servers_error)"},
		},
		"StatusIncomplete": {
			reason: "An incomplete status proves nothing.",
			status: drainStatus(func(s *Status) {
				s.Cluster.Messages = []Message{{Name: MessageStatusIncomplete}, {Name: MessageLogServersError}}
			}), processes: 1,
			want: Drain{Reporting: true, Excluded: true, HoldsData: true, Why: "the status is incomplete (status_incomplete, log_servers_error)"},
		},
		"OldLogGenerations": {
			reason: "While several log generations are active, old logs may still hold data.",
			status: drainStatus(func(s *Status) { s.Cluster.RecoveryState.ActiveGenerations = 2 }), processes: 1,
			want: Drain{Reporting: true, Excluded: true, HoldsData: true, Why: "2 log generations are active: old logs may still hold data"},
		},
		"RolesNotListed": {
			reason: "A status that lists the process without its roles field says nothing about its data: not drained.",
			status: drainStatus(func(s *Status) {
				p := s.Cluster.Processes["p1"]
				p.Roles = nil
				s.Cluster.Processes["p1"] = p
			}), processes: 1,
			want: Drain{Complete: true, Reporting: true, Excluded: true, HoldsData: true, Why: "the status does not list the roles of its processes"},
		},
		"GenerationsNotReported": {
			reason: "FoundationDB leaves active_generations out until the cluster controller logged it, and 6.2.15 never reports it: unknown, not one generation.",
			status: drainStatus(func(s *Status) { s.Cluster.RecoveryState.ActiveGenerations = 0 }), processes: 1,
			want: Drain{Reporting: true, Excluded: true, HoldsData: true, Why: "the status does not report the active log generations: old logs may still hold data"},
		},
		"NeverCreated": {
			reason: "A database that was never created has no log generations to report.",
			status: drainStatus(func(s *Status) {
				s.Cluster.RecoveryState = RecoveryState{Name: RecoveryConfigurationNeverCreated}
			}), processes: 1,
			want: Drain{Drained: true, Complete: true, Reporting: true, Excluded: true},
		},
		"RoleWithoutName": {
			reason: "A role entry without its name could be storage or log.",
			status: drainStatus(func(s *Status) {
				p := s.Cluster.Processes["p1"]
				p.Roles = []ProcessRole{{ID: "abc"}}
				s.Cluster.Processes["p1"] = p
			}), processes: 1,
			want: Drain{Complete: true, Reporting: true, Excluded: true, HoldsData: true, Roles: []string{""}, Why: "the status does not list the roles of its processes"},
		},
		"MessageWithoutName": {
			reason: "A message without a name could be status_incomplete.",
			status: drainStatus(func(s *Status) { s.Cluster.Messages = []Message{{Description: "?"}} }), processes: 1,
			want: Drain{Reporting: true, Excluded: true, HoldsData: true, Why: "the status is incomplete (a message without a name)"},
		},
		"NoProcesses": {
			reason: "A status without processes (missing fields) is never read as empty.",
			status: &Status{}, processes: 1,
			want: Drain{HoldsData: true, Why: "the status lists no processes"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DrainOf(tc.status, "storage-1", tc.processes, tc.addresses)); diff != "" {
				t.Errorf("\n%s\nDrainOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReportingOf(t *testing.T) {
	status := func(generations int, messages ...string) *Status {
		s := &Status{}
		s.Cluster.RecoveryState.ActiveGenerations = generations
		s.Cluster.Processes = map[string]Process{
			"a": {Address: "10.0.0.1:4501", Locality: Locality{InstanceID: "storage-1"}},
			"b": {Address: "10.0.0.1:4503", Locality: Locality{InstanceID: "renamed"}},
			"c": {Address: "10.0.0.2:4501", Locality: Locality{InstanceID: "storage-2"}},
		}
		for _, m := range messages {
			s.Cluster.Messages = append(s.Cluster.Messages, Message{Name: m})
		}
		return s
	}
	type result struct {
		N  int
		OK bool
	}
	cases := map[string]struct {
		reason string
		s      *Status
		id, ip string
		want   result
	}{
		"ByInstanceAndIP": {reason: "The group's process and another on the pod's IP, whatever its instance_id.", s: status(1), id: "storage-1", ip: "10.0.0.1", want: result{2, true}},
		"ByInstanceAlone": {reason: "A pod without an IP counts by instance_id.", s: status(1), id: "storage-1", want: result{1, true}},
		"None":            {reason: "A complete view without any: none report.", s: status(1), id: "storage-9", ip: "10.0.0.9", want: result{0, true}},
		"Incomplete":      {reason: "An incomplete status proves no absence.", s: status(1, MessageStatusIncomplete), id: "storage-9", ip: "10.0.0.9"},
		"NoGenerations":   {reason: "Nor does one without the active generations.", s: status(0), id: "storage-1", ip: "10.0.0.1"},
		"NoStatus":        {reason: "Nor no status.", id: "storage-1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n, ok := ReportingOf(tc.s, tc.id, tc.ip)
			if diff := cmp.Diff(tc.want, result{n, ok}); diff != "" {
				t.Errorf("\n%s\nReportingOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
