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

func TestClientsWithout(t *testing.T) {
	client := func(addr, group string) fdb.ConnectedClient {
		return fdb.ConnectedClient{Address: addr, LogGroup: group}
	}
	lib := func(version string, count int, clients ...fdb.ConnectedClient) fdb.SupportedVersion {
		return fdb.SupportedVersion{ClientVersion: version, Count: count, ConnectedClients: clients}
	}
	target := fdb.Version{Major: 7, Minor: 4, Patch: 1}
	type want struct {
		Count  int
		Sample []string
		Known  bool
	}
	servers := map[string]fdb.Process{
		"a": {Address: "100.82.89.186:4500:tls"},
		"b": {Address: "10.1.38.92:4501"},
		"c": {Address: "[fd00::7]:4501"},
	}
	cases := map[string]struct {
		clients   *fdb.ClientsStatus
		processes map[string]fdb.Process
		want      want
	}{
		"NoClientsSection": {want: want{}},
		"NoClients":        {clients: &fdb.ClientsStatus{}, want: want{Known: true}},
		"OldClient": {
			clients: &fdb.ClientsStatus{Count: 1, SupportedVersions: []fdb.SupportedVersion{lib("7.3.63", 1, client("10.1.0.9:40001", "app"))}},
			want:    want{Count: 1, Sample: []string{"10.1.0.9:40001 (app)"}, Known: true},
		},
		"MultiVersionClient": {
			clients: &fdb.ClientsStatus{Count: 1, SupportedVersions: []fdb.SupportedVersion{
				lib("7.3.63", 1, client("10.1.0.9:40001", "app")), lib("7.4.0", 1, client("10.1.0.9:40001", "app"))}},
			want: want{Known: true},
		},
		"OneOfTwo": {
			clients: &fdb.ClientsStatus{Count: 2, SupportedVersions: []fdb.SupportedVersion{
				lib("7.3.63", 2, client("10.1.0.9:40001", "app"), client("10.1.0.8:40001", "batch")), lib("7.4.1", 1, client("10.1.0.9:40001", "app"))}},
			want: want{Count: 1, Sample: []string{"10.1.0.8:40001 (batch)"}, Known: true},
		},
		"UnsampledOldClients": {
			clients: &fdb.ClientsStatus{Count: 5, SupportedVersions: []fdb.SupportedVersion{lib("7.3.63", 5, client("10.1.0.9:40001", "app"))}},
			want:    want{Count: 5, Sample: []string{"10.1.0.9:40001 (app)"}, Known: true},
		},
		"IgnoredLogGroup": {
			clients: &fdb.ClientsStatus{Count: 1, SupportedVersions: []fdb.SupportedVersion{lib("7.3.63", 1, client("10.1.0.2:50001", "provider-foundationdb"))}},
			want:    want{Known: true},
		},
		"PreRelease": {
			// 7.1.0-rc1_operator_healthy.json lists clients of "7.1.0-rc1".
			clients: &fdb.ClientsStatus{Count: 1, SupportedVersions: []fdb.SupportedVersion{lib("7.4.0-rc1", 1, client("10.1.0.9:40001", "app"))}},
			want:    want{Known: true},
		},
		"UnknownVersion": {
			// 6.2.15_operator_backup_running.json lists clients of "Unknown".
			clients: &fdb.ClientsStatus{Count: 1, SupportedVersions: []fdb.SupportedVersion{lib("Unknown", 1, client("10.1.0.9:40001", "default"))}},
			want:    want{Count: 1, Sample: []string{"10.1.0.9:40001 (default)"}, Known: true},
		},
		"CountedNotListed": {
			clients: &fdb.ClientsStatus{Count: 3},
			want:    want{},
		},
		"ServersOfTheDatabase": {
			// 7.1.43_operator_unreachable_testers.json lists its servers'
			// hosts among the clients, on ephemeral ports with ":tls"; the
			// other two are a plain and an IPv6 server host.
			clients: &fdb.ClientsStatus{Count: 4, SupportedVersions: []fdb.SupportedVersion{lib("7.3.63", 4,
				client("100.82.89.186:38346:tls", "default"), client("10.1.38.92:52762", "default"),
				client("[fd00::7]:40001", "default"), client("10.1.0.9:4501", "app"))}},
			processes: servers,
			want:      want{Count: 1, Sample: []string{"10.1.0.9:4501 (app)"}, Known: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &fdb.Status{}
			s.Cluster.Clients, s.Cluster.Processes = tc.clients, tc.processes
			var got want
			got.Count, got.Sample, got.Known = fdb.ClientsWithout(s, target, "provider-foundationdb")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ClientsWithout: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestLeftBehind(t *testing.T) {
	status := func(running string, incompatible ...string) *fdb.Status {
		s := &fdb.Status{}
		s.Cluster.Processes = map[string]fdb.Process{"a": {Address: "10.0.0.1:4501", Version: running}}
		s.Cluster.IncompatibleConnections = incompatible
		return s
	}
	group := []string{"10.0.0.9:4501", "10.0.0.9:4503"}
	cases := map[string]struct {
		status *fdb.Status
		want   bool
	}{
		"NoStatus":        {},
		"Compatible":      {status: status("7.4.1", "10.9.0.1:40001")},
		"LeftBehind":      {status: status("7.4.1", "10.9.0.1:40001", "10.0.0.9:4503"), want: true},
		"AheadMidUpgrade": {status: status("7.3.63", "10.0.0.9:4501")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := fdb.LeftBehind(tc.status, "7.4.1", group); got != tc.want {
				t.Errorf("LeftBehind() = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestReportedStorageEngine(t *testing.T) {
	v71, v73 := fdb.Version{Major: 7, Minor: 1, Patch: 67}, fdb.Version{Major: 7, Minor: 3, Patch: 79}
	type got struct {
		Reported string
		OK       bool
	}
	cases := map[string]struct {
		keyword string
		v       fdb.Version
		want    got
	}{
		// The real 7.1 documents report ssd-2 for `configure ... ssd`.
		"SSD71":          {keyword: "ssd", v: v71, want: got{"ssd-2", true}},
		"Memory71":       {keyword: "memory", v: v71, want: got{"memory-2", true}},
		"Memory73":       {keyword: "memory", v: v73, want: got{"memory", true}},
		"Redwood71":      {keyword: "ssd-redwood-1", v: v71},
		"RedwoodExp71":   {keyword: "ssd-redwood-1-experimental", v: v71, want: got{"ssd-redwood-1-experimental", true}},
		"RedwoodExp73":   {keyword: "ssd-redwood-1-experimental", v: v73, want: got{"ssd-redwood-1", true}},
		"Sharded71":      {keyword: "ssd-sharded-rocksdb", v: v71},
		"UnknownRelease": {keyword: "ssd-2", v: fdb.Version{Major: 7, Minor: 2}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var g got
			g.Reported, g.OK = fdb.ReportedStorageEngine(tc.keyword, tc.v)
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("ReportedStorageEngine(%q, %s) (-want +got):\n%s", tc.keyword, tc.v, diff)
			}
		})
	}
}
