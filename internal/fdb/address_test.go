package fdb_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func TestProcessAddressMatches(t *testing.T) {
	p := fdb.Process{
		Address:  "10.1.0.1:4503:tls",
		Locality: fdb.Locality{InstanceID: "storage-1", ProcessID: "storage-1-2", ZoneID: "zone-a"},
	}
	v6 := fdb.Process{Address: "[2001:db8::1]:4501"}
	cases := map[string]struct {
		target fdb.ProcessAddress
		p      fdb.Process
		want   bool
	}{
		"SameAddressIgnoresTLS": {target: "10.1.0.1:4503", p: p, want: true},
		"OtherPort":             {target: "10.1.0.1:4501", p: p},
		"BareIP":                {target: "10.1.0.1", p: p, want: true},
		"OtherIP":               {target: "10.1.0.2", p: p},
		"Instance":              {target: fdb.InstanceTarget("storage-1"), p: p, want: true},
		"OtherInstance":         {target: fdb.InstanceTarget("storage-10"), p: p},
		"ProcessID":             {target: "locality_process_id:storage-1-2", p: p, want: true},
		"Zone":                  {target: "locality_zoneid:zone-a", p: p, want: true},
		"UnknownLocalityKey":    {target: "locality_rack:r1", p: p},
		"IPv6":                  {target: "[2001:db8::1]:4501", p: v6, want: true},
		"IPv6BareHost":          {target: "2001:db8::1", p: v6, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.target.Matches(tc.p); got != tc.want {
				t.Errorf("%q.Matches(%q): got %v, want %v", tc.target, tc.p.Address, got, tc.want)
			}
		})
	}
}

// TestConnectionStringIgnoresClusterFileHeader and the other cases: a
// cluster file's content parses as FoundationDB reads it
// (ClusterConnectionString, fdbclient/MonitorLeader.actor.cpp trim at
// 7.1.67 and 7.3.63): without comments (from # to the end of the line) and
// blanks.
func TestConnectionStringIgnoresClusterFileHeader(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    fdb.ConnectionString
		wantErr bool
	}{
		"Valid": {
			in:   "fdb_cluster:Ahx7Lk2p@10.2.0.1:4501,10.2.0.2:4501:tls\n",
			want: fdb.ConnectionString{Description: "fdb_cluster", ID: "Ahx7Lk2p", Coordinators: []fdb.ProcessAddress{"10.2.0.1:4501", "10.2.0.2:4501:tls"}},
		},
		// fdbcli's rewrite after `coordinators` (ClusterConnectionFile::persist).
		"ClusterFileHeader": {
			in:   "# DO NOT EDIT!\n# This file is auto-generated, it is not to be edited by hand\nfdb_cluster:Ahx7Lk2p@10.2.0.1:4501,10.2.0.2:4501:tls\n",
			want: fdb.ConnectionString{Description: "fdb_cluster", ID: "Ahx7Lk2p", Coordinators: []fdb.ProcessAddress{"10.2.0.1:4501", "10.2.0.2:4501:tls"}},
		},
		// Blanks anywhere and a comment to the end of its line, as
		// FoundationDB's trim drops them.
		"CommentsAndBlanks": {
			in:   "\r\n  fdb_cluster:Ahx7Lk2p @ 10.2.0.1:4501, # the first\n\t10.2.0.2:4501:tls\r\n\n",
			want: fdb.ConnectionString{Description: "fdb_cluster", ID: "Ahx7Lk2p", Coordinators: []fdb.ProcessAddress{"10.2.0.1:4501", "10.2.0.2:4501:tls"}},
		},
		"OnlyComments":   {in: "# DO NOT EDIT!\n", wantErr: true},
		"NoAt":           {in: "fdb_cluster:Ahx7Lk2p", wantErr: true},
		"NoID":           {in: "fdb_cluster@10.2.0.1:4501", wantErr: true},
		"NoCoordinators": {in: "fdb_cluster:Ahx7Lk2p@ , ", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := fdb.ParseConnectionString(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseConnectionString: error %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseConnectionString (-want +got):\n%s", diff)
			}
			if err == nil && got.String() != "fdb_cluster:Ahx7Lk2p@10.2.0.1:4501,10.2.0.2:4501:tls" {
				t.Errorf("String: got %q", got.String())
			}
		})
	}
}

func TestAddressNames(t *testing.T) {
	cases := map[string]struct {
		dns       string
		addresses []string
		want      []string
	}{
		"NoDNSName": {addresses: []string{"10.0.0.1:4501"}, want: []string{"10.0.0.1:4501"}},
		"DNSName":   {dns: "db-log-1.db.ns.svc.cluster.local", addresses: []string{"10.0.0.1:4501", "10.0.0.1:4503"}, want: []string{"10.0.0.1:4501", "10.0.0.1:4503", "db-log-1.db.ns.svc.cluster.local:4501", "db-log-1.db.ns.svc.cluster.local:4503"}},
		"TLSKept":   {dns: "a.b", addresses: []string{"10.0.0.1:4500:tls"}, want: []string{"10.0.0.1:4500:tls", "a.b:4500:tls"}},
		"IPv6":      {dns: "a.b", addresses: []string{"[fd00::1]:4501"}, want: []string{"[fd00::1]:4501", "a.b:4501"}},
		"NoAddress": {dns: "a.b"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fdb.AddressNames(tc.dns, tc.addresses...)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

func TestIsHostname(t *testing.T) {
	cases := map[fdb.ProcessAddress]bool{
		"10.0.0.1:4501":                         false,
		"[fd00::1]:4501":                        false,
		"10.0.0.1:4501:tls":                     false,
		"locality_instance_id:storage-1":        false,
		"db-log-1.db.ns.svc.cluster.local:4501": true,
		"db-log-1.db:4501:tls":                  true,
	}
	for a, want := range cases {
		if got := a.IsHostname(); got != want {
			t.Errorf("%q.IsHostname() = %t, want %t", a, got, want)
		}
	}
}
