package bindings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNativeClientTLSNeedsItsThreeFiles: the native client presents a
// certificate and key and trusts a CA file, all three or none (a client
// without a CA file verifies no server, one without a certificate cannot
// take the lock in a database that wants one); the rules need the files;
// each file must be readable when the provider starts, since the library
// reports one it cannot read only in its trace log, when it first dials a
// TLS address (Net2::initTLS, flow/Net2.actor.cpp at 7.3.63).
func TestNativeClientTLSNeedsItsThreeFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cert, key, ca := file("tls.crt"), file("tls.key"), file("ca.crt")
	cases := map[string]struct {
		tls     TLS
		wantErr string
	}{
		"None":              {},
		"AllThree":          {tls: TLS{CertificateFile: cert, KeyFile: key, CAFile: ca}},
		"AllThreeWithRules": {tls: TLS{CertificateFile: cert, KeyFile: key, CAFile: ca, VerifyPeers: "Check.Valid=1,S.CN=fdb"}},
		"NoKey":             {tls: TLS{CertificateFile: cert, CAFile: ca}, wantErr: "cannot use the native client's TLS settings: they need a certificate, key and CA file"},
		"CAOnly":            {tls: TLS{CAFile: ca}, wantErr: "they need a certificate, key and CA file"},
		"RulesOnly":         {tls: TLS{VerifyPeers: "Check.Valid=1"}, wantErr: "they need a certificate, key and CA file"},
		"Unreadable":        {tls: TLS{CertificateFile: cert, KeyFile: filepath.Join(dir, "missing.key"), CAFile: ca}, wantErr: "missing.key"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.tls.Check()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.wantErr == "" && got != "" || !strings.Contains(got, tc.wantErr) {
				t.Errorf("Check(): %q, want an error containing %q", got, tc.wantErr)
			}
		})
	}
}

// TestNetworkStartsOnceWithOneIdentity: FoundationDB sets TLS with
// network options, before the network starts, once per process (fdb.options
// TLS_cert_path and its siblings, 7.1.67 and 7.3.63): the first Open starts
// the network with its settings, later Opens with the same settings share
// it and its error, and one with other settings fails rather than reach a
// database with an identity it did not ask for.
func TestNetworkStartsOnceWithOneIdentity(t *testing.T) {
	first := TLS{CertificateFile: "/certs/tls.crt", KeyFile: "/certs/tls.key", CAFile: "/certs/ca.crt"}
	var setups []TLS
	n := &networkOnce{setup: func(t TLS) error { setups = append(setups, t); return errors.New("no cluster") }}
	var got []string
	for _, tls := range []TLS{first, first, {}} {
		err := n.start(tls)
		got = append(got, err.Error())
	}
	want := []string{"no cluster", "no cluster", "cannot open database: the client's network started with other TLS settings; one provider presents one identity"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("start(...) errors: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]TLS{first}, setups); diff != "" {
		t.Errorf("network setups: -want, +got:\n%s", diff)
	}
}
