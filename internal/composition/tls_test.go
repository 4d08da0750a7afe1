package composition_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/composition"
)

// TestValidateTLS: an FDBDatabase's spec.tls names a Secret or an issuer,
// its own or the platform's, and a bad one is refused naming the field.
func TestValidateTLS(t *testing.T) {
	ca := &composition.IssuerReference{Name: "fdb-ca", Kind: "ClusterIssuer"}
	platform := composition.TLSDefaults{IssuerRef: ca}
	cases := map[string]struct {
		tls      *composition.TLSParameters
		defaults composition.TLSDefaults
		want     string
	}{
		"NoTLS":              {},
		"OwnSecret":          {tls: &composition.TLSParameters{SecretName: "orders-certs", ClientSecretName: "orders-client-certs"}},
		"OwnIssuer":          {tls: &composition.TLSParameters{IssuerRef: ca}},
		"PlatformIssuer":     {tls: &composition.TLSParameters{}, defaults: platform},
		"ExternalIssuerKind": {tls: &composition.TLSParameters{IssuerRef: &composition.IssuerReference{Name: "pca", Kind: "AWSPCAClusterIssuer", Group: "awspca.cert-manager.io"}}},
		"SecretAndIssuer": {
			tls:  &composition.TLSParameters{SecretName: "orders-certs", IssuerRef: ca},
			want: "spec.tls: set secretName (a Secret you provide) or issuerRef (cert-manager issues the certificates), not both",
		},
		"ClientSecretWithIssuer": {
			tls:  &composition.TLSParameters{ClientSecretName: "orders-client-certs"},
			want: "spec.tls.clientSecretName: only with spec.tls.secretName; with an issuer the function composes the clients' certificate", defaults: platform,
		},
		"NeitherAndNoPlatformIssuer": {
			tls:  &composition.TLSParameters{},
			want: "spec.tls: names neither secretName nor issuerRef, and the platform has no default issuer (the function input's tls.issuerRef)",
		},
		"IssuerWithoutName": {
			tls:  &composition.TLSParameters{IssuerRef: &composition.IssuerReference{Kind: "Issuer"}},
			want: "spec.tls.issuerRef.name: is empty",
		},
		"CertManagerKindUnknown": {
			tls:  &composition.TLSParameters{IssuerRef: &composition.IssuerReference{Name: "fdb-ca", Kind: "Issuers", Group: "cert-manager.io"}},
			want: `spec.tls.issuerRef.kind: "Issuers" is not Issuer or ClusterIssuer`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := composition.ValidateTLS(tc.tls, tc.defaults); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ValidateTLS (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInputTLSRenewsBeforeFoundationDBReloads: the certificates the
// function issues are renewed early enough that every process has loaded
// the new one (FoundationDB reads its certificate files every 12 hours by
// default) before the old one expires, and before they expire.
func TestInputTLSRenewsBeforeFoundationDBReloads(t *testing.T) {
	input := func(tls map[string]any) map[string]any {
		return map[string]any{"apiVersion": composition.InputAPIVersion, "kind": composition.InputKind, "tls": tls}
	}
	type lifetimes struct {
		Duration, RenewBefore time.Duration
		Err                   string
	}
	cases := map[string]struct {
		input map[string]any
		want  lifetimes
	}{
		"Defaults": {
			input: input(map[string]any{}),
			want:  lifetimes{Duration: 90 * 24 * time.Hour, RenewBefore: 45 * 24 * time.Hour},
		},
		"Given": {
			input: input(map[string]any{"duration": "720h", "renewBefore": "240h"}),
			want:  lifetimes{Duration: 720 * time.Hour, RenewBefore: 240 * time.Hour},
		},
		"RenewedWithinFoundationDBsReload": {
			input: input(map[string]any{"renewBefore": "6h"}),
			want:  lifetimes{Err: "cannot read function input: tls.renewBefore: 6h0m0s is less than 12h5m0s, the 12 hours FoundationDB may take to load a renewed certificate (TLS_CERT_REFRESH_DELAY_SECONDS) plus the kubelet's sync"},
		},
		"RenewedBeforeIssued": {
			input: input(map[string]any{"duration": "24h", "renewBefore": "24h"}),
			want:  lifetimes{Err: "cannot read function input: tls.renewBefore: 24h0m0s is not less than tls.duration, 24h0m0s"},
		},
		"PlatformIssuerKind": {
			input: input(map[string]any{"issuerRef": map[string]any{"name": "fdb-ca", "kind": "Cluster"}}),
			want:  lifetimes{Err: `cannot read function input: tls.issuerRef.kind: "Cluster" is not Issuer or ClusterIssuer`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in, err := composition.ParseInput(toStruct(t, tc.input))
			got := lifetimes{}
			if err != nil {
				got.Err = err.Error()
			} else {
				got.Duration, got.RenewBefore = durationOf(in.TLS.Duration), durationOf(in.TLS.RenewBefore)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseInput (-want +got):\n%s", diff)
			}
		})
	}
}

func durationOf(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}
