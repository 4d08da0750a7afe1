package fdbcli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// errorMarker starts every error line the tools print.
const errorMarker = "ERROR:"

// outputErrors classifies a failed invocation by a fragment of its
// lower-cased output; the first match wins.
var outputErrors = []struct {
	fragment string
	err      error
}{
	{"database is unavailable", fdb.ErrUnavailable},
	{"specified timeout reached", fdb.ErrTimeout},
	{"already exists", fdb.ErrAlreadyExists},
	{"already running", fdb.ErrAlreadyExists},
	{"already in progress", fdb.ErrAlreadyExists},
	{"not recognized", fdb.ErrNotFound},
	{"does not exist", fdb.ErrNotFound},
	{"no previous backups", fdb.ErrNotFound},
	{"no backup", fdb.ErrNotFound},
	{"no restore", fdb.ErrNotFound},
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

// parseBackupStatus parses `fdbbackup status --json` for tag.
func parseBackupStatus(out []byte, tag string) (*fdb.BackupStatus, error) {
	start := bytes.IndexByte(out, '{')
	var raw backupStatusJSON
	if start < 0 || json.Unmarshal(out[start:], &raw) != nil {
		return nil, errors.Wrap(fdb.ErrUnexpectedOutput, errParseBackupStatus)
	}
	if raw.Status.Name == "" || raw.Status.Name == neverRan {
		return nil, errors.Wrapf(fdb.ErrNotFound, "no backup on tag %q", tag)
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
)

// restoreUninitialized is the state fdbrestore reports for an unused tag.
const restoreUninitialized = "uninitialized"

// parseRestoreStatus parses the progress line `fdbrestore status` prints:
// "Tag: t  UID: …  State: running  Blocks: 3/10  …  BytesWritten: 1234 …".
func parseRestoreStatus(out []byte, tag string) (*fdb.RestoreStatus, error) {
	m := restoreState.FindSubmatch(out)
	if m == nil {
		return nil, errors.Wrap(fdb.ErrUnexpectedOutput, errParseRestoreStatus)
	}
	if string(m[1]) == restoreUninitialized {
		return nil, errors.Wrapf(fdb.ErrNotFound, "no restore on tag %q", tag)
	}
	st := &fdb.RestoreStatus{Tag: tag, State: fdb.RestoreState(m[1])}
	if b := restoreBlocks.FindSubmatch(out); b != nil {
		st.BlocksDone, _ = strconv.ParseInt(string(b[1]), 10, 64)
		st.BlocksTotal, _ = strconv.ParseInt(string(b[2]), 10, 64)
	}
	if b := restoreBytes.FindSubmatch(out); b != nil {
		st.BytesWritten, _ = strconv.ParseInt(string(b[1]), 10, 64)
	}
	return st, nil
}
