// Package v1alpha1 contains the FoundationDB managed resources in API group
// foundationdb.m.crossplane.io: Cluster, ProcessGroup, Backup and Restore. All
// are namespaced Crossplane v2 managed resources.
// +kubebuilder:object:generate=true
// +groupName=foundationdb.m.crossplane.io
// +versionName=v1alpha1
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "foundationdb.m.crossplane.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group version used to register these objects.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder is used to add go types to the GroupVersionKind scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}

	// AddToScheme adds the types of this group to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind and GroupVersionKind of every managed resource in this group.
var (
	ClusterKind                  = "Cluster"
	ClusterGroupVersionKind      = SchemeGroupVersion.WithKind(ClusterKind)
	ProcessGroupKind             = "ProcessGroup"
	ProcessGroupGroupVersionKind = SchemeGroupVersion.WithKind(ProcessGroupKind)
	BackupKind                   = "Backup"
	BackupGroupVersionKind       = SchemeGroupVersion.WithKind(BackupKind)
	RestoreKind                  = "Restore"
	RestoreGroupVersionKind      = SchemeGroupVersion.WithKind(RestoreKind)
)

func init() {
	SchemeBuilder.Register(&Cluster{}, &ClusterList{})
	SchemeBuilder.Register(&ProcessGroup{}, &ProcessGroupList{})
	SchemeBuilder.Register(&Backup{}, &BackupList{})
	SchemeBuilder.Register(&Restore{}, &RestoreList{})
}
