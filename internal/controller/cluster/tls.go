package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	xperrors "github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errGetTLSSecret = "cannot get TLS Secret %s/%s (spec.forProvider.tls.%s)"
	errUseTLSSecret = "cannot use TLS Secret %s/%s (spec.forProvider.tls.%s)"
)

// TypeCertificate is the Cluster's condition of its TLS certificates: True
// while every certificate its processes and the provider's clients present
// is valid beyond the warning window, False (with the reason and the
// certificate) while one expires within it, has expired or is not issued
// by a CA the processes trust. Only a Cluster with tls settings has it.
const TypeCertificate xpv2.ConditionType = "Certificate"

// Reasons of the Certificate condition, which are also the reasons of the
// events that say it changed.
const (
	reasonCertificateValid     xpv2.ConditionReason = "CertificatesValid"
	reasonCertificateExpiring  xpv2.ConditionReason = "CertificateExpiring"
	reasonCertificateExpired   xpv2.ConditionReason = "CertificateExpired"
	reasonCertificateUntrusted xpv2.ConditionReason = "CertificateUntrusted"
)

// How many days before a certificate expires the Certificate condition
// warns of it: parameter certificateWarningDays of the fdb-tls policy in
// effect for the Cluster (its safety.params over the policy's), else
// defaultCertificateWarningDays. Either should exceed what a renewed
// certificate takes to reach every process: the kubelet's sync of the
// mounted Secret (about a minute) and fdbserver's check for changed
// files, every TLS_CERT_REFRESH_DELAY_SECONDS (12 hours by default,
// flow/Knobs.cpp at 7.1.67 and 7.3.63).
const (
	policyTLS                     = "fdb-tls"
	paramCertificateWarningDays   = "certificateWarningDays"
	defaultCertificateWarningDays = 30
)

// certificateWarning is how long before a certificate expires Cluster cr
// warns of it.
func (e *external) certificateWarning(ctx context.Context, cr *v1alpha1.Cluster) time.Duration {
	days := int64(defaultCertificateWarningDays)
	params, err := policy.DecodeParams(cr.Spec.ForProvider.Safety.Params)
	if err == nil && e.Gate != nil {
		in := policy.Input{Params: params, Policies: cr.Spec.ForProvider.Safety.Policies}
		if v, ok := e.Gate.Param(ctx, in, policyTLS, paramCertificateWarningDays); ok {
			if d, ok := v.(int64); ok && d >= 0 {
				days = d
			}
		}
	}
	return time.Duration(days) * 24 * time.Hour
}

// tlsSecrets is what one reconcile read of a Cluster's certificate
// Secrets: the CA file its processes trust, and each Secret's
// certificate, checked.
type tlsSecrets struct {
	// ca is the CA file: the processes' Secret's ca.crt and the trusted
	// CAs, each once.
	ca string
	// server and client are the checks of the processes' and the
	// clients' certificates; client is server's when the Cluster names no
	// client Secret.
	server, client certificateCheck
}

// certificateCheck is a certificate as a reconcile checked it.
type certificateCheck struct {
	// secret is the Secret's name and field the spec field that names it.
	secret, field string
	notAfter      time.Time
	// err is why it cannot serve (certs.ErrExpired, certs.ErrUntrusted,
	// certs.ErrMalformed), nil when it can.
	err error
}

// observeTLS reads and checks the certificate Secrets of a Cluster with
// tls settings. A Secret that is missing or lacks a key is an error that
// names it and the key: the pods could not start with it. A certificate
// that expired, or that no trusted CA issued, is observed (the Certificate
// condition says so) rather than an error: the database may still be
// reached in plain text, and the provider must go on observing it. The
// clients' Secret is the one the session read (connector.Session's
// ClientSecret) when it has it.
func (o *observation) observeTLS(ctx context.Context, target client.Reader, cr *v1alpha1.Cluster, clientSecret *corev1.Secret) error {
	t := cr.Spec.ForProvider.TLS
	if t == nil {
		return nil
	}
	ns := workload.Namespace(cr)
	read := func(name, field string) (*corev1.Secret, certificateCheck, error) {
		s := clientSecret
		if s == nil || s.Name != name {
			s = &corev1.Secret{}
			if err := target.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
				return nil, certificateCheck{}, xperrors.Wrapf(err, errGetTLSSecret, ns, name, field)
			}
		}
		notAfter, err := certs.Check(s.Data, t.TrustedCAs, o.now)
		if errors.Is(err, certs.ErrMissingKey) {
			return nil, certificateCheck{}, xperrors.Wrapf(err, errUseTLSSecret, ns, name, field)
		}
		return s, certificateCheck{secret: name, field: field, notAfter: notAfter, err: err}, nil
	}
	s, server, err := read(t.SecretName, "secretName")
	if err != nil {
		return err
	}
	o.tls = &tlsSecrets{ca: string(certs.Bundle(s.Data[certs.KeyCA], t.TrustedCAs)), server: server, client: server}
	if t.ClientSecretName != "" && t.ClientSecretName != t.SecretName {
		if _, o.tls.client, err = read(t.ClientSecretName, "clientSecretName"); err != nil {
			return err
		}
	}
	return nil
}

// tlsStatus is what the Cluster records of its TLS after observing o: how
// the cluster file names the coordinators, whether every pod mounts the
// processes' certificates, what the processes listen on as a result
// (workload.Listen), and when the certificates expire. nil for a Cluster
// that has no tls settings and runs none.
func (o *observation) tlsStatus(cr *v1alpha1.Cluster) *v1alpha1.TLSObservation {
	cs, _ := fdb.ParseConnectionString(o.connectionString())
	kinds := workload.CoordinatorKinds(cs)
	if cr.Spec.ForProvider.TLS == nil && kinds != workload.CoordinatorsTLS && kinds != workload.CoordinatorsMixed {
		return nil
	}
	at := &v1alpha1.TLSObservation{Coordinators: kinds, Mounted: true}
	for _, p := range o.pods {
		if p.DeletionTimestamp == nil && !workload.MountsCertificates(cr, p) {
			at.Mounted = false
		}
	}
	if o.tls != nil {
		at.CertificateNotAfter = timeOrNil(o.tls.server.notAfter)
		at.ClientCertificateNotAfter = timeOrNil(o.tls.client.notAfter)
	}
	with := cr.DeepCopy()
	with.Status.AtProvider.TLS = at
	at.Listeners = string(workload.Listen(with))
	return at
}

func timeOrNil(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t}
}

// certificateCondition is the Certificate condition of a Cluster whose
// certificates o checked; false when the Cluster has no tls settings.
// The processes' certificate is judged first, then the clients'.
func (o *observation) certificateCondition(warning time.Duration) (xpv2.Condition, bool) {
	if o.tls == nil {
		return xpv2.Condition{}, false
	}
	c, ok := o.certificateState(warning)
	c.LastTransitionTime = metav1.NewTime(o.now)
	return c, ok
}

// certificateState is certificateCondition without its time.
func (o *observation) certificateState(warning time.Duration) (xpv2.Condition, bool) {
	for _, c := range []certificateCheck{o.tls.server, o.tls.client} {
		where := fmt.Sprintf("the certificate of Secret %s (spec.forProvider.tls.%s)", c.secret, c.field)
		switch {
		case errors.Is(c.err, certs.ErrExpired):
			return certificateFalse(reasonCertificateExpired, fmt.Sprintf("%s is not valid now, so TLS connections that present it fail: %v", where, c.err)), true
		case c.err != nil:
			return certificateFalse(reasonCertificateUntrusted, fmt.Sprintf("%s cannot serve, so TLS connections that present it fail: %v", where, c.err)), true
		case c.notAfter.Sub(o.now) < warning:
			return certificateFalse(reasonCertificateExpiring, fmt.Sprintf("%s expires at %s, in less than %d days (fdb-tls parameter %s): renew it", where, c.notAfter.UTC().Format(time.RFC3339), int(warning.Hours()/24), paramCertificateWarningDays)), true
		}
	}
	return xpv2.Condition{Type: TypeCertificate, Status: corev1.ConditionTrue, Reason: reasonCertificateValid,
		Message: fmt.Sprintf("the certificates expire at %s at the earliest", earliest(o.tls).UTC().Format(time.RFC3339))}, true
}

func certificateFalse(reason xpv2.ConditionReason, msg string) xpv2.Condition {
	return xpv2.Condition{Type: TypeCertificate, Status: corev1.ConditionFalse, Reason: reason, Message: msg}
}

func earliest(t *tlsSecrets) time.Time {
	if t.client.notAfter.Before(t.server.notAfter) {
		return t.client.notAfter
	}
	return t.server.notAfter
}

// certificateEvent is the event that says the Certificate condition
// changed to c from before: a warning unless the certificates are valid.
func certificateEvent(before, c xpv2.Condition) (event.Event, bool) {
	if before.Reason == c.Reason {
		return event.Event{}, false
	}
	if c.Reason == reasonCertificateValid {
		return event.Normal(event.Reason(c.Reason), c.Message), true
	}
	return event.Warning(event.Reason(c.Reason), errors.New(c.Message)), true
}
