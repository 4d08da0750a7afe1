package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ActionType names a mutation that the provider gates with safety policies.
// +kubebuilder:validation:Enum=CreateProcessGroup;RemoveProcessGroup;Exclude;Include;Kill;DeletePod;ForceDeletePod;ChangeCoordinators;ConfigureDatabase;Upgrade;StartBackup;StopBackup;PauseBackup;ResumeBackup;ModifyBackup;StartRestore;AbortRestore;DeleteCluster;RemoveUnreachableProcessGroup;ReplaceProcessGroup;SetMaintenance;ResetMaintenance;DisableLocks;FailoverRegion;RecoverCoordinators;Drill;"*"
type ActionType string

// The gated actions. ActionAll matches every action.
const (
	ActionCreateProcessGroup ActionType = "CreateProcessGroup"
	ActionRemoveProcessGroup ActionType = "RemoveProcessGroup"
	ActionExclude            ActionType = "Exclude"
	ActionInclude            ActionType = "Include"
	ActionKill               ActionType = "Kill"
	ActionDeletePod          ActionType = "DeletePod"
	ActionForceDeletePod     ActionType = "ForceDeletePod"
	ActionChangeCoordinators ActionType = "ChangeCoordinators"
	ActionConfigureDatabase  ActionType = "ConfigureDatabase"
	ActionUpgrade            ActionType = "Upgrade"
	ActionStartBackup        ActionType = "StartBackup"
	ActionStopBackup         ActionType = "StopBackup"
	ActionPauseBackup        ActionType = "PauseBackup"
	ActionResumeBackup       ActionType = "ResumeBackup"
	ActionModifyBackup       ActionType = "ModifyBackup"
	ActionStartRestore       ActionType = "StartRestore"
	ActionAbortRestore       ActionType = "AbortRestore"
	// ActionDeleteCluster deletes a database: its process groups, pods and
	// volumes, without exclusion.
	ActionDeleteCluster ActionType = "DeleteCluster"
	// ActionRemoveUnreachableProcessGroup removes a process group that
	// cannot prove it holds no data: none of its processes report.
	ActionRemoveUnreachableProcessGroup ActionType = "RemoveUnreachableProcessGroup"
	// ActionReplaceProcessGroup starts replacing process groups of one
	// class, at a user's request, to fix a misconfiguration, or on the
	// provider's own decision after they failed; the steps that follow
	// (creating, excluding, removing groups) are gated on their own.
	ActionReplaceProcessGroup ActionType = "ReplaceProcessGroup"
	// ActionSetMaintenance puts a fault domain under FoundationDB's
	// maintenance while its pods are restarted on purpose: data
	// distribution does not re-replicate their data meanwhile.
	// ActionResetMaintenance ends it.
	ActionSetMaintenance   ActionType = "SetMaintenance"
	ActionResetMaintenance ActionType = "ResetMaintenance"
	// ActionDisableLocks lets a Cluster of a database shared with other
	// Clusters act without the global lock (spec.forProvider.locks.
	// disableLocks), so that it may act at the same time as them.
	ActionDisableLocks ActionType = "DisableLocks"
	// ActionFailoverRegion moves the primary of a multi-region database to
	// another region: planned (a change of region priorities) or forced
	// after the primary's region is lost (force_recovery_with_data_loss).
	ActionFailoverRegion ActionType = "FailoverRegion"
	// ActionRecoverCoordinators brings back a database whose coordinators
	// lost their coordinated state, a majority of them with their disks:
	// the coordination files of one that kept it are copied to new
	// coordinators, and every process restarts on their connection
	// string. What the survivor had not seen is lost.
	ActionRecoverCoordinators ActionType = "RecoverCoordinators"
	// ActionDrill starts a fault drill (spec.forProvider.drill): its
	// fault goes into the targets, process groups, for a bounded time.
	ActionDrill ActionType = "Drill"
	ActionAll   ActionType = "*"
)

// Enforcement says what a failed validation does, with the meaning of a
// ValidatingAdmissionPolicyBinding's validationActions.
// +kubebuilder:validation:Enum=Deny;Warn;Audit
type Enforcement string

// Enforcement actions.
const (
	// EnforcementDeny blocks the action; the resource waits and says why.
	EnforcementDeny Enforcement = "Deny"
	// EnforcementWarn lets the action proceed and emits a Warning event.
	EnforcementWarn Enforcement = "Warn"
	// EnforcementAudit lets the action proceed and only records the decision.
	EnforcementAudit Enforcement = "Audit"
)

// A MatchCondition narrows the actions a policy applies to. The policy applies
// only when every match condition evaluates to true.
type MatchCondition struct {
	// Name identifies the condition in decision traces.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Expression is a CEL expression that must evaluate to a bool.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=5120
	Expression string `json:"expression"`
}

// A Variable is a named CEL expression that validations can use as
// variables.<name>. Variables are evaluated lazily, in order.
type Variable struct {
	// Name of the variable.
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_][a-zA-Z0-9_]*$`
	Name string `json:"name"`

	// Expression is the CEL expression that computes the variable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=5120
	Expression string `json:"expression"`
}

// A Validation is one rule of a policy: the action is allowed when the
// expression evaluates to true.
type Validation struct {
	// Name of the rule, shown in denials as <policy>/<rule>.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Expression is a CEL expression that must evaluate to a bool; true allows.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=5120
	Expression string `json:"expression"`

	// Message is shown when the rule fails and messageExpression is unset or
	// fails. It must be a single line.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^\n\r]*$`
	Message string `json:"message,omitempty"`

	// MessageExpression is a CEL expression that must evaluate to a string,
	// shown when the rule fails, e.g. with the values that failed it.
	// +optional
	// +kubebuilder:validation:MaxLength=5120
	MessageExpression string `json:"messageExpression,omitempty"`

	// Reason is a machine-readable reason for a failure.
	// +optional
	// +kubebuilder:default=Forbidden
	Reason string `json:"reason,omitempty"`
}

// SafetyPolicySpec is a set of CEL rules that every matching mutation of a
// FoundationDB cluster must pass. Its shape follows Kubernetes
// ValidatingAdmissionPolicy.
type SafetyPolicySpec struct {
	// Actions this policy applies to. "*" matches every action.
	// +kubebuilder:validation:MinItems=1
	// +listType=set
	Actions []ActionType `json:"actions"`

	// MatchConditions narrow which of those actions the policy applies to.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty"`

	// Variables are named expressions that validations use as variables.<name>.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	Variables []Variable `json:"variables,omitempty"`

	// Validations are the rules; all must pass for the action to be allowed.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	Validations []Validation `json:"validations"`

	// Params are default parameter values, visible as params.<name>. A
	// Cluster's spec.forProvider.safety.params override them.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Params *runtime.RawExtension `json:"params,omitempty"`

	// Enforcement of a failed validation: Deny blocks the action, Warn lets it
	// proceed with a Warning event, Audit only records the decision.
	// +optional
	// +kubebuilder:default=Deny
	Enforcement Enforcement `json:"enforcement,omitempty"`
}

// SafetyPolicyStatus reports whether the policy compiled.
type SafetyPolicyStatus struct {
	xpv2.ConditionedStatus `json:",inline"`

	// ObservedGeneration is the generation the conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +kubebuilder:object:root=true

// A SafetyPolicy is a set of CEL rules that gate mutations of FoundationDB
// clusters: exclusions, removals, kills, coordinator changes, configuration
// changes, upgrades, backups and restores.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="ENFORCEMENT",type="string",JSONPath=".spec.enforcement"
// +kubebuilder:printcolumn:name="ACTIONS",type="string",JSONPath=".spec.actions"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,foundationdb}
type SafetyPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SafetyPolicySpec   `json:"spec"`
	Status SafetyPolicyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SafetyPolicyList contains a list of SafetyPolicy.
type SafetyPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SafetyPolicy `json:"items"`
}
