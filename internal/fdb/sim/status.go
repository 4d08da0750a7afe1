package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errGetStatus     = "cannot get status"
	errMarshalStatus = "cannot marshal status"
)

// Messages the simulator reports when the coordinators are out of reach.
const (
	messageQuorumNotReachable = "quorum_not_reachable"
	classSourceCommandLine    = "command_line"
)

// backupStateText is the description fdbbackup gives each state in
// cluster.layers.backup.tags[].current_status.
var backupStateText = map[fdb.BackupState]string{
	fdb.BackupSubmitted:             "has been submitted",
	fdb.BackupRunning:               "has been started",
	fdb.BackupRunningDifferentially: "is differential",
	fdb.BackupCompleted:             "has been completed",
	fdb.BackupAborted:               "has been aborted",
}

// Status implements fdb.Client.
func (s *Sim) Status(ctx context.Context) (*fdb.Status, error) {
	if err := s.begin(ctx, OpStatus); err != nil {
		return nil, errors.Wrap(err, errGetStatus)
	}
	defer s.mu.Unlock()
	return s.degrade(s.status()), nil
}

// StatusJSON returns the status as `status json` prints it. The same seed,
// inputs and clock readings produce the same bytes.
func (s *Sim) StatusJSON(ctx context.Context) ([]byte, error) {
	st, err := s.Status(ctx)
	if err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(st, "", "  ")
	return out, errors.Wrap(err, errMarshalStatus)
}

// status renders the model as a client that reaches every coordinator
// that runs sees it.
func (s *Sim) status() *fdb.Status {
	return s.statusFor(s.conn.Coordinators, s.coordinatorReachable)
}

// statusFor renders the model as a client sees it that talks to
// coordinators and reaches those reach accepts: without a quorum of them
// it learns nothing of the cluster. Slices are built in sorted order; maps
// are sorted by encoding/json.
func (s *Sim) statusFor(coordinators []fdb.ProcessAddress, reach func(fdb.ProcessAddress) bool) *fdb.Status {
	st := &fdb.Status{}
	st.Client.Timestamp = s.now.Unix()
	reached := 0
	for _, c := range coordinators {
		r := reach(c)
		if r {
			reached++
		}
		st.Client.Coordinators.Coordinators = append(st.Client.Coordinators.Coordinators, fdb.CoordinatorStatus{Address: c, Reachable: r})
	}
	st.Client.Coordinators.QuorumReachable = len(coordinators) > 0 && reached >= quorum(len(coordinators))
	// FoundationDB writes these lists empty, never null or left out.
	st.Client.Messages, st.Cluster.Messages, st.Cluster.IncompatibleConnections = []fdb.Message{}, []fdb.Message{}, []string{}
	if !st.Client.Coordinators.QuorumReachable {
		st.Client.Messages = []fdb.Message{{Name: messageQuorumNotReachable, Description: "Unable to reach a quorum of coordinators."}}
		st.Cluster.Messages = []fdb.Message{{Name: fdb.MessageStatusIncomplete, Description: "Unable to retrieve all status information."}}
		return st
	}
	data, dataTolerance := s.dataStatus()
	logs, logTolerance := s.logStatus()
	available := s.available()
	st.Client.DatabaseStatus = fdb.DatabaseStatus{
		Available: available,
		Healthy:   available && s.rec.phase == phaseFullyRecovered && data.State.Healthy,
	}
	c := &st.Cluster
	c.ConnectionString = s.conn.String()
	c.Generation = s.rec.epoch
	// One region: no remote to lag, as a real database of one region
	// reports.
	c.DatacenterLag = s.dataCenterLag()
	c.ActivePrimaryDC = s.primary
	c.Configuration = fdb.Configuration{DatabaseConfiguration: s.configuration()}
	if s.created { // a database's configuration always says this
		c.Configuration.ExcludedServers = []fdb.ExcludedServer{}
	}
	for _, t := range s.exclusions {
		if _, _, ok := t.Locality(); ok {
			c.Configuration.ExcludedServers = append(c.Configuration.ExcludedServers, fdb.ExcludedServer{Locality: t})
		} else {
			c.Configuration.ExcludedServers = append(c.Configuration.ExcludedServers, fdb.ExcludedServer{Address: t})
		}
	}
	c.RecoveryState = s.recoveryStatus()
	c.Processes = s.processStatus()
	c.StorageWiggler = s.wigglerStatus()
	if s.created && !available {
		s.unreadableConfiguration(c)
	}
	c.Data = data
	c.Logs = logs
	if s.created {
		withoutData := min(dataTolerance, logTolerance, s.coordinatorZoneFailures())
		c.FaultTolerance = fdb.FaultTolerance{
			MaxZoneFailuresWithoutLosingData:         withoutData,
			MaxZoneFailuresWithoutLosingAvailability: withoutData,
		}
	}
	c.Layers = fdb.Layers{Valid: true, Backup: s.backupLayer()}
	c.Clients = s.clientsStatus()
	if available {
		c.FullReplication = ptr(data.State.Healthy) // an estimate: FoundationDB compares each data center's replicas with the team size
	}
	if available && s.underMaintenance(s.maintenanceZone) {
		c.MaintenanceZone, c.MaintenanceSecondsRemaining = s.maintenanceZone, s.maintenanceUntil.Sub(s.now).Seconds()
	}
	// Processes of another protocol; not those the others' certificates
	// keep out, which FoundationDB does not list there (it fills the list
	// from connections refused for their protocol version,
	// fdbrpc/FlowTransport.actor.cpp).
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.running && majorMinor(p.version) != s.protocol {
			c.IncompatibleConnections = append(c.IncompatibleConnections, p.address)
		}
	}
	return st
}

func (s *Sim) recoveryStatus() fdb.RecoveryState {
	if !s.created {
		return fdb.RecoveryState{Name: fdb.RecoveryConfigurationNeverCreated, Description: neverCreatedDescription}
	}
	logReplicas, _ := s.config.RedundancyMode.LogReplicas()
	return fdb.RecoveryState{
		Name:                      phases[s.rec.phase].name,
		Description:               phases[s.rec.phase].description,
		ActiveGenerations:         s.activeGenerations(),
		SecondsSinceLastRecovered: s.secondsSinceRecovered(),
		RequiredLogs:              logReplicas,
	}
}

// secondsSinceRecovered is recovery_state.seconds_since_last_recovered:
// counted from when the latest recovery made the database available, and
// left out before, when FoundationDB gets no read version to count with
// (recoveryStateStatusFetcher, fdbserver/Status.actor.cpp, 7.3.63).
func (s *Sim) secondsSinceRecovered() *float64 {
	if s.rec.availableAt.IsZero() {
		return nil
	}
	return ptr(s.now.Sub(s.rec.availableAt).Seconds())
}

// roleID derives a stable 16 hex digit role ID.
func roleID(parts ...any) string {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return fmt.Sprintf("%016x", h.Sum64())
}

// logID is the ID of the log a process runs in a generation.
func logID(epoch int64, id string) string { return roleID(fdb.RoleLog, epoch, id) }

func (s *Sim) processStatus() map[string]fdb.Process {
	roles := map[string][]fdb.ProcessRole{}
	n := 0
	s.roles.each(func(role, id string) {
		n++
		rid := roleID(role, s.rec.epoch, id, n)
		if role == fdb.RoleLog {
			rid = logID(s.rec.epoch, id)
		}
		roles[id] = append(roles[id], fdb.ProcessRole{Role: role, ID: rid})
	})
	for _, g := range s.retiredGenerations() {
		for _, id := range append(slices.Clone(g.logs), g.satellites...) {
			if !s.roles.holdsLog(id) && !slices.Contains(g.lost, id) {
				roles[id] = append(roles[id], fdb.ProcessRole{Role: fdb.RoleLog, ID: logID(g.epoch, id)})
			}
		}
	}
	current, retiring := s.serverBytes()
	out := map[string]fdb.Process{}
	for _, p := range s.upProcesses() {
		r := append([]fdb.ProcessRole{}, roles[p.id]...)
		if s.isCoordinator(p) {
			r = append(r, fdb.ProcessRole{Role: fdb.RoleCoordinator})
		}
		for _, srv := range p.storageServers() {
			stored := current[p.id]
			if srv == p.retiring {
				stored = retiring[p.id]
			}
			r = append(r, fdb.ProcessRole{
				Role: fdb.RoleStorage, ID: srv.id, StoredBytes: stored, KVStoreUsedBytes: stored,
				StorageMetadata: s.storageMetadata(srv),
			})
		}
		slices.SortFunc(r, func(a, b fdb.ProcessRole) int { return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.ID, b.ID)) })
		view := p.view()
		out[p.id] = fdb.Process{
			Address:       s.statusAddress(p),
			ClassType:     p.class,
			ClassSource:   classSourceCommandLine,
			Locality:      view.Locality,
			Excluded:      p.excluded,
			Roles:         r,
			Version:       p.version,
			CommandLine:   p.commandLine,
			UptimeSeconds: s.now.Sub(p.started).Seconds(),
			FaultDomain:   p.zone,
			Messages:      s.messages(p),
		}
	}
	return out
}

// dataStatus reports data distribution and how many zone failures the data
// survives.
func (s *Sim) dataStatus() (fdb.DataStatus, int) {
	if !s.placed {
		return fdb.DataStatus{State: fdb.DataState{Name: fdb.DataInitializing}}, 0
	}
	rf := s.storageReplicas()
	minReplicas, tolerance := rf, rf-1
	// remote is the state of the other region's team tracker (usable_regions 2).
	remote, remoteDegraded := fdb.DataState{MinReplicasRemaining: rf}, false
	degraded, removing, wiggling := false, false, false
	unhealthy := map[string]bool{}
	var moving fdb.MovingData
	for _, sh := range s.shards {
		if sh.lost {
			minReplicas, tolerance = 0, 0
			continue
		}
		r := s.classify(sh)
		minReplicas = min(minReplicas, len(r.live))
		for i, dc := range s.dataDCs() {
			live := s.liveSlotsIn(r, dc)
			tolerance = min(tolerance, max(live-1, 0))
			degraded = degraded || live < rf
			if i == 1 {
				remote.MinReplicasRemaining = min(remote.MinReplicasRemaining, len(s.in(r.live, dc)))
				remoteDegraded = remoteDegraded || live < rf
			}
		}
		copying := slices.ContainsFunc(sh.replicas, func(id string) bool { return s.onRetiring(sh, s.procs[id]) })
		removing = removing || len(r.bad) > len(r.wiggled) || copying
		wiggling = wiggling || len(r.wiggled) > 0
		if (s.missing(r) > 0 || copying) && (s.move == nil || s.move.shard != sh) {
			moving.InQueueBytes += sh.size
		}
		for _, id := range sh.replicas {
			if !slices.Contains(r.good, id) && !slices.Contains(r.wiggled, id) {
				unhealthy[id] = true
			}
		}
	}
	if s.move != nil {
		moving.InFlightBytes = s.move.remaining
	}
	state := fdb.DataState{Name: fdb.DataHealthy, Healthy: true, MinReplicasRemaining: minReplicas}
	switch {
	case minReplicas == 0:
		state = fdb.DataState{Name: fdb.DataMissing}
	case degraded:
		state = fdb.DataState{Name: fdb.DataHealing, MinReplicasRemaining: minReplicas}
	case removing || !wiggling && moving.InQueueBytes+moving.InFlightBytes > 0:
		state.Name = fdb.DataHealthyRemovingServer
	case wiggling:
		state.Name = s.wiggleDataState()
	}
	trackers := []fdb.TeamTracker{{
		Primary:          true,
		InFlightBytes:    moving.InFlightBytes,
		UnhealthyServers: len(unhealthy),
		State:            state,
	}}
	if len(s.dataDCs()) > 1 {
		switch {
		case remote.MinReplicasRemaining == 0:
			remote = fdb.DataState{Name: fdb.DataMissing}
		case remoteDegraded:
			remote.Name = fdb.DataHealing
		default:
			remote.Name, remote.Healthy = fdb.DataHealthy, true
		}
		trackers = append(trackers, fdb.TeamTracker{State: remote})
	}
	return fdb.DataStatus{
		State:            state,
		MovingData:       moving,
		TeamTrackers:     trackers,
		TotalKVSizeBytes: s.totalKV(),
		PartitionsCount:  len(s.shards),
	}, tolerance
}

// logStatus reports the log generations, the current one first, and how
// many zone failures the current one survives.
func (s *Sim) logStatus() ([]fdb.LogGeneration, int) {
	if len(s.roles.logs) == 0 {
		return nil, 0
	}
	_, satelliteReplicas := s.satellitesOf(s.primary)
	current := &logGeneration{epoch: s.rec.epoch, logs: s.roles.logs, satellites: s.roles.satelliteLogs, satelliteReplicas: satelliteReplicas, zones: s.zonesOfLogs()}
	logs := []fdb.LogGeneration{s.logGenerationStatus(true, current, s.roles.remoteLogs)}
	retired := s.retiredGenerations()
	for i := len(retired) - 1; i >= 0; i-- {
		logs = append(logs, s.logGenerationStatus(false, retired[i], nil))
	}
	return logs, logs[0].LogFaultTolerance
}

// logGenerationStatus reports one log generation and the remote logs
// that pull from it; a log is healthy when its process is up and its data
// was not wiped. Its satellite and remote figures are reported with
// regions only.
func (s *Sim) logGenerationStatus(current bool, g *logGeneration, remote []string) fdb.LogGeneration {
	out := fdb.LogGeneration{Current: current, Epoch: g.epoch, LogReplicationFactor: s.logReplicas()}
	var tolerance int
	tolerance, out.PossiblyLosingData = s.logSet(&out, g, g.logs, out.LogReplicationFactor)
	out.LogFaultTolerance = max(tolerance, 0)
	if s.multiRegion() {
		satellites, _ := s.logSet(&out, g, g.satellites, g.satelliteReplicas)
		out.SatelliteLogReplicationFactor, out.SatelliteLogFaultTolerance = ptr(g.satelliteReplicas), ptr(max(satellites, 0))
	}
	if s.multiRegion() && s.config.UsableRegions > 1 {
		remotes, _ := s.logSet(&out, g, remote, s.logReplicas())
		out.RemoteLogReplicationFactor, out.RemoteLogFaultTolerance = ptr(s.logReplicas()), ptr(max(remotes, 0))
	}
	return out
}

// logSet adds the interfaces of the logs ids of g, each mutation on
// replicas of them, to out and returns how many more zones they survive
// losing (below zero: some mutation may have no copy left, as the cluster
// controller says with possibly_losing_data).
func (s *Sim) logSet(out *fdb.LogGeneration, g *logGeneration, ids []string, replicas int) (int, bool) {
	failed := map[string]bool{}
	for _, id := range ids {
		p := s.procs[id]
		healthy := p != nil && p.up && !slices.Contains(g.lost, id)
		if p != nil && !healthy {
			failed[p.zone] = true
		}
		address := ""
		if p != nil {
			address = s.statusAddress(p)
		}
		out.LogInterfaces = append(out.LogInterfaces, fdb.LogInterface{ID: logID(g.epoch, id), Address: address, Healthy: healthy})
	}
	tolerance := replicas - 1 - len(failed)
	return tolerance, tolerance < 0
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

func (s *Sim) backupLayer() fdb.BackupLayer {
	l := fdb.BackupLayer{InstancesRunning: s.agents, Paused: s.backupsPaused}
	for i := range s.agents {
		if l.Instances == nil {
			l.Instances = map[string]fdb.BackupInstance{}
		}
		id := fmt.Sprintf("agent-%d", i+1)
		l.Instances[id] = fdb.BackupInstance{ID: id, ConfiguredWorkers: 1, LastUpdated: float64(s.now.Unix())}
	}
	for _, tag := range s.backupTags() {
		if l.Tags == nil {
			l.Tags = map[string]fdb.BackupTag{}
		}
		b := s.backups[tag]
		t := fdb.BackupTag{
			CurrentContainer:          b.url,
			CurrentStatus:             backupStateText[b.state],
			RunningBackup:             b.running(),
			RunningBackupIsRestorable: b.running() && b.restorable,
			RangeBytesWritten:         b.rangeBytes + b.written,
		}
		if b.restorable {
			t.LastRestorableVersion = b.restorableVersion
			t.LastRestorableSecondsBehind = float64(s.version-b.restorableVersion) / versionsPerTick
		}
		l.Tags[tag] = t
	}
	return l
}

// coordinatorZoneFailures is how many zones status says may fail with a
// quorum of coordinators left, as faultToleranceStatusFetcher counts them
// (fdbserver/Status.actor.cpp, 7.3.63): (coordinators-1)/2 may fail, taken
// zone by zone from the one with the most. A coordinator no process serves
// now sits in the zone "" and is not counted as lost already, so a cluster
// short of coordinators reports zones to spare it does not have.
func (s *Sim) coordinatorZoneFailures() int {
	counts := map[string]int{}
	for _, c := range s.conn.Coordinators {
		zone := ""
		if p := s.listening[string(c)]; p != nil && s.coordinatorReachable(c) {
			zone = p.zone
		}
		counts[zone]++
	}
	sizes := slices.SortedFunc(maps.Values(counts), func(a, b int) int { return b - a })
	lost, zones := 0, 0
	for _, n := range sizes {
		if lost += n; lost > (len(s.conn.Coordinators)-1)/2 {
			break
		}
		zones++
	}
	return zones
}

// unreadableConfiguration takes from c what an unavailable database's
// status lacks: the cluster controller reads the configuration, and the
// maintenance zone beside it, in a transaction of at most five seconds,
// and without an answer writes no configuration but the coordinators'
// count, no exclusion list, no process's excluded flag, no maintenance and
// no storage wiggler, which it writes only for a configuration it read,
// and says so (fdbserver/Status.actor.cpp, loadConfiguration,
// configurationFetcher and processStatusFetcher, 7.3.79).
func (s *Sim) unreadableConfiguration(c *fdb.ClusterStatus) {
	c.Configuration, c.StorageWiggler = fdb.Configuration{}, nil
	for id, p := range c.Processes {
		p.Excluded = false
		c.Processes[id] = p
	}
	c.Messages = append(c.Messages, fdb.Message{Name: fdb.MessageUnreadableConfiguration, Description: "Unable to read database configuration."})
}
