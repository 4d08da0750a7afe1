package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/certs"
)

// Labels of a Backup's agents Deployment and its pods, besides the cluster
// label: the component tells them from the cluster's pods (and lets the
// simulator count the agents), the backup names the Backup they serve.
const (
	LabelComponent       = "foundationdb.crossplane.io/component"
	LabelBackup          = "foundationdb.crossplane.io/backup"
	ComponentBackupAgent = "backup-agent"
)

// Defaults of a Backup's parameters, as the CRD defaults them; the builders
// apply them to zero values too.
const (
	DefaultBackupAgents          = 2
	DefaultSnapshotPeriodSeconds = 864000
	DefaultBackupBucket          = "fdb-backups"
	DefaultBackupTag             = "default"
)

// Paths and names inside a backup-agent pod.
const (
	backupImageRepo       = "foundationdb/foundationdb"
	backupContainerName   = "backup-agent"
	backupAgentBinary     = "/usr/bin/backup_agent"
	blobCredentialsVolume = "blob-credentials"
	blobCredentialsDir    = "/var/secrets/blob"
	blobCredentialsFile   = "credentials"
	traceLogVolume        = "trace-logs"
	clusterFileName       = "fdb.cluster"
)

// BackupAgentsName is the name of a Backup's agents Deployment.
func BackupAgentsName(b *v1alpha1.Backup) string { return b.GetName() + "-backup-agents" }

// BackupAgentLabels are the labels of a Backup's agents Deployment and of
// its pods; they are also the Deployment's selector.
func BackupAgentLabels(c *v1alpha1.Cluster, b *v1alpha1.Backup) map[string]string {
	l := Labels(c, "", "")
	l[LabelComponent] = ComponentBackupAgent
	l[LabelBackup] = b.GetName()
	return l
}

// BackupImage is the image the backup agents of cluster c run: the
// FoundationDB image of the cluster's version, which has backup_agent.
func BackupImage(c *v1alpha1.Cluster) string {
	return backupImageRepo + ":" + c.Spec.ForProvider.Version
}

// AgentCount is the Backup's agent count, defaulted.
func AgentCount(b *v1alpha1.Backup) int {
	if n := b.Spec.ForProvider.AgentCount; n > 0 {
		return n
	}
	return DefaultBackupAgents
}

// BackupTag is the Backup's tag, defaulted.
func BackupTag(b *v1alpha1.Backup) string {
	if t := b.Spec.ForProvider.Tag; t != "" {
		return t
	}
	return DefaultBackupTag
}

// SnapshotPeriodSeconds is the Backup's snapshot period, defaulted.
func SnapshotPeriodSeconds(b *v1alpha1.Backup) int {
	if s := b.Spec.ForProvider.SnapshotPeriodSeconds; s > 0 {
		return s
	}
	return DefaultSnapshotPeriodSeconds
}

// BackupAgents is the Deployment of a Backup's agents: AgentCount replicas
// of backup_agent, connected to the cluster through the cluster file of its
// ConfigMap. The blob-store credentials are the referenced Secret's key,
// mounted read-only as a file and passed with --blob_credentials: they never
// appear in the spec, the environment or an argument. The hash of everything
// but the replica count is recorded in an annotation, so drift is found by
// comparing hashes. The agents run as the image's fdb user, ask for a
// stateless process's resources and pass the "restricted" Pod Security
// Standard, like the cluster's pods. With tls settings they present the
// clients' certificate (ClientSecretName) and trust the processes' CA file.
func BackupAgents(c *v1alpha1.Cluster, b *v1alpha1.Backup) *appsv1.Deployment {
	labels := BackupAgentLabels(c, b)
	args := []string{
		"--cluster_file", configDir + "/" + clusterFileName,
		"--log", "--logdir", logDir,
	}
	mounts := []corev1.VolumeMount{
		{Name: configVolume, MountPath: configDir, ReadOnly: true},
		{Name: traceLogVolume, MountPath: logDir},
	}
	volumes := []corev1.Volume{
		{Name: configVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(c)},
			Items:                []corev1.KeyToPath{{Key: KeyClusterFile, Path: clusterFileName}},
		}}},
		{Name: traceLogVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if ref := b.Spec.ForProvider.BlobStore.CredentialsSecretRef; ref != nil {
		args = append(args, "--blob_credentials", blobCredentialsDir+"/"+blobCredentialsFile)
		mounts = append(mounts, corev1.VolumeMount{Name: blobCredentialsVolume, MountPath: blobCredentialsDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: blobCredentialsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: ref.Name,
			Items:      []corev1.KeyToPath{{Key: ref.Key, Path: blobCredentialsFile}},
		}}})
	}
	if t := c.Spec.ForProvider.TLS; t != nil {
		// The agents present the clients' certificate and trust the CA
		// file of the processes: a client with TLS credentials reaches
		// plain-text listeners too, so they carry them whenever the
		// Cluster has tls settings, through every step of a migration.
		args = append(args, FlagTLSCertificateFile, TLSCertificateFile, FlagTLSKeyFile, TLSKeyFile, FlagTLSCAFile, TLSCAFile)
		if t.PeerVerificationRules != "" {
			args = append(args, FlagTLSVerifyPeers, t.PeerVerificationRules)
		}
		volumes[0].ConfigMap.Items = append(volumes[0].ConfigMap.Items, corev1.KeyToPath{Key: KeyTLSCA, Path: tlsCAFileName})
		mounts = append(mounts, corev1.VolumeMount{Name: tlsVolume, MountPath: TLSDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: tlsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: ClientSecretName(c),
			Items:      []corev1.KeyToPath{{Key: certs.KeyCert, Path: certs.KeyCert}, {Key: certs.KeyKey, Path: certs.KeyKey}},
		}}})
	}
	replicas := int32(AgentCount(b)) //nolint:gosec // admission caps agentCount at 100
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: BackupAgentsName(b), Namespace: Namespace(c), Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:            backupContainerName,
						Image:           BackupImage(c),
						ImagePullPolicy: c.Spec.ForProvider.Image.PullPolicy,
						Command:         []string{backupAgentBinary},
						Args:            args,
						VolumeMounts:    mounts,
						Resources:       corev1.ResourceRequirements{Requests: processRequests(v1alpha1.ProcessClassStateless)},
						SecurityContext: containerSecurity(),
					}},
					SecurityContext: podSecurity(),
					// The agents talk to the database and the blob store only.
					AutomountServiceAccountToken: ptr.To(false),
					Volumes:                      volumes,
					ImagePullSecrets:             append([]corev1.LocalObjectReference(nil), c.Spec.ForProvider.Image.PullSecrets...),
				},
			},
		},
	}
	d.Annotations = map[string]string{AnnotationSpec: DeploymentSpecHash(d.Spec)}
	return d
}

// DeploymentSpecHash is a stable hash of a Deployment spec as the provider
// built it, without its replica count (which is compared on its own).
func DeploymentSpecHash(spec appsv1.DeploymentSpec) string {
	spec.Replicas = nil
	raw, _ := json.Marshal(spec) // a DeploymentSpec always marshals
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// BlobStoreURL is the backup container URL of a blob store in the
// FoundationDB operator's format:
//
//	blobstore://<accountName>/<backupName>?bucket=<bucket>&<urlParameters...>
//
// backupName defaults to name (the resource's), bucket to fdb-backups. The
// account name is <key>@<host>[:<port>]; the secret key is never part of it
// (the agents and tools read it from the blob credentials file).
func BlobStoreURL(bs v1alpha1.BlobStore, name string) string {
	return "blobstore://" + bs.AccountName + blobStorePath(bs, name)
}

// BlobStoreStatusURL is BlobStoreURL without the account's key, for status:
// blobstore://<host>[:<port>]/<backupName>?bucket=….
func BlobStoreStatusURL(bs v1alpha1.BlobStore, name string) string {
	host := bs.AccountName
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	return "blobstore://" + host + blobStorePath(bs, name)
}

func blobStorePath(bs v1alpha1.BlobStore, name string) string {
	backupName, bucket := bs.BackupName, bs.Bucket
	if backupName == "" {
		backupName = name
	}
	if bucket == "" {
		bucket = DefaultBackupBucket
	}
	var b strings.Builder
	b.WriteString("/" + backupName + "?bucket=" + bucket)
	for _, p := range bs.URLParameters {
		b.WriteString("&" + p)
	}
	return b.String()
}

// blobUserInfo matches the user information (key, and key:secret in the
// operator's older format) of a blobstore URL.
var blobUserInfo = regexp.MustCompile(`^(blobstore://)[^@/?]*@`)

// RedactURL removes the user information from a blobstore URL, e.g. one
// that FoundationDB reports, so it can be shown in status.
func RedactURL(u string) string {
	return blobUserInfo.ReplaceAllString(u, "${1}")
}
