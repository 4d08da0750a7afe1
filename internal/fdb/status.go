package fdb

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const errParseStatus = "cannot parse status json"

// Locality keys set on the fdbserver command line (--locality_<key>).
const (
	LocalityInstanceID = "instance_id"
	LocalityProcessID  = "process_id"
	LocalityZoneID     = "zoneid"
	LocalityMachineID  = "machineid"
	LocalityDCID       = "dcid"
	LocalityDataHall   = "data_hall"
	// LocalityDNSName is the process's stable DNS name (its pod's hostname
	// under the cluster's headless Service), set when the cluster file
	// names coordinators by DNS name.
	LocalityDNSName = "dns_name"
)

// Process roles as reported in cluster.processes[].roles[].role.
const (
	RoleStorage         = "storage"
	RoleLog             = "log"
	RoleCoordinator     = "coordinator"
	RoleClusterControl  = "cluster_controller"
	RoleMaster          = "master"
	RoleCommitProxy     = "commit_proxy"
	RoleGrvProxy        = "grv_proxy"
	RoleResolver        = "resolver"
	RoleDataDistributor = "data_distributor"
	RoleRatekeeper      = "ratekeeper"
	// RoleLogRouter is a log router of a multi-region database: it pulls
	// the primary's mutations for the remote region.
	RoleLogRouter = "router"
)

// Recovery state names (cluster.recovery_state.name) in the order a recovery
// passes them.
const (
	RecoveryReadingCoordinatedState        = "reading_coordinated_state"
	RecoveryLockingCoordinatedState        = "locking_coordinated_state"
	RecoveryRecruitingTransactionServers   = "recruiting_transaction_servers"
	RecoveryInitializingTransactionServers = "initializing_transaction_servers"
	RecoveryAcceptingCommits               = "accepting_commits"
	RecoveryAllLogsRecruited               = "all_logs_recruited"
	RecoveryFullyRecovered                 = "fully_recovered"
	RecoveryConfigurationNeverCreated      = "configuration_never_created"
)

// MessageStatusIncomplete is the status message (cluster.messages[].name)
// of a status that lacks the cluster view.
const MessageStatusIncomplete = "status_incomplete"

// Process messages (cluster.processes.<id>.messages[].name) of an I/O
// error: the cluster controller lists a worker's latest error under the
// error's name (apple/foundationdb fdbserver/Status.actor.cpp, getError;
// fdbclient/Schemas.cpp names these two).
const (
	MessageIOError   = "io_error"
	MessageIOTimeout = "io_timeout"
)

// IOErrorOf is the name of the first I/O error process p reports among its
// messages, "" when none.
func IOErrorOf(p Process) string {
	for _, m := range p.Messages {
		if m.Name == MessageIOError || m.Name == MessageIOTimeout {
			return m.Name
		}
	}
	return ""
}

// MessageUnreadableConfiguration is the status message of a status whose
// cluster controller could not read the database's configuration.
const MessageUnreadableConfiguration = "unreadable_configuration"

// Status is the subset of `status json` the provider reads. JSON names
// follow the published schema, so real output unmarshals into it; fields
// the model does not know are ignored.
type Status struct {
	Client  ClientStatus  `json:"client"`
	Cluster ClusterStatus `json:"cluster"`
}

// ClientStatus is the client section: what the client could observe.
// FoundationDB always writes its messages, as a list (empty when there is
// nothing to say); so do the messages of each process, the cluster's
// incompatible connections and each log generation's possibly_losing_data.
// The fields are written so, never as null or left out, when a status is
// marshalled (the simulator's).
type ClientStatus struct {
	DatabaseStatus DatabaseStatus     `json:"database_status"`
	Coordinators   CoordinatorsStatus `json:"coordinators"`
	Messages       []Message          `json:"messages"`
	Timestamp      int64              `json:"timestamp,omitempty"`
}

// DatabaseStatus is client.database_status.
type DatabaseStatus struct {
	Available bool `json:"available"`
	Healthy   bool `json:"healthy"`
}

// CoordinatorsStatus is client.coordinators.
type CoordinatorsStatus struct {
	QuorumReachable bool                `json:"quorum_reachable"`
	Coordinators    []CoordinatorStatus `json:"coordinators,omitempty"`
}

// CoordinatorStatus is one entry of client.coordinators.coordinators.
type CoordinatorStatus struct {
	Address   ProcessAddress `json:"address"`
	Reachable bool           `json:"reachable"`
}

// Message is an entry of a messages list.
type Message struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ClusterStatus is the cluster section. Messages is always written, an
// empty list when there is nothing to say, as FoundationDB writes it: a
// cluster section without it reads as incomplete (see ParseStatus).
type ClusterStatus struct {
	ConnectionString        string             `json:"connection_string,omitempty"`
	Configuration           Configuration      `json:"configuration,omitzero"`
	RecoveryState           RecoveryState      `json:"recovery_state,omitzero"`
	Processes               map[string]Process `json:"processes,omitempty"`
	Data                    DataStatus         `json:"data,omitzero"`
	FaultTolerance          FaultTolerance     `json:"fault_tolerance,omitzero"`
	Logs                    []LogGeneration    `json:"logs,omitempty"`
	Qos                     Qos                `json:"qos,omitzero"`
	Layers                  Layers             `json:"layers,omitzero"`
	Messages                []Message          `json:"messages"`
	IncompatibleConnections []string           `json:"incompatible_connections"`
	// MaintenanceZone is the fault domain under maintenance, "" when none;
	// MaintenanceSecondsRemaining how long it still lasts.
	MaintenanceZone             string  `json:"maintenance_zone,omitempty"`
	MaintenanceSecondsRemaining float64 `json:"maintenance_seconds_remaining,omitempty"`
	// FullReplication says whether every shard has all its replicas; nil
	// when the cluster controller could not read it, nor the maintenance
	// zone read in the same transaction (see MaintenanceRead).
	FullReplication *bool `json:"full_replication,omitempty"`
	// Clients are the connected clients; nil when the status does not say.
	Clients    *ClientsStatus `json:"clients,omitempty"`
	Generation int64          `json:"generation,omitempty"`
	// DatacenterLag is how far the remote region's storage lags the
	// primary's commits (cluster.datacenter_lag; zero for a database of
	// one region); nil when the status does not say.
	DatacenterLag *DatacenterLag `json:"datacenter_lag,omitempty"`
	// ActivePrimaryDC is the data center the transaction system runs in;
	// "" for a database without regions, as FoundationDB writes it.
	ActivePrimaryDC string `json:"active_primary_dc"`
	// StorageWiggler is the perpetual storage wiggle's progress; nil
	// unless the wiggle is on.
	StorageWiggler *StorageWiggler `json:"storage_wiggler,omitempty"`
}

// StorageWiggler is cluster.storage_wiggler, written while
// perpetual_storage_wiggle is 1 (fdbserver/Status.actor.cpp and
// StorageWiggleMetrics::toJSON in
// fdbclient/include/fdbclient/StorageWiggleMetrics.actor.h, 7.3.63).
type StorageWiggler struct {
	// Primary is the wiggle of the primary region's storage servers.
	Primary *WiggleMetrics `json:"primary,omitempty"`
	// Remote is the remote region's, in a database of two usable regions.
	Remote *WiggleMetrics `json:"remote,omitempty"`
	// WiggleServerAddresses are the addresses of the servers being
	// wiggled now.
	WiggleServerAddresses []string `json:"wiggle_server_addresses,omitempty"`
}

// WiggleMetrics are one region's wiggle metrics.
type WiggleMetrics struct {
	// FinishedWiggle counts the storage servers wiggled; FinishedRound
	// the rounds through every server.
	FinishedWiggle int `json:"finished_wiggle"`
	FinishedRound  int `json:"finished_round"`
	// SmoothedWiggleSeconds is the smoothed time one server's wiggle
	// takes.
	SmoothedWiggleSeconds float64 `json:"smoothed_wiggle_seconds"`
	// State is running, paused or unknown (7.3; "" before).
	State string `json:"state,omitempty"`
}

// DatacenterLag is cluster.datacenter_lag.
type DatacenterLag struct {
	Seconds  float64 `json:"seconds"`
	Versions int64   `json:"versions"`
}

// ClientsStatus is cluster.clients: the clients connected to the database,
// listed under each client library version they loaded (a multi-version
// client loads several).
type ClientsStatus struct {
	Count             int                `json:"count"`
	SupportedVersions []SupportedVersion `json:"supported_versions,omitempty"`
}

// SupportedVersion is one entry of cluster.clients.supported_versions: the
// clients that loaded a client library of ClientVersion. ConnectedClients
// are a sample of them; Count is how many there are.
type SupportedVersion struct {
	ClientVersion    string            `json:"client_version"`
	ProtocolVersion  string            `json:"protocol_version,omitempty"`
	Count            int               `json:"count"`
	ConnectedClients []ConnectedClient `json:"connected_clients"`
	// MaxProtocolClients are the clients for which this is the newest
	// protocol they speak.
	MaxProtocolCount   int               `json:"max_protocol_count,omitempty"`
	MaxProtocolClients []ConnectedClient `json:"max_protocol_clients,omitempty"`
}

// ToolsLogGroup is the trace log group the provider's own FoundationDB
// clients report: its tools (set in their environment, see
// fdbcli.ExecRunner: fdbcli's --log-group takes effect only with --log)
// and its native client (package bindings). Each tool speaks its own
// release's protocol and is replaced with the release's, and the native
// client reaches every line the provider's image carries, so the upgrade
// gate does not count them among the clients.
const ToolsLogGroup = "provider-foundationdb"

// ConnectedClient is one connected client.
type ConnectedClient struct {
	Address  string `json:"address"`
	LogGroup string `json:"log_group"`
}

// Configuration is cluster.configuration: the database configuration plus
// the exclusion list.
type Configuration struct {
	DatabaseConfiguration
	ExcludedServers []ExcludedServer `json:"excluded_servers"`
}

// ExcludedServer is one exclusion: an address or a locality selector.
type ExcludedServer struct {
	Address  ProcessAddress `json:"address,omitempty"`
	Locality ProcessAddress `json:"locality,omitempty"`
}

// Target returns the exclusion as a ProcessAddress.
func (e ExcludedServer) Target() ProcessAddress {
	if e.Locality != "" {
		return e.Locality
	}
	return e.Address
}

// RecoveryState is cluster.recovery_state.
type RecoveryState struct {
	Name              string `json:"name"`
	Description       string `json:"description,omitempty"`
	ActiveGenerations int    `json:"active_generations,omitempty"`
	// SecondsSinceLastRecovered: see SinceRecovered.
	SecondsSinceLastRecovered *float64 `json:"seconds_since_last_recovered,omitempty"`
	RequiredLogs              int      `json:"required_logs,omitempty"`
}

// SinceRecovered is how long the database has been available since its
// last recovery, when the status says: FoundationDB counts
// seconds_since_last_recovered from the version at which the recovery made
// the database available (the cluster controller's
// ClusterRecoveryAvailable event), leaves it out when it gets no read
// version, as while a recovery is under way, and writes -1 when its
// cluster controller has no such event (recoveryStateStatusFetcher,
// fdbserver/Status.actor.cpp, 7.3.63). False for either.
func (r RecoveryState) SinceRecovered() (time.Duration, bool) {
	if r.SecondsSinceLastRecovered == nil || *r.SecondsSinceLastRecovered < 0 {
		return 0, false
	}
	return time.Duration(*r.SecondsSinceLastRecovered * float64(time.Second)), true
}

// Process is one entry of cluster.processes.
type Process struct {
	Address     string   `json:"address"`
	ClassType   string   `json:"class_type,omitempty"`
	ClassSource string   `json:"class_source,omitempty"`
	Locality    Locality `json:"locality,omitzero"`
	Excluded    bool     `json:"excluded"`
	Degraded    bool     `json:"degraded"`
	// Roles are the roles the process serves: empty when it serves none,
	// nil when the status does not say (a missing field is unknown, never
	// "no role").
	Roles         []ProcessRole `json:"roles"`
	Version       string        `json:"version,omitempty"`
	CommandLine   string        `json:"command_line,omitempty"`
	UptimeSeconds float64       `json:"uptime_seconds"`
	FaultDomain   string        `json:"fault_domain,omitempty"`
	Messages      []Message     `json:"messages"`
}

// HasRole reports whether p serves role.
func (p Process) HasRole(role string) bool {
	for _, r := range p.Roles {
		if r.Role == role {
			return true
		}
	}
	return false
}

// Locality is a process's locality map. Only the keys the provider sets are
// modelled.
type Locality struct {
	InstanceID string `json:"instance_id,omitempty"`
	ProcessID  string `json:"process_id,omitempty"`
	ZoneID     string `json:"zoneid,omitempty"`
	MachineID  string `json:"machineid,omitempty"`
	DCID       string `json:"dcid,omitempty"`
	DataHall   string `json:"data_hall,omitempty"`
	DNSName    string `json:"dns_name,omitempty"`
}

// Get returns the value of a locality key; known is false for keys the
// model does not carry.
func (l Locality) Get(key string) (value string, known bool) {
	switch key {
	case LocalityInstanceID:
		return l.InstanceID, true
	case LocalityProcessID:
		return l.ProcessID, true
	case LocalityZoneID:
		return l.ZoneID, true
	case LocalityMachineID:
		return l.MachineID, true
	case LocalityDCID:
		return l.DCID, true
	case LocalityDataHall:
		return l.DataHall, true
	case LocalityDNSName:
		return l.DNSName, true
	}
	return "", false
}

// ProcessRole is one role a process serves.
type ProcessRole struct {
	Role             string `json:"role"`
	ID               string `json:"id,omitempty"`
	StoredBytes      int64  `json:"stored_bytes,omitempty"`
	KVStoreUsedBytes int64  `json:"kvstore_used_bytes,omitempty"`
	DataLag          Lag    `json:"data_lag,omitzero"`
	DurabilityLag    Lag    `json:"durability_lag,omitzero"`
	// StorageMetadata is a storage server's metadata; nil for other roles
	// and releases before 7.1.
	StorageMetadata *StorageMetadata `json:"storage_metadata,omitempty"`
}

// StorageMetadata is roles[].storage_metadata of a storage server
// (StorageMetadataType::toJSON, fdbclient/FDBTypes.h, 7.3.63).
type StorageMetadata struct {
	// StorageEngine is the engine the server was recruited with, as the
	// storage_engine of cluster.configuration names it; "" where the
	// release does not say (7.1 writes only the creation time).
	StorageEngine string `json:"storage_engine,omitempty"`
	// CreatedTimeTimestamp is when the server was recruited, in seconds
	// since the epoch.
	CreatedTimeTimestamp float64 `json:"created_time_timestamp,omitempty"`
}

// Lag is a lag in seconds and versions.
type Lag struct {
	Seconds  float64 `json:"seconds"`
	Versions int64   `json:"versions"`
}

// DataStatus is cluster.data.
type DataStatus struct {
	State            DataState     `json:"state"`
	MovingData       MovingData    `json:"moving_data"`
	TeamTrackers     []TeamTracker `json:"team_trackers,omitempty"`
	TotalKVSizeBytes int64         `json:"total_kv_size_bytes"`
	PartitionsCount  int           `json:"partitions_count,omitempty"`
}

// Data distribution state names (cluster.data.state.name).
const (
	DataInitializing          = "initializing"
	DataMissing               = "missing_data"
	DataHealing               = "healing"
	DataHealthyRemovingServer = "healthy_removing_server"
	DataHealthy               = "healthy"
)

// DataState is cluster.data.state and team_trackers[].state. The real
// output omits min_replicas_remaining while initializing; it parses as 0.
type DataState struct {
	Name                 string `json:"name"`
	Description          string `json:"description,omitempty"`
	Healthy              bool   `json:"healthy"`
	MinReplicasRemaining int    `json:"min_replicas_remaining"`
}

// MovingData is cluster.data.moving_data.
type MovingData struct {
	InFlightBytes int64 `json:"in_flight_bytes"`
	InQueueBytes  int64 `json:"in_queue_bytes"`
}

// TeamTracker is one entry of cluster.data.team_trackers.
type TeamTracker struct {
	Primary          bool      `json:"primary"`
	InFlightBytes    int64     `json:"in_flight_bytes"`
	UnhealthyServers int       `json:"unhealthy_servers"`
	State            DataState `json:"state"`
}

// FaultTolerance is cluster.fault_tolerance.
type FaultTolerance struct {
	MaxZoneFailuresWithoutLosingAvailability int `json:"max_zone_failures_without_losing_availability"`
	MaxZoneFailuresWithoutLosingData         int `json:"max_zone_failures_without_losing_data"`
}

// Zones is how many zones may fail without losing data or availability.
func (f FaultTolerance) Zones() int {
	return min(f.MaxZoneFailuresWithoutLosingData, f.MaxZoneFailuresWithoutLosingAvailability)
}

// ZoneFailuresTolerated is how many zones may fail without losing data or
// availability: what the status reports, and no more than leaves a quorum
// of the coordinators it reaches. FoundationDB's figure counts a coordinator
// it cannot reach in a zone of its own, never as lost already
// (faultToleranceStatusFetcher, fdbserver/Status.actor.cpp, 7.3.63), so a
// cluster short of coordinators reports zones to spare it does not have. A
// reachable coordinator no reported process serves counts as lost: its zone
// is unknown.
func (s *Status) ZoneFailuresTolerated() int {
	return min(s.Cluster.FaultTolerance.Zones(), s.coordinatorZoneFailures())
}

// coordinatorZoneFailures is how many zones, fullest first, may lose their
// reachable coordinators with a quorum left.
func (s *Status) coordinatorZoneFailures() int {
	zoneOf := map[string]string{}
	for _, p := range s.Cluster.Processes {
		for _, name := range p.Names() {
			zoneOf[name] = p.Locality.ZoneID
		}
	}
	coordinators := s.Client.Coordinators.Coordinators
	spare := len(coordinators) - (len(coordinators)/2 + 1)
	counts := map[string]int{}
	for _, c := range coordinators {
		zone, known := zoneOf[string(c.Address)]
		if !c.Reachable || !known {
			spare--
			continue
		}
		counts[zone]++
	}
	zones := 0
	sizes := slices.SortedFunc(maps.Values(counts), func(a, b int) int { return b - a })
	for _, n := range sizes {
		if spare -= n; spare < 0 {
			break
		}
		zones++
	}
	return zones
}

// LogGeneration is one entry of cluster.logs: a generation of the log system.
type LogGeneration struct {
	Current              bool           `json:"current"`
	Epoch                int64          `json:"epoch,omitempty"`
	LogFaultTolerance    int            `json:"log_fault_tolerance"`
	LogReplicationFactor int            `json:"log_replication_factor"`
	LogWriteAntiQuorum   int            `json:"log_write_anti_quorum"`
	PossiblyLosingData   bool           `json:"possibly_losing_data"`
	LogInterfaces        []LogInterface `json:"log_interfaces,omitempty"`
	// With regions, the same of the generation's satellite logs and of
	// the remote region's logs; nil without them.
	SatelliteLogReplicationFactor *int `json:"satellite_log_replication_factor,omitempty"`
	SatelliteLogFaultTolerance    *int `json:"satellite_log_fault_tolerance,omitempty"`
	RemoteLogReplicationFactor    *int `json:"remote_log_replication_factor,omitempty"`
	RemoteLogFaultTolerance       *int `json:"remote_log_fault_tolerance,omitempty"`
}

// LogInterface is one log server of a generation.
type LogInterface struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	Healthy bool   `json:"healthy"`
}

// Qos is the subset of cluster.qos used by configuration-change gates.
type Qos struct {
	WorstQueueBytesLogServer        int64 `json:"worst_queue_bytes_log_server"`
	WorstQueueBytesStorageServer    int64 `json:"worst_queue_bytes_storage_server"`
	WorstDataLagStorageServer       Lag   `json:"worst_data_lag_storage_server"`
	WorstDurabilityLagStorageServer Lag   `json:"worst_durability_lag_storage_server"`
}

// Layers is cluster.layers.
type Layers struct {
	Valid  bool        `json:"_valid"`
	Error  string      `json:"_error,omitempty"`
	Backup BackupLayer `json:"backup,omitzero"`
}

// BackupLayer is cluster.layers.backup: the agents and the tags.
type BackupLayer struct {
	Instances        map[string]BackupInstance `json:"instances,omitempty"`
	InstancesRunning int                       `json:"instances_running"`
	Paused           bool                      `json:"paused"`
	Tags             map[string]BackupTag      `json:"tags,omitempty"`
}

// BackupInstance is one backup agent.
type BackupInstance struct {
	ID                string  `json:"id"`
	Version           string  `json:"version,omitempty"`
	ConfiguredWorkers int     `json:"configured_workers,omitempty"`
	LastUpdated       float64 `json:"last_updated,omitempty"`
}

// BackupTag is the state of the backup on one tag.
type BackupTag struct {
	CurrentContainer            string  `json:"current_container"`
	CurrentStatus               string  `json:"current_status"`
	RunningBackup               bool    `json:"running_backup"`
	RunningBackupIsRestorable   bool    `json:"running_backup_is_restorable"`
	LastRestorableVersion       int64   `json:"last_restorable_version,omitempty"`
	LastRestorableSecondsBehind float64 `json:"last_restorable_seconds_behind,omitempty"`
	RangeBytesWritten           int64   `json:"range_bytes_written"`
	MutationLogBytesWritten     int64   `json:"mutation_log_bytes_written"`
}

// descriptionNoMessages describes the status_incomplete message ParseStatus
// adds to a cluster section that lists processes without messages.
const descriptionNoMessages = "the cluster section has no messages: what the status lacks cannot be told"

// ParseStatus parses `status json` output. Text before the first '{' (such
// as warnings a tool prints) is skipped; anything else that is not a JSON
// object is ErrUnexpectedOutput.
//
// FoundationDB reports what its status lacks in cluster.messages, which it
// always writes: a cluster section that lists processes but no messages is
// marked incomplete (a status_incomplete message is added), never taken
// for a complete one.
func ParseStatus(out []byte) (*Status, error) {
	start := bytes.IndexByte(out, '{')
	if start < 0 {
		return nil, errors.Wrap(ErrUnexpectedOutput, errParseStatus)
	}
	s := &Status{}
	if err := json.Unmarshal(out[start:], s); err != nil {
		return nil, errors.Wrapf(ErrUnexpectedOutput, "%s: %v", errParseStatus, err)
	}
	var present struct {
		Cluster struct {
			Messages json.RawMessage `json:"messages"` // "null" when null, empty when absent
		} `json:"cluster"`
	}
	if err := json.Unmarshal(out[start:], &present); err != nil {
		return nil, errors.Wrapf(ErrUnexpectedOutput, "%s: %v", errParseStatus, err)
	}
	if len(present.Cluster.Messages) == 0 && len(s.Cluster.Processes) > 0 {
		s.Cluster.Messages = append(s.Cluster.Messages, Message{Name: MessageStatusIncomplete, Description: descriptionNoMessages})
	}
	return s, nil
}

// ConfigurationRead reports whether the status holds the database's
// configuration. The cluster controller writes it, with the exclusion list
// and each process's excluded flag, only when it read the configuration
// keys within five seconds: an unavailable database's status has none of
// them (fdbserver/Status.actor.cpp, loadConfiguration and
// configurationFetcher, 7.3.79), and an empty exclusion list there proves
// nothing.
func (s *Status) ConfigurationRead() bool {
	// A configuration always names the storage engine, and the redundancy
	// mode unless it is a custom one (fdbclient/DatabaseConfiguration.cpp,
	// toJSON, 7.3.79).
	c := s.Cluster.Configuration
	return c.StorageEngine != "" || c.RedundancyMode != ""
}

// MaintenanceRead reports whether the status says which zone is under
// maintenance: maintenance_zone is written only when the same read
// succeeded, and full_replication with it (same source), so a status
// without full_replication leaves the maintenance unknown.
func (s *Status) MaintenanceRead() bool {
	return s.Cluster.FullReplication != nil
}

// Incomplete reports whether the status lacks the cluster view: the cluster
// controller could not be reached or reported status_incomplete. A message
// without a name cannot be told apart from status_incomplete: it counts as
// one. Decisions that need the process list must not be taken on an
// incomplete status.
func (s *Status) Incomplete() bool {
	return len(s.Cluster.Processes) == 0 ||
		slices.ContainsFunc(s.Cluster.Messages, func(m Message) bool { return m.Name == MessageStatusIncomplete || m.Name == "" })
}
