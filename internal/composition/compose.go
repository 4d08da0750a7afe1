package composition

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	protectionv1beta1 "github.com/crossplane/crossplane/apis/v2/protection/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// Parameters are an FDBDatabase's spec (examples/composition/xrd.yaml).
type Parameters struct {
	// Size is small, medium or large.
	Size Size `json:"size,omitempty"`
	// Redundancy is auto, single, double or triple.
	Redundancy string `json:"redundancy,omitempty"`
	// DeletionProtection makes the provider refuse to delete the database
	// (the Cluster's spec.forProvider.deletionProtection).
	DeletionProtection bool `json:"deletionProtection,omitempty"`
	// Backup turns a continuous backup on.
	Backup BackupParameters `json:"backup,omitempty"`
	// ProviderConfigRef is the ProviderConfig or ClusterProviderConfig the
	// composed resources use.
	ProviderConfigRef *xpv2.ProviderConfigReference `json:"providerConfigRef,omitempty"`
	// Topology is single (one Cluster), multi-region or three-data-hall
	// (a Cluster per site).
	Topology string `json:"topology,omitempty"`
	// Sites are the data centers (multi-region) or data halls
	// (three-data-hall).
	Sites []Site `json:"sites,omitempty"`
	// TLS runs the database with mutual TLS; nil runs it in plain text.
	TLS *TLSParameters `json:"tls,omitempty"`
	// NetworkPolicy says who may connect besides the database's own pods
	// and the provider.
	NetworkPolicy NetworkPolicyParameters `json:"networkPolicy,omitempty"`
}

// BackupParameters switch the backup.
type BackupParameters struct {
	Enabled bool `json:"enabled,omitempty"`
}

// Database is what the function composes for one FDBDatabase.
type Database struct {
	Cluster *v1alpha1.Cluster
	// Backup is nil unless backups are on.
	Backup *v1alpha1.Backup
	// Usage keeps the Cluster from being deleted before its Backup is gone;
	// nil unless backups are on.
	Usage *protectionv1beta1.Usage
	// Certificate and ClientCertificate are cert-manager's Certificates
	// of the processes and of the clients; nil unless the function issues
	// them.
	Certificate, ClientCertificate *Certificate
}

// SecretName is the Secret the cluster file of a database is written to.
func SecretName(xrName string) string { return xrName + "-fdb" }

// BackupName is the name of a database's Backup.
func BackupName(xrName string) string { return xrName + "-backup" }

// UsageName is the name of the Usage of a database's Cluster by its Backup.
func UsageName(xrName string) string { return xrName + "-backup-uses-cluster" }

// Compose builds the resources of the FDBDatabase name in namespace.
func Compose(namespace, name string, p Parameters, in Input, mode v1alpha1.RedundancyMode, sh Shape) Database {
	spec := xpv2.ManagedResourceSpec{ProviderConfigReference: p.ProviderConfigRef}
	c := &v1alpha1.Cluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.ClusterKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: v1alpha1.ClusterSpec{
			ManagedResourceSpec: spec,
			ForProvider: v1alpha1.ClusterParameters{
				Version:               in.Version,
				DatabaseConfiguration: v1alpha1.DatabaseConfiguration{RedundancyMode: mode},
				ProcessCounts:         sh.Counts,
				StorageServersPerPod:  sh.StorageServersPerPod,
				FaultDomain:           v1alpha1.FaultDomain{Key: in.ZoneLabel},
				Processes:             map[string]v1alpha1.ProcessSettings{"general": {VolumeSize: &sh.VolumeSize}},
				Safety:                v1alpha1.SafetySettings{Policies: in.SafetyPolicies},
				DeletionProtection:    p.DeletionProtection,
				TLS:                   clusterTLS(name, p.TLS, in.TLS),
				NetworkPolicy:         clusterNetworkPolicy(name, p, in.NetworkPolicy),
			},
		},
	}
	c.Spec.WriteConnectionSecretToReference = &xpv2.LocalSecretReference{Name: SecretName(name)}
	db := Database{Cluster: c}
	db.Certificate, db.ClientCertificate = certificates(c, p, in.TLS)
	if !p.Backup.Enabled {
		return db
	}
	store := *in.BlobStore.DeepCopy()
	store.BackupName = namespace + "-" + name
	db.Backup = &v1alpha1.Backup{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.BackupKind},
		ObjectMeta: metav1.ObjectMeta{Name: BackupName(name), Namespace: namespace},
		Spec: v1alpha1.BackupSpec{
			ManagedResourceSpec: spec,
			ForProvider: v1alpha1.BackupParameters{
				ClusterReference: v1alpha1.ClusterReference{ClusterRef: &xpv2.NamespacedReference{Name: name}},
				BackupState:      v1alpha1.BackupRunning,
				AgentCount:       sh.BackupAgents,
				BlobStore:        store,
			},
		},
	}
	db.Usage = usage(namespace, UsageName(name), db.Cluster, db.Backup)
	return db
}

// usage is the Crossplane Usage of Cluster of by Backup by: while the
// Backup exists, Crossplane's admission webhook refuses to delete the
// Cluster, so deleting the FDBDatabase, which deletes both at once, stops
// the backup before the database goes. With replayDeletion, Crossplane
// deletes the Cluster again as soon as the Usage is gone instead of at the
// garbage collector's next retry.
func usage(namespace, name string, of *v1alpha1.Cluster, by *v1alpha1.Backup) *protectionv1beta1.Usage {
	return &protectionv1beta1.Usage{
		TypeMeta:   metav1.TypeMeta{APIVersion: protectionv1beta1.SchemeGroupVersion.String(), Kind: protectionv1beta1.UsageKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: protectionv1beta1.UsageSpec{
			Of: protectionv1beta1.NamespacedResource{APIVersion: of.APIVersion, Kind: of.Kind,
				ResourceRef: &protectionv1beta1.NamespacedResourceRef{Name: of.GetName()}},
			By: &protectionv1beta1.Resource{APIVersion: by.APIVersion, Kind: by.Kind,
				ResourceRef: &protectionv1beta1.ResourceRef{Name: by.GetName()}},
			ReplayDeletion: ptr.To(true),
		},
	}
}
