package fdbcli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbcli"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// errExit is what a Runner returns for a non-zero exit status.
var errExit = errors.New("exit status 1")

// valueFlags are the flags of the three tools that take a value.
var valueFlags = []string{"-C", "--exec", "--timeout", "--log-group", "-d", "-t", "-s", "-r", "--dest_cluster_file", "-v", "-k", "--log-dir", "--logdir", "--trace_format", "--blob_credentials"}

// invocation is a parsed command line.
type invocation struct {
	flags      map[string][]string
	positional []string
}

func parse(args []string) invocation {
	inv := invocation{flags: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case slices.Contains(valueFlags, a) && i+1 < len(args):
			inv.flags[a] = append(inv.flags[a], args[i+1])
			i++
		case strings.HasPrefix(a, "-"):
			inv.flags[a] = append(inv.flags[a], "")
		default:
			inv.positional = append(inv.positional, a)
		}
	}
	return inv
}

func (inv invocation) flag(name string) string {
	if v := inv.flags[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// keyRanges reads the -k values as tool (fdbbackup or fdbrestore) does
// (fdbcli.ParseKeyRanges), in the printable form of fdb.KeyRange; failure is
// what the tool prints when it refuses one, before it exits 1.
func (inv invocation) keyRanges(tool string) (ranges []fdb.KeyRange, failure string) {
	for _, k := range inv.flags["-k"] {
		raw, failure := fdbcli.ParseKeyRanges(tool, k)
		if failure != "" {
			return nil, failure
		}
		for _, r := range raw {
			ranges = append(ranges, fdb.KeyRange{Begin: printable(r[0]), End: printable(r[1])})
		}
	}
	return ranges, ""
}

// printable renders a key as FoundationDB prints it (Traceable<StringRef>,
// flow/include/flow/Traceable.h at 7.1.67 and 7.3.63): printable ASCII as
// it is, a backslash doubled, other bytes as \xNN.
func printable(key string) string {
	var b strings.Builder
	for i := range len(key) {
		switch c := key[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 32 && c <= 126:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}

// emulator answers fdbcli, fdbbackup and fdbrestore invocations the way the
// real tools print, against a simulated cluster: the scripted runner the
// contract suite drives the fdbcli client through.
type emulator struct {
	sim *sim.Sim
}

func (e *emulator) Run(ctx context.Context, binary string, _ []string, args ...string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inv := parse(args)
	var out strings.Builder
	var err error
	switch filepath.Base(binary) {
	case "fdbcli":
		err = e.cli(ctx, filepath.Base(filepath.Dir(binary)), inv, &out)
	case "fdbbackup":
		err = e.backup(ctx, inv, &out)
	case "fdbrestore":
		err = e.restore(ctx, inv, &out)
	default:
		return nil, fmt.Errorf("no such binary %s", binary)
	}
	if err != nil {
		return []byte(out.String()), errExit
	}
	return []byte(out.String()), nil
}

// Output the real tools print (FoundationDB 7.1 and 7.3 sources; see
// internal/fdb/testdata/real/tools/outputs.json).
const (
	// fdbcli prints the minimal status after 5 s without an answer, then
	// gives up at --timeout.
	outUnavailable = "\nWARNING: Long delay (Ctrl-C to interrupt)\n\nThe database is unavailable; type `status' for more information.\n\nSpecified timeout reached -- exiting...\n"
	outTimeout     = "Specified timeout reached -- exiting...\n"
	// configure's own checks (ConfigureCommand.actor.cpp): the database
	// did not answer (DATABASE_UNAVAILABLE), or the command changes the
	// storage engine while storage_migration_type is disabled
	// (STORAGE_MIGRATION_DISABLED).
	outConfigureUnavailable        = "ERROR: The database is unavailable\nType `configure FORCE <TOKEN...>' to configure without this check\n"
	outStorageMigrationDisabled    = "ERROR: Storage engine type cannot be changed because storage_migration_type=disabled.\nType `configure perpetual_storage_wiggle=1 storage_migration_type=gradual' to enable gradual migration with the perpetual wiggle, or `configure storage_migration_type=aggressive' for aggressive migration.\n"
	outConfigurationChangedWarnPPW = "Configuration changed, with warnings\nWARN: To make progress toward the desired storage type with storage_migration_type=gradual, the Perpetual Wiggle must be enabled.\nType `configure perpetual_storage_wiggle=1' to enable the perpetual wiggle, or `configure storage_migration_type=gradual' to set the gradual migration type.\n"
)

// configureFailures are what configure prints, before it exits 1, when its
// own checks refuse the command.
var configureFailures = []struct {
	err error
	out string
}{
	{fdb.ErrUnavailable, outConfigureUnavailable},
	{fdb.ErrStorageMigrationDisabled, outStorageMigrationDisabled},
}

// fail prints what a tool prints for err; notFound and alreadyExists are
// the tool's own lines for those errors.
func fail(out *strings.Builder, err error, notFound, alreadyExists string) error {
	switch {
	case errors.Is(err, fdb.ErrUnavailable):
		out.WriteString(outUnavailable)
	case errors.Is(err, fdb.ErrTimeout):
		out.WriteString(outTimeout)
	case errors.Is(err, fdb.ErrNotFound) && notFound != "":
		out.WriteString(notFound)
	case errors.Is(err, fdb.ErrAlreadyExists) && alreadyExists != "":
		out.WriteString(alreadyExists)
	default:
		out.WriteString("ERROR: " + err.Error() + "\n")
	}
	return err
}

func addresses(words []string) []fdb.ProcessAddress {
	out := make([]fdb.ProcessAddress, len(words))
	for i, w := range words {
		out[i] = fdb.ProcessAddress(w)
	}
	return out
}

// clusterFileHeader is what fdbcli writes before the connection string
// when it rewrites a cluster file (ClusterConnectionFile::persist,
// fdbclient/ClusterConnectionFile.actor.cpp at 7.1.67 and 7.3.63).
const clusterFileHeader = "# DO NOT EDIT!\n# This file is auto-generated, it is not to be edited by hand\n"

// cli runs the commands of --exec as fdbcli of the binary's release reads
// them (fdbcli.ParseExec): a line that does not parse runs the commands
// before the last, then fails as fdbcli does ("parse_error").
func (e *emulator) cli(ctx context.Context, release string, inv invocation, out *strings.Builder) error {
	commands, ok := fdbcli.ParseExec(inv.flag("--exec"), release)
	for n, words := range commands {
		if len(words) == 0 {
			continue
		}
		if !ok && n == len(commands)-1 {
			out.WriteString("ERROR: Command failed to completely parse.\nERROR: Not running partial or malformed command: " + strings.Join(words, " ") + "\n")
			return errExit
		}
		if len(commands) > 1 {
			out.WriteString(">>> " + strings.Join(words, " ") + "\n")
		}
		var err error
		switch words[0] {
		case "status":
			var b []byte
			if b, err = e.sim.StatusJSON(ctx); err == nil {
				out.Write(b)
			}
		case "configure":
			err = e.configure(ctx, words[1:], out)
			for _, f := range configureFailures {
				if errors.Is(err, f.err) {
					out.WriteString(f.out)
					return err
				}
			}
		case "exclude":
			if len(words) < 2 || words[1] != "no_wait" {
				return fail(out, errors.New("the emulator only excludes with no_wait"), "", "")
			}
			err = e.sim.Exclude(ctx, addresses(words[2:]))
		case "include":
			err = e.sim.Include(ctx, addresses(words[1:]))
		case "kill":
			if len(words) == 1 {
				out.WriteString("\nThe following addresses can be killed:\n\n")
			} else if err = e.sim.Kill(ctx, addresses(words[1:])); err == nil {
				fmt.Fprintf(out, "Attempted to kill %d processes\n", len(words)-1)
			}
		case "maintenance":
			switch {
			case len(words) == 4 && words[1] == "on":
				var seconds int
				if seconds, err = strconv.Atoi(words[3]); err == nil {
					err = e.sim.SetMaintenance(ctx, words[2], seconds)
				}
			case len(words) == 2 && words[1] == "off":
				err = e.sim.ResetMaintenance(ctx)
			default:
				err = fmt.Errorf("usage: maintenance [on|off] [ZONEID] [SECONDS]")
			}
		case "force_recovery_with_data_loss":
			if len(words) != 2 {
				err = fmt.Errorf("usage: force_recovery_with_data_loss <DCID>")
			} else {
				err = e.sim.ForceRecovery(ctx, words[1])
			}
		case "sleep":
		case "coordinators":
			var cs string
			if cs, err = e.sim.ChangeCoordinators(ctx, addresses(words[1:])); err == nil {
				err = os.WriteFile(inv.flag("-C"), []byte(clusterFileHeader+cs+"\n"), 0o600)
				out.WriteString("Coordination state changed\n")
			}
		default:
			err = fmt.Errorf("unknown command `%s'", words[0])
		}
		if err != nil {
			notFound := ""
			if words[0] == "kill" {
				notFound = "ERROR: process `" + words[1] + "' not recognized.\n"
			}
			err = fail(out, err, notFound, "ERROR: Database already exists! To change configuration, don't say `new'\n")
			if len(commands) > 1 {
				out.WriteString("WARNING: the previous command failed, the remaining commands will not be executed.\n")
			}
			return err
		}
	}
	return nil
}

func (e *emulator) configure(ctx context.Context, words []string, out *strings.Builder) error {
	var cfg fdb.DatabaseConfiguration
	newDatabase, cleared := false, false
	for _, w := range words {
		key, value, isPair := strings.Cut(w, "=")
		n, _ := strconv.Atoi(value)
		switch {
		case w == "new":
			newDatabase = true
		case w == "single" || w == "double" || w == "triple" || w == "three_data_hall":
			cfg.RedundancyMode = fdb.RedundancyMode(w)
		case strings.HasPrefix(w, "ssd") || strings.HasPrefix(w, "memory"):
			cfg.StorageEngine = w
		case isPair && key == "storage_migration_type":
			cfg.StorageMigrationType = value
		case isPair && key == "perpetual_storage_wiggle":
			// configForToken takes an integer only.
			wiggle, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("unknown option `%s'", w)
			}
			cfg.PerpetualStorageWiggle = &wiggle
		case isPair && key == "perpetual_storage_wiggle_locality":
			cfg.PerpetualStorageWiggleLocality = value
		case isPair && key == "perpetual_storage_wiggle_engine":
			cfg.PerpetualStorageWiggleEngine = value
		case isPair && key == "regions":
			// configForToken reads the value with json_spirit; what is
			// not JSON, or not a list of regions, configures no regions
			// (DatabaseConfiguration.cpp parse clears them).
			if json.Unmarshal([]byte(value), &cfg.Regions) != nil || len(cfg.Regions) == 0 {
				cleared = true
			}
		case isPair:
			field := map[string]*int{
				"usable_regions": &cfg.UsableRegions, "logs": &cfg.Logs, "commit_proxies": &cfg.CommitProxies,
				"grv_proxies": &cfg.GrvProxies, "resolvers": &cfg.Resolvers, "log_routers": &cfg.LogRouters, "remote_logs": &cfg.RemoteLogs,
			}[key]
			if field == nil {
				return fmt.Errorf("unknown option `%s'", key)
			}
			*field = n
		default:
			return fmt.Errorf("unknown option `%s'", w)
		}
	}
	switch {
	case cleared && cfg.UsableRegions > 1:
		return errors.New("These changes would make the configuration invalid")
	case cleared:
		return errors.New("the emulator cannot clear the regions, as FoundationDB would for regions= without a JSON list")
	}
	if err := e.sim.Configure(ctx, cfg, newDatabase); err != nil {
		return err
	}
	switch now := e.sim.Configuration(); {
	case newDatabase:
		out.WriteString("Database created\n")
	case now.StorageMigrationType == fdb.StorageMigrationGradual && *now.PerpetualStorageWiggle == 0:
		// changeConfig warns of a gradual migration without the
		// wiggle that makes it (SUCCESS_WARN_PPW_GRADUAL).
		out.WriteString(outConfigurationChangedWarnPPW)
	default:
		out.WriteString("Configuration changed\n")
	}
	return nil
}

// backupStatusJSON renders the fields of `fdbbackup status --json` the
// client reads, plus a few it ignores. A tag that never ran a backup has
// only SchemaVersion, BackupAgentsPaused and Tag.
type backupStatusJSON struct {
	SchemaVersion           string `json:"SchemaVersion"`
	BackupAgentsPaused      bool   `json:"BackupAgentsPaused"`
	Tag                     string `json:"Tag"`
	DestinationURL          string `json:"DestinationURL,omitempty"`
	SnapshotIntervalSeconds int    `json:"SnapshotIntervalSeconds,omitempty"`
	Restorable              *bool  `json:"Restorable,omitempty"`
	Status                  *struct {
		Name      string `json:"Name"`
		Running   bool   `json:"Running"`
		Completed bool   `json:"Completed"`
	} `json:"Status,omitempty"`
	LatestRestorablePoint *struct {
		Version int64 `json:"Version"`
	} `json:"LatestRestorablePoint,omitempty"`
	CurrentSnapshot *struct {
		ExpectedProgress float64 `json:"ExpectedProgress"`
	} `json:"CurrentSnapshot,omitempty"`
}

func (e *emulator) backup(ctx context.Context, inv invocation, out *strings.Builder) error {
	tag := fdb.Tag(inv.flag("-t"))
	period, _ := strconv.Atoi(inv.flag("-s"))
	notFound := "ERROR: A backup in not running on tag `" + tag + "'\nFatal Error: Backup unneeded request\n"
	already := "ERROR: A backup is already running on tag `" + tag + "'\nFatal Error: Backup error\n"
	var err error
	switch inv.positional[0] {
	case "start":
		ranges, failure := inv.keyRanges("fdbbackup")
		if failure != "" {
			out.WriteString(failure)
			return errExit
		}
		// submitBackup creates the container first
		// (FileBackupAgent.actor.cpp at 7.1.67 and 7.3.63).
		if err := blobAuth(inv.flag("-d"), inv.flags["--blob_credentials"]); err != nil {
			out.WriteString("ERROR: Could not create backup container: " + err.Error() + "\nFatal Error: Backup error\n")
			return err
		}
		err = e.sim.StartBackup(ctx, fdb.BackupRequest{URL: inv.flag("-d"), Tag: tag, SnapshotPeriodSeconds: period, KeyRanges: ranges})
		fmt.Fprintf(out, "The backup on tag `%s' was successfully submitted.\n", tag)
	case "discontinue":
		err = e.sim.StopBackup(ctx, tag)
		fmt.Fprintf(out, "The backup on tag `%s' was successfully discontinued.\n", tag)
	case "pause":
		err = e.sim.PauseBackups(ctx)
		out.WriteString("All backup agents have been paused.\n")
	case "resume":
		err = e.sim.ResumeBackups(ctx)
		out.WriteString("All backup agents have been resumed.\n")
	case "modify":
		err = e.sim.ModifyBackup(ctx, fdb.BackupRequest{Tag: tag, SnapshotPeriodSeconds: period})
		notFound = "Backup on tag '" + tag + "' is not runnable.\nFatal Error: Backup error\n"
	case "status":
		var st *fdb.BackupStatus
		st, err = e.sim.BackupStatus(ctx, tag)
		raw := backupStatusJSON{SchemaVersion: "1.0.0", Tag: tag}
		if errors.Is(err, fdb.ErrNotFound) {
			err = nil
		} else if err == nil {
			raw.DestinationURL, raw.SnapshotIntervalSeconds = st.URL, st.SnapshotPeriodSeconds
			raw.BackupAgentsPaused, raw.Restorable = st.AgentsPaused, &st.Restorable
			raw.Status = &struct {
				Name      string `json:"Name"`
				Running   bool   `json:"Running"`
				Completed bool   `json:"Completed"`
			}{string(st.State), st.Running, st.State == fdb.BackupCompleted}
			if st.Restorable {
				raw.LatestRestorablePoint = &struct {
					Version int64 `json:"Version"`
				}{st.LatestRestorableVersion}
			}
			if st.Running {
				raw.CurrentSnapshot = &struct {
					ExpectedProgress float64 `json:"ExpectedProgress"`
				}{st.SnapshotProgress}
			}
		}
		b, _ := json.Marshal(raw)
		out.Write(b)
		out.WriteString("\n")
	}
	if err != nil {
		out.Reset()
		return fail(out, err, notFound, already)
	}
	return nil
}

// restoreLine renders the status line of a restore as fdbrestore prints it.
func restoreLine(tag, state string, st *fdb.RestoreStatus) string {
	return fmt.Sprintf("Tag: %s  UID: 00000000000000000000000000000000  State: %s  Blocks: %d/%d  BlocksInProgress: 0  Files: 0  BytesWritten: %d  "+
		"CurrentVersion: -1 FirstConsistentVersion: -1  ApplyVersionLag: 0  LastError: None  URL:   Range: ''-'\\xff'  AddPrefix: ''  RemovePrefix: ''  Version: -1\n\n\n",
		tag, state, st.BlocksDone, st.BlocksTotal, st.BytesWritten)
}

func (e *emulator) restore(ctx context.Context, inv invocation, out *strings.Builder) error {
	tag := fdb.Tag(inv.flag("-t"))
	var err error
	switch inv.positional[0] {
	case "start":
		ranges, failure := inv.keyRanges("fdbrestore")
		if failure != "" {
			out.WriteString(failure)
			return errExit
		}
		// runRestore describes the backup first (backup.actor.cpp at
		// 7.1.67 and 7.3.63) and prints what it failed with.
		if err := blobAuth(inv.flag("-r"), inv.flags["--blob_credentials"]); err != nil {
			out.WriteString("ERROR: " + err.Error() + "\nFatal Error: " + err.Error() + "\n")
			return err
		}
		version, _ := strconv.ParseInt(inv.flag("-v"), 10, 64)
		err = e.sim.StartRestore(ctx, fdb.RestoreRequest{URL: inv.flag("-r"), Tag: tag, KeyRanges: ranges, Version: version})
		out.WriteString("Restoring backup to version: 1\n")
	case "abort":
		state := "unitialized"
		if err = e.sim.AbortRestore(ctx, tag); err == nil {
			st, serr := e.sim.RestoreStatus(ctx, tag)
			if err = serr; err == nil {
				state = string(st.State)
			}
		} else if errors.Is(err, fdb.ErrNotFound) {
			err = nil
		}
		fmt.Fprintf(out, "RESTORE_ABORT Tag: %s  State: %s\n", tag, state)
	case "status":
		st, serr := e.sim.RestoreStatus(ctx, tag)
		if errors.Is(serr, fdb.ErrNotFound) {
			out.WriteString(restoreLine("", "unitialized", &fdb.RestoreStatus{}))
		} else if err = serr; err == nil {
			out.WriteString(restoreLine(st.Tag, string(st.State), st))
		}
	}
	if err != nil {
		out.Reset()
		return fail(out, err, "", "ERROR: Restore duplicate request\nFatal Error: Restore duplicate request\n")
	}
	return nil
}

// The errors of a blob store account without credentials
// (flow/include/flow/error_definitions.h at 7.1.67 and 7.3.63).
// They are the tools' own words, as the tools print them.
var (
	//lint:ignore ST1005 the tools' own words
	errBlobAuthMissing = errors.New("Cannot find authentication details (such as a password or secret key) for the specified Backup Container URL")
	//lint:ignore ST1005 the tools' own words
	errBlobAuthUnreadable = errors.New("Cannot read or parse one or more sources of authentication information for Backup Container URLs")
)

// blobCredentialsFile is the JSON of a blob credentials file
// (fdbbackup/backup.actor.cpp BlobCredentialInfo at 7.1.67 and 7.3.63).
type blobCredentialsFile struct {
	Accounts map[string]struct {
		Secret *string `json:"secret"`
	} `json:"accounts"`
}

// blobAuth is what fdbbackup and fdbrestore meet when they first reach the
// blob store of url with the credentials files given (S3BlobStore.actor.cpp
// fromString and updateSecret_impl at 7.1.67 and 7.3.63): nothing for a
// URL that is not a blob store, names no account or carries its secret;
// otherwise the first file with an entry for the account <key>@<host>, the
// host without its port, that has a secret; failing that, unreadable when
// a file could not be read as JSON, missing when none had the account.
func blobAuth(url string, files []string) error {
	rest, ok := strings.CutPrefix(url, "blobstore://")
	if !ok || !strings.Contains(rest, "@") {
		return nil
	}
	cred, hostPort, _ := strings.Cut(rest, "@")
	key, secret, _ := strings.Cut(cred, ":")
	if secret, _, _ = strings.Cut(secret, ":"); secret != "" {
		return nil
	}
	if i := strings.IndexAny(hostPort, "/?"); i >= 0 {
		hostPort = hostPort[:i]
	}
	host, _, _ := strings.Cut(hostPort, ":")
	invalid := false
	for _, f := range files {
		var doc blobCredentialsFile
		b, err := os.ReadFile(f) //nolint:gosec // the path the client passed
		if err != nil || json.Unmarshal(b, &doc) != nil {
			invalid = true
			continue
		}
		if a, ok := doc.Accounts[key+"@"+host]; ok && a.Secret != nil {
			return nil
		}
	}
	if invalid {
		return errBlobAuthUnreadable
	}
	return errBlobAuthMissing
}

// TestEmulatorConfigureOutputs: what the emulator prints for a configure
// that changes the storage engine, with or without a migration, is what
// fdbcli prints (internal/fdb/testdata/real/tools/outputs.json), with the
// exit status.
func TestEmulatorConfigureOutputs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "real", "tools", "outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var real struct {
		Outputs []struct {
			Name   string `json:"name"`
			Exit   int    `json:"exit"`
			Output string `json:"output"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	type printed struct {
		Exit   int
		Output string
	}
	want := map[string]printed{}
	for _, o := range real.Outputs {
		want[o.Name] = printed{o.Exit, o.Output}
	}
	cases := map[string]struct{ command, output string }{
		"Logs":                    {"configure logs=4", "configure/changed"},
		"WiggleOfALocality":       {"configure perpetual_storage_wiggle=1 perpetual_storage_wiggle_locality=zoneid:storage-1", "configure/changed"},
		"WiggleEngine":            {"configure storage_migration_type=gradual perpetual_storage_wiggle=1 perpetual_storage_wiggle_engine=ssd-redwood-1-experimental", "configure/changed"},
		"EngineWithGradualWiggle": {"configure ssd-redwood-1-experimental storage_migration_type=gradual perpetual_storage_wiggle=1", "configure/changed"},
		"EngineWithGradualAlone":  {"configure ssd-redwood-1-experimental storage_migration_type=gradual", "configure/changed-warnings"},
		"EngineAlone":             {"configure ssd-redwood-1-experimental", "configure/storage-migration-disabled"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 7})
			c.Create(t, fdb.RedundancyTriple)
			out, err := (&emulator{sim: c.Sim}).Run(context.Background(), "/usr/bin/fdb/7.1/fdbcli", nil, "--exec", tc.command)
			got := printed{Output: string(out)}
			if err != nil {
				got.Exit = 1
			}
			if diff := cmp.Diff(want[tc.output], got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.command, diff)
			}
		})
	}
}
