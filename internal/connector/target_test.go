package connector

import (
	"context"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

func TestTargetsClient(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "connector"
	secretCreds := v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{
		Source: xpv2.CredentialsSourceSecret,
		CommonCredentialSelectors: xpv2.CommonCredentialSelectors{SecretRef: &xpv2.SecretKeySelector{
			SecretReference: xpv2.SecretReference{Namespace: ns, Name: "kubeconfig"}, Key: "kubeconfig",
		}},
	}}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kubeconfig"}, Data: map[string][]byte{"kubeconfig": env.Kubeconfig(t)}},
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "local"}, Spec: v1alpha1.ProviderConfigSpec{
			Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "remote"}, Spec: secretCreds},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	cases := map[string]struct {
		ref        *xpv2.ProviderConfigReference
		wantLocal  bool
		wantRemote bool
		wantErr    string
	}{
		"InjectedIdentityIsTheLocalCluster": {ref: &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "local"}, wantLocal: true},
		"SecretIsARemoteCluster":            {ref: &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "remote"}, wantRemote: true},
		"NoReference":                       {wantErr: errTrackUsage},
		"MissingProviderConfig":             {ref: &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "absent"}, wantErr: errGetPC},
		"MissingClusterProviderConfig":      {ref: &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "absent"}, wantErr: errGetCPC},
		"UnknownKind":                       {ref: &xpv2.ProviderConfigReference{Kind: "Other", Name: "x"}, wantErr: `kind must be ProviderConfig or ClusterProviderConfig, not "Other"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := &fdbv1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: strings.ToLower(name)},
				Spec:       fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: "7.3.63"}},
			}
			if err := c.Create(ctx, mg); err != nil {
				t.Fatal(err)
			}
			// The managed reconciler's objects carry their kind; the usage's
			// owner reference is built from it.
			mg.SetGroupVersionKind(fdbv1alpha1.ClusterGroupVersionKind)
			mg.SetProviderConfigReference(tc.ref)
			remote := false
			newClient := KubeconfigClient(client.Options{Scheme: env.Scheme})
			targets := NewTargets(c, c, nil, func(kc []byte) (client.Client, *rest.Config, error) { remote = true; return newClient(kc) })

			got, err := targets.Client(ctx, mg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Client: error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantLocal, got.Client == client.Client(c)); diff != "" {
				t.Errorf("local client: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRemote, remote); diff != "" {
				t.Errorf("remote client built: -want, +got:\n%s", diff)
			}
			// Local says the same without a client.
			local, err := Local(ctx, c, mg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantLocal, local); diff != "" {
				t.Errorf("Local: -want, +got:\n%s", diff)
			}
			// The returned client reaches the target cluster.
			if err := got.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}); err != nil {
				t.Errorf("target client cannot read: %v", err)
			}
			if err := got.Live.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}); err != nil {
				t.Errorf("target's live reader cannot read: %v", err)
			}
			// The use of the config is recorded, named after the resource's UID.
			pcu := &v1alpha1.ProviderConfigUsage{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: string(mg.GetUID())}, pcu); err != nil {
				t.Fatalf("no ProviderConfigUsage: %v", err)
			}
			if diff := cmp.Diff(*tc.ref, pcu.ProviderConfigReference); diff != "" {
				t.Errorf("usage records: -want, +got:\n%s", diff)
			}
		})
	}
}
