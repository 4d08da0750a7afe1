package fdbcli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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
const killSettle = "sleep 5"

// joinTargets renders targets as fdbcli arguments.
func joinTargets(targets []fdb.ProcessAddress) string {
	parts := make([]string, len(targets))
	for i, t := range targets {
		parts[i] = string(t)
	}
	return strings.Join(parts, " ")
}

// configureCommand renders "configure [new] <mode> <engine> key=value...".
// Zero fields are left out and keep their current value.
func configureCommand(cfg fdb.DatabaseConfiguration, newDatabase bool) string {
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
	if len(cfg.Regions) > 0 {
		// Compact JSON has no space, which would split the word.
		regions, _ := json.Marshal(cfg.Regions)
		words = append(words, "regions="+string(regions))
	}
	return strings.Join(words, " ")
}

// exclusionTargets renders exclude and include targets. fdbcli refuses an
// address with the TLS suffix ("Do not include the `:tls' suffix when naming
// a process", ExcludeCommand.actor.cpp and IncludeCommand.actor.cpp of 7.1
// and 7.3); an exclusion names IP:port whatever the transport, and the
// status lists it so.
func exclusionTargets(targets []fdb.ProcessAddress) string {
	out := make([]fdb.ProcessAddress, len(targets))
	for i, t := range targets {
		out[i] = t
		if _, _, locality := t.Locality(); !locality {
			out[i] = fdb.ProcessAddress(strings.TrimSuffix(string(t), tlsSuffix))
		}
	}
	return joinTargets(out)
}

// tlsSuffix marks a TLS listen address in status and connection strings.
const tlsSuffix = ":tls"

// excludeCommand excludes without waiting for data movement.
func excludeCommand(targets []fdb.ProcessAddress) string {
	return "exclude no_wait " + exclusionTargets(targets)
}

func includeCommand(targets []fdb.ProcessAddress) string {
	return "include " + exclusionTargets(targets)
}

// killCommand kills a batch in one command: the first kill fills fdbcli's
// address cache, the sleep lets the kills land before fdbcli exits.
func killCommand(targets []fdb.ProcessAddress) string {
	return "kill; kill " + joinTargets(targets) + "; " + killSettle
}

// maintenanceCommand puts zone under maintenance for seconds.
func maintenanceCommand(zone string, seconds int) string {
	return fmt.Sprintf("maintenance on %s %d", zone, seconds)
}

// forceRecoveryCommand recovers the database in data center dc, giving up
// what only the others held.
func forceRecoveryCommand(dc string) string {
	return "force_recovery_with_data_loss " + dc
}

// maintenanceOffCommand ends the maintenance.
const maintenanceOffCommand = "maintenance off"

func coordinatorsCommand(addrs []fdb.ProcessAddress) string {
	return "coordinators " + joinTargets(addrs)
}

// keyRangeArgs renders one -k argument per range.
func keyRangeArgs(ranges []fdb.KeyRange) []string {
	var args []string
	for _, r := range ranges {
		args = append(args, "-k", r.Begin+" "+r.End)
	}
	return args
}

// backupStartArgs starts a continuous (-z) backup.
func backupStartArgs(clusterFile string, req fdb.BackupRequest) []string {
	args := []string{"start", "-C", clusterFile, "-d", req.URL, "-t", fdb.Tag(req.Tag), "-z"}
	if req.SnapshotPeriodSeconds > 0 {
		args = append(args, "-s", strconv.Itoa(req.SnapshotPeriodSeconds))
	}
	return append(args, keyRangeArgs(req.KeyRanges)...)
}

func backupModifyArgs(clusterFile string, req fdb.BackupRequest) []string {
	return []string{"modify", "-C", clusterFile, "-t", fdb.Tag(req.Tag), "-s", strconv.Itoa(req.SnapshotPeriodSeconds)}
}

// backupTagArgs renders a fdbbackup subcommand acting on one tag.
func backupTagArgs(sub, clusterFile, tag string, extra ...string) []string {
	return append([]string{sub, "-C", clusterFile, "-t", fdb.Tag(tag)}, extra...)
}

func restoreStartArgs(clusterFile string, req fdb.RestoreRequest) []string {
	args := []string{"start", "-r", req.URL, "--dest_cluster_file", clusterFile, "-t", fdb.Tag(req.Tag)}
	args = append(args, keyRangeArgs(req.KeyRanges)...)
	if req.Version > 0 {
		args = append(args, "-v", strconv.FormatInt(req.Version, 10))
	}
	return args
}

// restoreTagArgs renders a fdbrestore subcommand acting on one tag.
func restoreTagArgs(sub, clusterFile, tag string) []string {
	return []string{sub, "--dest_cluster_file", clusterFile, "-t", fdb.Tag(tag)}
}
