package cluster

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Connection-detail keys of a Cluster with tls settings: the CA file its
// processes trust (what its ConfigMap holds under workload.KeyTLSCA) and a
// note on what a client needs besides. No key ever goes into the
// connection Secret: a client gets its own certificate from the CA.
const (
	KeyTLSCA   = "ca.crt"
	KeyTLSNote = "tls"
)

// addTLSDetails adds to the connection details of Cluster cr, whose
// cluster file is cs, the CA file its processes trust and the note on
// what a client needs (tlsNote); nothing for a Cluster without tls
// settings or whose Secrets this reconcile could not read.
func addTLSDetails(details managed.ConnectionDetails, cr *v1alpha1.Cluster, secrets *tlsSecrets, cs string) {
	if cr.Spec.ForProvider.TLS == nil || secrets == nil {
		return
	}
	details[KeyTLSCA] = []byte(secrets.ca)
	details[KeyTLSNote] = []byte(tlsNote(cr, cs))
}

// tlsNote tells an application what it needs to reach the database whose
// cluster file is cs besides that file: whether it must speak TLS now, and
// that it then presents a certificate, with its key, issued by the CA in
// ca.crt, which the provider never hands out.
func tlsNote(cr *v1alpha1.Cluster, cs string) string {
	t := cr.Spec.ForProvider.TLS
	parsed, _ := fdb.ParseConnectionString(cs)
	need := "The cluster file names TLS coordinators: a client must speak TLS."
	if workload.CoordinatorKinds(parsed) == workload.CoordinatorsPlain {
		need = "The database runs in plain text now (its cluster file names no TLS coordinator); once it moves to TLS a client must speak TLS."
	}
	note := fmt.Sprintf("%s It trusts the CA in this Secret's %s and presents a certificate, with its key, issued by that CA, as the processes' certificate in Secret %s "+
		"(spec.forProvider.tls.secretName) is: e.g. a cert-manager Certificate from the same issuer. Give it to the client as FDB_TLS_CERTIFICATE_FILE, "+
		"FDB_TLS_KEY_FILE and FDB_TLS_CA_FILE (or the TLS_cert_path, TLS_key_path and TLS_ca_path network options). This Secret holds no key.",
		need, KeyTLSCA, t.SecretName)
	if t.PeerVerificationRules != "" {
		note += fmt.Sprintf(" The processes accept only certificates that satisfy %q (spec.forProvider.tls.peerVerificationRules).", t.PeerVerificationRules)
	}
	return note
}
