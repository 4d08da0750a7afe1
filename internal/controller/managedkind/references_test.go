package managedkind

import (
	"context"
	"fmt"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// TestQuickResolverResolvesAndSkips: a reference still to resolve is
// resolved and written to the API server; one resolved already costs no
// write; one that cannot resolve says which field.
func TestQuickResolverResolvesAndSkips(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	ns := "quick-resolver"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	db := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{Version: "7.3.63"}}}
	if err := env.Client.Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		ref         v1alpha1.ClusterReference
		wantName    string
		wantWritten bool
		wantErr     string
	}{
		"ReferenceToResolve":   {ref: v1alpha1.ClusterReference{ClusterRef: &xpv2.NamespacedReference{Name: "db"}}, wantName: "db", wantWritten: true},
		"Resolved":             {ref: v1alpha1.ClusterReference{ClusterName: "db", ClusterRef: &xpv2.NamespacedReference{Name: "db"}}, wantName: "db"},
		"NameOnly":             {ref: v1alpha1.ClusterReference{ClusterName: "db"}, wantName: "db"},
		"ReferenceToNoCluster": {ref: v1alpha1.ClusterReference{ClusterRef: &xpv2.NamespacedReference{Name: "missing"}}, wantErr: "Spec.ForProvider.ClusterReference.ClusterName"},
	}
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			pg := &v1alpha1.ProcessGroup{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pg-%d", i), Namespace: ns},
				Spec: v1alpha1.ProcessGroupSpec{ForProvider: v1alpha1.ProcessGroupParameters{ClusterReference: tc.ref, ProcessClass: v1alpha1.ProcessClassStorage}}}
			if err := env.Client.Create(ctx, pg); err != nil {
				t.Fatal(err)
			}
			before := pg.ResourceVersion
			pg.SetGroupVersionKind(v1alpha1.ProcessGroupGroupVersionKind) // as the informer cache serves it
			err := newQuickResolver(env.Client).ResolveReferences(ctx, pg)
			if got := errString(err); tc.wantErr == "" && got != "" || !strings.Contains(got, tc.wantErr) {
				t.Fatalf("ResolveReferences: error %q, want one containing %q", got, tc.wantErr)
			}
			live := &v1alpha1.ProcessGroup{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pg), live); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantName, live.Spec.ForProvider.ClusterName); diff != "" {
				t.Errorf("clusterName on the API server: -want +got:\n%s", diff)
			}
			if written := live.ResourceVersion != before; written != tc.wantWritten {
				t.Errorf("written: %v, want %v", written, tc.wantWritten)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
