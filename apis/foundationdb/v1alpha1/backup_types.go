package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BackupState is the desired state of a continuous backup.
// +kubebuilder:validation:Enum=Running;Paused;Stopped
type BackupState string

// Backup states.
const (
	BackupRunning BackupState = "Running"
	BackupPaused  BackupState = "Paused"
	BackupStopped BackupState = "Stopped"
)

// BackupParameters are the desired state of a continuous backup of a Cluster
// to a blob store.
// +kubebuilder:validation:XValidation:rule="has(self.clusterName) || has(self.clusterRef) || has(self.clusterSelector)",message="one of clusterName, clusterRef or clusterSelector is required"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterName) || size(oldSelf.clusterName) == 0 || (has(self.clusterName) && self.clusterName == oldSelf.clusterName)",message="clusterName is immutable once set"
type BackupParameters struct {
	ClusterReference `json:",inline"`

	// BackupState says whether the backup runs, is paused or is stopped.
	// +optional
	// +kubebuilder:default=Running
	BackupState BackupState `json:"backupState,omitempty"`

	// AgentCount is the number of backup agents.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:XValidation:rule="self >= 1",message="agentCount must be at least 1"
	// +kubebuilder:validation:Maximum=100
	AgentCount int `json:"agentCount,omitempty"`

	// SnapshotPeriodSeconds is the time to write one full snapshot.
	// +optional
	// +kubebuilder:default=864000
	// +kubebuilder:validation:Minimum=1
	SnapshotPeriodSeconds int `json:"snapshotPeriodSeconds,omitempty"`

	// BlobStore says where the backup is written.
	BlobStore BlobStore `json:"blobStore"`

	// Tag names the backup inside FoundationDB.
	// +optional
	// +kubebuilder:default=default
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="tag is immutable"
	Tag string `json:"tag,omitempty"`
}

// BackupObservation is the observed state of a backup.
type BackupObservation struct {
	// State of the backup as FoundationDB reports it, e.g. running.
	// +optional
	State string `json:"state,omitempty"`

	// Running is true while the backup is running.
	// +optional
	Running bool `json:"running,omitempty"`

	// Paused is true while backups are paused.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// RestorableVersion is the newest version the backup can restore to.
	// +optional
	RestorableVersion int64 `json:"restorableVersion,omitempty"`

	// SnapshotProgress is the progress of the current snapshot, in percent.
	// +optional
	SnapshotProgress int `json:"snapshotProgress,omitempty"`

	// AgentsReady is the number of ready backup agents.
	// +optional
	AgentsReady int `json:"agentsReady,omitempty"`

	// URL of the backup, without credentials.
	// +optional
	URL string `json:"url,omitempty"`

	// LastPolicyDecision is the last safety-policy decision for this backup.
	// +optional
	LastPolicyDecision *PolicyDecision `json:"lastPolicyDecision,omitempty"`
}

// A BackupSpec defines the desired state of a Backup.
type BackupSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              BackupParameters `json:"forProvider"`
}

// A BackupStatus represents the observed state of a Backup.
type BackupStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 BackupObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A Backup is a continuous backup of a FoundationDB Cluster to a blob store,
// with its backup agents.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="STATE",type="string",JSONPath=".status.atProvider.state"
// +kubebuilder:printcolumn:name="RESTORABLE VERSION",type="integer",JSONPath=".status.atProvider.restorableVersion"
// +kubebuilder:printcolumn:name="AGENTS",type="integer",JSONPath=".status.atProvider.agentsReady"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,foundationdb}
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackupSpec   `json:"spec"`
	Status BackupStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BackupList contains a list of Backup.
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Backup `json:"items"`
}
