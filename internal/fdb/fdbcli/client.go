package fdbcli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Timeouts of one tool invocation.
const (
	// DefaultTimeout bounds fdbcli commands unless configured otherwise.
	DefaultTimeout = 10 * time.Second
	// MaxTimeout bounds status, exclude, kill, backup and restore
	// commands, and caps the configured timeout: a slow status on an
	// unhealthy cluster must still be read once per reconcile.
	MaxTimeout = 40 * time.Second
	// grace is the time a tool gets beyond its own --timeout to report it
	// (kill sleeps 5 s on purpose) before its context ends it.
	grace = 10 * time.Second
)

const statusCommand = "status json"

const (
	errNewClient          = "cannot create fdbcli client"
	errClusterFile        = "cannot write cluster file"
	errCredentialsFile    = "cannot write blob credentials file"
	errReadCredentials    = "cannot read blob credentials"
	errTLSFile            = "cannot write TLS credentials file"
	errGetStatus          = "cannot get status"
	errConfigure          = "cannot configure database"
	errExclude            = "cannot exclude processes"
	errInclude            = "cannot include processes"
	errKill               = "cannot kill processes"
	errSetMaintenance     = "cannot set maintenance"
	errResetMaintenance   = "cannot reset maintenance"
	errForceRecovery      = "cannot force a recovery"
	errChangeCoordinators = "cannot change coordinators"
	errReadClusterFile    = "cannot read the new connection string"
	errStartBackup        = "cannot start backup"
	errStopBackup         = "cannot stop backup"
	errPauseBackups       = "cannot pause backups"
	errResumeBackups      = "cannot resume backups"
	errModifyBackup       = "cannot modify backup"
	errGetBackupStatus    = "cannot get backup status"
	errParseBackupStatus  = "cannot parse backup status"
	errStartRestore       = "cannot start restore"
	errGetRestoreStatus   = "cannot get restore status"
	errParseRestoreStatus = "cannot parse restore status"
	errParseRestoreAbort  = "cannot parse the result of the restore abort"
	errAbortRestore       = "cannot abort restore"
	errTakeLock           = "cannot take the global lock"
	errReleaseLock        = "cannot release the global lock"
	errUpdateDenyList     = "cannot update the lock's deny list"
	reasonKillLocality    = "kill needs IP:port addresses, not"
	reasonNoCoordinators  = "no coordinators given"
)

// Config configures a Client.
type Config struct {
	// ConnectionString is the content of the cluster's cluster file.
	ConnectionString string
	// Version is the FoundationDB version the cluster runs; it selects
	// the binaries in BinaryDir/<major.minor>/.
	Version string
	// BinaryDir holds one directory of binaries per major.minor version,
	// like the operator's $FDB_BINARY_DIR.
	BinaryDir string
	// TempDir receives the temporary cluster files; os.TempDir() when
	// empty.
	TempDir string
	// LogDir, when set, makes the tools write JSON trace logs there.
	LogDir string
	// Timeout bounds fdbcli commands: DefaultTimeout when zero, at most
	// MaxTimeout.
	Timeout time.Duration
	// Runner runs the tools; ExecRunner when nil.
	Runner Runner
	// Locker takes the global lock (the native client library's, with the
	// build tag fdb); without one the lock's methods fail with
	// fdb.ErrNoLocker.
	Locker fdb.Locker
	// BlobCredentials, when set, returns the content of a blob credentials
	// file ({"accounts": {"<key>@<host>": {"secret": "..."}}}, see
	// docs/BACKUP.md) for the blob store of the backups and restores this
	// client starts. It is called for each `fdbbackup start` and
	// `fdbrestore start`, the subcommands that reach the blob store, whose
	// content goes to a temporary file only the provider's user may read,
	// passed with --blob_credentials and removed when the tool has run:
	// never into an argument, an environment variable, a log or an error.
	// Without it the tools find only the files FDB_BLOB_CREDENTIALS names
	// in the provider's environment.
	BlobCredentials func(ctx context.Context) ([]byte, error)
	// TLS, when set, is what every fdbcli, fdbbackup and fdbrestore
	// invocation presents to the processes and trusts of theirs: its
	// certificate, key and CA certificates go to temporary files only the
	// provider's user may read, written before and removed after each run,
	// and the tool gets their paths, and the peer verification rules when
	// there are any, by flag or, where the tool has no TLS flags, by
	// environment setting (tlsArgs): never the PEM content itself, in an
	// argument, an environment variable, a log or an error. A client with
	// credentials reaches a database's plain addresses too: the tools speak
	// TLS only to the addresses of the cluster file that end in :tls
	// (Net2::connect, flow/Net2.actor.cpp at 7.1.67 and 7.3.63). Without
	// credentials a tool has only what FDB_TLS_CERTIFICATE_FILE,
	// FDB_TLS_KEY_FILE and FDB_TLS_CA_FILE name in the provider's
	// environment or its default files under /etc/foundationdb, if any
	// (TLSConfig::getCertificatePathSync and its siblings,
	// flow/TLSConfig.actor.cpp).
	TLS *fdb.TLSCredentials
}

// Client is an fdb.Client backed by the FoundationDB command line tools.
type Client struct {
	cfg        Config
	majorMinor string

	mu   sync.Mutex
	conn string // updated by ChangeCoordinators
}

var _ fdb.Client = &Client{}

// New returns a client for the cluster described by cfg.
func New(cfg Config) (*Client, error) {
	v, err := fdb.CheckVersion(cfg.Version)
	if err != nil {
		return nil, errors.Wrap(err, errNewClient)
	}
	cs, err := fdb.ParseConnectionString(cfg.ConnectionString)
	if err != nil {
		return nil, errors.Wrap(err, errNewClient)
	}
	if cfg.Runner == nil {
		cfg.Runner = ExecRunner{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.Timeout = min(cfg.Timeout, MaxTimeout)
	return &Client{cfg: cfg, majorMinor: v.MajorMinor(), conn: cs.String()}, nil
}

// ConnectionString returns the cluster's connection string, as changed by
// ChangeCoordinators.
func (c *Client) ConnectionString() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// clusterFile writes the connection string to a new temporary cluster
// file; remove deletes it.
func (c *Client) clusterFile() (name string, remove func(), err error) {
	name, remove, err = c.tempFile("fdb-*.cluster", []byte(c.ConnectionString()+"\n"))
	return name, remove, errors.Wrap(err, errClusterFile)
}

// credentialsFile writes the blob credentials to a new temporary file
// (os.CreateTemp: mode 0600); remove deletes it. Without BlobCredentials
// name is "".
func (c *Client) credentialsFile(ctx context.Context) (name string, remove func(), err error) {
	if c.cfg.BlobCredentials == nil {
		return "", func() {}, nil
	}
	content, err := c.cfg.BlobCredentials(ctx)
	if err != nil {
		return "", nil, errors.Wrap(err, errReadCredentials)
	}
	name, remove, err = c.tempFile("fdb-*.blob-credentials", content)
	return name, remove, errors.Wrap(err, errCredentialsFile)
}

// tlsFiles are what a tool is given of a client's TLS credentials: the
// paths of the files that hold its certificate, key and CA certificates,
// and its peer verification rules.
type tlsFiles struct {
	certificate, key, ca, verifyPeers string
}

// tlsFiles writes the client's TLS credentials to new temporary files
// (os.CreateTemp: mode 0600); remove deletes them. Without credentials
// there are none. An error names a file, never what it was to hold.
func (c *Client) tlsFiles() (f tlsFiles, remove func(), err error) {
	var removes []func()
	remove = func() {
		for _, r := range removes {
			r()
		}
	}
	if c.cfg.TLS == nil {
		return tlsFiles{}, remove, nil
	}
	for _, file := range []struct {
		path    *string
		pattern string
		content []byte
	}{
		{&f.certificate, "fdb-*.tls-certificate", c.cfg.TLS.Certificate},
		{&f.key, "fdb-*.tls-key", c.cfg.TLS.Key},
		{&f.ca, "fdb-*.tls-ca", c.cfg.TLS.CA},
	} {
		name, r, err := c.tempFile(file.pattern, file.content)
		if err != nil {
			remove()
			return tlsFiles{}, nil, errors.Wrap(err, errTLSFile)
		}
		removes = append(removes, r)
		*file.path = name
	}
	f.verifyPeers = c.cfg.TLS.VerifyPeers
	return f, remove, nil
}

// tempFile writes content to a new temporary file that only its owner may
// read; remove deletes it.
func (c *Client) tempFile(pattern string, content []byte) (name string, remove func(), err error) {
	f, err := os.CreateTemp(c.cfg.TempDir, pattern)
	if err != nil {
		return "", nil, err
	}
	remove = func() { _ = os.Remove(f.Name()) }
	if _, err := f.Write(content); err != nil {
		_ = f.Close()
		remove()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		remove()
		return "", nil, err
	}
	return f.Name(), remove, nil
}

// run runs tool (its subcommand, "" for fdbcli) with args and the client's
// TLS credentials for at most timeout plus grace and checks the result;
// description names the command in errors.
func (c *Client) run(ctx context.Context, tool, subcommand, description string, timeout time.Duration, errorLines bool, args []string) ([]byte, error) {
	files, remove, err := c.tlsFiles()
	if err != nil {
		return nil, err
	}
	defer remove()
	flags, env := tlsArgs(files, c.majorMinor, tool, subcommand)
	ctx, cancel := context.WithTimeout(ctx, timeout+grace)
	defer cancel()
	binary := filepath.Join(c.cfg.BinaryDir, c.majorMinor, tool)
	out, err := c.cfg.Runner.Run(ctx, binary, env, slices.Concat(args, flags)...)
	return out, check(ctx, description, redact(out), err, errorLines)
}

// cli runs one or more ;-separated fdbcli commands.
func (c *Client) cli(ctx context.Context, timeout time.Duration, command string) ([]byte, error) {
	file, remove, err := c.clusterFile()
	if err != nil {
		return nil, err
	}
	defer remove()
	return c.cliWith(ctx, file, timeout, command)
}

// cliWith runs fdbcli commands against an existing cluster file. Only
// status output is data; for other commands an ERROR: line is a failure.
func (c *Client) cliWith(ctx context.Context, clusterFile string, timeout time.Duration, command string) ([]byte, error) {
	return c.run(ctx, toolCLI, "", toolCLI+" --exec '"+command+"'", timeout, command != statusCommand,
		cliArgs(clusterFile, command, timeout, c.cfg.LogDir))
}

// tool runs a fdbbackup or fdbrestore subcommand; args receives the path
// of the cluster file.
func (c *Client) tool(ctx context.Context, tool string, args func(clusterFile string) []string) ([]byte, error) {
	file, remove, err := c.clusterFile()
	if err != nil {
		return nil, err
	}
	defer remove()
	argv := args(file)
	argv = append(argv, toolLogArgs(c.cfg.LogDir, argv[0])...)
	return c.run(ctx, tool, argv[0], tool+" "+argv[0], MaxTimeout, true, argv)
}

// cliArgs renders the fdbcli command line for one --exec. fdbcli applies
// --log-group only together with --log (fdbcli.actor.cpp main() of 7.1 and
// 7.3), so ExecRunner also sets it in the environment, which names the
// provider among the database's clients without trace files.
func cliArgs(clusterFile, command string, timeout time.Duration, logDir string) []string {
	args := []string{"-C", clusterFile, "--exec", command, "--timeout", strconv.Itoa(int(timeout / time.Second)), "--log-group", fdb.ToolsLogGroup}
	if logDir != "" {
		args = append(args, "--log", "--log-dir", logDir, "--trace_format", "json")
	}
	return args
}

// toolLogArgs renders the logging flags of a fdbbackup or fdbrestore
// subcommand. `fdbbackup modify` takes no --trace-format (its option table,
// g_rgBackupModifyOptions in fdbbackup/backup.actor.cpp of 7.1 and 7.3,
// lacks it, and an unknown option fails the command): it logs in the
// default XML format.
func toolLogArgs(logDir, subcommand string) []string {
	if logDir == "" {
		return nil
	}
	args := []string{"--log", "--logdir", logDir}
	if subcommand != "modify" {
		args = append(args, "--trace_format", "json")
	}
	return args
}

// tlsArgs renders how tool's subcommand ("" for fdbcli) of release
// majorMinor is given the TLS files f: nothing without files. fdbcli, each
// fdbbackup subcommand and fdbrestore take them by the flags of
// TLS_OPTION_FLAGS (flow/TLSConfig.actor.h at 7.1.67 and 7.3.63), spelled
// with dashes as there (the tools match '-' and '_' alike,
// SO_O_HYPHEN_TO_UNDERSCORE), the rules only when there are any: without
// them the tools check only that a peer's certificate is valid
// (LoadedTLSConfig::getVerifyPeers, flow/TLSConfig.actor.cpp). 7.1's
// `fdbbackup modify` has no TLS flags (g_rgBackupModifyOptions in
// fdbbackup/backup.actor.cpp at 7.1.67 lacks TLS_OPTION_FLAGS; 7.3.63's
// has them), and an unknown option fails it: it gets the same paths and
// rules by FDB_TLS_CERTIFICATE_FILE, FDB_TLS_KEY_FILE, FDB_TLS_CA_FILE and
// FDB_TLS_VERIFY_PEERS, which every tool reads where no flag says
// otherwise (TLSConfig::getCertificatePathSync and its siblings,
// flow/TLSConfig.actor.cpp). Paths and rules are no secret; the files'
// content never leaves them.
func tlsArgs(f tlsFiles, majorMinor, tool, subcommand string) (args, env []string) {
	if f == (tlsFiles{}) {
		return nil, nil
	}
	if tool == toolBackup && subcommand == "modify" && majorMinor == "7.1" {
		env = []string{"FDB_TLS_CERTIFICATE_FILE=" + f.certificate, "FDB_TLS_KEY_FILE=" + f.key, "FDB_TLS_CA_FILE=" + f.ca}
		if f.verifyPeers != "" {
			env = append(env, "FDB_TLS_VERIFY_PEERS="+f.verifyPeers)
		}
		return nil, env
	}
	args = []string{"--tls-certificate-file", f.certificate, "--tls-key-file", f.key, "--tls-ca-file", f.ca}
	if f.verifyPeers != "" {
		args = append(args, "--tls-verify-peers", f.verifyPeers)
	}
	return args, nil
}

// blobCredentials matches the credentials of a blobstore URL.
var blobCredentials = regexp.MustCompile(`(blobstore://)[^@/\s]*@`)

// redact removes blob store credentials from tool output before it can
// reach an error message.
func redact(out []byte) []byte {
	return blobCredentials.ReplaceAll(out, []byte("${1}<redacted>@"))
}

// Status implements fdb.Client with `status json`, bounded by MaxTimeout.
func (c *Client) Status(ctx context.Context) (*fdb.Status, error) {
	out, err := c.cli(ctx, MaxTimeout, statusCommand)
	if err != nil {
		return nil, errors.Wrap(err, errGetStatus)
	}
	s, err := fdb.ParseStatus(out)
	return s, errors.Wrap(err, errGetStatus)
}

// Configure implements fdb.Client.
func (c *Client) Configure(ctx context.Context, cfg fdb.DatabaseConfiguration, newDatabase bool) error {
	_, err := c.cli(ctx, c.cfg.Timeout, script(configureCommand(cfg, newDatabase)))
	return errors.Wrap(err, errConfigure)
}

// Exclude implements fdb.Client. It gets the status timeout: the exclusion
// commits through the management special keys, whose commit computes the
// whole cluster status to check free space (SpecialKeySpace.actor.cpp
// checkExclusion in 7.1 and 7.3).
func (c *Client) Exclude(ctx context.Context, targets []fdb.ProcessAddress) error {
	if len(targets) == 0 {
		return nil
	}
	_, err := c.cli(ctx, MaxTimeout, script(excludeCommand(targets)))
	return errors.Wrap(err, errExclude)
}

// Include implements fdb.Client.
func (c *Client) Include(ctx context.Context, targets []fdb.ProcessAddress) error {
	if len(targets) == 0 {
		return nil
	}
	_, err := c.cli(ctx, c.cfg.Timeout, script(includeCommand(targets)))
	return errors.Wrap(err, errInclude)
}

// Kill implements fdb.Client with one `kill; kill <addrs>; sleep 5`. It
// gets the status timeout: 7.3's kill waits 3 s after sending (7.1's does
// not), so with the sleep a 10 s --timeout could end fdbcli after the kill
// went out, and the retry would cost a second recovery.
func (c *Client) Kill(ctx context.Context, targets []fdb.ProcessAddress) error {
	if len(targets) == 0 {
		return nil
	}
	for _, t := range targets {
		if _, _, ok := t.Locality(); ok {
			return errors.Errorf("%s: %s %q", errKill, reasonKillLocality, t)
		}
	}
	_, err := c.cli(ctx, MaxTimeout, script(killCommands(targets)...))
	return errors.Wrap(err, errKill)
}

// SetMaintenance implements fdb.Client with `maintenance on <zone> <seconds>`.
func (c *Client) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	if zone == "" || seconds <= 0 {
		return errors.Errorf("%s: zone %q for %ds", errSetMaintenance, zone, seconds)
	}
	_, err := c.cli(ctx, c.cfg.Timeout, script(maintenanceCommand(zone, seconds)))
	return errors.Wrap(err, errSetMaintenance)
}

// ForceRecovery implements fdb.Client with
// `force_recovery_with_data_loss <dc>`.
func (c *Client) ForceRecovery(ctx context.Context, dc string) error {
	if dc == "" {
		return errors.Errorf("%s: data center %q", errForceRecovery, dc)
	}
	_, err := c.cli(ctx, c.cfg.Timeout, script(forceRecoveryCommand(dc)))
	return errors.Wrap(err, errForceRecovery)
}

// ResetMaintenance implements fdb.Client with `maintenance off`.
func (c *Client) ResetMaintenance(ctx context.Context) error {
	_, err := c.cli(ctx, c.cfg.Timeout, script(maintenanceOffCommand))
	return errors.Wrap(err, errResetMaintenance)
}

// ChangeCoordinators implements fdb.Client. fdbcli rewrites the cluster
// file it was given; the new connection string is read back from it.
func (c *Client) ChangeCoordinators(ctx context.Context, addrs []fdb.ProcessAddress) (string, error) {
	if len(addrs) == 0 {
		return "", errors.New(errChangeCoordinators + ": " + reasonNoCoordinators)
	}
	file, remove, err := c.clusterFile()
	if err != nil {
		return "", errors.Wrap(err, errChangeCoordinators)
	}
	defer remove()
	if _, err := c.cliWith(ctx, file, c.cfg.Timeout, script(coordinatorsCommand(addrs))); err != nil {
		return "", errors.Wrap(err, errChangeCoordinators)
	}
	content, err := os.ReadFile(file) //nolint:gosec // the file was created by clusterFile
	if err != nil {
		return "", errors.Wrap(err, errReadClusterFile)
	}
	cs, err := fdb.ParseConnectionString(string(content))
	if err != nil {
		return "", errors.Wrapf(fdb.ErrUnexpectedOutput, "%s: %v", errReadClusterFile, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn = cs.String()
	return c.conn, nil
}

// StartBackup implements fdb.Client with `fdbbackup start -z`, with the
// blob credentials.
func (c *Client) StartBackup(ctx context.Context, req fdb.BackupRequest) error {
	keys, err := keyRangeArgs(req.KeyRanges)
	if err != nil {
		return errors.Wrap(err, errStartBackup)
	}
	credentials, remove, err := c.credentialsFile(ctx)
	if err != nil {
		return errors.Wrap(err, errStartBackup)
	}
	defer remove()
	_, err = c.tool(ctx, toolBackup, func(f string) []string { return backupStartArgs(f, credentials, keys, req) })
	return errors.Wrap(err, errStartBackup)
}

// StopBackup implements fdb.Client with `fdbbackup discontinue`. A backup
// discontinued before (fdbbackup fails: "is already discontinued") is
// stopping already: StopBackup is safe to retry.
func (c *Client) StopBackup(ctx context.Context, tag string) error {
	_, err := c.tool(ctx, toolBackup, func(f string) []string { return backupTagArgs("discontinue", f, tag) })
	if errors.Is(err, errAlreadyDiscontinued) {
		return nil
	}
	return errors.Wrap(err, errStopBackup)
}

// PauseBackups implements fdb.Client with `fdbbackup pause`.
func (c *Client) PauseBackups(ctx context.Context) error {
	_, err := c.tool(ctx, toolBackup, func(f string) []string { return []string{"pause", "-C", f} })
	return errors.Wrap(err, errPauseBackups)
}

// ResumeBackups implements fdb.Client with `fdbbackup resume`.
func (c *Client) ResumeBackups(ctx context.Context) error {
	_, err := c.tool(ctx, toolBackup, func(f string) []string { return []string{"resume", "-C", f} })
	return errors.Wrap(err, errResumeBackups)
}

// ModifyBackup implements fdb.Client with `fdbbackup modify -s`.
func (c *Client) ModifyBackup(ctx context.Context, req fdb.BackupRequest) error {
	_, err := c.tool(ctx, toolBackup, func(f string) []string { return backupModifyArgs(f, req) })
	return errors.Wrap(err, errModifyBackup)
}

// BackupStatus implements fdb.Client with `fdbbackup status --json`.
func (c *Client) BackupStatus(ctx context.Context, tag string) (*fdb.BackupStatus, error) {
	out, err := c.tool(ctx, toolBackup, func(f string) []string { return backupTagArgs("status", f, tag, "--json") })
	if err != nil {
		return nil, errors.Wrap(err, errGetBackupStatus)
	}
	st, err := parseBackupStatus(out, fdb.Tag(tag))
	return st, errors.Wrap(err, errGetBackupStatus)
}

// StartRestore implements fdb.Client with `fdbrestore start`, with the
// blob credentials, which returns once the restore is submitted.
func (c *Client) StartRestore(ctx context.Context, req fdb.RestoreRequest) error {
	keys, err := keyRangeArgs(req.KeyRanges)
	if err != nil {
		return errors.Wrap(err, errStartRestore)
	}
	credentials, remove, err := c.credentialsFile(ctx)
	if err != nil {
		return errors.Wrap(err, errStartRestore)
	}
	defer remove()
	_, err = c.tool(ctx, toolRestore, func(f string) []string { return restoreStartArgs(f, credentials, keys, req) })
	return errors.Wrap(err, errStartRestore)
}

// RestoreStatus implements fdb.Client with `fdbrestore status`.
func (c *Client) RestoreStatus(ctx context.Context, tag string) (*fdb.RestoreStatus, error) {
	out, err := c.tool(ctx, toolRestore, func(f string) []string { return restoreTagArgs("status", f, tag) })
	if err != nil {
		return nil, errors.Wrap(err, errGetRestoreStatus)
	}
	st, err := parseRestoreStatus(out, fdb.Tag(tag))
	return st, errors.Wrap(err, errGetRestoreStatus)
}

// AbortRestore implements fdb.Client with `fdbrestore abort`, which exits 0
// whatever it found: its output says whether the tag had a restore.
func (c *Client) AbortRestore(ctx context.Context, tag string) error {
	out, err := c.tool(ctx, toolRestore, func(f string) []string { return restoreTagArgs("abort", f, tag) })
	if err == nil {
		err = parseRestoreAbort(out, fdb.Tag(tag))
	}
	return errors.Wrap(err, errAbortRestore)
}

// TakeLock implements fdb.Client through the configured Locker.
func (c *Client) TakeLock(ctx context.Context, r fdb.LockRequest) (fdb.GlobalLock, error) {
	if c.cfg.Locker == nil {
		return fdb.GlobalLock{}, errors.Wrap(fdb.ErrNoLocker, errTakeLock)
	}
	return c.cfg.Locker.TakeLock(ctx, r)
}

// ReleaseLock implements fdb.Client through the configured Locker.
func (c *Client) ReleaseLock(ctx context.Context, holder string) error {
	if c.cfg.Locker == nil {
		return errors.Wrap(fdb.ErrNoLocker, errReleaseLock)
	}
	return c.cfg.Locker.ReleaseLock(ctx, holder)
}

// UpdateLockDenyList implements fdb.Client through the configured Locker.
func (c *Client) UpdateLockDenyList(ctx context.Context, entries []fdb.LockDenyEntry) error {
	if c.cfg.Locker == nil {
		return errors.Wrap(fdb.ErrNoLocker, errUpdateDenyList)
	}
	return c.cfg.Locker.UpdateLockDenyList(ctx, entries)
}
