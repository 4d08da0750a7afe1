package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeyRange is a half-open range of keys [start, end), written as FoundationDB
// prints keys (printable characters with \xNN escapes).
// +kubebuilder:validation:XValidation:rule="self.start < self.end",message="keyRanges: start must sort before end"
type KeyRange struct {
	// Start of the range, inclusive.
	// +kubebuilder:validation:MaxLength=1024
	Start string `json:"start"`
	// End of the range, exclusive.
	// +kubebuilder:validation:MaxLength=1024
	End string `json:"end"`
}

// RestoreParameters are the desired state of a restore of a backup into a
// Cluster. They cannot change once the restore is created.
// +kubebuilder:validation:XValidation:rule="has(self.clusterName) || has(self.clusterRef) || has(self.clusterSelector)",message="one of clusterName, clusterRef or clusterSelector is required"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterName) || size(oldSelf.clusterName) == 0 || (has(self.clusterName) && self.clusterName == oldSelf.clusterName)",message="clusterName is immutable once set"
// +kubebuilder:validation:XValidation:rule="self.blobStore == oldSelf.blobStore && has(self.keyRanges) == has(oldSelf.keyRanges) && (!has(self.keyRanges) || self.keyRanges == oldSelf.keyRanges) && has(self.backupVersion) == has(oldSelf.backupVersion) && (!has(self.backupVersion) || self.backupVersion == oldSelf.backupVersion)",message="blobStore, keyRanges and backupVersion are immutable once the restore is created"
type RestoreParameters struct {
	// The destination Cluster.
	ClusterReference `json:",inline"`

	// BlobStore says where the backup to restore is.
	BlobStore BlobStore `json:"blobStore"`

	// KeyRanges to restore; everything when empty.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	KeyRanges []KeyRange `json:"keyRanges,omitempty"`

	// BackupVersion is the version to restore to; the newest restorable
	// version when unset.
	// +optional
	// +kubebuilder:validation:Minimum=0
	BackupVersion *int64 `json:"backupVersion,omitempty"`

	// AllowNonEmptyDestination lets the restore write into a cluster that
	// already holds data. The default safety policy refuses otherwise.
	// +optional
	AllowNonEmptyDestination bool `json:"allowNonEmptyDestination,omitempty"`
}

// RestoreState is the state of a restore, as FoundationDB reports it.
// +kubebuilder:validation:Enum=queued;starting;running;completed;aborted
type RestoreState string

// Restore states.
const (
	RestoreQueued    RestoreState = "queued"
	RestoreStarting  RestoreState = "starting"
	RestoreRunning   RestoreState = "running"
	RestoreCompleted RestoreState = "completed"
	RestoreAborted   RestoreState = "aborted"
)

// RestoreObservation is the observed state of a restore.
type RestoreObservation struct {
	// State of the restore.
	// +optional
	State RestoreState `json:"state,omitempty"`

	// Progress of the restore, in percent.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Progress int `json:"progress,omitempty"`

	// URL of the backup being restored, without credentials.
	// +optional
	URL string `json:"url,omitempty"`

	// LastPolicyDecision is the last safety-policy decision for this restore.
	// +optional
	LastPolicyDecision *PolicyDecision `json:"lastPolicyDecision,omitempty"`
}

// A RestoreSpec defines the desired state of a Restore.
type RestoreSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              RestoreParameters `json:"forProvider"`
}

// A RestoreStatus represents the observed state of a Restore.
type RestoreStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 RestoreObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A Restore restores a backup from a blob store into a FoundationDB Cluster.
// Deleting a running restore aborts it.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="STATE",type="string",JSONPath=".status.atProvider.state"
// +kubebuilder:printcolumn:name="PROGRESS",type="integer",JSONPath=".status.atProvider.progress"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,foundationdb}
type Restore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RestoreSpec   `json:"spec"`
	Status RestoreStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RestoreList contains a list of Restore.
type RestoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Restore `json:"items"`
}
