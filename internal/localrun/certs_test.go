package localrun

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
)

// tlsConfig loads an mTLS certificate directory as both ends of Crossplane's
// connection to a function do: its certificate and key, and its CA as the
// only one trusted.
func tlsConfig(t *testing.T, dir string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.KeyCert), filepath.Join(dir, certs.KeyKey))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, certs.KeyCA))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("%s holds no certificate", certs.KeyCA)
	}
	return cert, pool
}

// TestWriteCertificates has a client dial the function's certificate over
// a loopback connection with the server demanding a client certificate
// of the CA, as a function served with function-sdk-go does.
func TestWriteCertificates(t *testing.T) {
	dir := t.TempDir()
	core, fn := filepath.Join(dir, "core"), filepath.Join(dir, "function")
	if err := writeCertificates(core, fn); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := writeCertificates(other, filepath.Join(dir, "other-function")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		clientDir  string
		serverName string
		noCert     bool
		wantOK     bool
	}{
		"CoreDialsTheLoopbackAddress": {clientDir: core, serverName: "127.0.0.1", wantOK: true},
		"CoreDialsLocalhost":          {clientDir: core, serverName: "localhost", wantOK: true},
		"FunctionIsAClientToo":        {clientDir: fn, serverName: "127.0.0.1", wantOK: true},
		"AnotherHostName":             {clientDir: core, serverName: "example.org"},
		"NoClientCertificate":         {clientDir: core, serverName: "127.0.0.1", noCert: true},
		"AnotherCA":                   {clientDir: other, serverName: "127.0.0.1"},
	}
	serverCert, serverCA := tlsConfig(t, fn)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cert, pool := tlsConfig(t, tc.clientDir)
			client := &tls.Config{RootCAs: pool, ServerName: tc.serverName, MinVersion: tls.VersionTLS12}
			if !tc.noCert {
				client.Certificates = []tls.Certificate{cert}
			}
			server := &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: serverCA, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
			l, err := tls.Listen("tcp", "127.0.0.1:0", server)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close() //nolint:errcheck // test listener
			done := make(chan error, 1)
			go func() {
				s, err := l.Accept()
				if err == nil {
					err = s.(*tls.Conn).Handshake()
					_ = s.Close()
				}
				done <- err
			}()
			conn, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c := tls.Client(conn, client)
			clientErr := c.Handshake()
			_ = c.Close()
			serverErr := <-done
			got := clientErr == nil && serverErr == nil
			if diff := cmp.Diff(tc.wantOK, got); diff != "" {
				t.Errorf("handshake succeeded (-want +got):\n%s\nclient: %v\nserver: %v", diff, clientErr, serverErr)
			}
		})
	}
}
