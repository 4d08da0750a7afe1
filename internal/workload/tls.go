package workload

import (
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// How a Cluster with tls settings gives its processes their certificates:
// the pods mount the processes' Secret (spec.forProvider.tls.secretName)
// at TLSDir, and the cluster's ConfigMap holds the CA file every process
// trusts (KeyTLSCA: the Secret's ca.crt and the trusted CAs, made by the
// provider), projected next to the monitor's configuration. The monitor
// configuration passes the files to fdbserver with its TLS flags while
// the processes listen with TLS (fdb.Listeners), so the certificates
// FoundationDB reads are exactly these files.
const (
	// TLSDir is where a pod's main container mounts the processes'
	// certificate Secret.
	TLSDir = "/var/fdb-tls"
	// KeyTLSCA is the key of the CA file in the cluster's ConfigMap.
	KeyTLSCA = "tls-ca-file"
	// TLSCAFile is where the main container finds the CA file.
	TLSCAFile = configDir + "/" + tlsCAFileName
	// TLSCertificateFile and TLSKeyFile are where the main container
	// finds its certificate and key.
	TLSCertificateFile = TLSDir + "/" + certs.KeyCert
	TLSKeyFile         = TLSDir + "/" + certs.KeyKey

	tlsVolume     = "fdb-tls"
	tlsCAFileName = "tls-ca.pem"
)

// The flags of fdbserver (and of fdbcli, fdbbackup, fdbrestore and
// backup_agent, which share them) that give a process its certificate,
// its key, the CAs it trusts and what it demands of a peer's certificate.
const (
	FlagTLSCertificateFile = "--tls-certificate-file"
	FlagTLSKeyFile         = "--tls-key-file"
	FlagTLSCAFile          = "--tls-ca-file"
	FlagTLSVerifyPeers     = "--tls-verify-peers"
)

// Listen is what the processes of Cluster c listen on now: the kind of
// address its spec asks for first (TLS only once every pod mounts the
// certificates: a process told to listen with TLS without them cannot
// start), and the other kind as well while any coordinator the cluster
// file names is of it, so that no coordinator is ever named by an address
// nobody listens on. The coordinators are as the Cluster's status
// recorded them (status.atProvider.tls), which the Cluster writes from
// what each reconcile observed before it plans.
func Listen(c *v1alpha1.Cluster) fdb.Listeners {
	obs := c.Status.AtProvider.TLS
	mounted := obs != nil && obs.Mounted
	coords := ""
	if obs != nil {
		coords = obs.Coordinators
	}
	primaryTLS := c.Spec.ForProvider.TLSEnabled() && mounted
	switch {
	case primaryTLS && (coords == CoordinatorsPlain || coords == CoordinatorsMixed):
		return fdb.ListenTLSAndPlain
	case primaryTLS:
		return fdb.ListenTLS
	case coords == CoordinatorsTLS || coords == CoordinatorsMixed:
		return fdb.ListenPlainAndTLS
	}
	return fdb.ListenPlain
}

// How the cluster file names the coordinators (TLSObservation.Coordinators).
const (
	CoordinatorsTLS   = "tls"
	CoordinatorsPlain = "plain"
	CoordinatorsMixed = "mixed"
)

// CoordinatorKinds says how connection string cs names its coordinators:
// CoordinatorsTLS, CoordinatorsPlain, CoordinatorsMixed, or "" when it
// names none.
func CoordinatorKinds(cs fdb.ConnectionString) string {
	tls, plain := false, false
	for _, a := range cs.Coordinators {
		if a.TLS() {
			tls = true
		} else {
			plain = true
		}
	}
	switch {
	case tls && plain:
		return CoordinatorsMixed
	case tls:
		return CoordinatorsTLS
	case plain:
		return CoordinatorsPlain
	}
	return ""
}

// tlsArguments are the arguments that give fdbserver its certificates,
// when it listens with TLS.
func tlsArguments(c *v1alpha1.Cluster) []Argument {
	args := []Argument{
		literal(FlagTLSCertificateFile + "=" + TLSCertificateFile),
		literal(FlagTLSKeyFile + "=" + TLSKeyFile),
		literal(FlagTLSCAFile + "=" + TLSCAFile),
	}
	if rules := c.Spec.ForProvider.TLS.PeerVerificationRules; rules != "" {
		args = append(args, literal(FlagTLSVerifyPeers+"="+rules))
	}
	return args
}

// tlsEnv is the environment that gives the FoundationDB tools run in a
// pod's main container (`kubectl exec … fdbcli`) the processes'
// certificate, key, CA file and peer rules: each tool, and fdbserver when
// no flag says otherwise, reads FDB_TLS_CERTIFICATE_FILE, FDB_TLS_KEY_FILE,
// FDB_TLS_CA_FILE and FDB_TLS_VERIFY_PEERS (TLSConfig, flow/TLSConfig.actor.cpp
// at 7.1.67 and 7.3.63). fdbserver takes the flags of its configuration
// first, which name the same files.
func tlsEnv(c *v1alpha1.Cluster) []corev1.EnvVar {
	env := []corev1.EnvVar{
		{Name: "FDB_TLS_CERTIFICATE_FILE", Value: TLSCertificateFile},
		{Name: "FDB_TLS_KEY_FILE", Value: TLSKeyFile},
		{Name: "FDB_TLS_CA_FILE", Value: TLSCAFile},
	}
	if rules := c.Spec.ForProvider.TLS.PeerVerificationRules; rules != "" {
		env = append(env, corev1.EnvVar{Name: "FDB_TLS_VERIFY_PEERS", Value: rules})
	}
	return env
}

// tlsVolumeOf is the volume of the processes' certificate Secret; nil for
// a Cluster without tls settings.
func tlsVolumeOf(c *v1alpha1.Cluster) *corev1.Volume {
	t := c.Spec.ForProvider.TLS
	if t == nil {
		return nil
	}
	return &corev1.Volume{Name: tlsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: t.SecretName,
		Items:      []corev1.KeyToPath{{Key: certs.KeyCert, Path: certs.KeyCert}, {Key: certs.KeyKey, Path: certs.KeyKey}},
	}}}
}

// ClientSecretName is the certificate Secret the clients the provider runs
// for Cluster c present: spec.forProvider.tls.clientSecretName, else
// secretName; "" without tls settings.
func ClientSecretName(c *v1alpha1.Cluster) string {
	t := c.Spec.ForProvider.TLS
	switch {
	case t == nil:
		return ""
	case t.ClientSecretName != "":
		return t.ClientSecretName
	}
	return t.SecretName
}

// MountsCertificates reports whether pod p mounts the certificate Secret
// Cluster c names for its processes.
func MountsCertificates(c *v1alpha1.Cluster, p *corev1.Pod) bool {
	t := c.Spec.ForProvider.TLS
	if t == nil {
		return false
	}
	for _, v := range p.Spec.Volumes {
		if v.Name == tlsVolume && v.Secret != nil && v.Secret.SecretName == t.SecretName {
			return true
		}
	}
	return false
}

// PrimaryAddress is the primary address of the n-th process of a pod of
// Cluster c on ip, as FoundationDB prints it: its TLS port with ":tls"
// while the processes listen first with TLS (Listen), its plain port
// otherwise.
func PrimaryAddress(c *v1alpha1.Cluster, ip string, n int) string {
	if Listen(c).PrimaryTLS() {
		return net.JoinHostPort(ip, strconv.Itoa(fdb.TLSProcessPort(n))) + ":tls"
	}
	return net.JoinHostPort(ip, strconv.Itoa(fdb.ProcessPort(n)))
}
