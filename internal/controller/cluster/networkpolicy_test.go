package cluster

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// networkPolicy enables the Cluster's NetworkPolicy, admitting the pods
// labelled app=orders.
func networkPolicy() mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) {
		cr.Spec.ForProvider.NetworkPolicy = &v1alpha1.NetworkPolicySettings{Enabled: true,
			ClientSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "orders"}}}
	}
}

// networkPolicyWritten makes the observation hold the NetworkPolicy the
// spec asks for, as after its step of an earlier reconcile.
func networkPolicyWritten() mutation {
	return func(cr *v1alpha1.Cluster, o *observation) {
		o.networkPolicy = workload.NetworkPolicy(cr, densities(cr, o.groups))
		o.networkPolicy.ResourceVersion, o.networkPolicy.UID = "7", "np-uid"
	}
}

// networkPolicyDisabled turns the Cluster's NetworkPolicy off.
func networkPolicyDisabled() mutation {
	return func(cr *v1alpha1.Cluster, _ *observation) { cr.Spec.ForProvider.NetworkPolicy.Enabled = false }
}

func TestPlanNetworkPolicy(t *testing.T) {
	const (
		updated = "updated NetworkPolicy db: the database's ports admit only the Cluster's pods, its backup agents, the provider and the clients spec.forProvider.networkPolicy names"
		deleted = "deleted NetworkPolicy db: spec.forProvider.networkPolicy is not enabled, so the provider no longer restricts who reaches the database's ports"
	)
	enabled, _ := observed(5, networkPolicy())
	want := workload.NetworkPolicy(enabled, workload.Densities(enabled))
	written := want.DeepCopy()
	written.ResourceVersion, written.UID = "7", "np-uid"
	// dense is the policy of the pods of two storage processes that an
	// added group runs while the spec asks for one.
	dense := written.DeepCopy()
	dense.Spec.Ingress[0].Ports = workload.NetworkPolicy(enabled, map[workload.Density]bool{{Class: v1alpha1.ProcessClassStorage, Processes: 2}: true}).Spec.Ingress[0].Ports

	cases := map[string]struct {
		reason string
		mutate []mutation
		want   *clusterStep
	}{
		"DisabledNone": {
			reason: "A Cluster that does not enable its NetworkPolicy and has none needs no step.",
		},
		"EnabledMissing": {
			reason: "A Cluster that enables its NetworkPolicy gets it created.",
			mutate: []mutation{networkPolicy()},
			want: &clusterStep{Step: step.Step{Reason: reasonNetworkPolicy, Message: updated},
				Kind: kindWriteNetworkPolicy, NetworkPolicy: want},
		},
		"EnabledCurrent": {
			reason: "A NetworkPolicy as the spec says needs no step.",
			mutate: []mutation{networkPolicy(), networkPolicyWritten()},
		},
		"EnabledEdited": {
			reason: "A NetworkPolicy whose rules were edited is put back, its resource version kept.",
			mutate: []mutation{networkPolicy(), networkPolicyWritten(), func(_ *v1alpha1.Cluster, o *observation) {
				o.networkPolicy.Spec.Ingress[0].From = append(o.networkPolicy.Spec.Ingress[0].From, networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}})
			}},
			want: &clusterStep{Step: step.Step{Reason: reasonNetworkPolicy, Message: updated},
				Kind: kindWriteNetworkPolicy, NetworkPolicy: written},
		},
		"EnabledDenserGroup": {
			reason: "A group whose pod runs more processes than the spec asks for (a density migration) keeps all of its ports reachable.",
			mutate: []mutation{networkPolicy(), networkPolicyWritten(), func(_ *v1alpha1.Cluster, o *observation) {
				groupNamed(o, "storage-5").Spec.ForProvider.ProcessesPerPod = 2
			}, currentConfigMap()},
			want: &clusterStep{Step: step.Step{Reason: reasonNetworkPolicy, Message: updated},
				Kind: kindWriteNetworkPolicy, NetworkPolicy: dense},
		},
		"DisabledWritten": {
			reason: "The NetworkPolicy the provider wrote goes once the Cluster no longer enables it.",
			mutate: []mutation{networkPolicy(), networkPolicyWritten(), networkPolicyDisabled()},
			want: &clusterStep{Step: step.Step{Reason: reasonNetworkPolicyDeleted, Message: deleted},
				Kind: kindDeleteNetworkPolicy, NetworkPolicy: written},
		},
		"DisabledSomeoneElses": {
			reason: "A NetworkPolicy of the Cluster's name that the provider did not write is not the provider's to delete.",
			mutate: []mutation{networkPolicy(), networkPolicyWritten(), networkPolicyDisabled(), func(_ *v1alpha1.Cluster, o *observation) {
				o.networkPolicy.Labels = map[string]string{"team": "platform"}
			}},
		},
		"DisabledDeleting": {
			reason: "A NetworkPolicy already being deleted is not deleted again.",
			mutate: []mutation{networkPolicy(), networkPolicyWritten(), networkPolicyDisabled(), func(_ *v1alpha1.Cluster, o *observation) {
				o.networkPolicy.DeletionTimestamp = &metav1.Time{}
			}},
		},
		"AfterMonitorAccessBeforeGroups": {
			reason: "The NetworkPolicy is written after the monitor's access and before new groups, so that their pods start behind it.",
			mutate: []mutation{networkPolicy(), storage(6), func(_ *v1alpha1.Cluster, o *observation) { o.binding = nil }},
			want: &clusterStep{Step: step.Step{Reason: reasonAccess, Message: "updated the monitor's access to its pod in namespace ns"},
				Kind: kindWriteAccess, Access: []client.Object{workload.MonitorRoleBinding("ns")}},
		},
		"BeforeGroups": {
			reason: "A NetworkPolicy to write comes before new groups.",
			mutate: []mutation{networkPolicy(), storage(6)},
			want: &clusterStep{Step: step.Step{Reason: reasonNetworkPolicy, Message: updated},
				Kind: kindWriteNetworkPolicy, NetworkPolicy: want},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr, o := observed(5, tc.mutate...)
			if diff := cmp.Diff(tc.want, next(cr, o), compareGroups); diff != "" {
				t.Errorf("\n%s\nnext(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTLSConnectionDetails(t *testing.T) {
	const (
		plainCS = "db:01234567@10.0.0.2:4501,10.0.0.3:4501,10.0.0.4:4501"
		tlsCS   = "db:01234567@10.0.0.2:4500:tls,10.0.0.3:4500:tls,10.0.0.4:4500:tls"
		ca      = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"
		how     = " It trusts the CA in this Secret's ca.crt and presents a certificate, with its key, issued by that CA, as the processes' certificate in Secret db-tls " +
			"(spec.forProvider.tls.secretName) is: e.g. a cert-manager Certificate from the same issuer. Give it to the client as FDB_TLS_CERTIFICATE_FILE, " +
			"FDB_TLS_KEY_FILE and FDB_TLS_CA_FILE (or the TLS_cert_path, TLS_key_path and TLS_ca_path network options). This Secret holds no key."
	)
	cases := map[string]struct {
		reason  string
		tls     *v1alpha1.TLSSettings
		secrets *tlsSecrets
		cs      string
		want    managed.ConnectionDetails
	}{
		"NoTLSSettings": {
			reason: "A Cluster without tls settings adds nothing.",
			cs:     plainCS,
			want:   managed.ConnectionDetails{},
		},
		"SecretsUnread": {
			reason: "Without the Secrets read in this reconcile there is no CA to give.",
			tls:    &v1alpha1.TLSSettings{SecretName: "db-tls"},
			cs:     tlsCS,
			want:   managed.ConnectionDetails{},
		},
		"TLS": {
			reason:  "With TLS coordinators a client must speak TLS with a certificate of the CA, which the details carry; never a key.",
			tls:     &v1alpha1.TLSSettings{SecretName: "db-tls", ClientSecretName: "db-client-tls"},
			secrets: &tlsSecrets{ca: ca},
			cs:      tlsCS,
			want: managed.ConnectionDetails{KeyTLSCA: []byte(ca),
				KeyTLSNote: []byte("The cluster file names TLS coordinators: a client must speak TLS." + how)},
		},
		"PlainYet": {
			reason:  "A database still in plain text says a client needs TLS once it moves to it.",
			tls:     &v1alpha1.TLSSettings{SecretName: "db-tls"},
			secrets: &tlsSecrets{ca: ca},
			cs:      plainCS,
			want: managed.ConnectionDetails{KeyTLSCA: []byte(ca),
				KeyTLSNote: []byte("The database runs in plain text now (its cluster file names no TLS coordinator); once it moves to TLS a client must speak TLS." + how)},
		},
		"PeerRules": {
			reason:  "Peer verification rules are named: a certificate of the CA that fails them is refused.",
			tls:     &v1alpha1.TLSSettings{SecretName: "db-tls", PeerVerificationRules: "Check.Valid=1,S.O=Example"},
			secrets: &tlsSecrets{ca: ca},
			cs:      tlsCS,
			want: managed.ConnectionDetails{KeyTLSCA: []byte(ca),
				KeyTLSNote: []byte("The cluster file names TLS coordinators: a client must speak TLS." + how +
					` The processes accept only certificates that satisfy "Check.Valid=1,S.O=Example" (spec.forProvider.tls.peerVerificationRules).`)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.Cluster{}
			cr.Spec.ForProvider.TLS = tc.tls
			got := managed.ConnectionDetails{}
			addTLSDetails(got, cr, tc.secrets, tc.cs)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\naddTLSDetails(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
