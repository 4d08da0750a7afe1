package connector

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errGetTLSSecret = "cannot get the TLS Secret of the provider's clients"
	errTLSSecretKey = "cannot use TLS Secret %s/%s: it has no key %s"
)

// clientTLS returns the credentials the clients the provider runs for
// Cluster c present (spec.forProvider.tls.clientSecretName, else
// secretName, read from the target namespace) with the CA file the
// cluster's ConfigMap cm holds for its processes (workload.KeyTLSCA, the
// Secret's own ca.crt while it holds none); nil for a Cluster without tls
// settings. Errors name the Secret and the key, never what they hold.
func clientTLS(ctx context.Context, target client.Reader, c *v1alpha1.Cluster, cm *corev1.ConfigMap) (*fdb.TLSCredentials, error) {
	t := c.Spec.ForProvider.TLS
	if t == nil {
		return nil, nil
	}
	name := workload.ClientSecretName(c)
	ns := workload.Namespace(c)
	s := &corev1.Secret{}
	if err := target.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		return nil, errors.Wrap(err, errGetTLSSecret)
	}
	for _, k := range []string{certs.KeyCert, certs.KeyKey, certs.KeyCA} {
		if len(s.Data[k]) == 0 {
			return nil, errors.Errorf(errTLSSecretKey, ns, name, k)
		}
	}
	ca := s.Data[certs.KeyCA]
	if cm != nil && cm.Data[workload.KeyTLSCA] != "" {
		ca = []byte(cm.Data[workload.KeyTLSCA])
	}
	return &fdb.TLSCredentials{Certificate: s.Data[certs.KeyCert], Key: s.Data[certs.KeyKey], CA: ca, VerifyPeers: t.PeerVerificationRules}, nil
}
