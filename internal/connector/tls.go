package connector

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errGetTLSSecret = "cannot get TLS Secret %s/%s (spec.forProvider.tls.%s)"
	errUseTLSSecret = "cannot use TLS Secret %s/%s (spec.forProvider.tls.%s)"
)

// clientSecret reads the certificate Secret the clients the provider runs
// for Cluster c present (workload.ClientSecretName) from the target
// namespace; nil for a Cluster without tls settings, or while the Secret
// does not exist (clientCredentials then says so).
func clientSecret(ctx context.Context, target client.Reader, c *v1alpha1.Cluster) (*corev1.Secret, error) {
	name := workload.ClientSecretName(c)
	if name == "" {
		return nil, nil
	}
	s := &corev1.Secret{}
	err := target.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(c), Name: name}, s)
	if kerrors.IsNotFound(err) {
		return nil, nil
	}
	return s, errors.Wrapf(err, errGetTLSSecret, workload.Namespace(c), name, clientSecretField(c))
}

// clientCredentials are the credentials the clients the provider runs for
// Cluster c present: the certificate of Secret s (clientSecret) with the CA
// file the cluster's ConfigMap cm holds for its processes
// (workload.KeyTLSCA, the Secret's own ca.crt while it holds none); nil
// for a Cluster without tls settings. Errors name the Secret, the spec
// field and the key, never what they hold.
func clientCredentials(c *v1alpha1.Cluster, cm *corev1.ConfigMap, s *corev1.Secret) (*fdb.TLSCredentials, error) {
	t := c.Spec.ForProvider.TLS
	if t == nil {
		return nil, nil
	}
	ns, name, field := workload.Namespace(c), workload.ClientSecretName(c), clientSecretField(c)
	if s == nil {
		return nil, errors.Errorf(errGetTLSSecret+": not found", ns, name, field)
	}
	if err := certs.HasKeys(s.Data); err != nil {
		return nil, errors.Wrapf(err, errUseTLSSecret, ns, name, field)
	}
	ca := s.Data[certs.KeyCA]
	if cm != nil && cm.Data[workload.KeyTLSCA] != "" {
		ca = []byte(cm.Data[workload.KeyTLSCA])
	}
	return &fdb.TLSCredentials{Certificate: s.Data[certs.KeyCert], Key: s.Data[certs.KeyKey], CA: ca, VerifyPeers: t.PeerVerificationRules}, nil
}

// clientSecretField is the field of spec.forProvider.tls that names the
// client Secret of Cluster c.
func clientSecretField(c *v1alpha1.Cluster) string {
	if c.Spec.ForProvider.TLS != nil && c.Spec.ForProvider.TLS.ClientSecretName != "" {
		return "clientSecretName"
	}
	return "secretName"
}
