package backup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/gate"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// agentsOf reads a Backup's agents Deployment; nil when it does not exist.
func agentsOf(t *testing.T, b *v1alpha1.Backup) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: b.Namespace, Name: b.Name + "-backup-agents"}, d)
	if kerrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// layer is the backup layer of the simulated database's status.
func layer(t *testing.T, cr *v1alpha1.Cluster) fdb.BackupLayer {
	t.Helper()
	st, err := h.Sim(t, cr).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Cluster.Layers.Backup
}

func decided(b *v1alpha1.Backup, action, result string) bool {
	d := b.Status.AtProvider.LastPolicyDecision
	return d != nil && d.Action == action && d.Result == result
}

// TestBackupLifecycle walks a Backup through start, agent scaling, pause,
// resume, a snapshot period change, stop, restart and deletion, checking the
// Kubernetes objects, the simulated database, the Backup's status and its
// events at each step — and that the blob credentials never leave their
// Secret.
func TestBackupLifecycle(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	ns := "backup-lifecycle"
	cr := readyCluster(t, ns)
	db := h.Sim(t, cr)
	b := newBackup(ns, "nightly")
	if err := env.Client.Create(ctx, b); err != nil {
		t.Fatal(err)
	}

	// Start: the agents run and the backup becomes restorable.
	eventually(t, 60*time.Second, "backup running and restorable", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return at.Running && at.AgentsReady == 2 && at.RestorableVersion > 0
	}))
	d := agentsOf(t, b)
	if d == nil || *d.Spec.Replicas != 2 {
		t.Fatalf("agents Deployment %v, want 2 replicas", d)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "foundationdb/foundationdb:7.3.63" || !slices.Contains(c.Args, "--blob_credentials") || len(c.Env) != 0 || c.Command[0] != "/usr/bin/backup_agent" {
		t.Errorf("agent container: image %s, command %v, args %v, env %v", c.Image, c.Command, c.Args, c.Env)
	}
	if d.Labels[workload.LabelComponent] != workload.ComponentBackupAgent || d.Labels[workload.LabelCluster] != "db" {
		t.Errorf("agents labels %v", d.Labels)
	}
	st, err := db.BackupStatus(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if want := "blobstore://backup@minio.storage.svc:9000/nightly?bucket=fdb-backups&secure_connection=0"; st.URL != want || st.SnapshotPeriodSeconds != 60 {
		t.Errorf("database backup: URL %s period %d, want %s and 60", st.URL, st.SnapshotPeriodSeconds, want)
	}
	if want := "blobstore://minio.storage.svc:9000/nightly?bucket=fdb-backups&secure_connection=0"; b.Status.AtProvider.URL != want {
		t.Errorf("status URL %s, want %s", b.Status.AtProvider.URL, want)
	}
	if l := layer(t, cr); l.InstancesRunning != 2 {
		t.Errorf("the database sees %d agents, want 2", l.InstancesRunning)
	}
	h.WaitEvents(t, b, "CreatedBackupAgents: created Deployment nightly-backup-agents with 2 backup agents", `StartedBackup: starting the backup on tag "default"`)

	// Scale the agents.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.AgentCount = 3 })
	eventually(t, 30*time.Second, "three agents", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		d := agentsOf(t, b)
		return at.AgentsReady == 3 && d != nil && *d.Spec.Replicas == 3 && layer(t, cr).InstancesRunning == 3
	}))
	h.WaitEvents(t, b, "UpdatedBackupAgents: scaling the backup agents from 2 to 3")

	// Pause.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.BackupState = v1alpha1.BackupPaused })
	eventually(t, 30*time.Second, "backup paused", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return at.Paused && at.Running && decided(b, "PauseBackup", "Allowed") && layer(t, cr).Paused
	}))

	// Resume.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.BackupState = v1alpha1.BackupRunning })
	eventually(t, 30*time.Second, "backup resumed", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return !at.Paused && at.Running && decided(b, "ResumeBackup", "Allowed") && !layer(t, cr).Paused
	}))

	// Change the snapshot period.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.SnapshotPeriodSeconds = 120 })
	eventually(t, 30*time.Second, "snapshot period modified", settled(t, b, func(v1alpha1.BackupObservation) bool {
		st, err := db.BackupStatus(ctx, "default")
		return err == nil && st.SnapshotPeriodSeconds == 120 && decided(b, "ModifyBackup", "Allowed")
	}))
	h.WaitEvents(t, b, `ModifiedBackup: changing the snapshot period of tag "default" from 60s to 120s`)

	// Stop: the backup completes after its current snapshot; the agents
	// stay.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.BackupState = v1alpha1.BackupStopped })
	eventually(t, 60*time.Second, "backup stopped", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return !at.Running && at.State == string(fdb.BackupCompleted) && decided(b, "StopBackup", "Allowed")
	}))
	if d := agentsOf(t, b); d == nil || *d.Spec.Replicas != 3 {
		t.Errorf("the agents of a stopped backup are gone: %v", d)
	}

	// Restart, until the new backup is restorable.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.BackupState = v1alpha1.BackupRunning })
	eventually(t, 60*time.Second, "backup restarted and restorable", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return at.Running && at.State == string(fdb.BackupRunningDifferentially) && decided(b, "StartBackup", "Allowed")
	}))

	// Delete: the backup is stopped (its restorable version is fresh) and
	// the agents are removed.
	if err := env.Client.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "Backup deleted with its agents", func() (bool, string) {
		gone := env.Client.Get(ctx, client.ObjectKeyFromObject(b), &v1alpha1.Backup{}) != nil
		return gone && agentsOf(t, b) == nil && layer(t, cr).InstancesRunning == 0,
			fmt.Sprintf("gone=%t agents=%v instances=%d events=%v", gone, agentsOf(t, b) != nil, layer(t, cr).InstancesRunning, h.Events(t, b))
	})
	h.WaitEvents(t, b, `StoppedBackup: stopping the backup on tag "default": the Backup is being deleted`, "DeletedBackupAgents: deleted Deployment nightly-backup-agents")

	// The credentials stayed in their Secret.
	list := &corev1.EventList{}
	if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(list)
	if strings.Contains(string(raw), secretValue) {
		t.Errorf("an event holds the blob secret")
	}
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}

// TestStopLastBackupDenied stops the cluster's only backup after its
// agents were paused for more than an hour: the default fdb-backup policy
// refuses, naming its rule, until the Backup carries the override
// annotation; then the backup stops (its agents resumed so it can finish).
func TestStopLastBackupDenied(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	ns := "backup-stop-denied"
	cr := readyCluster(t, ns)
	b := newBackup(ns, "only")
	if err := env.Client.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "backup restorable", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return at.Running && at.RestorableVersion > 0
	}))

	// Paused agents let the restorable version fall behind.
	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.BackupState = v1alpha1.BackupPaused })
	eventually(t, 60*time.Second, "restorable version over an hour old", func() (bool, string) {
		behind := layer(t, cr).Tags["default"].LastRestorableSecondsBehind
		return behind > 3700, fmt.Sprintf("%.0fs behind", behind)
	})

	update(t, b, func(b *v1alpha1.Backup) { b.Spec.ForProvider.BackupState = v1alpha1.BackupStopped })
	const denial = `stop-backup default denied by fdb-backup/last-backup-restorable: this is the last running backup and its restorable version is `
	eventually(t, 30*time.Second, "stop denied", func() (bool, string) {
		get(t, b)
		d, synced, allowed := b.Status.AtProvider.LastPolicyDecision, b.GetCondition(xpv2.TypeSynced), b.GetCondition(gate.TypePolicyAllowed)
		ok := d != nil && d.Action == "StopBackup" && d.Result == "Denied" && d.Rule == "fdb-backup/last-backup-restorable" &&
			strings.HasPrefix(d.Message, denial) && strings.Contains(d.Message, "s old, more than 3600s: stopping it leaves no recent restore point") &&
			strings.Contains(d.Message, `annotate the Backup with `+policy.AnnotationAllowStopLastBackup+`: "true" to stop it anyway`) &&
			synced.Status == corev1.ConditionFalse && strings.Contains(synced.Message, denial) &&
			allowed.Status == corev1.ConditionFalse && allowed.Reason == gate.ReasonPolicyDenied
		return ok, describe(t, b)
	})
	h.WaitEvents(t, b, "PolicyDenied: "+denial)
	if st, err := h.Sim(t, cr).BackupStatus(ctx, "default"); err != nil || !st.Running || !st.AgentsPaused {
		t.Fatalf("the denied stop changed the backup: %+v, %v", st, err)
	}

	// The override annotation lets it stop.
	update(t, b, func(b *v1alpha1.Backup) {
		metav1.SetMetaDataAnnotation(&b.ObjectMeta, policy.AnnotationAllowStopLastBackup, "true")
	})
	eventually(t, 60*time.Second, "backup stopped with the override", settled(t, b, func(at v1alpha1.BackupObservation) bool {
		return !at.Running && !at.Paused && at.State == string(fdb.BackupCompleted) && decided(b, "StopBackup", "Allowed")
	}))
	h.WaitEvents(t, b, `StoppedBackup: stopping the backup on tag "default" and resuming the paused agents`)

	if err := env.Client.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "Backup deleted", func() (bool, string) {
		gone := env.Client.Get(ctx, client.ObjectKeyFromObject(b), &v1alpha1.Backup{}) != nil
		return gone && agentsOf(t, b) == nil, fmt.Sprintf("gone=%t", gone)
	})
}
