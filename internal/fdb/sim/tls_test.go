package sim_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// The files a TLS process's command line names in these tests.
const (
	certFile = "/var/fdb-tls/tls.crt"
	keyFile  = "/var/fdb-tls/tls.key"
	caFile   = "/var/dynamic-conf/tls-ca.pem"
	year     = 365 * 24 * time.Hour
)

// testCA is a CA valid for the tests' whole span.
func testCA(t *testing.T, name string) *certs.CA {
	t.Helper()
	ca, err := certs.NewCA(name, certs.For(fdbtest.Start, 10*year))
	must(t, err)
	return ca
}

// issue is a certificate of ca for name valid for d from fdbtest.Start.
func issue(t *testing.T, ca *certs.CA, name string, d time.Duration) map[string][]byte {
	t.Helper()
	files, err := ca.Issue(name, certs.For(fdbtest.Start, d), certs.Peer)
	must(t, err)
	return files
}

// credentialsOf are a client's credentials from an issued Secret.
func credentialsOf(files map[string][]byte) *fdb.TLSCredentials {
	return &fdb.TLSCredentials{Certificate: files[certs.KeyCert], Key: files[certs.KeyKey], CA: files[certs.KeyCA]}
}

// listen gives g the command line of a process listening on l (e.g.
// "tls,plain"), with TLS flags and the files of secret when it listens
// with TLS, and extra flags.
func listen(g sim.ProcessGroup, l fdb.Listeners, secret map[string][]byte, extra ...string) sim.ProcessGroup {
	var addrs []string
	for _, tls := range l.Kinds() {
		if tls {
			addrs = append(addrs, fmt.Sprintf("[%s]:%d:tls", g.IP, fdb.TLSProcessPort(1)))
		} else {
			addrs = append(addrs, fmt.Sprintf("[%s]:%d", g.IP, fdb.ProcessPort(1)))
		}
	}
	g.CommandLine = "fdbserver --class=" + g.Class + " --public_address=" + strings.Join(addrs, ",")
	g.Files = nil
	if l.TLS() {
		g.CommandLine += " --tls_certificate_file=" + certFile + " --tls_key_file=" + keyFile + " --tls_ca_file=" + caFile
		g.Files = map[string][]byte{certFile: secret[certs.KeyCert], keyFile: secret[certs.KeyKey], caFile: secret[certs.KeyCA]}
	}
	if len(extra) > 0 {
		g.CommandLine += " " + strings.Join(extra, " ")
	}
	return g
}

// listenAll gives every group of c the listeners l and a year's
// certificate of ca, except the certificates of special, and restarts
// nothing: processes pick the command lines up when they restart.
func listenAll(t *testing.T, c *fdbtest.Cluster, l fdb.Listeners, ca *certs.CA, special map[string]map[string][]byte, extra ...string) {
	t.Helper()
	groups := slices.Clone(c.Groups)
	for i, g := range groups {
		secret, ok := special[g.ID]
		if !ok {
			secret = issue(t, ca, g.ID, year)
		}
		groups[i] = listen(g, l, secret, extra...)
	}
	c.SetGroups(t, groups)
}

// tlsCoordinators are the TLS addresses of the first process of groups.
func tlsCoordinators(c *fdbtest.Cluster, ids ...string) []fdb.ProcessAddress {
	var out []fdb.ProcessAddress
	for _, g := range c.Groups {
		if slices.Contains(ids, g.ID) {
			out = append(out, fdb.ProcessAddress(fmt.Sprintf("%s:%d:tls", g.IP, fdb.TLSProcessPort(1))))
		}
	}
	return out
}

// newTLSCluster is a created double cluster whose processes listen with
// TLS only, on certificates of ca (special's for some groups), with TLS
// coordinators log-1..3.
func newTLSCluster(t *testing.T, version string, ca *certs.CA, special map[string]map[string][]byte, extra ...string) *fdbtest.Cluster {
	t.Helper()
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 2, Version: version}, sim.Options{Seed: 7})
	stopped := slices.Clone(c.Groups)
	for i := range stopped {
		stopped[i].Stopped = true
	}
	c.SetGroups(t, stopped) // the pods start again with TLS
	for i := range stopped {
		stopped[i].Stopped = false
	}
	c.Groups = stopped
	listenAll(t, c, fdb.ListenTLS, ca, special, extra...)
	cs := fdb.ConnectionString{Description: "test", ID: "tls", Coordinators: tlsCoordinators(c, "log-1", "log-2", "log-3")}
	must(t, c.Sim.SetConnectionString(cs.String()))
	c.Create(t, fdb.RedundancyDouble)
	return c
}

// clientView is what a client sees of the database.
type clientView struct {
	Reachable map[fdb.ProcessAddress]bool
	Quorum    bool
	Messages  []string
	Processes int
	StatusErr string
	ExcludeIs string
}

// look is what client sees: its status, and how an exclusion fails.
func look(client fdb.Client) clientView {
	ctx := context.Background()
	v := clientView{}
	st, err := client.Status(ctx)
	if err != nil {
		v.StatusErr = err.Error()
	} else {
		v.Reachable = map[fdb.ProcessAddress]bool{}
		for _, c := range st.Client.Coordinators.Coordinators {
			v.Reachable[c.Address] = c.Reachable
		}
		v.Quorum = st.Client.Coordinators.QuorumReachable
		for _, m := range st.Client.Messages {
			v.Messages = append(v.Messages, m.Name)
		}
		v.Processes = len(st.Cluster.Processes)
	}
	switch err := client.Exclude(ctx, nil); {
	case err == nil:
		v.ExcludeIs = "ok"
	case errors.Is(err, fdb.ErrTimeout):
		v.ExcludeIs = "timeout"
	default:
		v.ExcludeIs = "error"
	}
	return v
}

// TestProcessListensWhereItsCommandLineSays: a process listens on the
// addresses of its --public_address, primary first; the status reports
// the one the cluster controller picks (the TLS one when it listens on
// both, whatever the order), kill knows each address it listens on (with
// or without ":tls", which fdb.Client's Kill drops), and an exclusion of
// either address excludes it.
func TestProcessListensWhereItsCommandLineSays(t *testing.T) {
	ca := testCA(t, "ca")
	type view struct {
		Address          string
		KillTLSSuffixErr bool
		KillPlainPortErr bool
		ExcludedByTLS    bool
	}
	cases := map[string]struct {
		listeners fdb.Listeners
		want      view
	}{
		"Plain": {listeners: fdb.ListenPlain, want: view{Address: "10.1.0.2:4501", KillTLSSuffixErr: true}},
		"TLS": {listeners: fdb.ListenTLS,
			want: view{Address: "10.1.0.2:4500:tls", KillPlainPortErr: true, ExcludedByTLS: true}},
		"TLSThenPlain": {listeners: fdb.ListenTLSAndPlain, want: view{Address: "10.1.0.2:4500:tls", ExcludedByTLS: true}},
		"PlainThenTLS": {listeners: fdb.ListenPlainAndTLS, want: view{Address: "10.1.0.2:4500:tls", ExcludedByTLS: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 2}, sim.Options{Seed: 7})
			c.Create(t, fdb.RedundancyDouble)
			var plain []fdb.ProcessAddress
			for _, g := range c.Groups {
				plain = append(plain, c.Address(t, g.ID))
			}
			// Everyone listens on both, storage-1 as the case says; a
			// kill restarts every process on its new command line.
			listenAll(t, c, fdb.ListenTLSAndPlain, ca, nil)
			groups := slices.Clone(c.Groups)
			for i := range groups {
				if groups[i].ID == "storage-1" {
					groups[i] = listen(groups[i], tc.listeners, issue(t, ca, "storage-1", year))
				}
			}
			c.SetGroups(t, groups)
			ctx := context.Background()
			must(t, c.Sim.Kill(ctx, plain))
			c.WaitFor(t, time.Minute, func(s *fdb.Status) bool { return s.Client.DatabaseStatus.Healthy })
			got := view{Address: c.Status(t).Cluster.Processes["storage-1"].Address}
			got.KillTLSSuffixErr = c.Sim.Kill(ctx, []fdb.ProcessAddress{"10.1.0.2:4500:tls"}) != nil
			got.KillPlainPortErr = c.Sim.Kill(ctx, []fdb.ProcessAddress{"10.1.0.2:4501"}) != nil
			must(t, c.Sim.Exclude(ctx, []fdb.ProcessAddress{"10.1.0.2:4500"}))
			got.ExcludedByTLS = c.Status(t).Cluster.Processes["storage-1"].Excluded
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("storage-1 (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlainClientCannotReachTLSCoordinators: a client reaches TLS
// coordinators only with credentials the processes accept (and that
// accept theirs); otherwise its status says no quorum is reachable and
// its commands time out, and an fdbcli of 7.2 or later without TLS
// settings refuses to start.
func TestPlainClientCannotReachTLSCoordinators(t *testing.T) {
	ca, other := testCA(t, "ca"), testCA(t, "other")
	noQuorum := func(reachable bool) clientView {
		return clientView{
			Reachable: map[fdb.ProcessAddress]bool{"10.2.0.2:4500:tls": reachable, "10.2.0.3:4500:tls": reachable, "10.2.0.4:4500:tls": reachable},
			Messages:  []string{"quorum_not_reachable"}, ExcludeIs: "timeout",
		}
	}
	reached := noQuorum(true)
	reached.Quorum, reached.Messages, reached.Processes, reached.ExcludeIs = true, nil, 8, "ok"
	cases := map[string]struct {
		version string
		client  func(t *testing.T) *fdb.TLSCredentials
		want    clientView
	}{
		"PlainClient71": {version: "7.1.27", want: noQuorum(false)},
		"PlainClient73": {version: "7.3.63", want: clientView{
			StatusErr: "cannot get status: fdbcli is not configured with TLS, but all of the coordinators have TLS addresses.", ExcludeIs: "error",
		}},
		"ClientOfAnotherCA": {version: "7.3.63", want: noQuorum(false),
			client: func(t *testing.T) *fdb.TLSCredentials { return credentialsOf(issue(t, other, "client", year)) }},
		"ExpiredClient": {version: "7.3.63", want: noQuorum(false),
			client: func(t *testing.T) *fdb.TLSCredentials { return credentialsOf(issue(t, ca, "client", time.Hour)) }},
		"ClientOfTheCA": {version: "7.3.63", want: reached,
			client: func(t *testing.T) *fdb.TLSCredentials { return credentialsOf(issue(t, ca, "client", year)) }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var creds *fdb.TLSCredentials
			if tc.client != nil {
				creds = tc.client(t)
			}
			c := newTLSCluster(t, tc.version, ca, nil)
			c.Clock.Step(2 * time.Hour)
			got := look(c.Sim.As(c.Sim.ConnectionString(), creds))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("what the client sees (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpiredCertificateBreaksOnlyItsConnections: a coordinator's
// certificate expires; the connections established before keep working,
// new ones to it fail: a client no longer reaches that coordinator (but
// the quorum of the others), and once the process restarts it cannot
// rejoin, while every other process stays.
func TestExpiredCertificateBreaksOnlyItsConnections(t *testing.T) {
	ca := testCA(t, "ca")
	client := credentialsOf(issue(t, ca, "client", year))
	type view struct {
		Client       clientView
		Processes    []string
		Incompatible []string
	}
	all := []string{"log-1", "log-2", "log-3", "stateless-1", "stateless-2", "storage-1", "storage-2", "storage-3"}
	reachable := map[fdb.ProcessAddress]bool{"10.2.0.2:4500:tls": false, "10.2.0.3:4500:tls": true, "10.2.0.4:4500:tls": true}
	cases := map[string]struct {
		restart []string
		want    view
	}{
		"Expired": {want: view{
			Client:    clientView{Reachable: reachable, Quorum: true, Processes: 8, ExcludeIs: "ok"},
			Processes: all,
		}},
		"ExpiredAndRestarted": {restart: []string{"log-1"}, want: view{
			Client:    clientView{Reachable: reachable, Quorum: true, Processes: 7, ExcludeIs: "ok"},
			Processes: slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == "log-1" }),
		}},
		"OthersRestarted": {restart: []string{"log-2", "storage-1"}, want: view{
			Client:    clientView{Reachable: reachable, Quorum: true, Processes: 8, ExcludeIs: "ok"},
			Processes: all,
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newTLSCluster(t, "", ca, map[string]map[string][]byte{"log-1": issue(t, ca, "log-1", time.Hour)})
			c.Clock.Step(2 * time.Hour)
			for _, id := range tc.restart {
				must(t, c.Sim.CrashProcess(id, time.Second))
			}
			c.Clock.Step(time.Minute)
			var got view
			got.Client = look(c.Sim.As(c.Sim.ConnectionString(), client))
			for id := range c.Status(t).Cluster.Processes {
				got.Processes = append(got.Processes, id)
			}
			slices.Sort(got.Processes)
			got.Incompatible = c.Status(t).Cluster.IncompatibleConnections
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("after log-1's certificate expired (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenewedCertificateIsReloadedWithoutRestart: a process looks at its
// certificate files every TLS_CERT_REFRESH_DELAY_SECONDS (12 hours unless
// its knob says otherwise; never when it is 0) and uses a renewed
// certificate for new connections from then on, without a restart.
func TestRenewedCertificateIsReloadedWithoutRestart(t *testing.T) {
	ca := testCA(t, "ca")
	client := credentialsOf(issue(t, ca, "client", year))
	type view struct {
		Reachable bool
		Uptime    float64
	}
	cases := map[string]struct {
		knob  []string
		after time.Duration
		want  view
	}{
		"DefaultBeforeTwelveHours": {after: 2 * time.Hour, want: view{Uptime: 7200}},
		"DefaultAfterTwelveHours":  {after: 13 * time.Hour, want: view{Reachable: true, Uptime: 46800}},
		"KnobTenMinutes": {knob: []string{"--knob_tls_cert_refresh_delay_seconds=600"}, after: 2 * time.Hour,
			want: view{Reachable: true, Uptime: 7200}},
		"KnobZeroNeverReloads": {knob: []string{"--knob-tls-cert-refresh-delay-seconds=0"}, after: 13 * time.Hour,
			want: view{Uptime: 46800}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newTLSCluster(t, "", ca, map[string]map[string][]byte{"log-1": issue(t, ca, "log-1", time.Hour)}, tc.knob...)
			c.Clock.Step(30*time.Minute - c.Clock.Since(fdbtest.Start))
			groups := slices.Clone(c.Groups)
			for i := range groups {
				if groups[i].ID == "log-1" { // the Secret renewed, on the pod's disk
					groups[i] = listen(groups[i], fdb.ListenTLS, issue(t, ca, "log-1", year), tc.knob...)
				}
			}
			c.SetGroups(t, groups)
			c.Clock.Step(tc.after - c.Clock.Since(fdbtest.Start))
			reach := look(c.Sim.As(c.Sim.ConnectionString(), client)).Reachable
			got := view{Reachable: reach["10.2.0.2:4500:tls"], Uptime: c.Status(t).Cluster.Processes["log-1"].UptimeSeconds}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("log-1 after its certificate was renewed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMigrationKeepsDatabaseAvailableWhileListeningOnBoth: a plain
// database moves to TLS, and back, without losing availability when every
// process listens on both before the coordinators move to addresses of
// the other kind, and the old listeners go last (FoundationDB's
// documented procedure, documentation/sphinx/source/tls.rst at 7.3.63);
// dropping them first leaves the coordinators' addresses without a
// listener.
func TestMigrationKeepsDatabaseAvailableWhileListeningOnBoth(t *testing.T) {
	ca := testCA(t, "ca")
	client := credentialsOf(issue(t, ca, "client", year))
	type step struct {
		listeners fdb.Listeners // restart every process listening so
		move      string        // move the coordinators to "tls" or "plain" addresses
	}
	cases := map[string]struct {
		steps []step
		want  []bool
	}{
		"ListenOnBothFirst": {
			steps: []step{{listeners: fdb.ListenTLSAndPlain}, {move: "tls"}, {listeners: fdb.ListenTLS}},
			want:  []bool{true, true, true},
		},
		"ThereAndBack": {
			steps: []step{
				{listeners: fdb.ListenTLSAndPlain}, {move: "tls"}, {listeners: fdb.ListenTLS},
				{listeners: fdb.ListenPlainAndTLS}, {move: "plain"}, {listeners: fdb.ListenPlain},
			},
			want: []bool{true, true, true, true, true, true},
		},
		"DropTLSBeforeCoordinatorsMoveBack": {
			steps: []step{{listeners: fdb.ListenTLSAndPlain}, {move: "tls"}, {listeners: fdb.ListenPlain}},
			want:  []bool{true, true, false},
		},
		"DropPlainBeforeCoordinatorsMove": {
			steps: []step{{listeners: fdb.ListenTLS}},
			want:  []bool{false},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 2}, sim.Options{Seed: 7})
			c.Create(t, fdb.RedundancyDouble)
			ctx := context.Background()
			var got []bool
			for _, s := range tc.steps {
				if s.move != "" {
					to := tlsCoordinators(c, "log-1", "log-2", "log-3")
					if s.move == "plain" {
						to = []fdb.ProcessAddress{c.Address(t, "log-1"), c.Address(t, "log-2"), c.Address(t, "log-3")}
					}
					_, err := c.Sim.As(c.Sim.ConnectionString(), client).ChangeCoordinators(ctx, to)
					must(t, err)
				} else {
					listenAll(t, c, s.listeners, ca, nil)
					for _, g := range c.Groups { // a rolling restart
						must(t, c.Sim.LosePod(g.ID, time.Second))
						c.Clock.Step(10 * time.Second)
					}
				}
				c.Clock.Step(time.Minute)
				st, err := c.Sim.As(c.Sim.ConnectionString(), client).Status(ctx)
				must(t, err)
				got = append(got, st.Client.DatabaseStatus.Available)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("available after each step (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPeerVerificationRulesSelectPeers: a side accepts a peer whose chain
// verifies and that satisfies any of its --tls-verify-peers rules
// (subject, issuer or root fields matched exactly, by prefix with >= or by
// suffix with <=); Check.Valid=0 accepts anything; rules that do not parse
// leave no usable TLS settings.
func TestPeerVerificationRulesSelectPeers(t *testing.T) {
	ca := testCA(t, "ca")
	none := map[fdb.ProcessAddress]bool{"10.2.0.2:4500:tls": false, "10.2.0.3:4500:tls": false, "10.2.0.4:4500:tls": false}
	only := func(ips ...string) map[fdb.ProcessAddress]bool {
		out := map[fdb.ProcessAddress]bool{}
		for a := range none {
			out[a] = slices.Contains(ips, a.Host())
		}
		return out
	}
	cases := map[string]struct {
		rules string
		want  map[fdb.ProcessAddress]bool
	}{
		"Default":             {want: only("10.2.0.2", "10.2.0.3", "10.2.0.4")},
		"SubjectExact":        {rules: "S.CN=log-1", want: only("10.2.0.2")},
		"SubjectPrefix":       {rules: "CN>=log-", want: only("10.2.0.2", "10.2.0.3", "10.2.0.4")},
		"SubjectSuffix":       {rules: "Subject.CN<=-3", want: only("10.2.0.4")},
		"AnyRule":             {rules: "S.CN=log-1|S.CN=log-2", want: only("10.2.0.2", "10.2.0.3")},
		"EveryCondition":      {rules: "S.CN=log-1,I.CN=other", want: none},
		"IssuerAndRoot":       {rules: "I.CN=ca,R.CN=ca", want: only("10.2.0.2", "10.2.0.3", "10.2.0.4")},
		"AbsentField":         {rules: "S.O=Example", want: none},
		"CheckValidOff":       {rules: "Check.Valid=0,S.CN=nobody", want: only("10.2.0.2", "10.2.0.3", "10.2.0.4")},
		"UnparsableIsRefused": {rules: "Check.Valid=2", want: none},
		"UnknownScope":        {rules: "X.CN=log-1", want: none},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newTLSCluster(t, "", ca, nil)
			client := credentialsOf(issue(t, ca, "client", year))
			client.VerifyPeers = tc.rules
			got := look(c.Sim.As(c.Sim.ConnectionString(), client)).Reachable
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("coordinators the client accepts (-want +got):\n%s", diff)
			}
		})
	}
}
