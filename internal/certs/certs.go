// Package certs makes and checks X.509 certificates in the shape
// cert-manager writes to a Secret (tls.crt, tls.key, ca.crt): the provider
// checks a Cluster's certificates with it before it mounts them into pods,
// and local runs, tests and fault injection make certificate authorities
// and certificates with it.
package certs

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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The keys of a certificate Secret, as cert-manager writes them, which are
// also the files of a certificate directory.
const (
	KeyCA   = "ca.crt"
	KeyCert = "tls.crt"
	KeyKey  = "tls.key"
)

// Validity is when a certificate is valid.
type Validity struct {
	NotBefore, NotAfter time.Time
}

// For is the validity of d from a minute before now.
func For(now time.Time, d time.Duration) Validity {
	return Validity{NotBefore: now.Add(-time.Minute), NotAfter: now.Add(d)}
}

// CA is a certificate authority: its certificate and key.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA's certificate, PEM-encoded.
	PEM []byte
}

// NewCA makes a self-signed certificate authority named name.
func NewCA(name string, v Validity) (*CA, error) {
	key, tmpl, err := keyAndTemplate(name, v)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("cannot create the certificate of %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the certificate of %s: %w", name, err)
	}
	return &CA{cert: cert, key: key, PEM: encode("CERTIFICATE", der)}, nil
}

// keyAndTemplate is a new key for name and a certificate template for it,
// valid for v, with a random serial number.
func keyAndTemplate(name string, v Validity) (*ecdsa.PrivateKey, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot generate the key of %s: %w", name, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot generate a serial number: %w", err)
	}
	return key, &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    v.NotBefore,
		NotAfter:     v.NotAfter,
	}, nil
}

func encode(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// Issue makes a certificate for name valid for v with the extended key
// usages, for the host names and IP addresses among hosts, signed by ca:
// its certificate, key and ca's certificate by their Secret keys.
func (ca *CA) Issue(name string, v Validity, usage []x509.ExtKeyUsage, hosts ...string) (map[string][]byte, error) {
	key, tmpl, err := keyAndTemplate(name, v)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("cannot create the certificate of %s: %w", name, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the key of %s: %w", name, err)
	}
	return map[string][]byte{KeyCA: ca.PEM, KeyCert: encode("CERTIFICATE", der), KeyKey: encode("PRIVATE KEY", keyDER)}, nil
}

// Peer are the extended key usages of a FoundationDB process's or
// client's certificate: each side of a connection is a TLS server and a
// client in turn, and verifies the other.
var Peer = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}

// WriteDir writes files (by file name) into dir, which it creates, each
// readable by its owner only.
func WriteDir(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			return fmt.Errorf("cannot write %s: %w", filepath.Join(dir, f), err)
		}
	}
	return nil
}

// NewSecret is a certificate Secret in cert-manager's shape named name in
// namespace: a CA made for it alone and a certificate for commonName it
// issued, valid for v, that both sides of a connection may present
// (Peer), with its key. For local runs and smoke tests, which have no
// cert-manager.
func NewSecret(namespace, name, commonName string, v Validity) (*corev1.Secret, error) {
	ca, err := NewCA(name+" CA", v)
	if err != nil {
		return nil, err
	}
	data, err := ca.Issue(commonName, v, Peer)
	if err != nil {
		return nil, err
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Type: corev1.SecretTypeTLS, Data: data}, nil
}
