package backup_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
)

var (
	env *testenv.Env
	h   *controllertest.Harness
)

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// start runs the provider on the shared control plane, once per binary.
func start(t *testing.T) { h = controllertest.For(t, env) }

func get(t *testing.T, o client.Object) { h.Get(t, o) }
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	controllertest.Eventually(t, timeout, what, cond)
}

// secretValue is the blob-store secret of the tests' credentials; it must
// never show up anywhere but in its Secret.
const secretValue = "s3cr3t-d0-not-leak"

// readyCluster creates a double-redundancy cluster of three storage and
// three log groups, and the blob credentials Secret, in a new namespace and
// waits until the cluster is Ready.
func readyCluster(t *testing.T, ns string) *v1alpha1.Cluster {
	t.Helper()
	ctx := context.Background()
	h.Namespace(t, ns)
	cr := &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
			Version:               "7.3.63",
			DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2"},
			ProcessCounts:         v1alpha1.ProcessCounts{Storage: 3, Log: 3},
		}},
	}
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "blob-credentials", Namespace: ns},
		StringData: map[string]string{"credentials": fmt.Sprintf(`{"accounts":{"backup@minio.storage.svc":{"secret":%q}}}`, secretValue)},
	}
	if err := env.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "cluster Ready", func() (bool, string) {
		get(t, cr)
		r, u := cr.GetCondition(xpv2.TypeReady), cr.GetCondition(xpv2.TypeUpToDate)
		return r.Status == corev1.ConditionTrue && u.Status == corev1.ConditionTrue,
			fmt.Sprintf("Ready=%s %s; UpToDate=%s %s", r.Status, r.Message, u.Status, u.Message)
	})
	return cr
}

// newBackup is a Backup of cluster db with two agents and a one-minute
// snapshot period, so that it becomes restorable within a minute of
// virtual time.
func newBackup(ns, name string) *v1alpha1.Backup {
	return &v1alpha1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.BackupSpec{ForProvider: v1alpha1.BackupParameters{
			ClusterReference:      v1alpha1.ClusterReference{ClusterName: "db"},
			BackupState:           v1alpha1.BackupRunning,
			AgentCount:            2,
			SnapshotPeriodSeconds: 60,
			BlobStore: v1alpha1.BlobStore{
				AccountName:          "backup@minio.storage.svc:9000",
				CredentialsSecretRef: &xpv2.LocalSecretKeySelector{LocalSecretReference: xpv2.LocalSecretReference{Name: "blob-credentials"}, Key: "credentials"},
				URLParameters:        []string{"secure_connection=0"},
			},
		}},
	}
}

// update re-reads b, applies mod and writes it, retrying on conflicts with
// the controller's status writes.
func update(t *testing.T, b *v1alpha1.Backup, mod func(*v1alpha1.Backup)) {
	t.Helper()
	eventually(t, 10*time.Second, "Backup updated", func() (bool, string) {
		get(t, b)
		mod(b)
		err := env.Client.Update(context.Background(), b)
		return err == nil, fmt.Sprint(err)
	})
}

// describe summarizes a Backup for failure messages.
func describe(t *testing.T, b *v1alpha1.Backup) string {
	t.Helper()
	at := b.Status.AtProvider
	d := ""
	if p := at.LastPolicyDecision; p != nil {
		d = fmt.Sprintf("%s %s %s: %s", p.Action, p.Result, p.Rule, p.Message)
	}
	return fmt.Sprintf("state=%q running=%t paused=%t restorable=%d snapshot=%d%% agents=%d; Ready=%s %q; UpToDate=%s %q; Synced=%s %q; decision=%s; events=%v",
		at.State, at.Running, at.Paused, at.RestorableVersion, at.SnapshotProgress, at.AgentsReady,
		b.GetCondition(xpv2.TypeReady).Status, b.GetCondition(xpv2.TypeReady).Message,
		b.GetCondition(xpv2.TypeUpToDate).Status, b.GetCondition(xpv2.TypeUpToDate).Message,
		b.GetCondition(xpv2.TypeSynced).Status, b.GetCondition(xpv2.TypeSynced).Message, d, h.Events(t, b))
}

// settled reports whether the Backup is Ready, up to date and synced, and
// cond holds.
func settled(t *testing.T, b *v1alpha1.Backup, cond func(at v1alpha1.BackupObservation) bool) func() (bool, string) {
	return func() (bool, string) {
		get(t, b)
		ok := b.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue &&
			b.GetCondition(xpv2.TypeUpToDate).Status == corev1.ConditionTrue &&
			b.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue &&
			cond(b.Status.AtProvider)
		return ok, describe(t, b)
	}
}
