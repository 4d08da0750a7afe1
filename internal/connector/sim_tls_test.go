package connector

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// tlsSecret is the processes' certificate Secret of the TLS worlds.
const tlsSecret = "db-tls"

// newTLSWorld is a monitor world whose Cluster runs TLS only (its pods
// mount tlsSecret, its one coordinator is 10.0.0.1:4500:tls) with a
// Secret of ca valid for valid from the world's start, and the CA file in
// the ConfigMap.
func newTLSWorld(t *testing.T, ns string, ca *certs.CA, valid time.Duration) *monitorWorld {
	t.Helper()
	w := newMonitorWorld(t, ns, "7.1.67")
	w.cr.Spec.ForProvider.TLS = &fdbv1alpha1.TLSSettings{SecretName: tlsSecret}
	w.cr.Status.AtProvider.TLS = &fdbv1alpha1.TLSObservation{Mounted: true, Coordinators: workload.CoordinatorsTLS}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tlsSecret}, Data: issueAt(t, ca, w.clock.Now(), valid)}
	if err := env.Client.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(w.cm), w.cm); err != nil {
		t.Fatal(err)
	}
	w.cm.Data = workload.ConfigMap(w.cr, "db:abc@10.0.0.1:4500:tls", map[workload.Density]bool{{Class: fdbv1alpha1.ProcessClassStorage, Processes: 1}: true}).Data
	w.cm.Data[workload.KeyTLSCA] = string(ca.PEM)
	if err := env.Client.Update(context.Background(), w.cm); err != nil {
		t.Fatal(err)
	}
	return w
}

// issueAt is a certificate of ca for a process valid for d from now.
func issueAt(t *testing.T, ca *certs.CA, now time.Time, d time.Duration) map[string][]byte {
	t.Helper()
	files, err := ca.Issue("storage", certs.For(now, d), certs.Peer)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// renew writes a certificate valid for d from now into the world's Secret.
func (w *monitorWorld) renew(ca *certs.CA, d time.Duration) {
	w.t.Helper()
	s := &corev1.Secret{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: w.cr.Namespace, Name: tlsSecret}, s); err != nil {
		w.t.Fatal(err)
	}
	s.Data = issueAt(w.t, ca, w.clock.Now(), d)
	if err := env.Client.Update(context.Background(), s); err != nil {
		w.t.Fatal(err)
	}
}

// tlsView is what the provider's tools see of a TLS world.
type tlsView struct {
	Quorum  bool
	Address string
	Uptime  float64
}

// seen is what the tools of Cluster cr see now.
func (w *monitorWorld) seen(cr *fdbv1alpha1.Cluster) tlsView {
	w.t.Helper()
	secret, err := clientSecret(context.Background(), env.Client, cr)
	if err != nil {
		w.t.Fatal(err)
	}
	creds, err := clientCredentials(cr, w.cm, secret)
	if err != nil {
		w.t.Fatal(err)
	}
	db, err := w.backend.Client(context.Background(), Target{Client: env.Client, Live: env.Client}, cr, w.cm, nil, creds)
	if err != nil {
		w.t.Fatal(err)
	}
	st, err := db.Status(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	v := tlsView{Quorum: st.Client.Coordinators.QuorumReachable}
	for _, p := range st.Cluster.Processes {
		v.Address, v.Uptime = p.Address, p.UptimeSeconds
	}
	return v
}

// TestSimProcessesUseTheCertificateTheirPodMounts: the processes of a TLS
// Cluster listen on the TLS address of their command line with the
// certificate, key and CA file their pod holds; the provider's tools,
// which present the Cluster's client certificate, reach them, and tools
// without one (a Cluster without tls settings holding the same cluster
// file) reach no quorum.
func TestSimProcessesUseTheCertificateTheirPodMounts(t *testing.T) {
	ca, err := certs.NewCA("ca", certs.For(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	w := newTLSWorld(t, "sim-tls-mounts", ca, 365*24*time.Hour)
	w.runPod("storage-1", "10.0.0.1", "7.1.67", "7.1.67")
	plain := w.cr.DeepCopy()
	plain.Spec.ForProvider.TLS, plain.Status.AtProvider.TLS = nil, nil
	got := map[string]tlsView{"TLSClient": w.seen(w.cr), "PlainClient": w.seen(plain)}
	want := map[string]tlsView{
		"TLSClient":   {Quorum: true, Address: "10.0.0.1:4500:tls"},
		"PlainClient": {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the tools see (-want +got):\n%s", diff)
	}
}

// TestSimRenewedSecretIsReloadedWithoutRestart: a renewed certificate
// reaches the pod's files after the kubelet's delay, and the process uses
// it once it next looks at them (TLS_CERT_REFRESH_DELAY_SECONDS, 12 hours
// from its start), without a restart: until then new connections see the
// expired one.
func TestSimRenewedSecretIsReloadedWithoutRestart(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ca, err := certs.NewCA("ca", certs.For(start, 10*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	w := newTLSWorld(t, "sim-tls-renewed", ca, time.Hour)
	w.runPod("storage-1", "10.0.0.1", "7.1.67", "7.1.67")
	got := map[string]tlsView{"Start": w.seen(w.cr)}
	w.clock.Step(30 * time.Minute)
	w.renew(ca, 365*24*time.Hour)
	w.seen(w.cr) // the kubelet sees the change
	w.clock.Step(90 * time.Minute)
	got["TwoHours"] = w.seen(w.cr)
	w.clock.Step(11 * time.Hour)
	got["ThirteenHours"] = w.seen(w.cr)
	want := map[string]tlsView{
		"Start":         {Quorum: true, Address: "10.0.0.1:4500:tls"},
		"TwoHours":      {},
		"ThirteenHours": {Quorum: true, Address: "10.0.0.1:4500:tls", Uptime: 13 * 3600},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the tools see (-want +got):\n%s", diff)
	}
}
