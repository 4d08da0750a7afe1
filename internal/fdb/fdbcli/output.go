package fdbcli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// errorMarker starts every error line the tools print.
const errorMarker = "ERROR:"

// errAlreadyDiscontinued classifies `fdbbackup discontinue` on a backup
// discontinued before: StopBackup has nothing left to do.
var errAlreadyDiscontinued = errors.New("backup already discontinued")

// outputErrors classifies a failed invocation by a fragment of its
// lower-cased output; the first match wins. The fragments are the tools'
// own messages (FoundationDB 7.1 and 7.3 sources, see
// internal/fdb/testdata/real/tools/outputs.json):
//
//   - "Specified timeout reached -- exiting..." (fdbcli --timeout), first:
//     fdbcli prints "The database is unavailable; type `status' for more
//     information." as a warning after 5 s without an answer and keeps
//     waiting (checkStatus in fdbcli.actor.cpp), so a command that then
//     times out timed out;
//   - "ERROR: The database is unavailable" (configure's own check);
//   - "ERROR: Database already exists! ..." (configure new), "ERROR: A
//     backup is already running on tag `t'" (fdbbackup start), "ERROR:
//     Restore duplicate request" (fdbrestore start);
//   - "ERROR: process `a' not recognized." (kill), "ERROR: A backup in not
//     running on tag `t'" (sic, fdbbackup discontinue), "No backup exists
//     on tag 't'", "Backup on tag 't' is not runnable." and "Cannot modify
//     aborted backup on tag 't'" (fdbbackup modify);
//   - "ERROR: The backup on tag `t' is already discontinued";
//   - "ERROR: Storage engine type cannot be changed because
//     storage_migration_type=disabled." (configure, ConfigureCommand.actor.cpp).
var outputErrors = []struct {
	fragment string
	err      error
}{
	{"specified timeout reached", fdb.ErrTimeout},
	{"storage_migration_type=disabled", fdb.ErrStorageMigrationDisabled},
	{"database is unavailable", fdb.ErrUnavailable},
	{"is already discontinued", errAlreadyDiscontinued},
	{"already exists", fdb.ErrAlreadyExists},
	{"already running", fdb.ErrAlreadyExists},
	{"duplicate request", fdb.ErrAlreadyExists},
	{"not recognized", fdb.ErrNotFound},
	{"not running on tag", fdb.ErrNotFound},
	{"no backup exists", fdb.ErrNotFound},
	{"is not runnable", fdb.ErrNotFound},
	{"cannot modify aborted backup", fdb.ErrNotFound},
}

// check turns the result of an invocation into an error. A done context is
// a timeout. An invocation failed when it exited non-zero or, unless
// errorLines is false (for output that is data), printed an ERROR: line.
func check(ctx context.Context, command string, out []byte, runErr error, errorLines bool) error {
	text := string(out)
	if ctx.Err() != nil {
		return fdb.NewCommandError(command, text, fdb.ErrTimeout)
	}
	if runErr == nil && (!errorLines || !strings.Contains(text, errorMarker)) {
		return nil
	}
	lower := strings.ToLower(text)
	for _, m := range outputErrors {
		if strings.Contains(lower, m.fragment) {
			return fdb.NewCommandError(command, text, m.err)
		}
	}
	if runErr != nil {
		text = strings.TrimSpace(text + "\n" + runErr.Error())
	}
	return fdb.NewCommandError(command, text, nil)
}

// backupStatusJSON is the subset of `fdbbackup status --json` we read.
type backupStatusJSON struct {
	DestinationURL          string `json:"DestinationURL"`
	SnapshotIntervalSeconds int    `json:"SnapshotIntervalSeconds"`
	BackupAgentsPaused      bool   `json:"BackupAgentsPaused"`
	Restorable              bool   `json:"Restorable"`
	Status                  struct {
		Name    string `json:"Name"`
		Running bool   `json:"Running"`
	} `json:"Status"`
	LatestRestorablePoint struct {
		Version int64 `json:"Version"`
	} `json:"LatestRestorablePoint"`
	CurrentSnapshot struct {
		ExpectedProgress float64 `json:"ExpectedProgress"`
	} `json:"CurrentSnapshot"`
}

// neverRan is the state fdbbackup reports for a tag without a backup.
const neverRan = "NeverRan"

// parseBackupStatus parses `fdbbackup status --json` for tag. A tag that
// never ran a backup has no Status (FileBackupAgent::getStatusJSON writes
// only SchemaVersion, BackupAgentsPaused and Tag); a state fdbbackup does
// not name is ErrUnexpectedOutput.
func parseBackupStatus(out []byte, tag string) (*fdb.BackupStatus, error) {
	start := bytes.IndexByte(out, '{')
	var raw backupStatusJSON
	if start < 0 || json.Unmarshal(out[start:], &raw) != nil {
		return nil, errors.Wrap(fdb.ErrUnexpectedOutput, errParseBackupStatus)
	}
	if raw.Status.Name == "" || raw.Status.Name == neverRan {
		return nil, errors.Wrapf(fdb.ErrNotFound, "no backup on tag %q", tag)
	}
	if !fdb.BackupState(raw.Status.Name).Known() {
		return nil, errors.Wrapf(fdb.ErrUnexpectedOutput, "%s: unknown state %q", errParseBackupStatus, raw.Status.Name)
	}
	return &fdb.BackupStatus{
		Tag:                     tag,
		URL:                     raw.DestinationURL,
		State:                   fdb.BackupState(raw.Status.Name),
		Running:                 raw.Status.Running,
		Restorable:              raw.Restorable,
		AgentsPaused:            raw.BackupAgentsPaused,
		SnapshotPeriodSeconds:   raw.SnapshotIntervalSeconds,
		LatestRestorableVersion: raw.LatestRestorablePoint.Version,
		SnapshotProgress:        raw.CurrentSnapshot.ExpectedProgress,
	}, nil
}

var (
	restoreState  = regexp.MustCompile(`State:\s*(\S+)`)
	restoreBlocks = regexp.MustCompile(`Blocks:\s*(\d+)/(\d+)`)
	restoreBytes  = regexp.MustCompile(`BytesWritten:\s*(\d+)`)
	restoreAbort  = regexp.MustCompile(`RESTORE_ABORT Tag: .*  State: (\S+)`)
)

// restoreUninitialized is the state fdbrestore reports for a tag without a
// restore: "unitialized", misspelt so in FileBackupAgent::restoreStateText
// of 7.1 and 7.3. The spelling it should have is accepted too.
var restoreUninitialized = []string{"unitialized", "uninitialized"}

// parseRestoreStatus parses the progress line `fdbrestore status` prints
// (RestoreConfig::getProgress and getFullStatus in the FoundationDB sources):
// "Tag: t  UID: …  State: running  Blocks: 3/10  BlocksInProgress: 1
// Files: 2  BytesWritten: 1234  CurrentVersion: …". A state fdbrestore does
// not name, or numbers that do not parse, are ErrUnexpectedOutput.
func parseRestoreStatus(out []byte, tag string) (*fdb.RestoreStatus, error) {
	m := restoreState.FindSubmatch(out)
	if m == nil {
		return nil, errors.Wrap(fdb.ErrUnexpectedOutput, errParseRestoreStatus)
	}
	state := string(m[1])
	if slices.Contains(restoreUninitialized, state) {
		return nil, errors.Wrapf(fdb.ErrNotFound, "no restore on tag %q", tag)
	}
	if !fdb.RestoreState(state).Known() {
		return nil, errors.Wrapf(fdb.ErrUnexpectedOutput, "%s: unknown state %q", errParseRestoreStatus, state)
	}
	st := &fdb.RestoreStatus{Tag: tag, State: fdb.RestoreState(state)}
	var err error
	if b := restoreBlocks.FindSubmatch(out); b != nil {
		st.BlocksDone, err = strconv.ParseInt(string(b[1]), 10, 64)
		if err == nil {
			st.BlocksTotal, err = strconv.ParseInt(string(b[2]), 10, 64)
		}
	}
	if b := restoreBytes.FindSubmatch(out); b != nil && err == nil {
		st.BytesWritten, err = strconv.ParseInt(string(b[1]), 10, 64)
	}
	if err != nil {
		return nil, errors.Wrapf(fdb.ErrUnexpectedOutput, "%s: %v", errParseRestoreStatus, err)
	}
	return st, nil
}

// parseRestoreAbort reads what `fdbrestore abort` did from the line it
// prints, "RESTORE_ABORT Tag: t  State: s", exiting 0 whatever the state:
// "aborted" when it aborted the restore, the restore's state when it had
// ended (nothing to do), "unitialized" when the tag has no restore
// (ErrNotFound).
func parseRestoreAbort(out []byte, tag string) error {
	m := restoreAbort.FindSubmatch(out)
	switch {
	case m == nil:
		return errors.Wrap(fdb.ErrUnexpectedOutput, errParseRestoreAbort)
	case slices.Contains(restoreUninitialized, string(m[1])):
		return errors.Wrapf(fdb.ErrNotFound, "no restore on tag %q", tag)
	case !fdb.RestoreState(m[1]).Known():
		return errors.Wrapf(fdb.ErrUnexpectedOutput, "%s: unknown state %q", errParseRestoreAbort, m[1])
	}
	return nil
}
