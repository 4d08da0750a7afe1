package fdb

import (
	"errors"
	"strings"
)

// Sentinel errors. Implementations wrap them so callers test with errors.Is.
var (
	// ErrTimeout means the operation did not finish within its timeout.
	ErrTimeout = errors.New("operation timed out")
	// ErrUnavailable means the database cannot serve transactions: it is
	// not configured yet, recovering, or has lost its coordinator quorum.
	ErrUnavailable = errors.New("database is unavailable")
	// ErrNotFound means the addressed backup, restore or process does not
	// exist.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists means the database, backup or restore to create
	// exists already.
	ErrAlreadyExists = errors.New("already exists")
	// ErrUnsupportedVersion means no client for the version is available.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrUnexpectedOutput means a tool's output could not be understood.
	ErrUnexpectedOutput = errors.New("unexpected output")
	// ErrStorageMigrationDisabled means configure refused to change the
	// storage engine of a database whose storage_migration_type is
	// disabled ("ERROR: Storage engine type cannot be changed because
	// storage_migration_type=disabled.", fdbcli/ConfigureCommand.actor.cpp,
	// 7.1.67 and 7.3.63).
	ErrStorageMigrationDisabled = errors.New("the storage engine cannot be changed while storage_migration_type is disabled")
	// ErrNoLocker means the client cannot take the global lock: fdbcli has
	// no transaction that reads a key and writes what depends on it, and
	// the provider was built without the FoundationDB client library
	// (build tag fdb) that has.
	ErrNoLocker = errors.New("the global lock needs the FoundationDB client library (a provider built with -tags fdb)")
)

// maxOutput bounds the tool output kept in a CommandError.
const maxOutput = 2048

// A CommandError is a failed tool invocation. Err is one of the sentinel
// errors, or nil when the failure has no better classification.
type CommandError struct {
	// Command is the command that failed, e.g. "fdbcli exclude no_wait …".
	Command string
	// Output is the tool's output, truncated.
	Output string
	// Err classifies the failure.
	Err error
}

// NewCommandError returns a CommandError whose output is trimmed and
// truncated to a size fit for a condition message.
func NewCommandError(command, output string, err error) *CommandError {
	output = strings.TrimSpace(output)
	if len(output) > maxOutput {
		output = output[:maxOutput] + "…"
	}
	return &CommandError{Command: command, Output: output, Err: err}
}

func (e *CommandError) Error() string {
	var b strings.Builder
	b.WriteString("cannot run ")
	b.WriteString(e.Command)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Output != "" {
		b.WriteString(": ")
		b.WriteString(e.Output)
	}
	return b.String()
}

// Unwrap returns the classification so errors.Is works.
func (e *CommandError) Unwrap() error { return e.Err }
