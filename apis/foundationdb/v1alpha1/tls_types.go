package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TLSSettings run a cluster's processes and clients with mutual TLS: every
// process presents the certificate of SecretName, verifies its peers'
// against the Secret's ca.crt and TrustedCAs, and the cluster file names
// TLS addresses. Changing Enabled on a live database migrates it step by
// step (docs/SECURITY.md); a Cluster keeps its tls settings once it has
// them, since the pods need the Secret for as long as any process or
// coordinator speaks TLS.
type TLSSettings struct {
	// Enabled runs the database with TLS: its processes listen with TLS
	// only and its cluster file names TLS addresses. Setting it to false
	// migrates the database back to plain text, which the Secret still
	// serves until no process listens with TLS. Unset means true.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// SecretName is the Secret in the target namespace that holds the
	// processes' certificate (tls.crt), its key (tls.key) and the CA that
	// issues the certificates of every peer (ca.crt): the Secret
	// cert-manager writes for a Certificate. It is mounted into every pod;
	// a certificate renewed in place is picked up without a restart.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SecretName string `json:"secretName"`

	// ClientSecretName is the Secret, of the same shape, that the clients
	// the provider runs present: its fdbcli, fdbbackup and fdbrestore and
	// the backup agents. Unset, they present SecretName's.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	ClientSecretName string `json:"clientSecretName,omitempty"`

	// PeerVerificationRules is what a peer's certificate must satisfy,
	// in FoundationDB's syntax (--tls-verify-peers): e.g.
	// "Check.Valid=1,S.O=Example" or several rule sets separated by "|".
	// Unset, FoundationDB's default applies: a certificate chain that
	// verifies against the trusted CAs and has not expired.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^\s]*$`
	PeerVerificationRules string `json:"peerVerificationRules,omitempty"`

	// TrustedCAs are further CA certificates (PEM) that processes and
	// clients trust besides the Secrets' ca.crt: e.g. the next CA while
	// certificates move to it.
	// +optional
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=16384
	// +kubebuilder:validation:items:Pattern=`^-----BEGIN CERTIFICATE-----`
	TrustedCAs []string `json:"trustedCAs,omitempty"`
}

// TLSEnabled reports whether the Cluster wants its database to run with
// TLS: it has tls settings that do not disable it.
func (p ClusterParameters) TLSEnabled() bool {
	return p.TLS != nil && (p.TLS.Enabled == nil || *p.TLS.Enabled)
}

// TLSObservation is what the provider last observed of a Cluster's TLS.
type TLSObservation struct {
	// Coordinators says how the cluster file names the coordinators:
	// "tls" when every address is a TLS one, "plain" when none is.
	// +optional
	Coordinators string `json:"coordinators,omitempty"`

	// Listeners says what the processes listen on: "tls", "plain", or
	// "both" while a migration runs.
	// +optional
	Listeners string `json:"listeners,omitempty"`

	// Mounted is true when every pod of the cluster mounts the
	// processes' certificate Secret: only then may they listen with TLS.
	// +optional
	Mounted bool `json:"mounted,omitempty"`

	// CertificateNotAfter is when the processes' certificate expires.
	// +optional
	CertificateNotAfter *metav1.Time `json:"certificateNotAfter,omitempty"`

	// ClientCertificateNotAfter is when the certificate of the clients the
	// provider runs expires.
	// +optional
	ClientCertificateNotAfter *metav1.Time `json:"clientCertificateNotAfter,omitempty"`
}
