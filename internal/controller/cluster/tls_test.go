package cluster

import (
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
)

// TestCertificateCondition: a certificate that expires within the warning
// window sets the Certificate condition (and a Warning event) before it
// expires; an expired or untrusted one is reported as what it is, the
// processes' certificate before the clients'.
func TestCertificateCondition(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	ca, err := certs.NewCA("test CA", certs.For(now, 365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	other, err := certs.NewCA("another CA", certs.For(now, 365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	check := func(issuer *certs.CA, valid time.Duration) certificateCheck {
		t.Helper()
		data, err := issuer.Issue("fdb", certs.Validity{NotBefore: now.Add(-time.Hour), NotAfter: now.Add(valid)}, certs.Peer)
		if err != nil {
			t.Fatal(err)
		}
		data[certs.KeyCA] = ca.PEM
		notAfter, err := certs.Check(data, nil, now)
		return certificateCheck{secret: "fdb-tls", field: "secretName", notAfter: notAfter, err: err}
	}
	const warning = 30 * 24 * time.Hour
	type result struct {
		Status corev1.ConditionStatus
		Reason xpv2.ConditionReason
	}
	cases := map[string]struct {
		server, client certificateCheck
		want           result
		event          bool
	}{
		"ValidBeyondTheWindow":   {server: check(ca, 90*24*time.Hour), client: check(ca, 90*24*time.Hour), want: result{corev1.ConditionTrue, reasonCertificateValid}},
		"ExpiresWithinTheWindow": {server: check(ca, 29*24*time.Hour), client: check(ca, 90*24*time.Hour), want: result{corev1.ConditionFalse, reasonCertificateExpiring}, event: true},
		"ClientExpiresWithin":    {server: check(ca, 90*24*time.Hour), client: check(ca, 24*time.Hour), want: result{corev1.ConditionFalse, reasonCertificateExpiring}, event: true},
		"Expired":                {server: check(ca, -time.Minute), client: check(ca, 90*24*time.Hour), want: result{corev1.ConditionFalse, reasonCertificateExpired}, event: true},
		"IssuedByAnUntrustedCA":  {server: check(other, 90*24*time.Hour), client: check(ca, 90*24*time.Hour), want: result{corev1.ConditionFalse, reasonCertificateUntrusted}, event: true},
		"ExpiredBeatsTheClients": {server: check(ca, -time.Minute), client: check(other, 90*24*time.Hour), want: result{corev1.ConditionFalse, reasonCertificateExpired}, event: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &observation{now: now, tls: &tlsSecrets{server: tc.server, client: tc.client}}
			c, ok := o.certificateCondition(warning)
			if !ok {
				t.Fatal("certificateCondition(...): no condition for a Cluster with certificates")
			}
			if diff := cmp.Diff(tc.want, result{c.Status, c.Reason}); diff != "" {
				t.Errorf("certificateCondition(...): -want, +got:\n%s\nmessage: %s", diff, c.Message)
			}
			_, event := certificateEvent(xpv2.Condition{Type: TypeCertificate, Reason: reasonCertificateValid}, c)
			if diff := cmp.Diff(tc.event, event, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("certificateEvent(valid before, ...): -want, +got:\n%s", diff)
			}
		})
	}
	if _, ok := (&observation{now: now}).certificateCondition(warning); ok {
		t.Error("certificateCondition(...): a Cluster without tls settings has a Certificate condition")
	}
}
