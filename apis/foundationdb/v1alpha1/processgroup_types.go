package v1alpha1

import (
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProcessGroupConditionType is a FoundationDB-operator-style condition of a
// process group.
// +kubebuilder:validation:Enum=MissingPod;MissingPVC;MissingService;MissingProcesses;PodPending;PodFailing;IncorrectPodSpec;IncorrectCommandLine;IncorrectConfigMap;ProcessIsMarkedAsExcluded;ResourcesTerminating;NodeNotReady;NodeTainted;ProcessHasIOError
type ProcessGroupConditionType string

// Process-group condition types.
const (
	MissingPod                ProcessGroupConditionType = "MissingPod"
	MissingPVC                ProcessGroupConditionType = "MissingPVC"
	MissingService            ProcessGroupConditionType = "MissingService"
	MissingProcesses          ProcessGroupConditionType = "MissingProcesses"
	PodPending                ProcessGroupConditionType = "PodPending"
	PodFailing                ProcessGroupConditionType = "PodFailing"
	IncorrectPodSpec          ProcessGroupConditionType = "IncorrectPodSpec"
	IncorrectCommandLine      ProcessGroupConditionType = "IncorrectCommandLine"
	IncorrectConfigMap        ProcessGroupConditionType = "IncorrectConfigMap"
	ProcessIsMarkedAsExcluded ProcessGroupConditionType = "ProcessIsMarkedAsExcluded"
	ResourcesTerminating      ProcessGroupConditionType = "ResourcesTerminating"
	NodeNotReady              ProcessGroupConditionType = "NodeNotReady"
	// NodeTainted: the pod's node carries a taint the Cluster's
	// automation.taintReplacements names (the operator's
	// NodeTaintDetected); since the earlier of when the group first saw it
	// and the taint's timeAdded.
	NodeTainted ProcessGroupConditionType = "NodeTainted"
	// ProcessHasIOError: a process of the group lists an io_error or
	// io_timeout among its status messages (the operator's condition of
	// the same name).
	ProcessHasIOError ProcessGroupConditionType = "ProcessHasIOError"
)

// ProcessGroupCondition is a condition of a process group and when it began.
type ProcessGroupCondition struct {
	// Type of the condition.
	Type ProcessGroupConditionType `json:"type"`
	// Since is when the condition was first observed.
	Since metav1.Time `json:"since"`
}

// ProcessGroupParameters are the desired state of a process group: one pod
// (and volume) running processesPerPod FoundationDB processes of one class.
// +kubebuilder:validation:XValidation:rule="has(self.clusterName) || has(self.clusterRef) || has(self.clusterSelector)",message="one of clusterName, clusterRef or clusterSelector is required"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterName) || size(oldSelf.clusterName) == 0 || (has(self.clusterName) && self.clusterName == oldSelf.clusterName)",message="clusterName is immutable once set"
type ProcessGroupParameters struct {
	ClusterReference `json:",inline"`

	// ProcessClass of the processes. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="processClass is immutable"
	ProcessClass ProcessClass `json:"processClass"`

	// ProcessesPerPod is the number of fdbserver processes in the pod.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=8
	ProcessesPerPod int `json:"processesPerPod,omitempty"`

	// FaultDomain is the zone the group should be placed in (a hint the
	// scheduler follows with node affinity).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	FaultDomain string `json:"faultDomain,omitempty"`

	// FaultDomainKey is the node label FaultDomain is a value of: the
	// Cluster's faultDomain.key when it created the group. A group whose key
	// is no longer the Cluster's is replaced, never moved in place.
	// +optional
	// +kubebuilder:validation:MaxLength=316
	FaultDomainKey string `json:"faultDomainKey,omitempty"`

	// PublicIPSource is where the group's processes take their public
	// address from: the Cluster's routing.publicIPSource when it created
	// the group. With service the group has a Service of its pod's name
	// whose cluster IP its processes are known by. A group whose source is
	// no longer the Cluster's is replaced, never changed in place.
	// +optional
	// +kubebuilder:validation:Enum=pod;service
	PublicIPSource PublicIPSource `json:"publicIPSource,omitempty"`
}

// ProcessGroupObservation is the observed state of a process group.
type ProcessGroupObservation struct {
	// PodName of the group's pod in the target cluster.
	// +optional
	PodName string `json:"podName,omitempty"`

	// Addresses of the group's processes, IP:port.
	// +optional
	Addresses []string `json:"addresses,omitempty"`

	// DNSName of the group's pod under its cluster's headless Service: a
	// cluster file with DNS names names the group's coordinators
	// <dnsName>:<port>.
	// +optional
	DNSName string `json:"dnsName,omitempty"`

	// ProcessIDs of the group's processes, <group>-<n>.
	// +optional
	ProcessIDs []string `json:"processIDs,omitempty"`

	// FaultDomain the group runs in.
	// +optional
	FaultDomain string `json:"faultDomain,omitempty"`

	// Roles the group's processes serve that make removing it matter:
	// storage, log, coordinator. The stateless roles FoundationDB recruits
	// anew at every recovery are left out.
	// +optional
	Roles []string `json:"roles,omitempty"`

	// Excluded is true when FoundationDB lists the group as excluded.
	// +optional
	Excluded bool `json:"excluded,omitempty"`

	// ExclusionTime is when the group was excluded.
	// +optional
	ExclusionTime *metav1.Time `json:"exclusionTime,omitempty"`

	// RemovalTime is when removal of the group began.
	// +optional
	RemovalTime *metav1.Time `json:"removalTime,omitempty"`

	// ExclusionProgress is how much data the excluded group's storage
	// servers still hold, while it is excluded and the status says.
	// +optional
	ExclusionProgress *ExclusionProgress `json:"exclusionProgress,omitempty"`

	// ProcessGroupConditions describe what is wrong with the group, with
	// the time each was first seen.
	// +optional
	// +listType=map
	// +listMapKey=type
	ProcessGroupConditions []ProcessGroupCondition `json:"processGroupConditions,omitempty"`

	// LastPolicyDecision is the last safety-policy decision for this group.
	// +optional
	LastPolicyDecision *PolicyDecision `json:"lastPolicyDecision,omitempty"`
}

// ExclusionProgress is how far the exclusion of a group got: the bytes its
// storage servers held when it was first seen excluded, and those they
// hold now.
type ExclusionProgress struct {
	// BytesAtExclusion are the bytes its storage servers held when the
	// group was first seen excluded.
	BytesAtExclusion int64 `json:"bytesAtExclusion"`
	// BytesLeft are those they hold now; ObservedAt is when they last
	// changed.
	BytesLeft  int64       `json:"bytesLeft"`
	ObservedAt metav1.Time `json:"observedAt"`
}

// A ProcessGroupSpec defines the desired state of a ProcessGroup.
type ProcessGroupSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ProcessGroupParameters `json:"forProvider"`
}

// A ProcessGroupStatus represents the observed state of a ProcessGroup.
type ProcessGroupStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ProcessGroupObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A ProcessGroup is one FoundationDB pod with its volume and processes. The
// Cluster controller creates them; deleting one removes it safely: exclude,
// wait until it holds no data and no role, delete, include.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="CLASS",type="string",JSONPath=".spec.forProvider.processClass"
// +kubebuilder:printcolumn:name="ADDRESS",type="string",JSONPath=".status.atProvider.addresses[0]"
// +kubebuilder:printcolumn:name="EXCLUDED",type="boolean",JSONPath=".status.atProvider.excluded"
// +kubebuilder:printcolumn:name="REPLACING",type="string",JSONPath=".metadata.annotations.foundationdb\\.crossplane\\.io/replacement"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,foundationdb}
type ProcessGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProcessGroupSpec   `json:"spec"`
	Status ProcessGroupStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProcessGroupList contains a list of ProcessGroup.
type ProcessGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProcessGroup `json:"items"`
}

// ID is the process group ID (e.g. storage-3): the external name, or the
// resource's name when it has none.
func (pg *ProcessGroup) ID() string {
	if id := pg.GetAnnotations()[externalNameAnnotation]; id != "" {
		return id
	}
	return pg.GetName()
}

// Annotations of a ProcessGroup about its replacement.
const (
	// AnnotationReplace, set to "true" by a user, asks for the group to be
	// replaced, like listing it in the Cluster's processGroupsToReplace.
	AnnotationReplace = "foundationdb.crossplane.io/replace"
	// AnnotationReplacement is set by the Cluster controller once it
	// started replacing the group (the ReplaceProcessGroup gate allowed
	// it); its value is why. A group carrying it no longer counts towards
	// its class: a new group takes its place, then it is removed.
	AnnotationReplacement = "foundationdb.crossplane.io/replacement"
	// AnnotationRestart, set to an RFC 3339 time by a user (kubectl
	// foundationdb restart), asks for the group's processes that started
	// before that time to be restarted: killed together with the other
	// bounces due, gated as Kill. A time still to come is not honoured
	// until it has passed.
	AnnotationRestart = "foundationdb.crossplane.io/restart-requested"
)

// RestartRequested is when a restart of the group's processes was asked
// for (AnnotationRestart); false when it was not, or not as an RFC 3339
// time.
func (pg *ProcessGroup) RestartRequested() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, pg.GetAnnotations()[AnnotationRestart])
	return t, err == nil
}

// Replacing reports whether the Cluster started replacing the group.
func (pg *ProcessGroup) Replacing() bool { return pg.GetAnnotations()[AnnotationReplacement] != "" }

// externalNameAnnotation is crossplane-runtime's external-name annotation.
const externalNameAnnotation = "crossplane.io/external-name"
