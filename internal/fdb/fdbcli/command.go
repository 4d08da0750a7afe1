package fdbcli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// Tool names, looked up in <binary dir>/<major.minor>/.
const (
	toolCLI     = "fdbcli"
	toolBackup  = "fdbbackup"
	toolRestore = "fdbrestore"
)

// killSettle is how long fdbcli waits after a kill so that the whole batch
// is handled by one recovery.
var killSettle = []string{"sleep", "5"}

// word renders s as one word of a tool's command line, as the tokenizers
// of fdbcli (--exec) and of fdbbackup and fdbrestore (-k) read it back
// (parseLine in fdbcli/fdbcli.actor.cpp and fdbbackup/backup.actor.cpp at
// 7.1.67 and 7.3.63): a backslash before `"`, `\`, a space or `;`, \xNN for
// any byte that is not printable ASCII (tabs and line ends separate words
// for fdbcli), and `""` for the empty word. These are the escapes both
// tokenizers of both releases decode; fdbcli 7.1 lacks 7.3's \uNNNN, which
// the FoundationDB operator's JavaScript escaping of the regions JSON
// relies on.
func word(s string) string {
	if s == "" {
		return `""`
	}
	var b strings.Builder
	for i := range len(s) {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == ' ' || c == ';':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// script renders fdbcli commands, each a list of words, as one --exec
// string: every word through word, the commands separated by "; ".
func script(commands ...[]string) string {
	rendered := make([]string, len(commands))
	for i, words := range commands {
		quoted := make([]string, len(words))
		for j, w := range words {
			quoted[j] = word(w)
		}
		rendered[i] = strings.Join(quoted, " ")
	}
	return strings.Join(rendered, "; ")
}

// targetWords renders targets as fdbcli words.
func targetWords(targets []fdb.ProcessAddress) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = string(t)
	}
	return out
}

// configureCommand is "configure [new] <mode> <engine> key=value...". Zero
// fields are left out and keep their current value. regions= is the JSON
// FoundationDB reads (configForToken, fdbclient/ManagementAPI.actor.cpp);
// script escapes its quotes, which fdbcli would otherwise erase.
func configureCommand(cfg fdb.DatabaseConfiguration, newDatabase bool) []string {
	words := []string{"configure"}
	if newDatabase {
		words = append(words, "new")
	}
	for _, w := range []string{string(cfg.RedundancyMode), cfg.StorageEngine} {
		if w != "" {
			words = append(words, w)
		}
	}
	for _, kv := range []struct {
		key   string
		value int
	}{
		{"usable_regions", cfg.UsableRegions},
		{"logs", cfg.Logs},
		{"commit_proxies", cfg.CommitProxies},
		{"grv_proxies", cfg.GrvProxies},
		{"resolvers", cfg.Resolvers},
		{"log_routers", cfg.LogRouters},
		{"remote_logs", cfg.RemoteLogs},
	} {
		if kv.value != 0 {
			words = append(words, kv.key+"="+strconv.Itoa(kv.value))
		}
	}
	if cfg.StorageMigrationType != "" {
		words = append(words, "storage_migration_type="+cfg.StorageMigrationType)
	}
	if cfg.PerpetualStorageWiggle != nil {
		words = append(words, "perpetual_storage_wiggle="+strconv.Itoa(*cfg.PerpetualStorageWiggle))
	}
	if cfg.PerpetualStorageWiggleLocality != "" {
		words = append(words, "perpetual_storage_wiggle_locality="+cfg.PerpetualStorageWiggleLocality)
	}
	if cfg.PerpetualStorageWiggleEngine != "" {
		words = append(words, "perpetual_storage_wiggle_engine="+cfg.PerpetualStorageWiggleEngine)
	}
	if len(cfg.Regions) > 0 {
		regions, _ := json.Marshal(cfg.Regions)
		words = append(words, "regions="+string(regions))
	}
	return words
}

// exclusionTargets are the words of exclude and include targets. fdbcli
// refuses an address with the TLS suffix ("Do not include the `:tls' suffix
// when naming a process", ExcludeCommand.actor.cpp and
// IncludeCommand.actor.cpp of 7.1 and 7.3); an exclusion names IP:port
// whatever the transport, and the status lists it so.
func exclusionTargets(targets []fdb.ProcessAddress) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = string(t)
		if _, _, locality := t.Locality(); !locality {
			out[i] = strings.TrimSuffix(string(t), tlsSuffix)
		}
	}
	return out
}

// tlsSuffix marks a TLS listen address in status and connection strings.
const tlsSuffix = ":tls"

// excludeCommand excludes without waiting for data movement.
func excludeCommand(targets []fdb.ProcessAddress) []string {
	return append([]string{"exclude", "no_wait"}, exclusionTargets(targets)...)
}

func includeCommand(targets []fdb.ProcessAddress) []string {
	return append([]string{"include"}, exclusionTargets(targets)...)
}

// killCommands kill a batch at once: the first kill fills fdbcli's address
// cache, the sleep lets the kills land before fdbcli exits.
func killCommands(targets []fdb.ProcessAddress) [][]string {
	return [][]string{{"kill"}, append([]string{"kill"}, killTargets(targets)...), killSettle}
}

// killTargets are the words of kill targets: IP:port without the TLS
// suffix. fdbcli's kill finds a process by the addresses of its worker
// interface, every one it listens on, each with ":tls" removed
// (addInterfacesFromKVs, fdbcli/Util.actor.cpp at 7.1.67 and 7.3.63): a
// target that keeps the suffix is "not recognized".
func killTargets(targets []fdb.ProcessAddress) []string {
	out := targetWords(targets)
	for i := range out {
		out[i] = strings.TrimSuffix(out[i], tlsSuffix)
	}
	return out
}

// maintenanceCommand puts zone under maintenance for seconds.
func maintenanceCommand(zone string, seconds int) []string {
	return []string{"maintenance", "on", zone, strconv.Itoa(seconds)}
}

// forceRecoveryCommand recovers the database in data center dc, giving up
// what only the others held.
func forceRecoveryCommand(dc string) []string {
	return []string{"force_recovery_with_data_loss", dc}
}

// maintenanceOffCommand ends the maintenance.
var maintenanceOffCommand = []string{"maintenance", "off"}

func coordinatorsCommand(addrs []fdb.ProcessAddress) []string {
	return append([]string{"coordinators"}, targetWords(addrs)...)
}

// keyRangeArgs renders one -k argument per range: its begin and end key as
// two words fdbbackup's and fdbrestore's tokenizer reads back, the empty
// key as `""` (a bare leading blank would be skipped, leaving one key, and
// on a key of \xff bytes alone fdbrestore fails).
func keyRangeArgs(ranges []fdb.KeyRange) ([]string, error) {
	var args []string
	for _, r := range ranges {
		begin, err := unprintable(r.Begin)
		if err != nil {
			return nil, err
		}
		end, err := unprintable(r.End)
		if err != nil {
			return nil, err
		}
		args = append(args, "-k", word(begin)+" "+word(end))
	}
	return args, nil
}

// unprintable is the key printable stands for: fdb.KeyRange's printable
// form, FoundationDB's (Traceable<StringRef>, flow/Traceable.h), has a
// backslash only in \\ and \xNN.
func unprintable(printable string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(printable); i++ {
		c := printable[i]
		switch {
		case c != '\\':
			b.WriteByte(c)
		case strings.HasPrefix(printable[i:], `\\`):
			b.WriteByte('\\')
			i++
		case strings.HasPrefix(printable[i:], `\x`) && i+4 <= len(printable):
			v, err := strconv.ParseUint(printable[i+2:i+4], 16, 8)
			if err != nil {
				return "", errors.Errorf("%s %q", reasonNotPrintable, printable)
			}
			b.WriteByte(byte(v))
			i += 3
		default:
			return "", errors.Errorf("%s %q", reasonNotPrintable, printable)
		}
	}
	return b.String(), nil
}

// reasonNotPrintable says a key range's key has a backslash that is not
// part of \\ or \xNN.
const reasonNotPrintable = "not a key in printable form:"

// backupStartArgs starts a continuous (-z) backup of keys (keyRangeArgs);
// credentials is the path of the blob credentials file, "" for none.
func backupStartArgs(clusterFile, credentials string, keys []string, req fdb.BackupRequest) []string {
	args := []string{"start", "-C", clusterFile, "-d", req.URL, "-t", fdb.Tag(req.Tag), "-z"}
	if req.SnapshotPeriodSeconds > 0 {
		args = append(args, "-s", strconv.Itoa(req.SnapshotPeriodSeconds))
	}
	return append(append(args, keys...), credentialsArgs(credentials)...)
}

// credentialsArgs passes a blob credentials file, when there is one.
func credentialsArgs(credentials string) []string {
	if credentials == "" {
		return nil
	}
	return []string{"--blob_credentials", credentials}
}

func backupModifyArgs(clusterFile string, req fdb.BackupRequest) []string {
	return []string{"modify", "-C", clusterFile, "-t", fdb.Tag(req.Tag), "-s", strconv.Itoa(req.SnapshotPeriodSeconds)}
}

// backupTagArgs renders a fdbbackup subcommand acting on one tag.
func backupTagArgs(sub, clusterFile, tag string, extra ...string) []string {
	return append([]string{sub, "-C", clusterFile, "-t", fdb.Tag(tag)}, extra...)
}

// restoreStartArgs starts a restore of keys (keyRangeArgs); credentials
// is the path of the blob credentials file, "" for none.
func restoreStartArgs(clusterFile, credentials string, keys []string, req fdb.RestoreRequest) []string {
	args := append([]string{"start", "-r", req.URL, "--dest_cluster_file", clusterFile, "-t", fdb.Tag(req.Tag)}, keys...)
	if req.Version > 0 {
		args = append(args, "-v", strconv.FormatInt(req.Version, 10))
	}
	return append(args, credentialsArgs(credentials)...)
}

// restoreTagArgs renders a fdbrestore subcommand acting on one tag.
func restoreTagArgs(sub, clusterFile, tag string) []string {
	return []string{sub, "--dest_cluster_file", clusterFile, "-t", fdb.Tag(tag)}
}
