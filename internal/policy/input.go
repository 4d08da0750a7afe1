package policy

import (
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

// Keys of Action.Details that the built-in policies read. Controllers set the
// ones that apply to the action they gate.
const (
	// DetailMinimumUptimeSeconds (Kill): the smallest process uptime among
	// the targets, in seconds.
	DetailMinimumUptimeSeconds = "minimumUptimeSeconds"
	// DetailNodeReady (ForceDeletePod): whether the pod's node is Ready.
	DetailNodeReady = "nodeReady"
	// DetailReportingProcesses (ForceDeletePod, DeletePod): how many
	// processes of the targeted pods report in the database status read in
	// this reconcile (an int; fdb.ReportingOf: by their group's instance_id
	// or on the pod's IP), only when that status's view is complete
	// (fdb.ViewIncompleteBecause); absent otherwise.
	DetailReportingProcesses = "reportingProcesses"
	// DetailAutomatic (ReplaceProcessGroup): the replacement is the
	// provider's own decision, because the groups failed (for longer than
	// the Cluster's automation.failureDetectionTimeSeconds, or with their
	// volume stranded); false for a
	// replacement a user asked for or one that fixes a misconfiguration.
	DetailAutomatic = "automatic"
	// DetailReplacementsInFlight (ReplaceProcessGroup): how many process
	// groups of the cluster are already being replaced, not counting the
	// targets (an int).
	DetailReplacementsInFlight = "replacementsInFlight"
	// DetailReplacementsStalled (ReplaceProcessGroup): how many of the
	// replacements in flight wait to exclude their groups while their
	// class's exclusion budget is 0 only because groups of the class miss
	// their processes, the targets among them: with those back it would
	// allow the exclusion, so only the targets' replacement lets them
	// finish (an int; 0 when a target reports).
	DetailReplacementsStalled = "replacementsStalled"
	// DetailMaxConcurrentReplacements (ReplaceProcessGroup): the Cluster's
	// spec.forProvider.automation.maxConcurrentReplacements (an int).
	DetailMaxConcurrentReplacements = "maxConcurrentReplacements"
	// DetailFailedSeconds (ReplaceProcessGroup): for an automatic
	// replacement, how long the targets have failed, the shortest of them,
	// in seconds; 0 otherwise.
	DetailFailedSeconds = "failedSeconds"
	// DetailFailureDetectionSeconds (ReplaceProcessGroup): the Cluster's
	// automation.failureDetectionTimeSeconds (its default when unset).
	DetailFailureDetectionSeconds = "failureDetectionSeconds"
	// DetailDataCenterDown (ReplaceProcessGroup, a Cluster of one data
	// center of a database that spans several): none of the Cluster's
	// groups has a process in the status; the data center is lost, not
	// some of its groups.
	DetailDataCenterDown = "dataCenterDown"
	// DetailVolumeStranded (ReplaceProcessGroup): whether every target's
	// volume can only be used on nodes none of which is Ready (a
	// node-local volume on a failed node), so its pod cannot come back
	// before its node does.
	DetailVolumeStranded = "volumeStranded"
	// DetailIOError (ReplaceProcessGroup): the automatic replacement is of
	// groups a process of which reports an I/O error; failedSeconds is how
	// long the most recent of them has.
	DetailIOError = "ioError"
	// DetailNodeTainted (ReplaceProcessGroup): the automatic replacement
	// is of groups whose nodes carry a taint the Cluster's
	// automation.taintReplacements names (planned maintenance), not of
	// failed ones; DetailTaintedSeconds is how long the most recently
	// tainted of them has been, DetailTaintDurationSeconds the longest
	// duration their taints' entries ask for.
	DetailNodeTainted          = "nodeTainted"
	DetailTaintedSeconds       = "taintedSeconds"
	DetailTaintDurationSeconds = "taintDurationSeconds"
	// DetailFaultDomain (ReplaceProcessGroup, nodeTainted): the fault
	// domain of the groups to replace; DetailFaultDomainsReplacing the
	// fault domains of the groups being replaced already, sorted.
	DetailFaultDomain           = "faultDomain"
	DetailFaultDomainsReplacing = "faultDomainsReplacing"
	// DetailIsLastRunningBackup (StopBackup): whether no other backup of the
	// cluster is running.
	DetailIsLastRunningBackup = "isLastRunningBackup"
	// DetailRestorableVersionAgeSeconds (StopBackup): age of the backup's
	// newest restorable version, in seconds.
	DetailRestorableVersionAgeSeconds = "restorableVersionAgeSeconds"
	// DetailOverrideAnnotation (StopBackup): whether the resource carries
	// AnnotationAllowStopLastBackup set to "true".
	DetailOverrideAnnotation = "overrideAnnotation"
	// DetailDestinationHasData (StartRestore): whether the destination
	// database holds any key.
	DetailDestinationHasData = "destinationHasData"
	// DetailAllowNonEmptyDestination (StartRestore): the Restore's
	// spec.forProvider.allowNonEmptyDestination.
	DetailAllowNonEmptyDestination = "allowNonEmptyDestination"
	// DetailNewDatabase (ConfigureDatabase): the action is `configure new`,
	// creating the database.
	DetailNewDatabase = "newDatabase"
	// DetailInitial (ChangeCoordinators): the coordinators are the first of
	// a database that does not exist yet.
	DetailInitial = "initial"
	// DetailLowersRedundancy (ConfigureDatabase): the configuration lowers
	// the redundancy mode, from DetailFromRedundancy.
	DetailLowersRedundancy = "lowersRedundancy"
	DetailFromRedundancy   = "fromRedundancy"
	// DetailAcknowledged (ConfigureDatabase): the Cluster carries
	// AnnotationAllowRedundancyDecrease naming the new redundancy mode.
	DetailAcknowledged = "acknowledged"
	// DetailChangesStorageEngine is true on a ConfigureDatabase that
	// changes the storage engine of a running database: FoundationDB then
	// migrates every storage server (DetailStorageMigrationType says how),
	// from DetailFromStorageEngine to DetailToStorageEngine.
	DetailChangesStorageEngine = "changesStorageEngine"
	DetailFromStorageEngine    = "fromStorageEngine"
	DetailToStorageEngine      = "toStorageEngine"
	DetailStorageMigrationType = "storageMigrationType"
	// DetailFromVersion and DetailToVersion are the versions an Upgrade
	// restarts the database from and on; DetailProtocolCompatible whether
	// they speak the same protocol (a patch release), so that clients of
	// the old one can talk to the new.
	DetailFromVersion        = "fromVersion"
	DetailToVersion          = "toVersion"
	DetailProtocolCompatible = "protocolCompatible"
	// DetailUnsupportedClients (Upgrade) are the connected clients, as
	// "address (log group)", that loaded no client library of the new
	// version's protocol; DetailUnsupportedClientCount how many there are
	// (the status lists a sample). Both are absent when the status does
	// not list the clients. DetailClientsAcknowledged: the Cluster carries
	// AnnotationAllowUnsupportedClients naming the new version.
	DetailUnsupportedClients     = "unsupportedClients"
	DetailUnsupportedClientCount = "unsupportedClientCount"
	DetailClientsAcknowledged    = "clientsAcknowledged"
	// DetailDownCoordinators (Upgrade) are the coordinators the status
	// reports unreachable whose process runs on no protocol either (not
	// among the incompatible connections): down or cut off. Absent when
	// the status lists no coordinators.
	DetailDownCoordinators = "downCoordinators"
	// DetailUnconfirmedPods (Upgrade, Kill): the pods whose monitor did not
	// report loading the configuration the ConfigMap holds for it within
	// the time the Cluster waits for that; their processes restart on the
	// configuration they run. Absent when every monitor reported it.
	DetailUnconfirmedPods = "unconfirmedPods"
	// DetailLockHolder (DisableLocks): the instance another than the
	// Cluster that it last saw holding the global lock, unexpired; "" when
	// none. DetailLocksAcknowledged: the Cluster carries
	// AnnotationAllowDisableLocks "true".
	DetailLockHolder        = "lockHolder"
	DetailLocksAcknowledged = "locksAcknowledged"
	// DetailFromDataCenter and DetailToDataCenter (FailoverRegion) are
	// the primary data center and the one the primary moves to;
	// DetailForced whether the move is a forced recovery of a database
	// that lost its primary; DetailDataCenterLagSeconds how far the
	// destination's storage trails (a planned failover: the status of
	// this reconcile; a forced one: the last status that said, absent when
	// none did); DetailDestinationFullyReplicated whether the destination
	// region's team tracker reports every shard at full replication;
	// DetailForcedAcknowledged whether the Cluster carries
	// AnnotationAllowForcedFailover naming the destination.
	DetailFromDataCenter             = "fromDataCenter"
	DetailToDataCenter               = "toDataCenter"
	DetailForced                     = "forced"
	DetailDataCenterLagSeconds       = "dataCenterLagSeconds"
	DetailDestinationFullyReplicated = "destinationFullyReplicated"
	DetailForcedAcknowledged         = "forcedAcknowledged"
	// DetailFromConnectionString (RecoverCoordinators) is the connection
	// string given up, DetailLostCoordinators its coordinators that lost
	// the coordinated state, DetailSurvivor the one whose coordination
	// files the new coordinators get; DetailRecoveryAcknowledged whether
	// the Cluster carries AnnotationAllowCoordinatorRecovery naming
	// DetailFromConnectionString. DetailStranded is true on the restart,
	// after the database took the recovery, of pods that were not running
	// when it did and still run on the connection string given up.
	DetailFromConnectionString = "fromConnectionString"
	DetailLostCoordinators     = "lostCoordinators"
	DetailSurvivor             = "survivor"
	DetailRecoveryAcknowledged = "recoveryAcknowledged"
	DetailStranded             = "stranded"
	// DetailDrillFault (Drill) is the drill's fault, DetailFaultDomains how
	// many fault domains its groups are in, DetailDurationSeconds how long
	// it lasts.
	DetailDrillFault      = "fault"
	DetailFaultDomains    = "faultDomains"
	DetailDurationSeconds = "durationSeconds"
)

// AnnotationAllowCoordinatorRecovery, set on a Cluster to the connection
// string whose coordinators lost their coordinated state, accepts what the
// way back from lost coordinators may lose: the built-in
// fdb-coordinator-recovery policy denies RecoverCoordinators without it.
const AnnotationAllowCoordinatorRecovery = "foundationdb.crossplane.io/allow-coordinator-recovery"

// AnnotationAllowDisableLocks, set to "true" on a Cluster, acknowledges
// that with spec.forProvider.locks.disableLocks it acts without the global
// lock, possibly at the same time as its database's other Clusters: the
// built-in fdb-locks policy denies DisableLocks without it.
const AnnotationAllowDisableLocks = "foundationdb.crossplane.io/allow-disable-locks"

// AnnotationAllowForcedFailover, set on a Cluster to the data center a
// forced failover moves the primary to, accepts that the commits that data
// center lacks are lost: the built-in fdb-failover policy denies a forced
// failover without it.
const AnnotationAllowForcedFailover = "foundationdb.crossplane.io/allow-forced-failover"

// AnnotationAllowStopLastBackup, set to "true" on a Backup, lets the built-in
// fdb-backup policy stop the last running backup even when its restorable
// version is stale.
const AnnotationAllowStopLastBackup = "foundationdb.crossplane.io/allow-stop-last-backup"

// AnnotationAllowRedundancyDecrease, set on a Cluster to the redundancy
// mode it asks for, acknowledges that lowering the redundancy mode to it is
// intended: the built-in fdb-configuration policy denies a decrease without
// it.
const AnnotationAllowRedundancyDecrease = "foundationdb.crossplane.io/allow-redundancy-decrease"

// AnnotationAllowUnsupportedClients, set on a Cluster to the version it
// asks for, acknowledges that clients which cannot speak that version's
// protocol lose the database when it restarts on it: the built-in
// fdb-upgrade policy denies such an upgrade without it.
const AnnotationAllowUnsupportedClients = "foundationdb.crossplane.io/allow-upgrade-with-unsupported-clients"

// ConditionMissingProcesses is the process-group condition that holds back
// the exclusion budget of its class.
const ConditionMissingProcesses = "MissingProcesses"

// Input is everything a decision sees. Its fields become the CEL variables
// action, cluster, processGroups, params and object; the engine adds targets
// (see ResolveTargets), budget (see ExclusionBudget) and now (from its
// clock).
type Input struct {
	// Action is the mutation to decide on.
	Action Action `json:"action"`
	// Cluster is the desired and observed state of the FoundationDB cluster.
	Cluster Cluster `json:"cluster"`
	// ProcessGroups are the cluster's process groups.
	ProcessGroups []ProcessGroup `json:"processGroups,omitempty"`
	// Params are the cluster's spec.forProvider.safety.params; they override
	// each policy's own params.
	Params map[string]any `json:"params,omitempty"`
	// Policies are the cluster's spec.forProvider.safety.policies: the
	// SafetyPolicies that apply besides the defaults; empty means all. Not a
	// CEL variable.
	Policies []string `json:"policies,omitempty"`
	// Object is the managed resource being reconciled, as unstructured
	// content.
	Object map[string]any `json:"object,omitempty"`
	// Observed is true when the cluster's observed fields come from the
	// database status read in this reconcile. Not a CEL variable: an action
	// that RequiresStatus is denied without it.
	Observed bool `json:"-"`
}

// An Action is a mutation a controller is about to make.
type Action struct {
	// Type of the action, e.g. Exclude.
	Type v1alpha1.ActionType `json:"type"`
	// Targets are process-group IDs or addresses.
	Targets []string `json:"targets,omitempty"`
	// ProcessClass of the targets, when they share one.
	ProcessClass string `json:"processClass,omitempty"`
	// Count of things the action affects; len(Targets) when zero.
	Count int64 `json:"count,omitempty"`
	// Reason the controller gives for the action, e.g. "replacement".
	Reason string `json:"reason,omitempty"`
	// Details are facts specific to the action type; see the Detail keys.
	Details map[string]any `json:"details,omitempty"`
}

// Cluster is the spec and observed status of a FoundationDB cluster.
type Cluster struct {
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`

	// Version is the desired FoundationDB version; RunningVersion the one
	// the processes run.
	Version        string `json:"version,omitempty"`
	RunningVersion string `json:"runningVersion,omitempty"`
	// RedundancyMode is single, double, triple or three_data_hall.
	RedundancyMode string `json:"redundancyMode,omitempty"`
	// DesiredCounts is the desired number of process groups per class.
	DesiredCounts map[string]int64 `json:"desiredCounts,omitempty"`
	// MinimumUptimeSecondsForBounce is spec.forProvider.automation's.
	MinimumUptimeSecondsForBounce int64 `json:"minimumUptimeSecondsForBounce"`
	// DeletionProtection is spec.forProvider.deletionProtection.
	DeletionProtection bool `json:"deletionProtection"`

	Available         bool   `json:"available"`
	Healthy           bool   `json:"healthy"`
	RecoveryState     string `json:"recoveryState,omitempty"`
	ActiveGenerations int64  `json:"activeGenerations"`
	// SecondsSinceLastRecovery is how long the database has been
	// available since its last recovery; -1 when the status read does not
	// say (fdb.RecoveryState.SinceRecovered), as while a recovery is under
	// way, or the Cluster recorded no time.
	SecondsSinceLastRecovery int64 `json:"secondsSinceLastRecovery"`
	// FaultTolerance is how many fault domains the cluster can lose now,
	// counting the coordinators it cannot reach as lost already
	// (fdb.Status.ZoneFailuresTolerated);
	// DesiredFaultTolerance how many its redundancy mode is meant to survive.
	FaultTolerance        int64        `json:"faultTolerance"`
	DesiredFaultTolerance int64        `json:"desiredFaultTolerance"`
	DataMovement          DataMovement `json:"dataMovement"`
	// Coordinators are the coordinator addresses.
	Coordinators []string `json:"coordinators,omitempty"`
	// TLS is what the Cluster observed of its TLS this reconcile; empty
	// for a database that runs without.
	TLS TLS `json:"tls"`
}

// TLS is what a Cluster observed of its database's TLS.
type TLS struct {
	// Coordinators says how the cluster file names the coordinators:
	// "tls", "plain" or "mixed".
	Coordinators string `json:"coordinators"`
	// Listeners are the kinds of address a process listens on once it
	// restarts, primary first: "plain", "tls", "tls,plain" or
	// "plain,tls".
	Listeners string `json:"listeners"`
	// Certificates is true when the Cluster read the certificates its
	// processes and the provider's clients present.
	Certificates bool `json:"certificates"`
	// CertificateSecondsLeft is how long the earliest of them stays valid,
	// negative once it expired; 0 without Certificates.
	CertificateSecondsLeft int64 `json:"certificateSecondsLeft"`
}

// DataMovement is the state of FoundationDB's data distribution.
type DataMovement struct {
	InFlightBytes int64 `json:"inFlightBytes"`
	InQueueBytes  int64 `json:"inQueueBytes"`
	// Healthy is true when data distribution reports no unhealthy team.
	Healthy bool `json:"healthy"`
	// State is data distribution's state name (cluster.data.state.name),
	// e.g. healthy, healing or missing_data; "" when unknown.
	State string `json:"state,omitempty"`
	// MinReplicasRemaining is the fewest replicas any shard has left.
	MinReplicasRemaining int64 `json:"minReplicasRemaining"`
}

// A ProcessGroup is one pod's worth of FoundationDB processes.
type ProcessGroup struct {
	ID         string      `json:"id"`
	Class      string      `json:"class"`
	Addresses  []string    `json:"addresses,omitempty"`
	Conditions []Condition `json:"conditions,omitempty"`
	// Excluded is true when FoundationDB lists the group as excluded.
	Excluded bool `json:"excluded"`
	// Removing is true once removal of the group began.
	Removing bool `json:"removing"`
	// FullyExcluded is true only on positive evidence from a complete
	// status of this reconcile: every process of the group reports, is
	// excluded and serves no role (see fdb.DrainOf).
	FullyExcluded bool `json:"fullyExcluded"`
	// Reporting is true when every process of the group reports in the
	// status.
	Reporting bool `json:"reporting"`
	// Drain says why the group is not fully excluded; "" when it is.
	Drain       string   `json:"drain,omitempty"`
	Roles       []string `json:"roles,omitempty"`
	Coordinator bool     `json:"coordinator"`
	HoldsData   bool     `json:"holdsData"`
}

// Targets are an action's targets resolved against the process groups.
type Targets struct {
	// Groups are the process groups an ID or address of a target names, in
	// the order of the input's process groups.
	Groups []ProcessGroup `json:"groups"`
	// Unknown are the targets that name no process group.
	Unknown []string `json:"unknown"`
}

// ResolveTargets resolves targets, process-group IDs or addresses, against
// the process groups.
func ResolveTargets(targets []string, groups []ProcessGroup) Targets {
	s := newTargetSet(targets)
	var out Targets
	for i := range groups {
		if s.mark(&groups[i]) {
			out.Groups = append(out.Groups, groups[i])
		}
	}
	for i, t := range targets {
		if !s.known(i) {
			out.Unknown = append(out.Unknown, t)
		}
	}
	return out
}

// maxScannedTargets is how many targets a targetSet compares a process
// group's names with, one by one: for so few, that is cheaper than hashing
// every name of every process group.
const maxScannedTargets = 8

// A targetSet marks the targets that name a process group, by its ID or an
// address, found.
type targetSet struct {
	targets []string
	// found is by index: every target found, or with first, the first
	// occurrence of each.
	found []bool
	// first is the index of each target's first occurrence, when there
	// are more than maxScannedTargets targets.
	first map[string]int
	// addresses is true when a target may be an address: one has a ':'.
	// An address always does (host:port), a process-group ID never, so a
	// set of IDs alone is compared with the groups' IDs only.
	addresses bool
}

func newTargetSet(targets []string) targetSet {
	s := targetSet{targets: targets, found: make([]bool, len(targets)),
		addresses: slices.ContainsFunc(targets, func(t string) bool { return strings.Contains(t, ":") })}
	if len(targets) > maxScannedTargets {
		s.first = make(map[string]int, len(targets))
		for i, t := range slices.Backward(targets) {
			s.first[t] = i
		}
	}
	return s
}

// mark marks the targets that name g found and reports whether there is
// one.
func (s targetSet) mark(g *ProcessGroup) bool {
	if s.first != nil {
		hit := s.markName(g.ID)
		for _, a := range g.Addresses {
			hit = s.addresses && s.markName(a) || hit
		}
		return hit
	}
	hit := false
	for i, t := range s.targets {
		if t == g.ID || s.addresses && slices.Contains(g.Addresses, t) {
			s.found[i], hit = true, true
		}
	}
	return hit
}

// markName marks the target that is name found and reports whether there
// is one; for a set with first only.
func (s targetSet) markName(name string) bool {
	i, ok := s.first[name]
	if ok {
		s.found[i] = true
	}
	return ok
}

// known reports whether the target at index i names a process group.
func (s targetSet) known(i int) bool {
	if s.first != nil {
		return s.found[s.first[s.targets[i]]]
	}
	return s.found[i]
}

// A Condition of a process group and how long it has held.
type Condition struct {
	Type       string `json:"type"`
	AgeSeconds int64  `json:"ageSeconds"`
}

// targetCount is Count, or the number of targets when Count is unset.
func (a Action) targetCount() int64 {
	if a.Count > 0 {
		return a.Count
	}
	return int64(len(a.Targets))
}

// The CEL fields of the input types (see object.go).

var actionFields = fields[Action]{
	"type":         func(a *Action) any { return string(a.Type) },
	"targets":      func(a *Action) any { return nonNil(a.Targets) },
	"processClass": func(a *Action) any { return a.ProcessClass },
	"count":        func(a *Action) any { return a.targetCount() },
	"reason":       func(a *Action) any { return a.Reason },
	"details":      func(a *Action) any { return details(a.Details) },
}

// noDetails is the CEL value of an action without details, shared: most
// actions have none.
var noDetails = types.NewStringInterfaceMap(types.DefaultTypeAdapter, map[string]any{})

// details is the CEL value of an action's details.
func details(d map[string]any) any {
	if len(d) == 0 {
		return noDetails
	}
	return normalizeMap(d)
}

func (*Action) fields() fields[Action] { return actionFields }

var clusterFields = fields[Cluster]{
	"name":                          func(c *Cluster) any { return c.Name },
	"namespace":                     func(c *Cluster) any { return c.Namespace },
	"version":                       func(c *Cluster) any { return c.Version },
	"runningVersion":                func(c *Cluster) any { return c.RunningVersion },
	"redundancyMode":                func(c *Cluster) any { return c.RedundancyMode },
	"desiredCounts":                 func(c *Cluster) any { return nonNilMap(c.DesiredCounts) },
	"minimumUptimeSecondsForBounce": func(c *Cluster) any { return c.MinimumUptimeSecondsForBounce },
	"deletionProtection":            func(c *Cluster) any { return c.DeletionProtection },
	"available":                     func(c *Cluster) any { return c.Available },
	"healthy":                       func(c *Cluster) any { return c.Healthy },
	"recoveryState":                 func(c *Cluster) any { return c.RecoveryState },
	"activeGenerations":             func(c *Cluster) any { return c.ActiveGenerations },
	"secondsSinceLastRecovery":      func(c *Cluster) any { return c.SecondsSinceLastRecovery },
	"faultTolerance":                func(c *Cluster) any { return c.FaultTolerance },
	"desiredFaultTolerance":         func(c *Cluster) any { return c.DesiredFaultTolerance },
	"dataMovement":                  func(c *Cluster) any { return objectOf(&c.DataMovement) },
	"coordinators":                  func(c *Cluster) any { return nonNil(c.Coordinators) },
	"tls":                           func(c *Cluster) any { return objectOf(&c.TLS) },
}

func (*Cluster) fields() fields[Cluster] { return clusterFields }

var dataMovementFields = fields[DataMovement]{
	"inFlightBytes":        func(d *DataMovement) any { return d.InFlightBytes },
	"inQueueBytes":         func(d *DataMovement) any { return d.InQueueBytes },
	"healthy":              func(d *DataMovement) any { return d.Healthy },
	"state":                func(d *DataMovement) any { return d.State },
	"minReplicasRemaining": func(d *DataMovement) any { return d.MinReplicasRemaining },
}

func (*DataMovement) fields() fields[DataMovement] { return dataMovementFields }

var tlsFields = fields[TLS]{
	"coordinators":           func(t *TLS) any { return t.Coordinators },
	"listeners":              func(t *TLS) any { return t.Listeners },
	"certificates":           func(t *TLS) any { return t.Certificates },
	"certificateSecondsLeft": func(t *TLS) any { return t.CertificateSecondsLeft },
}

func (*TLS) fields() fields[TLS] { return tlsFields }

var processGroupFields = fields[ProcessGroup]{
	"id":            func(g *ProcessGroup) any { return g.ID },
	"class":         func(g *ProcessGroup) any { return g.Class },
	"addresses":     func(g *ProcessGroup) any { return nonNil(g.Addresses) },
	"conditions":    func(g *ProcessGroup) any { return objectList(g.Conditions) },
	"excluded":      func(g *ProcessGroup) any { return g.Excluded },
	"removing":      func(g *ProcessGroup) any { return g.Removing },
	"fullyExcluded": func(g *ProcessGroup) any { return g.FullyExcluded },
	"reporting":     func(g *ProcessGroup) any { return g.Reporting },
	"drain":         func(g *ProcessGroup) any { return g.Drain },
	"roles":         func(g *ProcessGroup) any { return nonNil(g.Roles) },
	"coordinator":   func(g *ProcessGroup) any { return g.Coordinator },
	"holdsData":     func(g *ProcessGroup) any { return g.HoldsData },
}

func (*ProcessGroup) fields() fields[ProcessGroup] { return processGroupFields }

var targetsFields = fields[Targets]{
	"groups":  func(t *Targets) any { return objectList(t.Groups) },
	"unknown": func(t *Targets) any { return nonNil(t.Unknown) },
}

func (*Targets) fields() fields[Targets] { return targetsFields }

var conditionFields = fields[Condition]{
	"type":       func(c *Condition) any { return c.Type },
	"ageSeconds": func(c *Condition) any { return c.AgeSeconds },
}

func (*Condition) fields() fields[Condition] { return conditionFields }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}
