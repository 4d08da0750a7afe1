package workload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func TestBlobStoreURL(t *testing.T) {
	cases := map[string]struct {
		reason     string
		blob       v1alpha1.BlobStore
		name       string
		want       string
		wantStatus string
	}{
		"Defaults": {
			reason:     "backupName defaults to the resource's name, bucket to fdb-backups",
			blob:       v1alpha1.BlobStore{AccountName: "backup@minio.storage.svc:9000"},
			name:       "nightly",
			want:       "blobstore://backup@minio.storage.svc:9000/nightly?bucket=fdb-backups",
			wantStatus: "blobstore://minio.storage.svc:9000/nightly?bucket=fdb-backups",
		},
		"Explicit": {
			reason: "backupName, bucket and URL parameters in the order given",
			blob: v1alpha1.BlobStore{
				AccountName: "AKIA123@s3.us-east-1.amazonaws.com", Bucket: "prod-backups", BackupName: "quickstart",
				URLParameters: []string{"secure_connection=0", "region=us-east-1"},
			},
			name:       "ignored",
			want:       "blobstore://AKIA123@s3.us-east-1.amazonaws.com/quickstart?bucket=prod-backups&secure_connection=0&region=us-east-1",
			wantStatus: "blobstore://s3.us-east-1.amazonaws.com/quickstart?bucket=prod-backups&secure_connection=0&region=us-east-1",
		},
		"Credentials": {
			reason: "the secret key is never part of the URL: it comes from the credentials Secret",
			blob: v1alpha1.BlobStore{AccountName: "key@blob:443", CredentialsSecretRef: &xpv2.LocalSecretKeySelector{
				LocalSecretReference: xpv2.LocalSecretReference{Name: "blob"}, Key: "credentials",
			}},
			name:       "b",
			want:       "blobstore://key@blob:443/b?bucket=fdb-backups",
			wantStatus: "blobstore://blob:443/b?bucket=fdb-backups",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := []string{BlobStoreURL(tc.blob, tc.name), BlobStoreStatusURL(tc.blob, tc.name)}
			if diff := cmp.Diff([]string{tc.want, tc.wantStatus}, got); diff != "" {
				t.Errorf("%s\nURL, status URL: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	cases := map[string]struct {
		url  string
		want string
	}{
		"Key":          {url: "blobstore://key@host:443/b?bucket=x", want: "blobstore://host:443/b?bucket=x"},
		"KeyAndSecret": {url: "blobstore://key:s3cr3t@host/b?bucket=x", want: "blobstore://host/b?bucket=x"},
		"NoUser":       {url: "blobstore://host/b?bucket=x", want: "blobstore://host/b?bucket=x"},
		"AtInQuery":    {url: "blobstore://host/b?bucket=x&a=b@c", want: "blobstore://host/b?bucket=x&a=b@c"},
		"OtherScheme":  {url: "file:///backups/b", want: "file:///backups/b"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RedactURL(tc.url)); diff != "" {
				t.Errorf("RedactURL(%q): -want, +got:\n%s", tc.url, diff)
			}
		})
	}
}

func backup(mod ...func(*v1alpha1.Backup)) *v1alpha1.Backup {
	b := &v1alpha1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team"},
		Spec: v1alpha1.BackupSpec{ForProvider: v1alpha1.BackupParameters{
			ClusterReference: v1alpha1.ClusterReference{ClusterName: "db"},
			AgentCount:       3,
			BlobStore: v1alpha1.BlobStore{AccountName: "backup@minio:9000", CredentialsSecretRef: &xpv2.LocalSecretKeySelector{
				LocalSecretReference: xpv2.LocalSecretReference{Name: "blob-credentials"}, Key: "creds.json",
			}},
		}},
	}
	for _, m := range mod {
		m(b)
	}
	return b
}

func TestBackupAgents(t *testing.T) {
	three, two := int32(3), int32(2)
	labels := map[string]string{
		LabelCluster: "db", LabelManagedBy: ManagedBy, LabelComponent: ComponentBackupAgent, LabelBackup: "nightly",
	}
	configMap := corev1.Volume{Name: "config-map", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "db-config"},
		Items:                []corev1.KeyToPath{{Key: "cluster-file", Path: "fdb.cluster"}},
	}}}
	logs := corev1.Volume{Name: "trace-logs", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	deployment := func(replicas *int32, args []string, mounts []corev1.VolumeMount, volumes []corev1.Volume, pull corev1.PullPolicy, secrets []corev1.LocalObjectReference) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "nightly-backup-agents", Namespace: "team", Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						Containers: []corev1.Container{{
							Name: "backup-agent", Image: "foundationdb/foundationdb:7.3.63", ImagePullPolicy: pull,
							Command: []string{"/usr/bin/backup_agent"}, Args: args, VolumeMounts: mounts,
							Resources:       corev1.ResourceRequirements{Requests: processRequests(v1alpha1.ProcessClassStateless)},
							SecurityContext: containerSecurity(),
						}},
						SecurityContext:              podSecurity(),
						AutomountServiceAccountToken: ptr.To(false),
						Volumes:                      volumes,
						ImagePullSecrets:             secrets,
					},
				},
			},
		}
	}
	baseArgs := []string{"--cluster_file", "/var/dynamic-conf/fdb.cluster", "--log", "--logdir", "/var/log/fdb-trace-logs"}
	baseMounts := []corev1.VolumeMount{
		{Name: "config-map", MountPath: "/var/dynamic-conf", ReadOnly: true},
		{Name: "trace-logs", MountPath: "/var/log/fdb-trace-logs"},
	}
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.Cluster
		backup  *v1alpha1.Backup
		want    *appsv1.Deployment
	}{
		"WithCredentials": {
			reason:  "the Secret's key is mounted read-only as a file and passed with --blob_credentials",
			cluster: cluster(),
			backup:  backup(),
			want: deployment(&three,
				append(append([]string(nil), baseArgs...), "--blob_credentials", "/var/secrets/blob/credentials"),
				append(append([]corev1.VolumeMount(nil), baseMounts...), corev1.VolumeMount{Name: "blob-credentials", MountPath: "/var/secrets/blob", ReadOnly: true}),
				[]corev1.Volume{configMap, logs, {Name: "blob-credentials", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
					SecretName: "blob-credentials", Items: []corev1.KeyToPath{{Key: "creds.json", Path: "credentials"}},
				}}}},
				corev1.PullIfNotPresent, nil),
		},
		"WithoutCredentials": {
			reason: "without a Secret the agents get no credentials file; the agent count defaults to 2; pull secrets and the target namespace come from the Cluster",
			cluster: cluster(func(c *v1alpha1.Cluster) {
				c.Spec.ForProvider.TargetNamespace = "fdb"
				c.Spec.ForProvider.Image.PullPolicy = corev1.PullAlways
				c.Spec.ForProvider.Image.PullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
			}),
			backup: backup(func(b *v1alpha1.Backup) {
				b.Spec.ForProvider.AgentCount = 0
				b.Spec.ForProvider.BlobStore.CredentialsSecretRef = nil
			}),
			want: func() *appsv1.Deployment {
				d := deployment(&two, baseArgs, baseMounts, []corev1.Volume{configMap, logs}, corev1.PullAlways, []corev1.LocalObjectReference{{Name: "registry"}})
				d.Namespace = "fdb"
				return d
			}(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := BackupAgents(tc.cluster, tc.backup)
			tc.want.Annotations = map[string]string{AnnotationSpec: DeploymentSpecHash(tc.want.Spec)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nBackupAgents: -want, +got:\n%s", tc.reason, diff)
			}
			// Nothing but a reference to the Secret is in the Deployment:
			// no environment, no secret value.
			raw, _ := json.Marshal(got)
			if len(got.Spec.Template.Spec.Containers[0].Env) != 0 || strings.Contains(string(raw), "secretKeyRef") {
				t.Errorf("the agents get credentials through the environment: %s", raw)
			}
		})
	}
}

func TestDeploymentSpecHash(t *testing.T) {
	base := BackupAgents(cluster(), backup()).Annotations[AnnotationSpec]
	cases := map[string]struct {
		cluster  *v1alpha1.Cluster
		backup   *v1alpha1.Backup
		wantSame bool
	}{
		"SameSpec":      {cluster: cluster(), backup: backup(), wantSame: true},
		"MoreAgents":    {cluster: cluster(), backup: backup(func(b *v1alpha1.Backup) { b.Spec.ForProvider.AgentCount = 7 }), wantSame: true},
		"NewVersion":    {cluster: cluster(func(c *v1alpha1.Cluster) { c.Spec.ForProvider.Version = "7.3.64" }), backup: backup()},
		"OtherSecret":   {cluster: cluster(), backup: backup(func(b *v1alpha1.Backup) { b.Spec.ForProvider.BlobStore.CredentialsSecretRef.Name = "other" })},
		"NewPeriodOnly": {cluster: cluster(), backup: backup(func(b *v1alpha1.Backup) { b.Spec.ForProvider.SnapshotPeriodSeconds = 60 }), wantSame: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := BackupAgents(tc.cluster, tc.backup).Annotations[AnnotationSpec]
			if diff := cmp.Diff(tc.wantSame, got == base); diff != "" {
				t.Errorf("hash %s vs %s: same -want, +got:\n%s", got, base, diff)
			}
		})
	}
}

func TestBackupDefaults(t *testing.T) {
	b := backup(func(b *v1alpha1.Backup) { b.Spec.ForProvider.AgentCount = 0 })
	got := []any{AgentCount(b), BackupTag(b), SnapshotPeriodSeconds(b)}
	if diff := cmp.Diff([]any{2, "default", 864000}, got); diff != "" {
		t.Errorf("defaults: -want, +got:\n%s", diff)
	}
	b = backup(func(b *v1alpha1.Backup) {
		b.Spec.ForProvider.Tag, b.Spec.ForProvider.SnapshotPeriodSeconds = "hourly", 3600
	})
	got = []any{AgentCount(b), BackupTag(b), SnapshotPeriodSeconds(b)}
	if diff := cmp.Diff([]any{3, "hourly", 3600}, got); diff != "" {
		t.Errorf("set values: -want, +got:\n%s", diff)
	}
}

// TestRestoreExampleReadsWhereTheBackupWrites checks that the example
// Restore names the URL the example Backup writes to, parameters included:
// without the backup's secure_connection=0, fdbrestore would speak HTTPS to
// a blob store that speaks plain HTTP (S3BlobStore's default is 1).
func TestRestoreExampleReadsWhereTheBackupWrites(t *testing.T) {
	read := func(name string, into any) {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, into); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	b, r := &v1alpha1.Backup{}, &v1alpha1.Restore{}
	read("backup.yaml", b)
	read("restore.yaml", r)
	backup := BlobStoreURL(b.Spec.ForProvider.BlobStore, b.Spec.ForProvider.BlobStore.BackupName)
	restore := BlobStoreURL(r.Spec.ForProvider.BlobStore, r.Spec.ForProvider.BlobStore.BackupName)
	if diff := cmp.Diff(backup, restore); diff != "" {
		t.Errorf("the example Restore's URL: -the Backup's, +the Restore's:\n%s", diff)
	}
}
