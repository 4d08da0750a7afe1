package fdb

import (
	"fmt"
	"slices"
	"strings"
)

// Cluster messages of a status whose view of roles and data cannot be
// trusted to be complete.
const (
	MessageStorageServersError = "storage_servers_error"
	MessageLogServersError     = "log_servers_error"
)

// A Drain is what one status proves about whether a process group may be
// removed. Absence is never evidence: a group is drained only when the
// status is complete, every one of its processes reports, is excluded and
// serves no role, and none is a coordinator.
type Drain struct {
	// Drained is true only on that positive evidence.
	Drained bool
	// Complete is true when the status can show every role and the data
	// each process keeps.
	Complete bool
	// Reporting is true when every process of the group reports.
	Reporting bool
	// HoldsData is true when a process reports a data role (storage, log)
	// or when the status cannot show that none does: it fails closed.
	HoldsData bool
	// Excluded is true when the group's locality is in the exclusion list
	// or every process of it reports excluded.
	Excluded bool
	// Roles are the roles its reporting processes serve, sorted, with
	// "coordinator" when one of them, or one of its known addresses, is.
	Roles []string
	// Why says why the group is not drained; "" when it is.
	Why string
}

// DrainOf is what status s proves of the process group instanceID, which
// runs processes processes (at least one) and is known to listen on
// addresses (e.g. from its pod) besides what its reporting processes say.
func DrainOf(s *Status, instanceID string, processes int, addresses []string) Drain {
	var procs []Process
	for _, p := range s.Cluster.Processes {
		if p.Locality.InstanceID == instanceID {
			procs = append(procs, p)
		}
	}
	d := Drain{Reporting: len(procs) >= max(processes, 1)}
	d.Excluded = slices.Contains(Exclusions(s), InstanceTarget(instanceID)) ||
		(len(procs) > 0 && !slices.ContainsFunc(procs, func(p Process) bool { return !p.Excluded }))
	coordinators := map[string]bool{}
	if cs, err := ParseConnectionString(s.Cluster.ConnectionString); err == nil {
		for _, c := range cs.Coordinators {
			coordinators[string(c)] = true
		}
	}
	roles := map[string]bool{}
	unknownRoles := false
	for _, p := range procs {
		// A role entry without its name could be any role, a data role
		// included.
		unknownRoles = unknownRoles || p.Roles == nil || slices.ContainsFunc(p.Roles, func(r ProcessRole) bool { return r.Role == "" })
		for _, r := range p.Roles {
			roles[r.Role] = true
		}
		addresses = append(addresses, p.Names()...)
	}
	if slices.ContainsFunc(addresses, func(a string) bool { return coordinators[a] }) {
		roles[RoleCoordinator] = true
	}
	for r := range roles {
		d.Roles = append(d.Roles, r)
	}
	slices.Sort(d.Roles)
	incomplete := IncompleteBecause(s)
	d.Complete = incomplete == ""
	d.HoldsData = roles[RoleStorage] || roles[RoleLog] || !d.Reporting || incomplete != "" || unknownRoles
	switch {
	case incomplete != "":
		d.Why = incomplete
	case unknownRoles:
		d.Why = "the status does not list the roles of its processes"
	case !d.Reporting:
		d.Why = fmt.Sprintf("%d of its %d processes report: a group that does not report cannot prove it holds no data", len(procs), max(processes, 1))
	case !d.Excluded && !s.ConfigurationRead():
		d.Why = "the status cannot show whether it is excluded: the cluster controller could not read the database's configuration"
	case !d.Excluded:
		d.Why = "it is not excluded"
	case len(d.Roles) > 0:
		d.Why = "it still serves " + strings.Join(d.Roles, ", ")
	default:
		d.Drained = true
	}
	return d
}

// IncompleteBecause says why a status cannot show every role and the data
// each process keeps; "" when it can: its view is complete
// (ViewIncompleteBecause) and no older log generation is still active.
func IncompleteBecause(s *Status) string {
	if why := ViewIncompleteBecause(s); why != "" {
		return why
	}
	if g := s.Cluster.RecoveryState.ActiveGenerations; g > 1 {
		return fmt.Sprintf("%d log generations are active: old logs may still hold data", g)
	}
	return ""
}

// ViewIncompleteBecause says why a status cannot show the roles of its
// processes and how many log generations are active; "" when it can.
func ViewIncompleteBecause(s *Status) string {
	var msgs []string
	for _, m := range s.Cluster.Messages {
		switch m.Name {
		case MessageStatusIncomplete, MessageStorageServersError, MessageLogServersError:
			msgs = append(msgs, m.Name)
		case "":
			msgs = append(msgs, "a message without a name")
		}
	}
	switch {
	case len(s.Cluster.Processes) == 0:
		return "the status lists no processes"
	case len(msgs) > 0:
		return "the status is incomplete (" + strings.Join(msgs, ", ") + ")"
	case s.Cluster.RecoveryState.ActiveGenerations < 1 && s.Cluster.RecoveryState.Name != RecoveryConfigurationNeverCreated:
		// FoundationDB leaves active_generations out when the cluster
		// controller has not logged it yet, and releases older than the
		// field (such as 6.2.15) never report it: a missing count is
		// unknown, never "one generation". A database that was never
		// created has no log generations.
		return "the status does not report the active log generations: old logs may still hold data"
	}
	return ""
}

// DataRoles are those of roles that hold data: storage and log.
func DataRoles(roles []string) []string { return rolesAmong(roles, RoleStorage, RoleLog) }

// RemovalRoles are those of roles that make removing a process matter:
// storage, log and coordinator. FoundationDB recruits the stateless roles
// anew at every recovery.
func RemovalRoles(roles []string) []string {
	return rolesAmong(roles, RoleStorage, RoleLog, RoleCoordinator)
}

// rolesAmong returns, in order, those of roles that are among some.
func rolesAmong(roles []string, some ...string) []string {
	var out []string
	for _, r := range roles {
		if slices.Contains(some, r) {
			out = append(out, r)
		}
	}
	return out
}

// StoredBytes are the bytes the storage servers of the processes of group
// instanceID hold, as status s says; false when no process of the group
// reports.
func StoredBytes(s *Status, instanceID string) (int64, bool) {
	var bytes int64
	reporting := false
	for _, p := range s.Cluster.Processes {
		if p.Locality.InstanceID != instanceID {
			continue
		}
		reporting = true
		for _, r := range p.Roles {
			if r.Role == RoleStorage {
				bytes += r.StoredBytes
			}
		}
	}
	return bytes, reporting
}
