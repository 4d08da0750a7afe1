package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProcessClass is the FoundationDB process class of a process group.
// +kubebuilder:validation:Enum=storage;log;transaction;stateless;cluster_controller;commit_proxy;grv_proxy;resolution;ratekeeper;data_distributor;coordinator
type ProcessClass string

// Process classes: fdbserver's --class values (apple/foundationdb
// fdbrpc/include/fdbrpc/Locality.h, ProcessClass, 7.3.79). A role's own
// class fits it best, stateless second; coordinator-class processes take
// no role and serve only as coordinators, which `coordinators auto`
// prefers them for.
const (
	ProcessClassStorage           ProcessClass = "storage"
	ProcessClassLog               ProcessClass = "log"
	ProcessClassTransaction       ProcessClass = "transaction"
	ProcessClassStateless         ProcessClass = "stateless"
	ProcessClassClusterController ProcessClass = "cluster_controller"
	ProcessClassCommitProxy       ProcessClass = "commit_proxy"
	ProcessClassGrvProxy          ProcessClass = "grv_proxy"
	ProcessClassResolution        ProcessClass = "resolution"
	ProcessClassRatekeeper        ProcessClass = "ratekeeper"
	ProcessClassDataDistributor   ProcessClass = "data_distributor"
	ProcessClassCoordinator       ProcessClass = "coordinator"
)

// IsStateful reports whether processes of the class keep state on a
// volume: data, logs, or (coordinators) the coordinated state.
func (c ProcessClass) IsStateful() bool {
	return c == ProcessClassStorage || c == ProcessClassLog || c == ProcessClassTransaction || c == ProcessClassCoordinator
}

// ClusterReference names the Cluster a resource belongs to, directly or by
// reference or selector (resolved by Crossplane's reference resolver).
type ClusterReference struct {
	// ClusterName is the name of the Cluster in this namespace.
	// +optional
	// +crossplane:generate:reference:type=Cluster
	// +crossplane:generate:reference:extractor=clusterName()
	// +crossplane:generate:reference:refFieldName=ClusterRef
	// +crossplane:generate:reference:selectorFieldName=ClusterSelector
	ClusterName string `json:"clusterName,omitempty"`

	// ClusterRef references the Cluster to fill in clusterName.
	// +optional
	ClusterRef *xpv2.NamespacedReference `json:"clusterRef,omitempty"`

	// ClusterSelector selects the Cluster to fill in clusterName.
	// +optional
	ClusterSelector *xpv2.NamespacedSelector `json:"clusterSelector,omitempty"`
}

// BlobStore says where backups are kept, in the FoundationDB operator's
// format: blobstore://<accountName>/<backupName>?bucket=<bucket>&<urlParameters>.
type BlobStore struct {
	// AccountName is the blob-store account: <key>@<host>[:<port>]. The
	// secret key comes from credentialsSecretRef, never from here.
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+(:[0-9]{1,5})?$')",message="accountName must look like <key>@<host>[:<port>], e.g. backup@minio.storage.svc:9000"
	// +kubebuilder:validation:MaxLength=253
	AccountName string `json:"accountName"`

	// Bucket holds the backup files.
	// +optional
	// +kubebuilder:default=fdb-backups
	// +kubebuilder:validation:Pattern=`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`
	Bucket string `json:"bucket,omitempty"`

	// BackupName names the backup inside the bucket. Defaults to the name of
	// the resource.
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._-]+$`
	BackupName string `json:"backupName,omitempty"`

	// CredentialsSecretRef is a Secret in this namespace holding the blob
	// credentials file (key credentials) that backup agents and fdbrestore
	// read. Its contents are never logged or put in events.
	// +optional
	CredentialsSecretRef *xpv2.LocalSecretKeySelector `json:"credentialsSecretRef,omitempty"`

	// URLParameters are appended to the blob-store URL, e.g. secure_connection=0.
	// +optional
	// +kubebuilder:validation:items:Pattern=`^[a-z_]+=[^&?]+$`
	URLParameters []string `json:"urlParameters,omitempty"`
}

// PolicyDecision records the last safety-policy decision for a resource.
type PolicyDecision struct {
	// Action that was evaluated, e.g. Exclude.
	Action string `json:"action"`

	// Targets of the action (process-group IDs or addresses).
	// +optional
	Targets []string `json:"targets,omitempty"`

	// Result is Allowed, Denied, Warned or Audited.
	Result string `json:"result"`

	// Policy and rule that decided, as <policy>/<rule>, when one failed.
	// +optional
	Rule string `json:"rule,omitempty"`

	// Message explains the decision with the values that led to it.
	// +optional
	Message string `json:"message,omitempty"`

	// Time of the decision.
	Time metav1.Time `json:"time"`

	// AllowedAt is, for a denied action, when the policies would allow it
	// if nothing but the clock moved (a wait that an age ends, such as the
	// time since the last recovery); unset when time alone would not allow
	// it within a day.
	// +optional
	AllowedAt *metav1.Time `json:"allowedAt,omitempty"`
}
