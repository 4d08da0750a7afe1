package chaos

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// The tls workload migrates a live database from plain text to mutual
// TLS, renews its certificate in place, and migrates it back, each under
// faults.
var tlsWorkload = Workload{Name: "tls", Ops: []Op{bootstrap(false), enableTLS(), renewCertificate(), disableTLS()}}

// tlsSecretName is the certificate Secret of the run's Cluster.
const tlsSecretName = "db-tls"

// certificateValidity is how long the run's certificates are valid: far
// beyond a run's virtual hours, so that only the renewal changes them.
const certificateValidity = 365 * 24 * time.Hour

// writeCertificate issues a certificate for the database from a CA made
// for the run (the same CA for every renewal: its ca.crt stays) and puts
// it in the certificate Secret, as cert-manager does on issue and renewal.
func (r *run) writeCertificate(ctx context.Context) error {
	if r.ca == nil {
		ca, err := certs.NewCA("chaos CA", certs.For(r.clock.Now(), certificateValidity))
		if err != nil {
			return err
		}
		r.ca = ca
	}
	data, err := r.ca.Issue(clusterName, certs.For(r.clock.Now(), certificateValidity), certs.Peer)
	if err != nil {
		return err
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: tlsSecretName, Namespace: r.ns}, Type: corev1.SecretTypeTLS}
	if err := r.kube.Get(ctx, client.ObjectKeyFromObject(s), s); err != nil {
		s.Data = data
		return r.kube.Create(ctx, s)
	}
	return update(ctx, r, s, func(s *corev1.Secret) { s.Data = data })
}

// enableTLS gives the Cluster a certificate and tls settings: the pods are
// recreated to mount it, the processes restart listening on both kinds of
// address, the coordinators move to TLS addresses, and the processes
// restart without the plain ones.
func enableTLS() Op {
	return Op{Name: "migrate to TLS", Faults: faults, Converged: both(clusterConverged, tlsIs(workload.CoordinatorsTLS, fdb.ListenTLS)), Do: func(ctx context.Context, r *run) error {
		if err := r.writeCertificate(ctx); err != nil {
			return err
		}
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.TLS = &fdbv1alpha1.TLSSettings{SecretName: tlsSecretName}
		})
	}}
}

// renewCertificate renews the certificate in place, as cert-manager does
// before it expires: the kubelet delivers it to the pods and fdbserver
// reloads it, with no restart the provider takes.
func renewCertificate() Op {
	return Op{Name: "renew the certificate", Faults: faults, Converged: both(clusterConverged, tlsIs(workload.CoordinatorsTLS, fdb.ListenTLS)), Do: func(ctx context.Context, r *run) error {
		return r.writeCertificate(ctx)
	}}
}

// disableTLS migrates the database back to plain text.
func disableTLS() Op {
	return Op{Name: "migrate back to plain text", Faults: faults, Converged: both(clusterConverged, tlsIs(workload.CoordinatorsPlain, fdb.ListenPlain)), Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.TLS.Enabled = ptr.To(false) })
	}}
}

// tlsIs: the run's database names its coordinators by addresses of kind
// coordinators, and every process it reports listens on listeners.
func tlsIs(coordinators string, listeners fdb.Listeners) func(*run) (bool, string) {
	return func(r *run) (bool, string) {
		db := r.used[clusterName]
		if db == nil {
			return false, "no database reached yet"
		}
		cs, err := fdb.ParseConnectionString(db.ConnectionString())
		if err != nil {
			return false, err.Error()
		}
		if got := workload.CoordinatorKinds(cs); got != coordinators {
			return false, fmt.Sprintf("the coordinators are %s addresses, want %s", got, coordinators)
		}
		st, err := db.Status(context.Background())
		if err != nil {
			return false, err.Error()
		}
		want := listeners.Kinds()
		for _, p := range st.Cluster.Processes {
			got := fdb.ListenAddresses(p.CommandLine, p.Address)
			if len(got) != len(want) {
				return false, fmt.Sprintf("process %s listens on %v, want %s", p.Address, got, listeners)
			}
			for i, a := range got {
				if fdb.ProcessAddress(a).TLS() != want[i] {
					return false, fmt.Sprintf("process %s listens on %v, want %s", p.Address, got, listeners)
				}
			}
		}
		return true, ""
	}
}
