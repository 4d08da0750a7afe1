package localrun

import (
	"context"
	"crypto/x509"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

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

// quickstartTLS is the certificate Secret the quickstart Cluster names
// (examples/cluster.yaml, spec.forProvider.tls.secretName).
const quickstartTLS = "quickstart-tls"

// tlsValidity is how long the quickstart's certificates are valid: longer
// than any run, shorter than a real certificate's.
const tlsValidity = 90 * 24 * time.Hour

// CreateTLSSecret creates the certificate Secret the quickstart Cluster
// names, in the shape cert-manager writes for a Certificate: a CA made for
// the run, and a certificate it issued for the database's processes and
// clients (server and client authentication, as each side of a
// FoundationDB connection verifies the other) with its key. An existing
// Secret is kept.
func (r *Run) CreateTLSSecret(ctx context.Context) error {
	secret, err := certs.NewSecret(Namespace, quickstartTLS, ClusterName, certs.For(time.Now(), tlsValidity))
	if err != nil {
		return err
	}
	if err := r.Client.Create(ctx, secret); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("cannot create secret %s: %w", quickstartTLS, err)
	}
	return nil
}
