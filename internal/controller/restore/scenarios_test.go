package restore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controllertest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
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

// destination creates a Ready double-redundancy cluster (which, simulated,
// holds 1 GiB of data) and a Backup of it in state Stopped: no backup
// runs, but its two agents do, and restores need them.
func destination(t *testing.T, ns string) *v1alpha1.Cluster {
	t.Helper()
	ctx := context.Background()
	h.Namespace(t, ns)
	cr := &v1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "restored", Namespace: ns},
		Spec: v1alpha1.ClusterSpec{ForProvider: v1alpha1.ClusterParameters{
			Version:               "7.3.63",
			DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: v1alpha1.RedundancyDouble, StorageEngine: "ssd-2"},
			ProcessCounts:         v1alpha1.ProcessCounts{Storage: 3, Log: 3},
		}},
	}
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	agents := &v1alpha1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: "agents", Namespace: ns},
		Spec: v1alpha1.BackupSpec{ForProvider: v1alpha1.BackupParameters{
			ClusterReference: v1alpha1.ClusterReference{ClusterName: cr.Name},
			BackupState:      v1alpha1.BackupStopped,
			AgentCount:       2,
			BlobStore:        v1alpha1.BlobStore{AccountName: "backup@minio.storage.svc:9000"},
		}},
	}
	if err := env.Client.Create(ctx, agents); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "cluster Ready", func() (bool, string) {
		get(t, cr)
		return cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue, fmt.Sprintf("Ready=%s %s", cr.GetCondition(xpv2.TypeReady).Status, cr.GetCondition(xpv2.TypeReady).Message)
	})
	db := h.Sim(t, cr)
	eventually(t, 30*time.Second, "two idle backup agents", func() (bool, string) {
		get(t, agents)
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		ok := agents.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && st.Cluster.Layers.Backup.InstancesRunning == 2 && st.Cluster.Data.TotalKVSizeBytes > 0
		return ok, fmt.Sprintf("agents Ready=%s %s; instances %d; kv %d", agents.GetCondition(xpv2.TypeReady).Status, agents.GetCondition(xpv2.TypeReady).Message,
			st.Cluster.Layers.Backup.InstancesRunning, st.Cluster.Data.TotalKVSizeBytes)
	})
	if agents.Status.AtProvider.Running {
		t.Errorf("a Backup created Stopped started a backup")
	}
	return cr
}

func newRestore(ns, name string, allowNonEmpty bool) *v1alpha1.Restore {
	return &v1alpha1.Restore{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.RestoreSpec{ForProvider: v1alpha1.RestoreParameters{
			ClusterReference: v1alpha1.ClusterReference{ClusterName: "restored"},
			BlobStore: v1alpha1.BlobStore{
				AccountName:          "backup@minio.storage.svc:9000",
				BackupName:           "nightly",
				CredentialsSecretRef: &xpv2.LocalSecretKeySelector{LocalSecretReference: xpv2.LocalSecretReference{Name: "blob-credentials"}, Key: "credentials"},
			},
			AllowNonEmptyDestination: allowNonEmpty,
		}},
	}
}

func describe(t *testing.T, r *v1alpha1.Restore) string {
	t.Helper()
	at := r.Status.AtProvider
	return fmt.Sprintf("state=%q progress=%d%%; Ready=%s %q; Synced=%s %q; events=%v", at.State, at.Progress,
		r.GetCondition(xpv2.TypeReady).Status, r.GetCondition(xpv2.TypeReady).Message,
		r.GetCondition(xpv2.TypeSynced).Status, r.GetCondition(xpv2.TypeSynced).Message, h.Events(t, r))
}

// TestRestore restores into a cluster that holds data: the default
// fdb-restore policy refuses until the Restore allows a non-empty
// destination, then the restore runs to completed. A second restore is
// aborted by deleting its Restore.
func TestRestore(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	ns := "restore"
	cr := destination(t, ns)
	db := h.Sim(t, cr)

	r := newRestore(ns, "from-nightly", false)
	t.Run("DeniedIntoClusterWithData", func(t *testing.T) {
		if err := env.Client.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		const denial = "start-restore from-nightly denied by fdb-restore/empty-destination: the destination database holds data; " +
			"set spec.forProvider.allowNonEmptyDestination: true on the Restore to restore into it anyway"
		eventually(t, 30*time.Second, "restore denied", func() (bool, string) {
			get(t, r)
			synced := r.GetCondition(xpv2.TypeSynced)
			d := r.Status.AtProvider.LastPolicyDecision
			recorded := d != nil && d.Action == "StartRestore" && d.Result == "Denied" && d.Rule == "fdb-restore/empty-destination"
			return synced.Status == corev1.ConditionFalse && strings.Contains(synced.Message, denial) && recorded &&
				controllertest.ContainsAny(h.Events(t, r), "PolicyDenied: "+denial), describe(t, r)
		})
		if _, err := db.RestoreStatus(ctx, "from-nightly"); !errors.Is(err, fdb.ErrNotFound) {
			t.Errorf("a denied restore started: %v", err)
		}
	})

	t.Run("RunsToCompleted", func(t *testing.T) {
		eventually(t, 10*time.Second, "Restore allows a non-empty destination", func() (bool, string) {
			get(t, r)
			r.Spec.ForProvider.AllowNonEmptyDestination = true
			err := env.Client.Update(ctx, r)
			return err == nil, fmt.Sprint(err)
		})
		eventually(t, 60*time.Second, "restore completed", func() (bool, string) {
			get(t, r)
			at := r.Status.AtProvider
			return r.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && r.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue &&
				at.State == v1alpha1.RestoreCompleted && at.Progress == 100, describe(t, r)
		})
		if want := "blobstore://minio.storage.svc:9000/nightly?bucket=fdb-backups"; r.Status.AtProvider.URL != want {
			t.Errorf("status URL %s, want %s", r.Status.AtProvider.URL, want)
		}
		h.WaitEvents(t, r, `StartedRestore: started restoring blobstore://minio.storage.svc:9000/nightly?bucket=fdb-backups into cluster restored on tag "from-nightly"`)
		// A completed restore is deleted without aborting anything.
		if err := env.Client.Delete(ctx, r); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "completed Restore deleted", func() (bool, string) {
			return env.Client.Get(ctx, client.ObjectKeyFromObject(r), &v1alpha1.Restore{}) != nil, describe(t, r)
		})
		if st, err := db.RestoreStatus(ctx, "from-nightly"); err != nil || st.State != fdb.RestoreCompleted {
			t.Errorf("restore after deleting its Restore: %+v, %v", st, err)
		}
	})

	t.Run("AbortedByDeletion", func(t *testing.T) {
		// Virtual time stands still, so the restore is caught running.
		h.Flow(false)
		defer h.Flow(true)
		a := newRestore(ns, "aborted", true)
		if err := env.Client.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "restore queued", func() (bool, string) {
			get(t, a)
			return a.Status.AtProvider.State == v1alpha1.RestoreQueued, describe(t, a)
		})
		h.Clock.Step(5 * time.Second)
		eventually(t, 30*time.Second, "restore running", func() (bool, string) {
			get(t, a)
			at := a.Status.AtProvider
			return at.State == v1alpha1.RestoreRunning && at.Progress > 0 && at.Progress < 100 &&
				a.GetCondition(xpv2.TypeReady).Status == corev1.ConditionFalse, describe(t, a)
		})
		eventually(t, 30*time.Second, "the Cluster shows the restore's progress", func() (bool, string) {
			get(t, cr)
			ops := cr.Status.AtProvider.Operations
			ok := slices.ContainsFunc(ops, func(op v1alpha1.OperationProgress) bool {
				return op.Operation == v1alpha1.OperationRestore && op.Target == "aborted" && op.Done == a.Status.AtProvider.Progress && op.Total == 100
			})
			return ok, fmt.Sprintf("operations %+v, restore at %d%%", ops, a.Status.AtProvider.Progress)
		})
		if err := env.Client.Delete(ctx, a); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "Restore deleted and its restore aborted", func() (bool, string) {
			gone := env.Client.Get(ctx, client.ObjectKeyFromObject(a), &v1alpha1.Restore{}) != nil
			st, err := db.RestoreStatus(ctx, "aborted")
			return gone && err == nil && st.State == fdb.RestoreAborted, fmt.Sprintf("gone=%t restore %+v %v; %s", gone, st, err, describe(t, a))
		})
		h.WaitEvents(t, a, `AbortedRestore: aborting the running restore on tag "aborted": the Restore is being deleted`)
	})
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}
