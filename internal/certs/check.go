package certs

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// Why a certificate Secret cannot serve; Check wraps one of them in an
// error that says more. None of them carries key material.
var (
	// ErrMissingKey: the Secret lacks one of its keys.
	ErrMissingKey = errors.New("the Secret has no key")
	// ErrMalformed: a key holds no certificate, or a key that does not
	// belong to the certificate.
	ErrMalformed = errors.New("the Secret holds no usable certificate and key")
	// ErrExpired: the certificate is past its notAfter, or before its
	// notBefore.
	ErrExpired = errors.New("the certificate is not valid now")
	// ErrUntrusted: no trusted CA issued the certificate.
	ErrUntrusted = errors.New("the certificate is not issued by a trusted CA")
)

// HasKeys reports, as an error that wraps ErrMissingKey and names the key,
// the first of tls.crt, tls.key and ca.crt certificate Secret data lacks.
func HasKeys(data map[string][]byte) error {
	for _, k := range []string{KeyCert, KeyKey, KeyCA} {
		if len(data[k]) == 0 {
			return fmt.Errorf("%w %s", ErrMissingKey, k)
		}
	}
	return nil
}

// Check checks the certificate Secret data holds at now, against its
// ca.crt and the PEM certificates of extra: it has tls.crt, tls.key and
// ca.crt, the key is the certificate's, and the certificate chains to a
// CA trusted and is valid at now. It returns when the certificate expires,
// zero when it cannot be read; the error wraps ErrMissingKey,
// ErrMalformed, ErrExpired or ErrUntrusted.
func Check(data map[string][]byte, extra []string, now time.Time) (time.Time, error) {
	if err := HasKeys(data); err != nil {
		return time.Time{}, err
	}
	chain, err := tls.X509KeyPair(data[KeyCert], data[KeyKey])
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s and %s do not make a key pair", ErrMalformed, KeyCert, KeyKey)
	}
	leaf, err := x509.ParseCertificate(chain.Certificate[0])
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s does not parse", ErrMalformed, KeyCert)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(data[KeyCA]) {
		return leaf.NotAfter, fmt.Errorf("%w: %s holds no certificate", ErrMalformed, KeyCA)
	}
	for _, ca := range extra {
		roots.AppendCertsFromPEM([]byte(ca))
	}
	intermediates := x509.NewCertPool()
	for _, der := range chain.Certificate[1:] {
		if c, err := x509.ParseCertificate(der); err == nil {
			intermediates.AddCert(c)
		}
	}
	if now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
		return leaf.NotAfter, fmt.Errorf("%w: valid from %s to %s", ErrExpired, leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	opts := x509.VerifyOptions{Roots: roots, Intermediates: intermediates, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}
	if _, err := leaf.Verify(opts); err != nil {
		return leaf.NotAfter, fmt.Errorf("%w: %s issued by %q: %v", ErrUntrusted, KeyCert, leaf.Issuer.String(), err)
	}
	return leaf.NotAfter, nil
}

// Bundle is the PEM certificates of ca followed by those of extra, each
// once: a CA file that trusts them all.
func Bundle(ca []byte, extra []string) []byte {
	var out []byte
	seen := map[string]bool{}
	for _, in := range append([][]byte{ca}, stringsBytes(extra)...) {
		for rest := in; ; {
			var b *pem.Block
			if b, rest = pem.Decode(rest); b == nil {
				break
			}
			if b.Type == "CERTIFICATE" && !seen[string(b.Bytes)] {
				seen[string(b.Bytes)] = true
				out = append(out, pem.EncodeToMemory(b)...)
			}
		}
	}
	return out
}

func stringsBytes(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}
