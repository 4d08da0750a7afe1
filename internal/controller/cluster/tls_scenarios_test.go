package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// tlsSecret creates Secret name in namespace ns in cert-manager's shape:
// a certificate for the database's processes and clients, valid for a
// year of the harness's time, its key and its CA. It returns the
// credentials a client presenting it has.
func tlsSecret(t testing.TB, ns, name string) *fdb.TLSCredentials {
	t.Helper()
	v := certs.For(h.Clock.Now(), 365*24*time.Hour)
	ca, err := certs.NewCA(name+" CA", v)
	if err != nil {
		t.Fatal(err)
	}
	data, err := ca.Issue(name, v, certs.Peer)
	if err != nil {
		t.Fatal(err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Type: corev1.SecretTypeTLS, Data: data}
	if err := env.Client.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return &fdb.TLSCredentials{Certificate: data[certs.KeyCert], Key: data[certs.KeyKey], CA: data[certs.KeyCA]}
}

// availability samples a database and its Cluster's connection Secret
// while a migration runs: the longest stretch of the simulator's time the
// database was unavailable to a client holding the credentials, and the
// cluster files the Secret held that reached no database.
type availability struct {
	db    *sim.Sim
	creds *fdb.TLSCredentials
	cr    *v1alpha1.Cluster

	mu          sync.Mutex
	down        time.Time // when the current stretch of unavailability began
	longest     time.Duration
	unreachable []string
	stop        chan struct{}
	done        chan struct{}
}

func sample(t testing.TB, db *sim.Sim, creds *fdb.TLSCredentials, cr *v1alpha1.Cluster) *availability {
	a := &availability{db: db, creds: creds, cr: cr, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-tick.C:
				a.once(t)
			}
		}
	}()
	return a
}

func (a *availability) once(t testing.TB) {
	now := h.Clock.Now()
	st, err := a.db.As("", a.creds).Status(context.Background())
	up := err == nil && st.Client.DatabaseStatus.Available
	s := &corev1.Secret{}
	cs := ""
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: a.cr.Namespace, Name: "db-conn"}, s); err == nil {
		cs = strings.TrimSpace(string(s.Data[cluster.KeyClusterFile]))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case !up && a.down.IsZero():
		a.down = now
	case up && !a.down.IsZero():
		a.longest = max(a.longest, now.Sub(a.down))
		a.down = time.Time{}
	}
	if cs != "" && !a.db.Reaches(cs) {
		a.unreachable = append(a.unreachable, cs)
	}
}

// end stops sampling and returns the longest outage and the unreachable
// cluster files.
func (a *availability) end() (time.Duration, []string) {
	close(a.stop)
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.longest, a.unreachable
}

// tlsState says how far a Cluster's migration is: how the cluster file
// names the coordinators and what every process listens on.
func tlsState(t testing.TB, db *sim.Sim, cr *v1alpha1.Cluster) (coordinators string, listeners map[string]int) {
	t.Helper()
	cs, _ := fdb.ParseConnectionString(db.ConnectionString())
	st, err := db.Status(context.Background())
	if err != nil {
		return workload.CoordinatorKinds(cs), nil
	}
	listeners = map[string]int{}
	for _, p := range st.Cluster.Processes {
		kinds := []string{}
		for _, a := range fdb.ListenAddresses(p.CommandLine, p.Address) {
			if fdb.ProcessAddress(a).TLS() {
				kinds = append(kinds, "tls")
			} else {
				kinds = append(kinds, "plain")
			}
		}
		listeners[strings.Join(kinds, ",")]++
	}
	return workload.CoordinatorKinds(cs), listeners
}

// errCrash stands for a provider that stopped in the middle of a step: the
// step's call had no effect.
var errCrash = errors.New("the provider stopped")

// TestTLSMigration takes a live plain-text database to TLS and back. Each
// way the pods first mount the certificates (recreated zone by zone, as
// any template change), the processes restart listening on both kinds of
// address (one gated bounce), the coordinators move to the new kind (one
// gated coordinator change), and the processes restart without the old
// listener (one more bounce). The database stays available but for the
// recoveries those steps cause, which the events count; the connection
// Secret always holds a cluster file that reaches it; once on TLS a
// plain-text client is refused; and a kill or coordinator change that
// fails midway (a provider stopped in the middle of the step) is taken
// again.
func TestTLSMigration(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "tls-migration")
	cr := smallCluster(ns, nil)
	createReady(t, cr)
	db := h.Sim(t, cr)
	creds := tlsSecret(t, ns, "db-tls")

	migrate := func(t *testing.T, enabled bool, wantCoordinators, wantListeners string) {
		recoveries, bounces, moves := db.Recoveries(), eventCount(t, cr, "BouncedProcesses"), eventCount(t, cr, "ChangedCoordinators")
		for _, op := range []sim.Op{sim.OpKill, sim.OpCoordinators} {
			if err := db.FailNext(op, errCrash, 1); err != nil {
				t.Fatal(err)
			}
		}
		a := sample(t, db, creds, cr)
		update(t, cr, func(cr *v1alpha1.Cluster) {
			cr.Spec.ForProvider.TLS = &v1alpha1.TLSSettings{Enabled: ptr.To(enabled), SecretName: "db-tls"}
		})
		eventually(t, 3*time.Minute, "the database migrated", func() (bool, string) {
			get(t, cr)
			coords, listeners := tlsState(t, db, cr)
			upToDate := cr.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue
			return upToDate && coords == wantCoordinators && len(listeners) == 1 && listeners[wantListeners] > 0,
				fmt.Sprintf("coordinators %s, listeners %v, UpToDate %t: %s; events %v", coords, listeners, upToDate, cr.GetCondition(xpv2.TypeUpToDate).Message, events(t, cr))
		})
		longest, unreachable := a.end()
		if longest > 2*time.Minute {
			t.Errorf("the database was unavailable for %s at a stretch", longest)
		}
		if len(unreachable) > 0 {
			t.Errorf("the connection Secret held cluster files that reach no database: %v", unreachable)
		}
		// Events are recorded asynchronously: the last may arrive after
		// the migration shows.
		b, m := eventCountOnce(t, cr, "BouncedProcesses", bounces+2)-bounces, eventCountOnce(t, cr, "ChangedCoordinators", moves+1)-moves
		if b != 2 || m != 1 {
			t.Errorf("%d bounces and %d coordinator changes, want 2 and 1: %v", b, m, events(t, cr))
		}
		// A pod recreated to mount the certificates may cost two: one
		// when its transaction roles go with it, one when the cluster
		// controller moves them back to the better-fit process once it
		// returns (the simulator's betterLogsExist, after FoundationDB's
		// betterMasterExists).
		planned := int(b + m)
		for _, pg := range groupsOf(t, cr) {
			for _, e := range events(t, &pg) {
				if strings.HasPrefix(e, "RecreatingPod: ") {
					planned += 2
				}
			}
		}
		if n := db.Recoveries() - recoveries; n > planned {
			t.Errorf("%d recoveries, more than the %d the planned steps account for: %v", n, planned, events(t, cr))
		}
	}

	t.Run("ToTLS", func(t *testing.T) {
		migrate(t, true, workload.CoordinatorsTLS, "tls")
		get(t, cr)
		if got := cr.Status.AtProvider.TLS; got == nil || got.Listeners != string(fdb.ListenTLS) || !got.Mounted {
			t.Errorf("status.atProvider.tls = %+v, want listeners tls and mounted", got)
		}
		if _, err := db.As(db.ConnectionString(), nil).Status(context.Background()); err == nil {
			t.Error("a plain-text client reached the database on TLS")
		}
		if st, err := db.As(db.ConnectionString(), creds).Status(context.Background()); err != nil || !st.Client.DatabaseStatus.Available {
			t.Errorf("a client with the certificate does not reach the database on TLS: %v", err)
		}
	})
	t.Run("BackToPlainText", func(t *testing.T) {
		migrate(t, false, workload.CoordinatorsPlain, "plain")
		if st, err := db.As(db.ConnectionString(), nil).Status(context.Background()); err != nil || !st.Client.DatabaseStatus.Available {
			t.Errorf("a plain-text client does not reach the database back on plain text: %v", err)
		}
	})
}

// TestTLSFromTheStart: a Cluster created with tls settings comes up on TLS
// alone: Ready, its cluster file (and connection Secret) names TLS
// addresses only, every process listens with TLS only, a client with the
// certificate reaches it and a plain-text client is refused.
func TestTLSFromTheStart(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "tls-start")
	creds := tlsSecret(t, ns, "db-tls")
	cr := smallCluster(ns, nil)
	cr.Spec.ForProvider.TLS = &v1alpha1.TLSSettings{SecretName: "db-tls"}
	createReady(t, cr)
	db := h.Sim(t, cr)
	coords, listeners := tlsState(t, db, cr)
	if coords != workload.CoordinatorsTLS || len(listeners) != 1 || listeners["tls"] == 0 {
		t.Errorf("coordinators %s, listeners %v; want tls only", coords, listeners)
	}
	s := &corev1.Secret{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "db-conn"}, s); err != nil {
		t.Fatal(err)
	}
	cs, err := fdb.ParseConnectionString(string(s.Data[cluster.KeyClusterFile]))
	if err != nil || workload.CoordinatorKinds(cs) != workload.CoordinatorsTLS {
		t.Errorf("the connection Secret's cluster file %q names other than TLS addresses (%v)", s.Data[cluster.KeyClusterFile], err)
	}
	if _, err := db.As(cs.String(), nil).Status(context.Background()); err == nil {
		t.Error("a plain-text client reached the database")
	}
	if st, err := db.As(cs.String(), creds).Status(context.Background()); err != nil || !st.Client.DatabaseStatus.Available {
		t.Errorf("a client with the certificate does not reach the database: %v", err)
	}
	if n := eventCount(t, cr, "BouncedProcesses"); n != 0 {
		t.Errorf("%d bounces while a database that was TLS from the start came up: %v", n, events(t, cr))
	}
}

// TestTLSSecretWithoutAKeyIsNamed: a Cluster whose certificate Secret
// lacks a key says which on its Synced condition, and creates nothing its
// pods could not start with; given the key, it comes up.
func TestTLSSecretWithoutAKeyIsNamed(t *testing.T) {
	start(t)
	h.Flow(true)
	ns := namespace(t, "tls-key")
	creds := tlsSecret(t, ns, "db-tls")
	// An Opaque Secret: one of type kubernetes.io/tls cannot lack the key.
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-tls-opaque", Namespace: ns},
		Data: map[string][]byte{certs.KeyCert: creds.Certificate, certs.KeyCA: creds.CA}}
	if err := env.Client.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	cr := smallCluster(ns, nil)
	cr.Spec.ForProvider.TLS = &v1alpha1.TLSSettings{SecretName: "db-tls-opaque"}
	if err := env.Client.Create(context.Background(), cr); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "Synced names the missing key", func() (bool, string) {
		get(t, cr)
		c := cr.GetCondition(xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "spec.forProvider.tls.secretName") && strings.Contains(c.Message, "has no key tls.key"),
			fmt.Sprintf("Synced=%s %s", c.Status, c.Message)
	})
	if n := len(groupsOf(t, cr)); n != 0 {
		t.Errorf("%d process groups created with a certificate Secret that lacks its key", n)
	}
	s.Data[certs.KeyKey] = creds.Key
	if err := env.Client.Update(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	ready(t, cr, 90*time.Second)
}
