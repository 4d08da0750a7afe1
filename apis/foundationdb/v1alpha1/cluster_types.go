package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RedundancyMode is FoundationDB's replication mode.
// +kubebuilder:validation:Enum=single;double;triple;three_data_hall
type RedundancyMode string

// Redundancy modes.
const (
	RedundancySingle        RedundancyMode = "single"
	RedundancyDouble        RedundancyMode = "double"
	RedundancyTriple        RedundancyMode = "triple"
	RedundancyThreeDataHall RedundancyMode = "three_data_hall"
)

// DatabaseConfiguration is the configuration FoundationDB is told with
// `configure`.
// +kubebuilder:validation:XValidation:rule="!has(self.usableRegions) || self.usableRegions == 1 || has(self.regions) && self.regions.size() == 2",message="usableRegions 2 needs two regions"
// +kubebuilder:validation:XValidation:rule="!has(self.storageMigrationType) || self.storageMigrationType != 'disabled' || !has(oldSelf.storageEngine) || !has(self.storageEngine) || self.storageEngine == oldSelf.storageEngine",message="storageEngine cannot change while storageMigrationType is disabled: FoundationDB refuses it; set gradual or aggressive, or leave storageMigrationType unset"
type DatabaseConfiguration struct {
	// RedundancyMode is the replication mode.
	// +optional
	// +kubebuilder:default=double
	RedundancyMode RedundancyMode `json:"redundancyMode,omitempty"`

	// StorageEngine of the storage servers. Changing it on a running
	// database migrates every storage server to the new engine, as
	// StorageMigrationType says; FoundationDB 7.1 names Redwood
	// ssd-redwood-1-experimental, 7.3 ssd-redwood-1.
	// +optional
	// +kubebuilder:default=ssd-2
	// +kubebuilder:validation:Enum=ssd;ssd-2;ssd-redwood-1;ssd-redwood-1-experimental;ssd-rocksdb-v1;ssd-sharded-rocksdb;memory;memory-radixtree-beta
	StorageEngine string `json:"storageEngine,omitempty"`

	// StorageMigrationType is how FoundationDB migrates the storage
	// servers when the storage engine changes: gradual replaces one server
	// at a time through the perpetual storage wiggle, aggressive replaces
	// every server of the old engine at once (for small or development
	// databases), disabled refuses any engine change. Unset, the provider
	// configures gradual, with the wiggle on, as it changes the engine.
	// +optional
	// +kubebuilder:validation:Enum=disabled;gradual;aggressive
	StorageMigrationType string `json:"storageMigrationType,omitempty"`

	// PerpetualStorageWiggle is 1 to keep the perpetual storage wiggle
	// running (each storage server in turn excluded, drained, recruited
	// anew and included), 0 to stop it; FoundationDB's setting when unset.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	PerpetualStorageWiggle *int `json:"perpetualStorageWiggle,omitempty"`

	// PerpetualStorageWiggleLocality limits the wiggle to the processes
	// of one locality, "<key>:<value>"; "0" wiggles every process.
	// +optional
	// +kubebuilder:validation:Pattern=`^([\w.-]+:[\w.-]+|0)$`
	PerpetualStorageWiggleLocality string `json:"perpetualStorageWiggleLocality,omitempty"`

	// PerpetualStorageWiggleEngine is the storage engine the wiggle
	// recruits the storage servers of its locality with under
	// storageMigrationType gradual, whatever storageEngine says: a new
	// engine tried on one locality before the whole database moves to it;
	// none goes back to storageEngine. FoundationDB 7.1.38 and later
	// (fdbserver/DDTeamCollection.actor.cpp initializeStorage); unset
	// leaves it as it is.
	// +optional
	// +kubebuilder:validation:Enum=none;ssd;ssd-2;ssd-redwood-1;ssd-redwood-1-experimental;ssd-rocksdb-v1;ssd-sharded-rocksdb;memory;memory-radixtree-beta
	PerpetualStorageWiggleEngine string `json:"perpetualStorageWiggleEngine,omitempty"`

	// UsableRegions is the number of regions that hold data.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2
	UsableRegions int `json:"usableRegions,omitempty"`

	// Regions of a multi-region database, in FoundationDB's region
	// configuration: each region has one main data center, which may hold
	// the primary, and may have satellites that hold transaction logs
	// only. The region whose main data center has the highest priority is
	// the primary. Every Cluster of the database (one per data center)
	// carries the same regions.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:XValidation:rule="self.all(r, r.datacenters.filter(d, !(has(d.satellite) && d.satellite)).size() == 1)",message="every region has exactly one main data center (satellite false)"
	// +kubebuilder:validation:XValidation:rule="self.all(r, self.all(o, r == o || r.datacenters.all(d, !o.datacenters.exists(e, e.id == d.id))))",message="a data center is in one region only"
	Regions []Region `json:"regions,omitempty"`

	// Logs is the desired number of log servers; FoundationDB's default when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Logs *int `json:"logs,omitempty"`

	// CommitProxies is the desired number of commit proxies.
	// +optional
	// +kubebuilder:validation:Minimum=1
	CommitProxies *int `json:"commitProxies,omitempty"`

	// GrvProxies is the desired number of GRV proxies.
	// +optional
	// +kubebuilder:validation:Minimum=1
	GrvProxies *int `json:"grvProxies,omitempty"`

	// Resolvers is the desired number of resolvers.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Resolvers *int `json:"resolvers,omitempty"`

	// LogRouters is the desired number of log routers, which pull the
	// primary's mutations for the remote region (log_routers).
	// +optional
	// +kubebuilder:validation:Minimum=1
	LogRouters *int `json:"logRouters,omitempty"`

	// RemoteLogs is the desired number of log servers in the remote region
	// (remote_logs).
	// +optional
	// +kubebuilder:validation:Minimum=1
	RemoteLogs *int `json:"remoteLogs,omitempty"`
}

// A Region of a multi-region database.
// +kubebuilder:validation:XValidation:rule="!has(self.satelliteRedundancyMode) || self.datacenters.exists(d, has(d.satellite) && d.satellite)",message="satelliteRedundancyMode needs a satellite data center"
// +kubebuilder:validation:XValidation:rule="!has(self.satelliteLogs) || self.datacenters.exists(d, has(d.satellite) && d.satellite)",message="satelliteLogs needs a satellite data center"
type Region struct {
	// DataCenters of the region: its main data center and its satellites.
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	DataCenters []RegionDataCenter `json:"datacenters"`

	// SatelliteLogs is the desired number of transaction logs in the
	// region's satellites; FoundationDB's default when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	SatelliteLogs *int `json:"satelliteLogs,omitempty"`

	// SatelliteRedundancyMode is how the region's satellites replicate the
	// transaction logs; needs a satellite.
	// +optional
	// +kubebuilder:validation:Enum=one_satellite_single;one_satellite_double;one_satellite_triple;two_satellite_safe;two_satellite_fast
	SatelliteRedundancyMode string `json:"satelliteRedundancyMode,omitempty"`
}

// A RegionDataCenter is one data center of a region.
type RegionDataCenter struct {
	// ID is the data center's ID, the processes' dcid locality.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	ID string `json:"id"`

	// Priority of the data center: the main data center of the highest
	// priority holds the primary; a negative priority never does.
	// +optional
	Priority int `json:"priority,omitempty"`

	// Satellite is true for a data center that holds transaction logs
	// only, for its region's main data center.
	// +optional
	Satellite bool `json:"satellite,omitempty"`
}

// ProcessCounts is the number of process groups of each class.
type ProcessCounts struct {
	// Storage process groups.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Storage int `json:"storage,omitempty"`

	// Log process groups.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Log int `json:"log,omitempty"`

	// Transaction process groups (log servers that may also run other
	// transaction-system roles).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Transaction int `json:"transaction,omitempty"`

	// Stateless process groups (proxies, resolvers, cluster controller, ...).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Stateless int `json:"stateless,omitempty"`

	// ClusterController process groups.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	ClusterController int `json:"clusterController,omitempty"`

	// CommitProxy process groups: the commit proxies go to them first.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	CommitProxy int `json:"commitProxy,omitempty"`

	// GrvProxy process groups: the GRV proxies go to them first.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	GrvProxy int `json:"grvProxy,omitempty"`

	// Resolution process groups: the resolvers go to them first.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Resolution int `json:"resolution,omitempty"`

	// Ratekeeper process groups.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	Ratekeeper int `json:"ratekeeper,omitempty"`

	// DataDistributor process groups.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	DataDistributor int `json:"dataDistributor,omitempty"`

	// Coordinator process groups: they take no role and are the
	// coordinators' first choice, as `coordinators auto` prefers them
	// (apple/foundationdb fdbclient/ManagementAPI.actor.cpp, 7.3.79).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=9
	Coordinator int `json:"coordinator,omitempty"`
}

// FaultDomain says which node label spreads process groups across failure
// domains.
type FaultDomain struct {
	// Key is the node label whose value is the fault domain (zone).
	// +optional
	// +kubebuilder:default="topology.kubernetes.io/zone"
	Key string `json:"key,omitempty"`
}

// ProcessSettings customise the pods of one process class.
type ProcessSettings struct {
	// PodTemplate is merged into the generated pod: labels, annotations,
	// resources, tolerations, affinity, extra containers.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	PodTemplate *corev1.PodTemplateSpec `json:"podTemplate,omitempty"`

	// VolumeSize of the data volume of stateful classes.
	// +optional
	VolumeSize *resource.Quantity `json:"volumeSize,omitempty"`

	// StorageClassName of the data volume; the cluster default when unset.
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`

	// VolumeClaimTemplate is the base of the data volume claim of stateful
	// classes (the operator's volumeClaimTemplate): its labels,
	// annotations and spec (access modes, volume mode, selector, data
	// source, storage class, size). volumeSize and storageClassName, when
	// set, take precedence; the provider adds its labels, and
	// ReadWriteOnce when it names no access mode. A claim whose storage
	// class or size differs gets its group replaced (or the claim
	// expanded), as a volumeSize change does; other differences apply to
	// the claims made from then on.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	VolumeClaimTemplate *corev1.PersistentVolumeClaim `json:"volumeClaimTemplate,omitempty"`

	// CustomParameters are extra fdbserver knobs, e.g. knob_disable_posix_kernel_aio=1.
	// +optional
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9_]+=[^\s]+$`
	CustomParameters []string `json:"customParameters,omitempty"`
}

// ImageSettings choose the FoundationDB container image.
type ImageSettings struct {
	// Repository of the unified FoundationDB image; the tag is the version.
	// +optional
	// +kubebuilder:default="foundationdb/fdb-kubernetes-monitor"
	Repository string `json:"repository,omitempty"`

	// PullPolicy of the FoundationDB containers.
	// +optional
	// +kubebuilder:default=IfNotPresent
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	PullPolicy corev1.PullPolicy `json:"pullPolicy,omitempty"`

	// PullSecrets for the image, in the target namespace.
	// +optional
	PullSecrets []corev1.LocalObjectReference `json:"pullSecrets,omitempty"`

	// Configs customize the image per FoundationDB version (the operator's
	// imageConfigs): for each field, the first entry that sets it and
	// names the version, or no version, wins. The tag is always the
	// version, with the entry's tagSuffix after it.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Configs []ImageConfig `json:"configs,omitempty"`
}

// An ImageConfig customizes the FoundationDB image of one version, or of
// every version.
type ImageConfig struct {
	// Version the entry applies to; every version when unset.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+\.[0-9]+\.[0-9]+$`
	Version string `json:"version,omitempty"`
	// Repository of the image, before the tag.
	// +optional
	// +kubebuilder:validation:MaxLength=200
	Repository string `json:"repository,omitempty"`
	// TagSuffix follows the version in the tag, e.g. "-1" for 7.3.63-1.
	// +optional
	// +kubebuilder:validation:Pattern=`^[-_.][A-Za-z0-9_.-]{0,49}$`
	TagSuffix string `json:"tagSuffix,omitempty"`
}

// SafetySettings choose the safety policies that gate this cluster's
// mutations and override their thresholds.
type SafetySettings struct {
	// Policies are the names of SafetyPolicies that apply in addition to the
	// built-in defaults. Empty means every SafetyPolicy.
	// +optional
	// +listType=set
	Policies []string `json:"policies,omitempty"`

	// Params override the policies' parameter defaults for this cluster,
	// e.g. {"minSecondsSinceRecoveryForExclude": 300}.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Params *runtime.RawExtension `json:"params,omitempty"`
}

// AutomationOptions tune how fast the provider acts on its own.
type AutomationOptions struct {
	// MaxConcurrentReplacements caps how many process groups are replaced at once.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	MaxConcurrentReplacements int `json:"maxConcurrentReplacements,omitempty"`

	// FailureDetectionTimeSeconds is how long a process group must be failing
	// before it is replaced.
	// +optional
	// +kubebuilder:default=7200
	// +kubebuilder:validation:Minimum=60
	FailureDetectionTimeSeconds int `json:"failureDetectionTimeSeconds,omitempty"`

	// MinimumUptimeSecondsForBounce is the minimum process uptime before a
	// kill (bounce) is allowed.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=0
	MinimumUptimeSecondsForBounce int `json:"minimumUptimeSecondsForBounce,omitempty"`

	// StuckRemovalSeconds is how long the processes of a process group
	// being removed may have not reported (e.g. its pod stuck on a dead
	// node) before the inclusion of other, finished removals stops waiting
	// for it. Inclusions wait so that one batch costs one recovery; a
	// removal whose processes report is draining and is always waited
	// for.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=60
	StuckRemovalSeconds int `json:"stuckRemovalSeconds,omitempty"`

	// TaintReplacements name the node taints that announce planned
	// maintenance: a process group whose node has carried one for its
	// durationInSeconds is replaced (a new group first, then the old one
	// excluded, drained and removed) before the node is drained, within
	// maxConcurrentReplacements and one fault domain at a time. A cordoned
	// node carries node.kubernetes.io/unschedulable. Empty: taints are
	// ignored (the FoundationDB operator's taintReplacementOptions).
	// +optional
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=32
	TaintReplacements []TaintReplacement `json:"taintReplacements,omitempty"`
}

// A TaintReplacement names a node taint key that gets the process groups
// on a node carrying it replaced.
type TaintReplacement struct {
	// Key of the taint; "*" matches every key that no other entry names.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^([-._/a-zA-Z0-9]+|\*)$`
	Key string `json:"key"`

	// DurationInSeconds is how long the node must have carried the taint
	// before its groups are replaced.
	// +kubebuilder:validation:Minimum=0
	DurationInSeconds int64 `json:"durationInSeconds"`
}

// LockOptions configure the global lock that serializes the steps with
// database-wide effect of every Cluster (and provider instance) that acts
// on one database.
type LockOptions struct {
	// DisableLocks makes this Cluster act without taking the global lock,
	// once the safety policies allow it (action DisableLocks; the default
	// fdb-locks asks for the annotation
	// foundationdb.crossplane.io/allow-disable-locks: "true" and no other
	// holder of the lock): another Cluster of the database may then act at
	// the same time. Setting it back to false takes effect at once.
	// +optional
	DisableLocks bool `json:"disableLocks,omitempty"`

	// DurationSeconds is how long a lock lasts unless its holder extends
	// it: a holder that stops (a crashed provider) blocks the others at
	// most this long.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=3600
	DurationSeconds int `json:"durationSeconds,omitempty"`

	// DenyList bars instances from the lock, by their lock ID (a Cluster's
	// data center, or <namespace>/<name> without one), or with allow lifts
	// a bar. Denying the holder of a lock lets another take it at once.
	// The list is written to the database, where every instance reads it;
	// removing an entry from it changes nothing there: allow the ID
	// instead.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=16
	DenyList []LockDenyEntry `json:"denyList,omitempty"`
}

// A LockDenyEntry bars an instance from the global lock, or lifts the bar.
type LockDenyEntry struct {
	// ID of the instance.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=127
	ID string `json:"id"`

	// Allow lifts the bar on ID.
	// +optional
	Allow bool `json:"allow,omitempty"`
}

// Routing chooses how the cluster file names the coordinators and what
// address each process is known by.
// +kubebuilder:validation:XValidation:rule="!has(self.publicIPSource) || self.publicIPSource != 'service' || !has(self.useDNSInClusterFile) || !self.useDNSInClusterFile",message="useDNSInClusterFile cannot be true with publicIPSource service: a pod's DNS name resolves to its pod IP, not to the Service IP its processes are known by"
type Routing struct {
	// UseDNSInClusterFile names the coordinators in the cluster file by
	// their pods' DNS names (<pod>.<cluster>.<namespace>.svc.<dnsDomain>,
	// under the cluster's headless Service) instead of by IP address, so a
	// pod that is recreated with a new IP stays the same coordinator.
	// Unset means true: every version the provider runs (7.1 and later)
	// supports it, unless publicIPSource is service, which names them by
	// their Services' IPs. Switching it changes the coordinators once, gated
	// like any coordinator change.
	// +optional
	UseDNSInClusterFile *bool `json:"useDNSInClusterFile,omitempty"`

	// DNSDomain is the target cluster's DNS domain.
	// +optional
	// +kubebuilder:default="cluster.local"
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	DNSDomain string `json:"dnsDomain,omitempty"`

	// PodIPFamily chooses the address family of the pod IP each process
	// listens on and is known by, 4 for IPv4 or 6 for IPv6, on dual-stack
	// clusters, whose pods have one IP of each: the processes take the
	// first IP of that family among the pod's IPs (status.podIPs). Unset,
	// they take the pod's primary IP (status.podIP), of whichever family
	// the cluster gives it. Either way an IPv6 address is written in
	// brackets. It relies on the monitor's IPList argument (7.1.60 and
	// later), which every version the Cluster accepts has. As the
	// FoundationDB operator's spec.routing.podIPFamily.
	// +optional
	// +kubebuilder:validation:Enum=4;6
	PodIPFamily *int `json:"podIPFamily,omitempty"`

	// PublicIPSource is where a process's public address comes from: pod
	// (the default), the pod's IP; or service, the cluster IP of a Service
	// the provider makes for each process group, which keeps the group's
	// address across pod recreation and rescheduling (the processes listen
	// on the pod IP, --listen_address, and are known by the Service's,
	// --public_address). With service the cluster file names the
	// coordinators by those stable IPs, so useDNSInClusterFile must not be
	// true. Changing it replaces every process group, one fault domain at a
	// time under the gate, as a density change does. As the FoundationDB
	// operator's spec.routing.publicIPSource.
	// +optional
	// +kubebuilder:validation:Enum=pod;service
	PublicIPSource PublicIPSource `json:"publicIPSource,omitempty"`
}

// A PublicIPSource is where a process's public address comes from.
type PublicIPSource string

// Public IP sources.
const (
	PublicIPSourcePod     PublicIPSource = "pod"
	PublicIPSourceService PublicIPSource = "service"
)

// Service reports whether the source is a per-group Service; empty means
// pod.
func (s PublicIPSource) Service() bool { return s == PublicIPSourceService }

// ClusterParameters are the desired state of a FoundationDB cluster.
// +kubebuilder:validation:XValidation:rule="!has(self.dataCenter) || !has(self.databaseConfiguration.regions) || self.databaseConfiguration.regions.exists(r, r.datacenters.exists(d, d.id == self.dataCenter))",message="dataCenter must be one of the regions' data centers"
// +kubebuilder:validation:XValidation:rule="!has(self.databaseConfiguration.regions) && !has(self.seedConnectionString) || has(self.dataCenter) || has(self.dataHall) && !has(self.databaseConfiguration.regions)",message="a Cluster that shares its database (regions or seedConnectionString) names its dataCenter (or, three_data_hall, its dataHall)"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.dataHall) || has(self.dataHall) && self.dataHall == oldSelf.dataHall",message="dataHall is immutable once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.dataCenter) || has(self.dataCenter) && self.dataCenter == oldSelf.dataCenter",message="dataCenter is immutable once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.tls) || has(self.tls)",message="tls cannot be removed once set: set tls.enabled to false to run the database in plain text"
type ClusterParameters struct {
	// Version of FoundationDB, MAJOR.MINOR.PATCH, of a release line the
	// provider administers (internal/version.FoundationDBLines: its image
	// carries the tools of 7.1 and 7.3), and at least the first patch of
	// that line whose fdb-kubernetes-monitor runs its image's fdbserver for
	// every protocol-compatible version (internal/version.MinimumPatch:
	// 7.1.62 and 7.3.48; older monitors demand an exact version match).
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$')",message="version must be MAJOR.MINOR.PATCH, e.g. 7.3.63"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$') || self.matches('^7\\\\.(1|3)\\\\.')",message="version must be of a FoundationDB line the provider supports: 7.1 or 7.3"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$') || !self.startsWith('7.1.') || int(self.split('.')[2]) >= 62",message="version must be 7.1.62 or later on the 7.1 line: older fdb-kubernetes-monitor releases run the image's fdbserver only for its exact version"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$') || !self.startsWith('7.3.') || int(self.split('.')[2]) >= 48",message="version must be 7.3.48 or later on the 7.3 line: older fdb-kubernetes-monitor releases run the image's fdbserver only for its exact version"
	// +kubebuilder:validation:MaxLength=32
	Version string `json:"version"`

	// DatabaseConfiguration is applied with `configure`.
	// +optional
	// +kubebuilder:default={}
	DatabaseConfiguration DatabaseConfiguration `json:"databaseConfiguration,omitempty"`

	// ProcessCounts is the number of process groups per class.
	ProcessCounts ProcessCounts `json:"processCounts"`

	// StorageServersPerPod is the number of storage processes in each
	// storage pod.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XValidation:rule="self >= 1 && self <= 8",message="storageServersPerPod must be between 1 and 8"
	StorageServersPerPod int `json:"storageServersPerPod,omitempty"`

	// StorageMigrationMethod is how the storage servers move to a new
	// storage engine under storageMigrationType gradual: Wiggle (the
	// default) turns the perpetual storage wiggle on and lets FoundationDB
	// replace one server at a time; ReplaceGroups leaves the wiggle as it
	// is and replaces every storage group whose servers run another engine
	// than the database is configured with, as a density change does (new
	// storage servers are recruited with the configured engine).
	// +optional
	// +kubebuilder:default=Wiggle
	// +kubebuilder:validation:Enum=Wiggle;ReplaceGroups
	StorageMigrationMethod StorageMigrationMethod `json:"storageMigrationMethod,omitempty"`

	// CoordinatorSelection limits the coordinators to processes of the
	// listed classes, the higher priority chosen first (the operator's
	// coordinatorSelection). Empty: log and transaction processes first,
	// then storage. Coordinators of a class no longer listed move at the
	// next coordinator change the Cluster takes for it.
	// +optional
	// +listType=map
	// +listMapKey=processClass
	// +kubebuilder:validation:MaxItems=3
	CoordinatorSelection []CoordinatorSelectionSetting `json:"coordinatorSelection,omitempty"`

	// LogServersPerPod is the number of log processes in each log pod
	// (the operator's logServersPerPod). Changing it replaces every log
	// group, as storageServersPerPod does the storage groups.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XValidation:rule="self >= 1 && self <= 8",message="logServersPerPod must be between 1 and 8"
	LogServersPerPod int `json:"logServersPerPod,omitempty"`

	// FaultDomain spreads process groups across node-label values.
	// +optional
	// +kubebuilder:default={}
	FaultDomain FaultDomain `json:"faultDomain,omitempty"`

	// Processes customise pods per class; the key "general" applies to all.
	// +optional
	Processes map[string]ProcessSettings `json:"processes,omitempty"`

	// Image settings of the FoundationDB containers.
	// +optional
	// +kubebuilder:default={}
	Image ImageSettings `json:"image,omitempty"`

	// TargetNamespace is where the pods, volumes, services and config map go
	// in the target cluster. Defaults to the namespace of this resource.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	TargetNamespace string `json:"targetNamespace,omitempty"`

	// Routing chooses how the cluster file names the coordinators and what
	// address each process is known by.
	// +optional
	// +kubebuilder:default={}
	Routing Routing `json:"routing,omitempty"`

	// DataCenter is the data center this Cluster's processes run in (their
	// dcid locality) when the database spans several: one of the regions'
	// data centers. Each data center has its own Cluster, which may target
	// its own Kubernetes cluster through its own ProviderConfig. It
	// prefixes the IDs of the Cluster's process groups (<dataCenter>-
	// <class>-<n>), which are the database's instance_id localities and
	// must not collide with another data center's. Immutable once set.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	DataCenter string `json:"dataCenter,omitempty"`

	// DataHall is the data hall this Cluster's processes run in (their
	// data_hall locality) when a three_data_hall database spans three
	// halls, one Cluster each, joined by seedConnectionString. It prefixes
	// the IDs of the Cluster's process groups like dataCenter. Immutable
	// once set.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	DataHall string `json:"dataHall,omitempty"`

	// SeedConnectionString joins this Cluster's processes to the database
	// whose connection string it is, made by the Cluster of another data
	// center, instead of creating a database.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_]+:[A-Za-z0-9]+@[^,\s]+(,[^,\s]+)*$`
	SeedConnectionString string `json:"seedConnectionString,omitempty"`

	// TLS runs the database with mutual TLS; see TLSSettings.
	// +optional
	TLS *TLSSettings `json:"tls,omitempty"`

	// NetworkPolicy admits connections to the database's ports only from
	// who belongs; see NetworkPolicySettings.
	// +optional
	NetworkPolicy *NetworkPolicySettings `json:"networkPolicy,omitempty"`

	// PodDisruptionBudget tunes the Cluster's PodDisruptionBudget, which
	// it has unless disabled; see PodDisruptionBudgetSettings.
	// +optional
	PodDisruptionBudget *PodDisruptionBudgetSettings `json:"podDisruptionBudget,omitempty"`

	// Locks configure the global lock.
	// +optional
	// +kubebuilder:default={}
	Locks LockOptions `json:"locks,omitempty"`

	// Safety chooses the safety policies and their parameters.
	// +optional
	Safety SafetySettings `json:"safety,omitempty"`

	// DeletionProtection, when true, makes the default fdb-deletion policy
	// deny deleting the database: deleting the Cluster then waits until it
	// is set to false. Orphaning (management policies without Delete) is
	// unaffected.
	// +optional
	DeletionProtection bool `json:"deletionProtection,omitempty"`

	// Automation tunes replacements and bounces.
	// +optional
	// +kubebuilder:default={}
	Automation AutomationOptions `json:"automation,omitempty"`

	// ProcessGroupsToReplace are the IDs of process groups to replace: a
	// new group of the same class is created first, then the old one is
	// excluded, drained and removed. Idempotent: an ID stays here after
	// its group is gone and is never given to a new group.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9_]+(-[a-z0-9_]+)*$`
	// +kubebuilder:validation:items:MaxLength=63
	ProcessGroupsToReplace []string `json:"processGroupsToReplace,omitempty"`

	// Drill asks for a fault drill: a fault put into process groups for a
	// bounded time, to rehearse failures through the safety policies (the
	// Drill action; the default fdb-drill policy allows one fault domain,
	// and only at the desired fault tolerance). Each name runs once; the
	// drill ends on its own after durationSeconds, or when the field is
	// removed or names another drill.
	// +optional
	Drill *Drill `json:"drill,omitempty"`
}

// ClusterHealth is the health FoundationDB reports.
type ClusterHealth struct {
	Available       bool `json:"available"`
	Healthy         bool `json:"healthy"`
	FullReplication bool `json:"fullReplication"`
	FaultTolerance  int  `json:"faultTolerance"`
	// RecoveryState is the name of the recovery state, e.g. fully_recovered.
	RecoveryState     string `json:"recoveryState,omitempty"`
	ActiveGenerations int    `json:"activeGenerations,omitempty"`
	// RecoveryGeneration is the database's generation (status json
	// cluster.generation), which every recovery raises.
	// +optional
	RecoveryGeneration int64 `json:"recoveryGeneration,omitempty"`
	// LastRecoveryTime is when the database last recovered, by the
	// provider's clock: taken from the first status that reports the
	// recovery (its time since the last recovery) and kept while the
	// statuses report the same RecoveryGeneration, so that a database that
	// does not change writes no new status. Ages are derived from it where
	// they are shown.
	// +optional
	LastRecoveryTime *metav1.Time `json:"lastRecoveryTime,omitempty"`
}

// ProcessGroupCounts count the cluster's process groups.
type ProcessGroupCounts struct {
	// Total process groups.
	Total int `json:"total"`
	// ByClass counts process groups per class.
	// +optional
	ByClass map[string]int `json:"byClass,omitempty"`
	// Excluded process groups.
	// +optional
	Excluded int `json:"excluded,omitempty"`
	// Removing process groups (being excluded or deleted).
	// +optional
	Removing int `json:"removing,omitempty"`
	// Replacing process groups: marked for replacement and not gone yet.
	// +optional
	Replacing int `json:"replacing,omitempty"`
}

// ClusterObservation is the observed state of a FoundationDB cluster.
type ClusterObservation struct {
	// ConnectionString of the database (the cluster file's contents).
	// +optional
	ConnectionString string `json:"connectionString,omitempty"`

	// Configured is true once `configure new` has run.
	// +optional
	Configured bool `json:"configured,omitempty"`

	// RunningVersion is the version the processes run.
	// +optional
	RunningVersion string `json:"runningVersion,omitempty"`

	// Health as FoundationDB reports it.
	// +optional
	Health ClusterHealth `json:"health,omitempty"`

	// Coordinators are the coordinator addresses.
	// +optional
	Coordinators []string `json:"coordinators,omitempty"`

	// ProcessGroups counts the process groups.
	// +optional
	ProcessGroups ProcessGroupCounts `json:"processGroups,omitempty"`

	// LastPolicyDecision is the last safety-policy decision for this cluster.
	// +optional
	LastPolicyDecision *PolicyDecision `json:"lastPolicyDecision,omitempty"`

	// Disruption is the grant that lets the process groups of one fault
	// domain disrupt their pods (delete and recreate them); absent while no
	// domain may. The Cluster grants at most one domain at a time and
	// revokes the grant once that domain is healthy again.
	// +optional
	Disruption *DisruptionGrant `json:"disruption,omitempty"`

	// MaintenanceZone is the fault domain the provider put under
	// FoundationDB's maintenance for a planned restart of its pods; it
	// ends only the maintenance it set.
	// +optional
	MaintenanceZone string `json:"maintenanceZone,omitempty"`

	// LocksDisabled is true once the safety policies allowed
	// spec.forProvider.locks.disableLocks (action DisableLocks): only then
	// does this Cluster act without the global lock.
	// +optional
	LocksDisabled bool `json:"locksDisabled,omitempty"`

	// LockDenyList is spec.forProvider.locks.denyList as this Cluster last
	// wrote it to the database.
	// +optional
	LockDenyList []LockDenyEntry `json:"lockDenyList,omitempty"`

	// GlobalLock is the global lock as this Cluster last saw it when a
	// step took it or waited for it: held by this Cluster (its lock ID)
	// or by another instance. This Cluster releases its own once it has
	// nothing left to do.
	// +optional
	GlobalLock *GlobalLockObservation `json:"globalLock,omitempty"`

	// ActivePrimaryDC is the data center the database's transaction
	// system runs in, as the status last said (multi-region databases).
	// +optional
	ActivePrimaryDC string `json:"activePrimaryDC,omitempty"`

	// DataCenterLag is how far the remote region's storage trailed the
	// primary's commits when the status last said: what a forced failover
	// would give up at least.
	// +optional
	DataCenterLag *DataCenterLagObservation `json:"dataCenterLag,omitempty"`

	// TLS is what the provider last observed of the database's TLS.
	// +optional
	TLS *TLSObservation `json:"tls,omitempty"`

	// DisruptionBudget is what the Cluster's PodDisruptionBudget allowed
	// when last read: whether a drain may evict one of its pods now.
	// +optional
	DisruptionBudget *DisruptionBudgetObservation `json:"disruptionBudget,omitempty"`

	// StorageMigration is the storage servers' migration to the storage
	// engine the database is configured with, while some run another;
	// nil once all run it, or when the status does not say which engine
	// each runs (FoundationDB 7.1).
	// +optional
	StorageMigration *StorageMigrationObservation `json:"storageMigration,omitempty"`

	// CoordinatorRecovery is the way back from lost coordinators while it
	// is under way: the safety policies allowed the database to give up
	// the coordinators of From, whose coordinated state a majority lost
	// with their disks, for those of To, which hold the files of one that
	// kept it; nil once the database runs on To.
	// +optional
	CoordinatorRecovery *CoordinatorRecoveryObservation `json:"coordinatorRecovery,omitempty"`

	// Drill is the drill the Cluster started last, until another starts.
	// +optional
	Drill *DrillObservation `json:"drill,omitempty"`

	// Operations are the long operations under way and how far each got:
	// an upgrade, a storage engine migration, replacements.
	// +optional
	// +listType=map
	// +listMapKey=operation
	Operations []OperationProgress `json:"operations,omitempty"`
}

// Faults of a Drill: the FoundationDB operator's buggify set.
const (
	// DrillCrashLoop: the groups' main containers run a command that does
	// not exist, so they fail as they start, again and again, and run no
	// fdbserver (the operator's buggify crashLoopContainers).
	DrillCrashLoop DrillFault = "CrashLoop"
	// DrillNoSchedule: the groups' pods are made anew with a node
	// affinity no node matches, so they stay Pending (buggify noSchedule).
	DrillNoSchedule DrillFault = "NoSchedule"
	// DrillEmptyMonitorConf: the groups' pods are made anew on a monitor
	// configuration of their own that runs no fdbserver (runServers
	// false; buggify emptyMonitorConf).
	DrillEmptyMonitorConf DrillFault = "EmptyMonitorConf"
)

// A DrillFault is the fault a Drill puts into its process groups.
// +kubebuilder:validation:Enum=CrashLoop;NoSchedule;EmptyMonitorConf
type DrillFault string

// A Drill is a fault put into process groups for a bounded time.
type Drill struct {
	// Name of the drill: a drill of a name runs once.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Fault to put into the process groups.
	Fault DrillFault `json:"fault"`

	// ProcessGroups are the IDs of the groups the fault goes into.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9_]+(-[a-z0-9_]+)*$`
	// +kubebuilder:validation:items:MaxLength=63
	ProcessGroups []string `json:"processGroups"`

	// DurationSeconds is how long the fault lasts from the drill's start.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=30
	// +kubebuilder:validation:Maximum=3600
	DurationSeconds int `json:"durationSeconds,omitempty"`
}

// DrillObservation is the drill the Cluster started last.
type DrillObservation struct {
	// Name, Fault and ProcessGroups are the drill's, as started.
	Name          string     `json:"name"`
	Fault         DrillFault `json:"fault"`
	ProcessGroups []string   `json:"processGroups"`
	// Started is when the Drill action was allowed and the drill began;
	// Ends when its fault is taken out of the groups.
	Started metav1.Time `json:"started"`
	Ends    metav1.Time `json:"ends"`
	// Ended is true once the fault is taken out: Ends passed, or the spec
	// no longer names the drill.
	// +optional
	Ended bool `json:"ended,omitempty"`
}

// Long operations of OperationProgress.
const (
	// OperationUpgrade counts processes on the spec's version.
	OperationUpgrade = "Upgrade"
	// OperationStorageMigration counts storage processes on the
	// configured storage engine.
	OperationStorageMigration = "StorageMigration"
	// OperationReplacement counts process groups replaced or removed of
	// those the spec asked to replace (by name, or by changing a setting
	// a group was made with: processes per pod, public IP source, ...),
	// the failed ones and those being removed.
	OperationReplacement = "Replacement"
	// OperationFailover counts the steps of a move of the primary to the
	// data center the spec's regions give the highest priority: the
	// regions configured, the primary moved; 0 or 1 of 2 while under way.
	OperationFailover = "Failover"
	// OperationRestore is a Restore into the Cluster, in percent of its
	// data (the Restore's status.atProvider.progress).
	OperationRestore = "Restore"
)

// OperationProgress is how far a long operation got.
type OperationProgress struct {
	// Operation is Upgrade, StorageMigration, Replacement, Failover or
	// Restore.
	Operation string `json:"operation"`
	// Target is what it moves to: the version, the storage engine, the
	// data center; the Restore's name.
	// +optional
	Target string `json:"target,omitempty"`
	// Done of Total are done: processes, process groups, steps or percent.
	Done  int `json:"done"`
	Total int `json:"total"`
	// Since is when the provider first saw it under way.
	Since metav1.Time `json:"since"`
}

// CoordinatorRecoveryObservation is a recovery from lost coordinators.
type CoordinatorRecoveryObservation struct {
	// From is the connection string given up.
	From string `json:"from"`
	// To is the connection string the database recovers on.
	To string `json:"to"`
	// Since is when the recovery began.
	Since metav1.Time `json:"since"`
}

// DataCenterLagObservation is the data center lag a status reported.
type DataCenterLagObservation struct {
	// Seconds of commits the remote region lacked.
	Seconds string `json:"seconds"`
	// ObservedAt is when the status said so.
	ObservedAt metav1.Time `json:"observedAt"`
}

// GlobalLockObservation is the global lock as a Cluster saw it.
type GlobalLockObservation struct {
	// Holder is the lock ID of the instance that holds it.
	Holder string `json:"holder"`
	// Until is when it expires unless its holder extends it.
	Until metav1.Time `json:"until"`
}

// A CoordinatorSelectionSetting ranks a process class among those
// coordinators are chosen from.
type CoordinatorSelectionSetting struct {
	// ProcessClass whose processes may be coordinators.
	// +kubebuilder:validation:Enum=storage;log;transaction;coordinator
	ProcessClass ProcessClass `json:"processClass"`
	// Priority ranks the class: higher is chosen first.
	// +optional
	Priority int `json:"priority,omitempty"`
}

// A StorageMigrationMethod is how the storage servers move to a new
// storage engine.
type StorageMigrationMethod string

// Storage migration methods.
const (
	StorageMigrationWiggle        StorageMigrationMethod = "Wiggle"
	StorageMigrationReplaceGroups StorageMigrationMethod = "ReplaceGroups"
)

// A DisruptionGrant lets the process groups of one fault domain disrupt
// their pods.
type DisruptionGrant struct {
	// Domain is the fault domain: a zone, or group/<id> for a group whose
	// zone is unknown.
	Domain string `json:"domain"`
	// Generation is the Cluster's metadata.generation the grant was made
	// under: a group acts only while the Cluster it planned against is of
	// that generation.
	Generation int64 `json:"generation"`
	// VolatileFirst is true while only the domain's groups without a
	// volume may recreate their pods (some of them still want to): the
	// others wait, so that no transaction log is recruited onto a pod about
	// to go.
	VolatileFirst bool `json:"volatileFirst,omitempty"`
	// DisruptedOnly is true while another fault domain is disrupted too:
	// only groups whose pod does not run, or none of whose processes
	// report, may recreate their pods then, in any domain (recreating one
	// disrupts nothing more); the others wait for the domains to recover.
	DisruptedOnly bool `json:"disruptedOnly,omitempty"`
	// Since is when the domain was granted.
	Since metav1.Time `json:"since"`
}

// A ClusterSpec defines the desired state of a Cluster.
type ClusterSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ClusterParameters `json:"forProvider"`
}

// A ClusterStatus represents the observed state of a Cluster.
type ClusterStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ClusterObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A Cluster is a FoundationDB cluster running on Kubernetes: its process
// groups, coordinators, configuration and cluster file.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="VERSION",type="string",JSONPath=".status.atProvider.runningVersion"
// +kubebuilder:printcolumn:name="AVAILABLE",type="boolean",JSONPath=".status.atProvider.health.available"
// +kubebuilder:printcolumn:name="FAULT TOLERANCE",type="integer",JSONPath=".status.atProvider.health.faultTolerance"
// +kubebuilder:printcolumn:name="PROCESS GROUPS",type="integer",JSONPath=".status.atProvider.processGroups.total"
// +kubebuilder:printcolumn:name="REPLACING",type="integer",JSONPath=".status.atProvider.processGroups.replacing"
// +kubebuilder:printcolumn:name="LOCK",type="string",JSONPath=".status.atProvider.globalLock.holder",priority=1
// +kubebuilder:printcolumn:name="LAST RECOVERY",type="date",JSONPath=".status.atProvider.health.lastRecoveryTime",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,foundationdb}
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterSpec   `json:"spec"`
	Status ClusterStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterList contains a list of Cluster.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}
