package localrun

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The files of an mTLS certificate directory, as Crossplane core
// (--tls-client-certs-dir) and a function (--tls-server-certs-dir) read
// them.
const (
	fileCA   = "ca.crt"
	fileCert = "tls.crt"
	fileKey  = "tls.key"
)

// certValidity is how long the run's certificates are valid.
const certValidity = 24 * time.Hour

// issuer is a certificate authority: its certificate and key.
type issuer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

// newCA makes a self-signed certificate authority.
func newCA() (*issuer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cannot generate the CA's key: %w", err)
	}
	tmpl, err := certTemplate("provider-foundationdb local run CA")
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("cannot create the CA's certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the CA's certificate: %w", err)
	}
	return &issuer{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// certTemplate is a certificate template for name with a random serial number,
// valid from a minute ago for certValidity.
func certTemplate(name string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("cannot generate a serial number: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(certValidity),
	}, nil
}

// writeDir issues a certificate for name with the extended key usages, for
// the host names and IP addresses among hosts, and writes it, its key and
// the CA's certificate into dir.
func (ca *issuer) writeDir(dir, name string, usage []x509.ExtKeyUsage, hosts ...string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("cannot generate the key of %s: %w", name, err)
	}
	tmpl, err := certTemplate(name)
	if err != nil {
		return err
	}
	tmpl.KeyUsage, tmpl.ExtKeyUsage = x509.KeyUsageDigitalSignature, usage
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return fmt.Errorf("cannot create the certificate of %s: %w", name, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("cannot encode the key of %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	files := map[string][]byte{
		fileCA:   ca.pem,
		fileCert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		fileKey:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			return fmt.Errorf("cannot write the certificates of %s: %w", name, err)
		}
	}
	return nil
}

// writeCertificates makes a CA and, signed by it, Crossplane core's client
// certificate into coreDir and the function's certificate into fnDir: a
// server certificate for localhost and 127.0.0.1 that is a client
// certificate as well, as Crossplane's function certificates are. Each
// directory holds its certificate, key and the CA's certificate.
func writeCertificates(coreDir, fnDir string) error {
	ca, err := newCA()
	if err != nil {
		return err
	}
	if err := ca.writeDir(coreDir, "crossplane", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}); err != nil {
		return err
	}
	return ca.writeDir(fnDir, "function", []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, "localhost", "127.0.0.1")
}
