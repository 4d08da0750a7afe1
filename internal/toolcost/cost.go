// Package toolcost makes an admin client of FoundationDB cost what the real
// tools cost: each call waits, on an injected clock, as long as the fdbcli,
// fdbbackup or fdbrestore run it stands for would take (the process's start
// and its connection to the cluster, then the command), and counts the
// tools' runs and the CPU they and the cluster controller would spend. It
// wraps the simulator in the provider binary, so that a local run and the
// fleet benchmark see the provider's and the database's load as a real
// cluster would. The figures and their sources are in docs/SIMULATOR.md
// ("What the tools cost").
package toolcost

import "time"

// Op names an admin operation as the tool command it runs; it labels
// fdb_tool_invocations_total.
type Op string

// The operations of fdb.Client.
const (
	OpStatus            Op = "status"
	OpConfigure         Op = "configure"
	OpExclude           Op = "exclude"
	OpInclude           Op = "include"
	OpKill              Op = "kill"
	OpCoordinators      Op = "coordinators"
	OpForceRecovery     Op = "force_recovery"
	OpMaintenance       Op = "maintenance"
	OpMaintenanceOff    Op = "maintenance_off"
	OpBackupStart       Op = "backup_start"
	OpBackupDiscontinue Op = "backup_discontinue"
	OpBackupPause       Op = "backup_pause"
	OpBackupResume      Op = "backup_resume"
	OpBackupModify      Op = "backup_modify"
	OpBackupStatus      Op = "backup_status"
	OpRestoreStart      Op = "restore_start"
	OpRestoreStatus     Op = "restore_status"
	OpRestoreAbort      Op = "restore_abort"
	// The global lock's operations are transactions of the native client
	// the provider links (fdb.Locker, package bindings), not tool runs.
	OpTakeLock     Op = "take_lock"
	OpReleaseLock  Op = "release_lock"
	OpLockDenyList Op = "lock_deny_list"
)

// Cost is what one operation, or one part of it, costs.
type Cost struct {
	// Wall is how long the caller waits.
	Wall time.Duration
	// ToolCPU is the CPU time the tool's process spends in the provider's
	// pod.
	ToolCPU time.Duration
	// ControllerCPU is the CPU time the cluster controller spends
	// producing a status document.
	ControllerCPU time.Duration
}

// The figures, each explained with its source, or marked an estimate, in
// docs/SIMULATOR.md.
var (
	// invocation is one tool run's start and connection: fork and exec,
	// the client's start-up and exit (50 ms, operator issue 254's log),
	// reading the cluster file, reaching the coordinators and the first
	// read version fdbcli waits for (20 ms, an estimate).
	invocation = Cost{Wall: 70 * time.Millisecond, ToolCPU: 45 * time.Millisecond}
	// transaction is one native-client transaction of the global lock: a
	// read version, reads and a commit (an estimate).
	transaction = Cost{Wall: 10 * time.Millisecond}
	// status is `status json` on a cluster without processes; perProcess
	// is what each process in the status adds: the cluster controller
	// asks every worker for six kinds of events and builds the document,
	// the tool receives and prints it (estimates scaled to issues 736 and
	// 7684 of apple/foundationdb).
	status     = Cost{Wall: 10 * time.Millisecond, ControllerCPU: time.Millisecond}
	perProcess = Cost{Wall: time.Millisecond, ToolCPU: 200 * time.Microsecond, ControllerCPU: 500 * time.Microsecond}
	// commands are the other operations' own costs (estimates). A kill
	// includes the `sleep 5` the provider's kill script ends with.
	commands = map[Op]Cost{
		OpConfigure:         {Wall: 50 * time.Millisecond},
		OpExclude:           {Wall: 20 * time.Millisecond},
		OpInclude:           {Wall: 10 * time.Millisecond},
		OpKill:              {Wall: 5*time.Second + 20*time.Millisecond},
		OpCoordinators:      {Wall: 2 * time.Second},
		OpForceRecovery:     {Wall: 2 * time.Second},
		OpMaintenance:       {Wall: 10 * time.Millisecond},
		OpMaintenanceOff:    {Wall: 10 * time.Millisecond},
		OpBackupStart:       {Wall: 200 * time.Millisecond},
		OpBackupDiscontinue: {Wall: 20 * time.Millisecond},
		OpBackupPause:       {Wall: 20 * time.Millisecond},
		OpBackupResume:      {Wall: 20 * time.Millisecond},
		OpBackupModify:      {Wall: 20 * time.Millisecond},
		OpBackupStatus:      {Wall: 20 * time.Millisecond},
		OpRestoreStart:      {Wall: 500 * time.Millisecond},
		OpRestoreStatus:     {Wall: 20 * time.Millisecond},
		OpRestoreAbort:      {Wall: 20 * time.Millisecond},
		OpTakeLock:          transaction,
		OpReleaseLock:       transaction,
		OpLockDenyList:      transaction,
	}
)

// Tool reports whether op runs a tool, rather than a native-client
// transaction.
func Tool(op Op) bool {
	return op != OpTakeLock && op != OpReleaseLock && op != OpLockDenyList
}

// Of returns what op costs on a cluster whose status lists processes
// processes: start before the operation takes effect (a tool's start and
// connection; nothing for a transaction), run for the command itself.
func Of(op Op, processes int) (start, run Cost) {
	if Tool(op) {
		start = invocation
	}
	if op != OpStatus {
		return start, commands[op]
	}
	n := time.Duration(processes)
	return start, Cost{
		Wall:          status.Wall + n*perProcess.Wall,
		ToolCPU:       status.ToolCPU + n*perProcess.ToolCPU,
		ControllerCPU: status.ControllerCPU + n*perProcess.ControllerCPU,
	}
}
