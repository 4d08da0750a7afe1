package sim

import (
	"cmp"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

const (
	errSetProcessGroups     = "cannot set process groups"
	reasonUnknownProcess    = "unknown process"
	reasonUnknownGroup      = "unknown process group"
	reasonUnknownZone       = "no process group in zone"
	errCrashProcess         = "cannot crash process"
	errLosePod              = "cannot lose pod"
	errLoseZone             = "cannot lose zone"
	errLoseDataCenter       = "cannot lose data center"
	reasonUnknownDataCenter = "no process in data center"
	errLoseDisk             = "cannot lose disk"
	errDiskError            = "cannot fail a disk operation"
	reasonNotAnIOError      = "not an I/O error"
)

// maxProcessesPerPod bounds ProcessGroup.ProcessesPerPod.
const maxProcessesPerPod = 16

// Process classes with a special meaning in the simulator.
const (
	ClassStorage     = "storage"
	ClassLog         = "log"
	ClassTransaction = "transaction"
	ClassStateless   = "stateless"
	ClassUnset       = "unset"
	// ClassClusterController is preferred for the cluster controller.
	ClassClusterController = "cluster_controller"
)

// ProcessGroup is a pod whose fdbserver processes the simulator runs, as the
// Kubernetes side of the provider reports it.
type ProcessGroup struct {
	// ID is the process group ID, reported as the instance_id locality.
	ID string
	// Class is the process class: storage, log, transaction, stateless,
	// unset, ...
	Class string
	// Zone is the zoneid locality (fault domain) of processes whose
	// command line sets none; the ID when empty.
	Zone string
	// IP is the pod IP. Changing it restarts the processes on the new IP.
	IP string
	// DNSName is the pod's DNS name (its hostname under a headless
	// Service); empty when it has none. While the group runs, a
	// coordinator address naming it resolves to the group's process on
	// that address's port, whatever the IP. Changing it restarts the
	// processes, like a new IP.
	DNSName string
	// ProcessesPerPod is the number of processes in the pod (1 when zero).
	ProcessesPerPod int
	// Version is the FoundationDB version the pod's binaries run; running
	// processes pick up a change when they restart (Kill, crash).
	Version string
	// CommandLine is reported as every process's command_line; picked up
	// on restart like Version. The localities zoneid, machineid,
	// dns_name, dcid and data_hall it sets (--locality_<key>=<value>, even
	// an empty value) are the process's, as FoundationDB takes them from
	// its arguments.
	CommandLine string
	// CommandLines, when set, are the command lines of the pod's processes
	// in order (its monitor generates one per process number); they take
	// precedence over CommandLine.
	CommandLines []string
	// Staged is the version whose binaries the pod's sidecar has staged:
	// a process of another Version cannot start (it stays down until the
	// pod stages its version); one already running keeps running. Empty
	// when the pod does not say, and any version starts.
	Staged string
	// Stopped means the pod is not running but its volume is kept: the
	// processes are down and keep their data. IP, DNSName, ProcessesPerPod
	// and Version are ignored (and may be empty) while a group is stopped.
	Stopped bool
	// Unconfigured means the pod's monitor has no configuration it can
	// load (its ConfigMap holds none for it): the processes it runs keep
	// running on the configuration they started with, and none starts.
	Unconfigured bool
	// Files are the files the pod's processes can read, by path: those
	// the TLS flags of their command lines name (certificate, key and CA
	// file). A process reads them when it starts and, as fdbserver does,
	// again when they changed at one of its periodic looks (see
	// docs/SIMULATOR.md, TLS); a change here is a change on the pod's
	// disk.
	Files map[string][]byte
}

// commandLine is the command line of the group's n-th process.
func (g ProcessGroup) commandLine(n int) string {
	if n <= len(g.CommandLines) {
		return g.CommandLines[n-1]
	}
	return g.CommandLine
}

// zone is the zoneid locality of the group's n-th process: the one its
// command line sets, else Zone, else the group ID.
func (g ProcessGroup) zone(n int) string {
	if z, ok := commandLineLocality(g.commandLine(n), fdb.LocalityZoneID); ok {
		return z
	}
	return cmp.Or(g.Zone, g.ID)
}

func (g ProcessGroup) processesPerPod() int {
	return max(g.ProcessesPerPod, 1)
}

// startable reports whether the pod can start its processes: its monitor
// has a configuration and the binary it names.
func (g ProcessGroup) startable() bool {
	return !g.Unconfigured && (g.Staged == "" || g.Staged == g.Version)
}

// process is one fdbserver process of a group.
type process struct {
	id    string // fdb.ProcessID: the group ID, or <group>-<n> in a pod of several
	group string
	index int

	// Values taken from the group when the process last started.
	address     string     // the primary listener, as FoundationDB prints it
	listeners   []listener // what it listens on, primary first
	dnsName     string     // the pod's DNS name; see names
	class       string
	zone        string
	machine     string // the machineid locality: commandLine's, else zone
	version     string
	commandLine string
	dnsLocality string // the dns_name locality commandLine sets
	// dataCenter and dataHall are the dcid and data_hall localities
	// commandLine sets, "" when it sets none.
	dataCenter, dataHall string
	started              time.Time

	// ioError is the name of the I/O error the process last met
	// (DiskError), which its status lists until ioErrorUntil or its next
	// start, "" when none.
	ioError      string
	ioErrorUntil time.Time

	// clusterFile is the connection string in the process's own cluster
	// file, "" before it has one; copiedState the connection string whose
	// coordinated state was copied into its data directory, "" when none
	// was (see coordination.go).
	clusterFile, copiedState string

	running   bool      // the OS process runs
	up        bool      // running and protocol compatible: part of the cluster
	downSince time.Time // when up last became false
	downUntil time.Time // an injected fault keeps the process down until then
	excluded  bool
	// storage is the storage server the process runs, nil when none;
	// retiring the one an aggressive migration replaces, which it runs
	// beside storage until its data moved there (see storage.go).
	storage, retiring *storageServer
	// wiggled is set while the perpetual wiggle excludes the process to
	// replace its storage server (see wiggle.go): its data moves away as
	// an exclusion's would, though the exclusion list does not name it.
	wiggled bool

	tls tlsState
}

func processAddress(ip string, index int) string {
	return net.JoinHostPort(ip, strconv.Itoa(fdb.ProcessPort(index)))
}

// commandLineLocality returns the value commandLine gives locality key
// (--locality_<key>=<value>) and whether it gives one; the last of several
// wins.
func commandLineLocality(commandLine, key string) (string, bool) {
	v, set := "", false
	for _, arg := range strings.Fields(commandLine) {
		if value, ok := strings.CutPrefix(arg, "--locality_"+key+"="); ok {
			v, set = value, true
		}
	}
	return v, set
}

// names returns the addresses a coordinator served by p may have in a
// connection string: the IP:port p listens on and, when its pod has a DNS
// name, the same port at that name. A process whose pod stopped keeps the
// names it last had, so that its volume is still known to hold what it
// held as a coordinator.
func (p *process) names() []string {
	addrs := make([]string, len(p.listeners))
	for i, l := range p.listeners {
		addrs[i] = l.String()
	}
	return fdb.AddressNames(p.dnsName, addrs...)
}

// view returns the fields exclusion targets match against, with its
// primary address.
func (p *process) view() fdb.Process {
	return fdb.Process{Address: p.address, Locality: fdb.Locality{
		InstanceID: p.group,
		ProcessID:  p.id,
		ZoneID:     p.zone,
		MachineID:  p.machine,
		DNSName:    p.dnsLocality,
		DCID:       p.dataCenter,
		DataHall:   p.dataHall,
	}}
}

// start (re)starts p with the group's current settings; it loads its TLS
// files through creds.
func (p *process) start(now time.Time, g ProcessGroup, creds loaded) {
	p.dnsName = g.DNSName
	p.class = cmp.Or(g.Class, ClassUnset)
	p.zone = g.zone(p.index)
	p.version = g.Version
	p.commandLine = g.commandLine(p.index)
	p.listeners = listenersOf(p.commandLine, g.IP, p.index)
	p.address = p.listeners[0].String()
	p.tls.start(now, p.commandLine, g, creds)
	machine, ok := commandLineLocality(p.commandLine, fdb.LocalityMachineID)
	if !ok {
		machine = p.zone
	}
	p.machine = machine
	p.dnsLocality, _ = commandLineLocality(p.commandLine, fdb.LocalityDNSName)
	p.dataCenter, _ = commandLineLocality(p.commandLine, fdb.LocalityDCID)
	p.dataHall, _ = commandLineLocality(p.commandLine, fdb.LocalityDataHall)
	p.started = now
	p.ioError = "" // a worker's latest error is its own incarnation's
}

// restart restarts p with g's current settings; when g cannot start its
// version, p stays down until it can (refreshProcesses starts it).
func (s *Sim) restart(p *process, g ProcessGroup) {
	if !g.startable() {
		p.running = false
		return
	}
	p.start(s.now, g, s.creds)
}

// storageClass reports whether p's class may hold data.
func (p *process) storageClass() bool {
	return p.class == ClassStorage || p.class == ClassUnset
}

// drains reports whether p's data moves away: it is excluded or wiggled.
func (p *process) drains() bool {
	return p.excluded || p.wiggled
}

// SetProcessGroups replaces the set of pods. Processes of new groups start
// (unless Stopped); processes of groups that are gone, or beyond a group's
// ProcessesPerPod, disappear together with their data: their volume is
// deleted on purpose, which is checked against the promise never to remove
// what still holds needed data (RemovedHeldData, RemovedLogData,
// RemovedCoordinator). Changing a group's IP or DNS name restarts its
// processes on the new address. Two running groups may share neither an IP
// nor a DNS name.
//
// A process is named by fdb.ProcessID when it is first created: the group
// ID when its pod runs one process, <group>-<n> when it runs more. It keeps
// that name (and its data) for its life: changing a group's
// ProcessesPerPod between 1 and more does not rename its first process,
// where real FoundationDB would report the new name once it restarts (the
// provider sets a group's density when it creates the group and never
// changes it). Two groups whose processes would share a name are refused.
// It sets the groups of the owner "" (see SetProcessGroupsOf).
func (s *Sim) SetProcessGroups(groups []ProcessGroup) error {
	return s.SetProcessGroupsOf("", groups)
}

// SetProcessGroupsOf replaces the pods one owner reports — the Kubernetes
// cluster of one data center, or one Cluster of a database several share —
// and keeps the other owners' as they reported them last: the database
// runs the processes of all of them, as SetProcessGroups describes. Group
// IDs are the database's instance_id localities and must be unique across
// owners: a group whose ID another owner reports is refused.
func (s *Sim) SetProcessGroupsOf(owner string, groups []ProcessGroup) error {
	s.lock()
	defer s.mu.Unlock()
	owned := maps.Clone(s.owned)
	if owned == nil {
		owned = map[string][]ProcessGroup{}
	}
	owned[owner] = groups
	if len(groups) == 0 {
		delete(owned, owner)
	}
	var all []ProcessGroup
	for _, o := range slices.Sorted(maps.Keys(owned)) {
		all = append(all, owned[o]...)
	}
	if err := s.setProcessGroups(all); err != nil {
		return err
	}
	s.owned = owned
	return nil
}

// setProcessGroups replaces every pod of every owner; the caller holds the
// lock.
func (s *Sim) setProcessGroups(groups []ProcessGroup) error {
	next := map[string]ProcessGroup{}
	addrs, dnsNames := map[string]string{}, map[string]string{}
	for _, g := range groups {
		if err := validateGroup(g); err != nil {
			return errors.Wrap(err, errSetProcessGroups)
		}
		if _, dup := next[g.ID]; dup {
			return errors.Errorf("%s: duplicate ID %q", errSetProcessGroups, g.ID)
		}
		next[g.ID] = g
		if g.Stopped {
			continue
		}
		if other, dup := addrs[g.IP]; dup {
			return errors.Errorf("%s: groups %q and %q share IP %s", errSetProcessGroups, other, g.ID, g.IP)
		}
		if other, dup := dnsNames[g.DNSName]; dup && g.DNSName != "" {
			return errors.Errorf("%s: groups %q and %q share DNS name %s", errSetProcessGroups, other, g.ID, g.DNSName)
		}
		addrs[g.IP], dnsNames[g.DNSName] = g.ID, g.ID
	}
	added, err := s.addedProcesses(groups, next)
	if err != nil {
		return errors.Wrap(err, errSetProcessGroups)
	}
	var removed []string
	for _, id := range s.procIDs {
		p := s.procs[id]
		g, ok := next[p.group]
		if !ok || !g.Stopped && p.index > g.processesPerPod() {
			removed = append(removed, id)
			continue
		}
		if old := s.groups[p.group]; p.running && !g.Stopped && (g.IP != old.IP || g.DNSName != old.DNSName) {
			s.restart(p, g)
		}
	}
	s.groups = next
	s.destroyVolumes(removed, true, "process removed")
	for _, id := range removed {
		delete(s.procs, id)
	}
	for _, p := range added {
		s.procs[p.id] = p
	}
	s.procIDs = slices.Sorted(maps.Keys(s.procs))
	s.evaluate()
	return nil
}

// addedProcesses returns the processes groups add to those kept: one for
// each n of a running group that no kept process of the group has, named
// fdb.ProcessID(group, n, ProcessesPerPod). It refuses names another
// group's process, kept or added, has: group a of two processes runs a-1,
// and so would group a-1 of one.
func (s *Sim) addedProcesses(groups []ProcessGroup, next map[string]ProcessGroup) ([]*process, error) {
	type slot struct {
		group string
		n     int
	}
	owner := map[string]string{}
	kept := map[slot]bool{}
	for _, id := range s.procIDs {
		p := s.procs[id]
		if g, ok := next[p.group]; ok && (g.Stopped || p.index <= g.processesPerPod()) {
			owner[id] = p.group
			kept[slot{p.group, p.index}] = true
		}
	}
	var out []*process
	for _, g := range groups {
		for n := 1; !g.Stopped && n <= g.processesPerPod(); n++ {
			if kept[slot{g.ID, n}] {
				continue
			}
			id := fdb.ProcessID(g.ID, n, g.processesPerPod())
			if other, taken := owner[id]; taken {
				return nil, errors.Errorf("groups %q and %q would both run process %q", other, g.ID, id)
			}
			owner[id] = g.ID
			out = append(out, &process{id: id, group: g.ID, index: n, downSince: s.now})
		}
	}
	return out, nil
}

func validateGroup(g ProcessGroup) error {
	switch {
	case g.ID == "":
		return errors.New("process group without ID")
	case g.Stopped:
		return nil
	case net.ParseIP(g.IP) == nil:
		return errors.Errorf("process group %q: invalid IP %q", g.ID, g.IP)
	case g.DNSName != "" && (net.ParseIP(g.DNSName) != nil || len(validation.IsDNS1123Subdomain(g.DNSName)) > 0):
		return errors.Errorf("process group %q: invalid DNS name %q", g.ID, g.DNSName)
	case g.ProcessesPerPod > maxProcessesPerPod:
		return errors.Errorf("process group %q: more than %d processes per pod", g.ID, maxProcessesPerPod)
	}
	if g.Staged != "" {
		if _, err := fdb.ParseVersion(g.Staged); err != nil {
			return errors.Wrapf(err, "process group %q: staged version", g.ID)
		}
	}
	_, err := fdb.ParseVersion(g.Version)
	return errors.Wrapf(err, "process group %q", g.ID)
}

// refreshProcesses starts processes whose pod runs and whose faults
// expired, stops the others, settles the cluster protocol and recomputes
// which processes are up and excluded.
func (s *Sim) refreshProcesses() {
	for _, id := range s.procIDs {
		p := s.procs[id]
		g := s.groups[p.group]
		running := !g.Stopped && !s.now.Before(p.downUntil) && (p.running || g.startable())
		if running && !p.running {
			p.start(s.now, g, s.creds)
		}
		p.running = running
	}
	s.settleProtocol()
	clear(s.listening)
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.running && majorMinor(p.version) == s.protocol {
			p.tls.look(s.now, s.groups[p.group], s.creds)
			for _, name := range p.names() {
				s.listening[name] = p
			}
		}
	}
	s.adoptRecoveredCoordinators()
	quorum := s.quorumReachable()
	clear(s.upByAddress)
	for _, id := range s.procIDs {
		p := s.procs[id]
		listens := p.running && majorMinor(p.version) == s.protocol
		up := listens && s.reaches(p) && (!quorum || s.joins(p))
		if p.up && !up {
			p.downSince = s.now
		}
		p.up = up
		if up && len(s.conn.Coordinators) > 0 {
			// fdbserver writes its cluster file once it joined, and again
			// with every coordinator change it learns of.
			p.clusterFile = s.conn.String()
		}
		p.excluded = s.isExcluded(p)
		if up {
			for _, name := range p.names() {
				s.upByAddress[name] = p
			}
		}
	}
}

// settleProtocol picks the protocol (major.minor) the cluster speaks: the
// one most running coordinators speak, or most running processes while no
// coordinator runs. Processes speaking another protocol cannot join, like
// the incompatible side of a partial upgrade.
func (s *Sim) settleProtocol() {
	votes := map[string]int{}
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.running && s.isCoordinator(p) {
			votes[majorMinor(p.version)]++
		}
	}
	if len(votes) == 0 {
		for _, id := range s.procIDs {
			if p := s.procs[id]; p.running {
				votes[majorMinor(p.version)]++
			}
		}
	}
	best, bestVotes := s.protocol, votes[s.protocol]
	for _, v := range slices.Sorted(maps.Keys(votes)) {
		if votes[v] > bestVotes {
			best, bestVotes = v, votes[v]
		}
	}
	s.protocol = best
}

func majorMinor(version string) string {
	v, err := fdb.ParseVersion(version)
	if err != nil {
		return ""
	}
	return v.MajorMinor()
}

// protocolAtLeast reports whether a cluster speaking protocol (major.minor)
// runs release major.minor or a later one: what it does and reports
// depends on the release.
func protocolAtLeast(protocol string, major, minor int) bool {
	v, err := fdb.ParseVersion(protocol + ".0")
	return err == nil && !v.Less(fdb.Version{Major: major, Minor: minor})
}

// isExcluded reports whether an exclusion selects p: by locality, or by
// IP or IP:port of any address it listens on, whatever its kind (an
// exclusion names no ":tls"; FoundationDB checks a process's secondary
// address too: fdbclient/ManagementAPI.actor.cpp at 7.3.63).
func (s *Sim) isExcluded(p *process) bool {
	views := p.views()
	return slices.ContainsFunc(s.exclusions, func(t fdb.ProcessAddress) bool {
		return slices.ContainsFunc(views, t.Matches)
	})
}

// views returns the process as an exclusion or kill target is matched
// against: its view at each address it listens on.
func (p *process) views() []fdb.Process {
	v := p.view()
	views := []fdb.Process{v}
	for _, l := range p.listeners[min(1, len(p.listeners)):] {
		v.Address = l.String()
		views = append(views, v)
	}
	return views
}

// upProcesses returns the processes that are part of the cluster, sorted.
func (s *Sim) upProcesses() []*process {
	var out []*process
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.up {
			out = append(out, p)
		}
	}
	return out
}

// processAt returns the up process addr resolves to: the one listening on
// addr when its host is an IP; when its host is a DNS name, the one on its
// port of the running group with that DNSName. Both directions of the
// resolution (this lookup and servedCoordinators) rest on process.names.
func (s *Sim) processAt(addr fdb.ProcessAddress) (*process, bool) {
	p, ok := s.upByAddress[string(addr)]
	return p, ok
}

// stopFor takes the running processes selected by keep down until the
// fault duration d has passed; it returns how many it selected.
func (s *Sim) stopFor(d time.Duration, keep func(p *process) bool) int {
	n := 0
	until := s.after(d)
	for _, id := range s.procIDs {
		if p := s.procs[id]; keep(p) {
			if until.After(p.downUntil) { // a shorter fault does not end a longer one
				p.downUntil = until
			}
			n++
		}
	}
	s.evaluate()
	return n
}

// CrashProcess crashes one process (by process ID, see SetProcessGroups); it
// restarts with its data after downFor.
func (s *Sim) CrashProcess(processID string, downFor time.Duration) error {
	s.lock()
	defer s.mu.Unlock()
	if _, ok := s.procs[processID]; !ok {
		return errors.Errorf("%s: %s %q", errCrashProcess, reasonUnknownProcess, processID)
	}
	s.stopFor(downFor, func(p *process) bool { return p.id == processID })
	return nil
}

// DiskError makes a read or write of one process's disk (by process ID)
// fail with the I/O error name (fdb.MessageIOError or MessageIOTimeout):
// its status lists the error among the process's messages, as the cluster
// controller reports a worker's latest error, for d or until the process
// next starts. The process keeps running and serving its roles: the
// simulator does not end the storage server role an I/O error ends in
// FoundationDB (fdbserver/worker.actor.cpp, workerHandleErrors).
func (s *Sim) DiskError(processID, name string, d time.Duration) error {
	s.lock()
	defer s.mu.Unlock()
	p, ok := s.procs[processID]
	switch {
	case !ok:
		return errors.Errorf("%s: %s %q", errDiskError, reasonUnknownProcess, processID)
	case name != fdb.MessageIOError && name != fdb.MessageIOTimeout:
		return errors.Errorf("%s: %s %q", errDiskError, reasonNotAnIOError, name)
	}
	p.ioError, p.ioErrorUntil = name, s.after(d)
	return nil
}

// messages are the status messages of process p now.
func (s *Sim) messages(p *process) []fdb.Message {
	if p.ioError == "" || !s.now.Before(p.ioErrorUntil) {
		return []fdb.Message{}
	}
	return []fdb.Message{{Name: p.ioError, Description: p.ioError}}
}

// LosePod takes every process of a group down for downFor; the volume and
// its data survive.
func (s *Sim) LosePod(groupID string, downFor time.Duration) error {
	s.lock()
	defer s.mu.Unlock()
	if _, ok := s.groups[groupID]; !ok {
		return errors.Errorf("%s: %s %q", errLosePod, reasonUnknownGroup, groupID)
	}
	s.stopFor(downFor, func(p *process) bool { return p.group == groupID })
	return nil
}

// LoseZone takes every process of the groups in a zone (a node or a whole
// fault domain: the zoneid locality their command lines set, else their
// Zone) down for downFor; volumes survive. Combine with LoseDisk
// to model local disks that die with the node.
func (s *Sim) LoseZone(zone string, downFor time.Duration) error {
	s.lock()
	defer s.mu.Unlock()
	if s.stopFor(downFor, func(p *process) bool { return s.groups[p.group].zone(p.index) == zone }) == 0 {
		return errors.Errorf("%s: %s %q", errLoseZone, reasonUnknownZone, zone)
	}
	return nil
}

// LoseDataCenter takes every process whose dcid locality is dc down for
// downFor, as when a whole data center loses power or its network;
// volumes survive.
func (s *Sim) LoseDataCenter(dc string, downFor time.Duration) error {
	s.lock()
	defer s.mu.Unlock()
	if dc == "" || s.stopFor(downFor, func(p *process) bool { return p.dataCenter == dc }) == 0 {
		return errors.Errorf("%s: %s %q", errLoseDataCenter, reasonUnknownDataCenter, dc)
	}
	return nil
}

// StatelessCoordinators are the coordinators of the connection string
// whose disk was lost since the coordinated state was last written to
// them (by a recovery that reached them or the coordinator change that
// named them): they hold none of it now.
func (s *Sim) StatelessCoordinators() []fdb.ProcessAddress {
	s.lock()
	defer s.mu.Unlock()
	return slices.Clone(s.coordinatorsLost)
}

// LoseDisk wipes the data volume of one process: its replicas, the logs it
// held and, for a coordinator, its coordinated state are gone, and it
// restarts empty. This is a fault, not a removal: only its consequences
// (DataLoss, CoordinatorStateLost) are violations.
func (s *Sim) LoseDisk(processID string) error {
	s.lock()
	defer s.mu.Unlock()
	p, ok := s.procs[processID]
	if !ok {
		return errors.Errorf("%s: %s %q", errLoseDisk, reasonUnknownProcess, processID)
	}
	s.destroyVolumes([]string{processID}, false, "disk lost")
	if p.running {
		s.restart(p, s.groups[p.group])
		if slices.Contains(s.roles.logs, p.id) {
			s.triggerRecovery()
		}
	}
	s.evaluate()
	return nil
}
