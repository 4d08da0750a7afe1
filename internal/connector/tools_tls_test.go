package connector

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestToolsPresentTheClusterClientCertificate: the tools ToolsFDB runs for
// a Cluster with tls settings — the running version's and, across an
// upgrade to another protocol, the spec version's — are given the
// certificate and key of the client Secret and the CA file of the
// cluster's ConfigMap, with the peer verification rules; a Cluster whose
// Secret is missing gets no client, and the error names the Secret, never
// what it holds. The tools are stand-in scripts that keep what the files
// they were given held.
func TestToolsPresentTheClusterClientCertificate(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	ns := "tools-tls"
	const (
		cert  = "-----BEGIN CERTIFICATE-----\nY2xpZW50\n-----END CERTIFICATE-----\n"
		key   = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n"
		ca    = "-----BEGIN CERTIFICATE-----\nc2VjcmV0LWNh\n-----END CERTIFICATE-----\n"
		trust = "-----BEGIN CERTIFICATE-----\ndHJ1c3RlZA==\n-----END CERTIFICATE-----\n"
		rules = "Check.Valid=1,S.CN=db"
	)
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-client-tls"},
			StringData: map[string]string{certs.KeyCert: cert, certs.KeyKey: key, certs.KeyCA: ca}},
	} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	dir, kept := t.TempDir(), t.TempDir()
	for _, line := range []string{"7.1", "7.3"} {
		// Each run keeps "<line> <flag> <content>" of every TLS file, and
		// the rules, and times out: the 7.1 tools' status does, so the
		// 7.3 tools are asked.
		script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in\n" +
			"--tls-*-file) printf '%s %s %s' " + line + " \"$1\" \"$(cat \"$2\")\" >> " + filepath.Join(kept, "files") + "; echo >> " + filepath.Join(kept, "files") + ";;\n" +
			"--tls-verify-peers) echo \"" + line + " $2\" >> " + filepath.Join(kept, "rules") + ";;\n" +
			"esac; shift; done\necho \"Specified timeout reached -- exiting...\"; exit 1\n"
		if err := os.MkdirAll(filepath.Join(dir, line), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, line, "fdbcli"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cr, cm, _ := simCluster(ns)
	cr.Spec.ForProvider.Version, cr.Status.AtProvider.RunningVersion = "7.3.63", "7.1.67"
	cr.Spec.ForProvider.TLS = &fdbv1alpha1.TLSSettings{SecretName: "db-tls", ClientSecretName: "db-client-tls", PeerVerificationRules: rules}
	cm.Data[workload.KeyTLSCA] = ca + trust

	secret, err := clientSecret(ctx, env.Client, cr)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := clientCredentials(cr, cm, secret)
	if err != nil {
		t.Fatal(err)
	}
	db, err := ToolsFDB{BinaryDir: dir}.Client(ctx, Target{Client: env.Client, Live: env.Client}, cr, cm, nil, creds)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = db.Status(ctx) // the stand-ins time out
	files, _ := os.ReadFile(filepath.Join(kept, "files"))
	gotRules, _ := os.ReadFile(filepath.Join(kept, "rules"))
	var want []string
	for _, line := range []string{"7.1", "7.3"} {
		want = append(want, line+" --tls-certificate-file "+strings.TrimSuffix(cert, "\n"), line+" --tls-key-file "+strings.TrimSuffix(key, "\n"),
			line+" --tls-ca-file "+strings.TrimSuffix(ca+trust, "\n"))
	}
	if diff := cmp.Diff(strings.Join(want, "\n")+"\n", string(files)); diff != "" {
		t.Errorf("the TLS files the tools were given: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("7.1 "+rules+"\n7.3 "+rules+"\n", string(gotRules)); diff != "" {
		t.Errorf("the peer verification rules the tools were given: -want, +got:\n%s", diff)
	}

	cr.Spec.ForProvider.TLS.ClientSecretName = "missing"
	if secret, err = clientSecret(ctx, env.Client, cr); err != nil {
		t.Fatal(err)
	}
	_, err = clientCredentials(cr, cm, secret)
	if err == nil || !strings.Contains(err.Error(), "Secret "+ns+"/missing (spec.forProvider.tls.clientSecretName)") {
		t.Errorf("clientCredentials(...) without the client Secret: %v, want an error naming the Secret and its field", err)
	}
	secret = &corev1.Secret{Data: map[string][]byte{certs.KeyCert: []byte(cert), certs.KeyCA: []byte(ca)}}
	_, err = clientCredentials(cr, cm, secret)
	if err == nil || strings.Contains(err.Error(), "BEGIN") || !strings.Contains(err.Error(), "has no key "+certs.KeyKey) {
		t.Errorf("clientCredentials(...) with a Secret without a key: %v, want an error naming the key, without the Secret's content", err)
	}
}
