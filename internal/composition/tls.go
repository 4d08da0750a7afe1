package composition

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TLSParameters are an FDBDatabase's spec.tls: the database runs with
// mutual TLS, its certificates either in Secrets the team provides or
// issued by cert-manager, through the issuer the FDBDatabase names or the
// platform's default one (the function input's tls.issuerRef).
type TLSParameters struct {
	// Enabled runs the database with TLS; false migrates it back to plain
	// text, keeping the certificates. Unset means true.
	Enabled *bool `json:"enabled,omitempty"`
	// SecretName is a Secret the team provides, with tls.crt, tls.key and
	// ca.crt, that the processes present. Not with IssuerRef.
	SecretName string `json:"secretName,omitempty"`
	// ClientSecretName is a Secret of the same shape that the provider's
	// tools and the backup agents present; SecretName's when unset. Only
	// with SecretName.
	ClientSecretName string `json:"clientSecretName,omitempty"`
	// IssuerRef is the cert-manager issuer of the database's
	// certificates. Not with SecretName.
	IssuerRef *IssuerReference `json:"issuerRef,omitempty"`
	// PeerVerificationRules are FoundationDB's --tls-verify-peers.
	PeerVerificationRules string `json:"peerVerificationRules,omitempty"`
	// TrustedCAs are further CA certificates (PEM) to trust.
	TrustedCAs []string `json:"trustedCAs,omitempty"`
}

// IssuerReference names a cert-manager issuer, as a Certificate's
// spec.issuerRef does: an Issuer in the database's namespace or a
// ClusterIssuer (group cert-manager.io), or an external issuer's kind in
// its own group.
type IssuerReference struct {
	Name  string `json:"name"`
	Kind  string `json:"kind,omitempty"`
	Group string `json:"group,omitempty"`
}

// String is the issuer as kind/name, with its group when it is not
// cert-manager's.
func (r IssuerReference) String() string {
	s := r.Kind + "/" + r.Name
	if r.Group != "" && r.Group != CertManagerGroup {
		s = r.Kind + "." + r.Group + "/" + r.Name
	}
	return s
}

// TLSDefaults are the platform's TLS settings in the function input: the
// issuer of every database whose spec.tls names neither a Secret nor an
// issuer, and the lifetime of the certificates the function has issued.
type TLSDefaults struct {
	// IssuerRef is the platform's default issuer; none when unset, and
	// then spec.tls must name a Secret or an issuer.
	IssuerRef *IssuerReference `json:"issuerRef,omitempty"`
	// Duration is how long an issued certificate is valid;
	// DefaultCertificateDuration when unset.
	Duration *metav1.Duration `json:"duration,omitempty"`
	// RenewBefore is how long before it expires cert-manager renews it;
	// DefaultRenewBefore when unset, at least MinRenewBefore.
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// cert-manager's API.
const (
	CertManagerGroup       = "cert-manager.io"
	CertificateAPIVersion  = CertManagerGroup + "/v1"
	CertificateKind        = "Certificate"
	IssuerKind             = "Issuer"
	ClusterIssuerKind      = "ClusterIssuer"
	rotationPolicyAlways   = "Always"
	usageDigitalSignature  = "digital signature"
	usageKeyEncipherment   = "key encipherment"
	usageServerAuth        = "server auth"
	usageClientAuth        = "client auth"
	errTLSSecretAndIssuer  = "spec.tls: set secretName (a Secret you provide) or issuerRef (cert-manager issues the certificates), not both"
	errTLSClientWithIssuer = "spec.tls.clientSecretName: only with spec.tls.secretName; with an issuer the function composes the clients' certificate"
)

// Lifetimes of the certificates the function has cert-manager issue.
//
// FoundationDB reads its certificate files again only every
// TLS_CERT_REFRESH_DELAY_SECONDS, 12 hours by default (flow/Knobs.cpp at
// 7.1.67 and 7.3.63), and the kubelet writes a renewed Secret into the
// pods' volume only at its next sync, about a minute later (its sync
// period plus the Secret cache's propagation): a process may present the
// old certificate for that long after the renewal, so the old one must
// stay valid that long at least, MinRenewBefore. The default renews 45
// days ahead, beyond the 30 days before expiry at which the provider's
// Certificate condition warns (the fdb-tls policy's
// certificateWarningDays), so that a renewal that works never raises the
// warning and one that fails leaves a month to act on it. The default
// duration is cert-manager's own, 90 days.
const (
	DefaultCertificateDuration = 90 * 24 * time.Hour
	DefaultRenewBefore         = 45 * 24 * time.Hour
	MinRenewBefore             = 12*time.Hour + 5*time.Minute
)

// TLSSecretName is the Secret cert-manager writes the processes'
// certificate of FDBDatabase xrName to, and the name of its Certificate.
func TLSSecretName(xrName string) string { return xrName + "-fdb-tls" }

// ClientTLSSecretName is the Secret of the certificate the provider's
// tools and the backup agents of FDBDatabase xrName present, and the name
// of its Certificate.
func ClientTLSSecretName(xrName string) string { return xrName + "-fdb-client-tls" }

// Certificate is the part of cert-manager's Certificate (cert-manager.io/v1)
// that the function composes; cert-manager's Go module is not a dependency.
type Certificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CertificateSpec `json:"spec"`
}

// CertificateSpec is a Certificate's spec, as far as the function sets it.
type CertificateSpec struct {
	SecretName  string                `json:"secretName"`
	CommonName  string                `json:"commonName,omitempty"`
	DNSNames    []string              `json:"dnsNames,omitempty"`
	Duration    *metav1.Duration      `json:"duration,omitempty"`
	RenewBefore *metav1.Duration      `json:"renewBefore,omitempty"`
	Usages      []string              `json:"usages,omitempty"`
	PrivateKey  CertificatePrivateKey `json:"privateKey"`
	IssuerRef   IssuerReference       `json:"issuerRef"`
}

// CertificatePrivateKey is a Certificate's spec.privateKey.
type CertificatePrivateKey struct {
	// RotationPolicy Always makes a new key at every renewal, so a key
	// that leaked stops being of use at the next one.
	RotationPolicy string `json:"rotationPolicy"`
}

// DefaultTLS fills in the lifetimes of issued certificates and checks
// them, naming the input's field: cert-manager renews before a
// certificate expires, and not so late that a process still presents the
// old one when it does.
func DefaultTLS(d *TLSDefaults) error {
	if d.Duration == nil {
		d.Duration = &metav1.Duration{Duration: DefaultCertificateDuration}
	}
	if d.RenewBefore == nil {
		d.RenewBefore = &metav1.Duration{Duration: DefaultRenewBefore}
	}
	if d.RenewBefore.Duration < MinRenewBefore {
		return fmt.Errorf("tls.renewBefore: %s is less than %s, the 12 hours FoundationDB may take to load a renewed certificate (TLS_CERT_REFRESH_DELAY_SECONDS) plus the kubelet's sync", d.RenewBefore.Duration, MinRenewBefore)
	}
	if d.RenewBefore.Duration >= d.Duration.Duration {
		return fmt.Errorf("tls.renewBefore: %s is not less than tls.duration, %s", d.RenewBefore.Duration, d.Duration.Duration)
	}
	if d.IssuerRef != nil {
		return validateIssuer("tls.issuerRef", *d.IssuerRef)
	}
	return nil
}

// ValidateTLS checks an FDBDatabase's spec.tls against the platform's
// defaults, naming the field at fault, as the XRD's schema does where it
// can (it cannot know whether the platform has a default issuer).
func ValidateTLS(t *TLSParameters, d TLSDefaults) error {
	switch {
	case t == nil:
		return nil
	case t.SecretName != "" && t.IssuerRef != nil:
		return errors.New(errTLSSecretAndIssuer)
	case t.ClientSecretName != "" && t.SecretName == "":
		return errors.New(errTLSClientWithIssuer)
	case t.IssuerRef != nil:
		return validateIssuer("spec.tls.issuerRef", *t.IssuerRef)
	case t.SecretName == "" && d.IssuerRef == nil:
		return fmt.Errorf("spec.tls: names neither secretName nor issuerRef, and the platform has no default issuer (the function input's tls.issuerRef)")
	}
	return nil
}

// validateIssuer checks the issuer reference at field: it has a name, and
// cert-manager's own issuers are Issuer or ClusterIssuer.
func validateIssuer(field string, r IssuerReference) error {
	if r.Name == "" {
		return fmt.Errorf("%s.name: is empty", field)
	}
	if (r.Group == "" || r.Group == CertManagerGroup) && r.Kind != "" && r.Kind != IssuerKind && r.Kind != ClusterIssuerKind {
		return fmt.Errorf("%s.kind: %q is not %s or %s", field, r.Kind, IssuerKind, ClusterIssuerKind)
	}
	return nil
}

// issuerOf is the issuer of an FDBDatabase's certificates: the one its
// spec.tls names, else the platform's unless it provides its own Secret;
// nil when the function issues none. Its kind and group are cert-manager's
// defaults (an Issuer of cert-manager.io) when unset, spelled out.
func issuerOf(t *TLSParameters, d TLSDefaults) *IssuerReference {
	var r *IssuerReference
	switch {
	case t == nil || t.SecretName != "":
		return nil
	case t.IssuerRef != nil:
		r = t.IssuerRef
	case d.IssuerRef != nil:
		r = d.IssuerRef
	default:
		return nil
	}
	return &IssuerReference{Name: r.Name, Kind: cmp.Or(r.Kind, IssuerKind), Group: cmp.Or(r.Group, CertManagerGroup)}
}

// clusterTLS is the Cluster's spec.forProvider.tls of FDBDatabase xrName:
// the Secrets cert-manager writes when the function issues the
// certificates, else the team's.
func clusterTLS(xrName string, t *TLSParameters, d TLSDefaults) *v1alpha1.TLSSettings {
	if t == nil {
		return nil
	}
	s := &v1alpha1.TLSSettings{Enabled: t.Enabled, SecretName: t.SecretName, ClientSecretName: t.ClientSecretName,
		PeerVerificationRules: t.PeerVerificationRules, TrustedCAs: t.TrustedCAs}
	if issuerOf(t, d) != nil {
		s.SecretName, s.ClientSecretName = TLSSecretName(xrName), ClientTLSSecretName(xrName)
	}
	return s
}

// certificates are the cert-manager Certificates of an FDBDatabase whose
// certificates the function issues, nil otherwise: the processes' and the
// clients', in the database's namespace, where its Cluster's pods mount
// the Secrets they make. Both name the database (commonName: the
// FDBDatabase's name, so one peer verification rule such as
// S.CN=<name> admits processes and clients alike, as FoundationDB applies
// the same rules to both) and serve both ends of a connection (server and
// client auth), since every process is a client of the others. The
// processes' certificate also names the headless Service of every Cluster
// of the database and, by wildcard, every pod under it (the names the
// cluster file uses); FoundationDB checks no host names unless the peer
// verification rules ask for them.
func certificates(first *v1alpha1.Cluster, p Parameters, d TLSDefaults) (processes, clients *Certificate) {
	issuer := issuerOf(p.TLS, d)
	if issuer == nil {
		return nil, nil
	}
	name := first.GetName()
	var dns []string
	for _, cluster := range clusterNames(name, p.Sites) {
		c := first.DeepCopy()
		c.SetName(cluster)
		wildcard := workload.PodDNSName(c, &corev1.Pod{Spec: corev1.PodSpec{Hostname: "*", Subdomain: workload.ServiceName(c)}})
		dns = append(dns, strings.TrimPrefix(wildcard, "*."), wildcard)
	}
	cert := func(secret string, dnsNames []string) *Certificate {
		return &Certificate{
			TypeMeta:   metav1.TypeMeta{APIVersion: CertificateAPIVersion, Kind: CertificateKind},
			ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: workload.Namespace(first)},
			Spec: CertificateSpec{
				SecretName: secret, CommonName: name, DNSNames: dnsNames,
				Duration: d.Duration, RenewBefore: d.RenewBefore,
				// Usages replace cert-manager's default ones, digital
				// signature and key encipherment, which TLS still needs.
				Usages:     []string{usageDigitalSignature, usageKeyEncipherment, usageServerAuth, usageClientAuth},
				PrivateKey: CertificatePrivateKey{RotationPolicy: rotationPolicyAlways},
				IssuerRef:  *issuer,
			},
		}
	}
	return cert(TLSSecretName(name), dns), cert(ClientTLSSecretName(name), nil)
}
