package localrun

import (
	"crypto/x509"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
)

// certValidity is how long the run's certificates are valid.
const certValidity = 24 * time.Hour

// writeCertificates makes a CA and, signed by it, Crossplane core's client
// certificate into coreDir and the function's certificate into fnDir: a
// server certificate for localhost and 127.0.0.1 that is a client
// certificate as well, as Crossplane's function certificates are. Each
// directory holds its certificate, key and the CA's certificate, in the
// files Crossplane core (--tls-client-certs-dir) and a function
// (--tls-server-certs-dir) read.
func writeCertificates(coreDir, fnDir string) error {
	v := certs.For(time.Now(), certValidity)
	ca, err := certs.NewCA("provider-foundationdb local run CA", v)
	if err != nil {
		return err
	}
	core, err := ca.Issue("crossplane", v, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
	if err != nil {
		return err
	}
	if err := certs.WriteDir(coreDir, core); err != nil {
		return err
	}
	fn, err := ca.Issue("function", v, certs.Peer, "localhost", "127.0.0.1")
	if err != nil {
		return err
	}
	return certs.WriteDir(fnDir, fn)
}
