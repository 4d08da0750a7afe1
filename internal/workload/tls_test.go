package workload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// TestListen: processes listen with TLS first once the spec asks for it
// and every pod mounts the certificate, and keep a listener of the other
// kind while any coordinator is named by one: no coordinator is ever left
// on an address nobody listens on, in either direction of a migration.
func TestListen(t *testing.T) {
	cases := map[string]struct {
		enabled      *bool
		tls          bool // the Cluster has tls settings
		mounted      bool
		coordinators string
		want         fdb.Listeners
	}{
		"NoTLS":                        {coordinators: CoordinatorsPlain, want: fdb.ListenPlain},
		"NewTLSCluster":                {tls: true, mounted: true, want: fdb.ListenTLS},
		"TLSBeforeThePodsMount":        {tls: true, coordinators: CoordinatorsPlain, want: fdb.ListenPlain},
		"ToTLSCoordinatorsStillPlain":  {tls: true, mounted: true, coordinators: CoordinatorsPlain, want: fdb.ListenTLSAndPlain},
		"ToTLSCoordinatorsMixed":       {tls: true, mounted: true, coordinators: CoordinatorsMixed, want: fdb.ListenTLSAndPlain},
		"OnTLS":                        {tls: true, mounted: true, coordinators: CoordinatorsTLS, want: fdb.ListenTLS},
		"BackCoordinatorsStillTLS":     {tls: true, enabled: ptr.To(false), mounted: true, coordinators: CoordinatorsTLS, want: fdb.ListenPlainAndTLS},
		"BackCoordinatorsPlain":        {tls: true, enabled: ptr.To(false), mounted: true, coordinators: CoordinatorsPlain, want: fdb.ListenPlain},
		"TLSCoordinatorsAPodUnmounted": {tls: true, coordinators: CoordinatorsTLS, want: fdb.ListenPlainAndTLS},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cluster()
			if tc.tls {
				c.Spec.ForProvider.TLS = &v1alpha1.TLSSettings{SecretName: "db-tls", Enabled: tc.enabled}
			}
			c.Status.AtProvider.TLS = &v1alpha1.TLSObservation{Mounted: tc.mounted, Coordinators: tc.coordinators}
			if got := Listen(c); got != tc.want {
				t.Errorf("Listen(...) = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestPodWithTLS: the pod of a Cluster with tls settings mounts the
// processes' certificate and projects the CA file, exposes the TLS ports,
// gives tools run in it the certificate through FoundationDB's
// environment, and its processes listen where Listen says, with the TLS
// flags only while they listen with TLS.
func TestPodWithTLS(t *testing.T) {
	c := cluster(func(c *v1alpha1.Cluster) {
		c.Spec.ForProvider.TLS = &v1alpha1.TLSSettings{SecretName: "db-tls", PeerVerificationRules: "S.CN=db"}
	})
	p := Pod(c, group(v1alpha1.ProcessClassStorage, 1, "a"), "storage-1")
	type result struct {
		Secret, Mount, CAItem string
		Env                   []string
		TLSPort               bool
	}
	var got result
	for _, v := range p.Spec.Volumes {
		if v.Secret != nil {
			got.Secret = v.Secret.SecretName
		}
		if v.ConfigMap != nil {
			for _, i := range v.ConfigMap.Items {
				if i.Key == KeyTLSCA {
					got.CAItem = i.Path
				}
			}
		}
	}
	main := MainContainer(p)
	for _, m := range main.VolumeMounts {
		if m.Name == tlsVolume {
			got.Mount = m.MountPath
		}
	}
	for _, e := range main.Env {
		if strings.HasPrefix(e.Name, "FDB_TLS_") {
			got.Env = append(got.Env, e.Name+"="+e.Value)
		}
	}
	for _, port := range main.Ports {
		got.TLSPort = got.TLSPort || port.ContainerPort == int32(fdb.TLSProcessPort(1))
	}
	want := result{Secret: "db-tls", Mount: TLSDir, CAItem: tlsCAFileName, TLSPort: true, Env: []string{
		"FDB_TLS_CERTIFICATE_FILE=" + TLSCertificateFile, "FDB_TLS_KEY_FILE=" + TLSKeyFile, "FDB_TLS_CA_FILE=" + TLSCAFile, "FDB_TLS_VERIFY_PEERS=S.CN=db",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pod(...): -want, +got:\n%s", diff)
	}

	env := ProcessEnvironment(c, "storage-1", Placement{PublicIP: "10.0.0.1", Zone: "a", Machine: "node-1"})
	for name, tc := range map[string]struct {
		obs        v1alpha1.TLSObservation
		addresses  string
		tlsFlagged bool
	}{
		"Plain":        {obs: v1alpha1.TLSObservation{Coordinators: CoordinatorsPlain}, addresses: "--public_address=[10.0.0.1]:4501"},
		"ListenOnBoth": {obs: v1alpha1.TLSObservation{Coordinators: CoordinatorsPlain, Mounted: true}, addresses: "--public_address=[10.0.0.1]:4500:tls,[10.0.0.1]:4501", tlsFlagged: true},
		"TLSOnly":      {obs: v1alpha1.TLSObservation{Coordinators: CoordinatorsTLS, Mounted: true}, addresses: "--public_address=[10.0.0.1]:4500:tls", tlsFlagged: true},
	} {
		t.Run(name, func(t *testing.T) {
			c := c.DeepCopy()
			c.Status.AtProvider.TLS = &tc.obs
			line, err := MonitorConfiguration(c, Density{Class: v1alpha1.ProcessClassStorage, Processes: 1}).CommandLine(1, env, "7.3.63")
			if err != nil {
				t.Fatal(err)
			}
			args := strings.Fields(line)
			got := struct {
				Addresses  bool
				TLSFlagged bool
			}{containsArg(args, tc.addresses), containsArg(args, FlagTLSCertificateFile+"="+TLSCertificateFile) && containsArg(args, FlagTLSVerifyPeers+"=S.CN=db")}
			if diff := cmp.Diff(struct{ Addresses, TLSFlagged bool }{true, tc.tlsFlagged}, got); diff != "" {
				t.Errorf("command line %q: -want, +got:\n%s", line, diff)
			}
		})
	}
}

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}
