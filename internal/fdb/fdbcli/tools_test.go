package fdbcli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// realOutputs is internal/fdb/testdata/real/tools/outputs.json: what the
// FoundationDB tools print for every command the client issues.
type realOutputs struct {
	Outputs []struct {
		Name     string   `json:"name"`
		Op       string   `json:"op"`
		Versions []string `json:"versions"`
		Exit     int      `json:"exit"`
		Output   string   `json:"output"`
		Want     string   `json:"want"`
		Source   string   `json:"source"`
	} `json:"outputs"`
}

// clientOps calls each client method the way the provider does.
var clientOps = map[string]func(ctx context.Context, c *Client) error{
	"Status": func(ctx context.Context, c *Client) error { _, err := c.Status(ctx); return err },
	"ConfigureNew": func(ctx context.Context, c *Client) error {
		return c.Configure(ctx, fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyTriple, StorageEngine: "ssd-2"}, true)
	},
	"Configure": func(ctx context.Context, c *Client) error {
		return c.Configure(ctx, fdb.DatabaseConfiguration{Logs: 4}, false)
	},
	"Exclude": func(ctx context.Context, c *Client) error {
		return c.Exclude(ctx, []fdb.ProcessAddress{"10.1.0.1:4501", fdb.InstanceTarget("storage-9")})
	},
	"Include": func(ctx context.Context, c *Client) error {
		return c.Include(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-9")})
	},
	"Kill": func(ctx context.Context, c *Client) error {
		return c.Kill(ctx, []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501"})
	},
	"SetMaintenance":   func(ctx context.Context, c *Client) error { return c.SetMaintenance(ctx, "zone-b", 600) },
	"ResetMaintenance": func(ctx context.Context, c *Client) error { return c.ResetMaintenance(ctx) },
	"ForceRecovery":    func(ctx context.Context, c *Client) error { return c.ForceRecovery(ctx, "dc2") },
	"ChangeCoordinators": func(ctx context.Context, c *Client) error {
		_, err := c.ChangeCoordinators(ctx, []fdb.ProcessAddress{"10.1.0.1:4501", "10.1.0.2:4501", "10.1.0.3:4501"})
		return err
	},
	"StartBackup": func(ctx context.Context, c *Client) error {
		return c.StartBackup(ctx, fdb.BackupRequest{URL: "blobstore://k:s@host:443/b?bucket=x", Tag: "nightly"})
	},
	"StopBackup":    func(ctx context.Context, c *Client) error { return c.StopBackup(ctx, "nightly") },
	"PauseBackups":  func(ctx context.Context, c *Client) error { return c.PauseBackups(ctx) },
	"ResumeBackups": func(ctx context.Context, c *Client) error { return c.ResumeBackups(ctx) },
	"ModifyBackup": func(ctx context.Context, c *Client) error {
		return c.ModifyBackup(ctx, fdb.BackupRequest{Tag: "nightly", SnapshotPeriodSeconds: 3600})
	},
	"BackupStatus": func(ctx context.Context, c *Client) error { _, err := c.BackupStatus(ctx, "nightly"); return err },
	"StartRestore": func(ctx context.Context, c *Client) error {
		return c.StartRestore(ctx, fdb.RestoreRequest{URL: "blobstore://k:s@host:443/b", Tag: "r"})
	},
	"RestoreStatus": func(ctx context.Context, c *Client) error { _, err := c.RestoreStatus(ctx, "r"); return err },
	"AbortRestore":  func(ctx context.Context, c *Client) error { return c.AbortRestore(ctx, "r") },
}

// sentinels are the typed errors by the names outputs.json uses.
var sentinels = map[string]error{
	"timeout":                    fdb.ErrTimeout,
	"unavailable":                fdb.ErrUnavailable,
	"not_found":                  fdb.ErrNotFound,
	"already_exists":             fdb.ErrAlreadyExists,
	"storage_migration_disabled": fdb.ErrStorageMigrationDisabled,
	"unexpected":                 fdb.ErrUnexpectedOutput,
}

// TestRealToolOutputs runs every client method against what the real tools
// print for it and checks the error the client returns: success, one of
// the typed errors, or (failed) an error of none of these kinds.
func TestRealToolOutputs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "real", "tools", "outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var real realOutputs
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, o := range real.Outputs {
		t.Run(o.Name, func(t *testing.T) {
			op, ok := clientOps[o.Op]
			if !ok {
				t.Fatalf("unknown op %q", o.Op)
			}
			if o.Source == "" || len(o.Versions) == 0 {
				t.Errorf("%s names no source or versions", o.Name)
			}
			covered[o.Op] = true
			r := &recorder{t: t, output: o.Output}
			if o.Exit != 0 {
				r.err = errors.New("exit status 1")
			}
			if o.Op == "ChangeCoordinators" && o.Want == "ok" {
				r.rewrite = "test:new@10.1.0.1:4501,10.1.0.2:4501,10.1.0.3:4501\n"
			}
			err := op(context.Background(), newTestClient(t, r, ""))
			switch want := sentinels[o.Want]; {
			case o.Want == "ok":
				if err != nil {
					t.Errorf("got %v, want success", err)
				}
			case o.Want == "failed":
				for name, s := range sentinels {
					if errors.Is(err, s) {
						t.Errorf("got %v, classified %s; want an error of no kind", err, name)
					}
				}
				if err == nil {
					t.Error("got success, want an error")
				}
			case want == nil:
				t.Fatalf("unknown want %q", o.Want)
			case !errors.Is(err, want):
				t.Errorf("got %v, want %s", err, o.Want)
			}
		})
	}
	for op := range clientOps {
		if !covered[op] {
			t.Errorf("outputs.json has no output of %s", op)
		}
	}
}

// TestRealToolOutputsTyped: a failure the tools print and the client turns
// into an error is a *fdb.CommandError carrying the (redacted) output.
func TestRealToolOutputsTyped(t *testing.T) {
	out := "ERROR: A backup is already running on tag `nightly'\nFatal Error: Backup error\n"
	r := &recorder{t: t, output: out, err: errors.New("exit status 1")}
	err := clientOps["StartBackup"](context.Background(), newTestClient(t, r, ""))
	var ce *fdb.CommandError
	if !errors.As(err, &ce) || !slices.Contains([]string{"ERROR: A backup is already running on tag `nightly'\nFatal Error: Backup error"}, ce.Output) {
		t.Errorf("got %#v, want a CommandError with the tool's output", err)
	}
}

// realOptions is internal/fdb/testdata/real/tools/options.json: the
// options each tool and subcommand accepts, and fdbcli's commands, by
// release.
type realOptions struct {
	Options  map[string]map[string]map[string]bool `json:"options"`
	Commands map[string][]string                   `json:"fdbcli_commands"`
}

// normalizeOption compares options as the tools do (CSimpleOpt
// SO_O_HYPHEN_TO_UNDERSCORE): '-' and '_' after the leading dashes match.
func normalizeOption(o string) string {
	rest := strings.TrimLeft(o, "-")
	return o[:len(o)-len(rest)] + strings.ReplaceAll(rest, "_", "-")
}

// TestInvocationsParse renders every invocation the client makes, with and
// without logging and TLS credentials, and parses it with the option
// tables of the real tools of 7.1 and 7.3: every option exists for that
// tool and subcommand, those that take a value have one, and each fdbcli
// --exec command is a command fdbcli knows.
func TestInvocationsParse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "real", "tools", "options.json"))
	if err != nil {
		t.Fatal(err)
	}
	var real realOptions
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	for _, release := range []string{"7.1.67", "7.3.79"} {
		tables := real.Options[release]
		for op, call := range clientOps {
			for _, logDir := range []string{"", "/var/log/fdb"} {
				for _, tls := range []*fdb.TLSCredentials{nil, testTLS} {
					t.Run(release+"/"+op+"/logs="+logDir+"/tls="+strconv.FormatBool(tls != nil), func(t *testing.T) {
						r := &recorder{t: t, tls: tls, output: "RESTORE_ABORT Tag: r  State: aborted\nState: running\n{\"Status\": {\"Name\": \"Running\"}}"}
						c := newTestClient(t, r, logDir)
						c.cfg.TLS, c.majorMinor = tls, release[:3]
						_ = call(context.Background(), c)
						if len(r.calls) != 1 {
							t.Fatalf("%d invocations, want 1", len(r.calls))
						}
						tool, args := filepath.Base(r.calls[0][0]), r.calls[0][1:]
						key := tool
						if tool != toolCLI {
							key, args = tool+" "+args[0], args[1:]
						}
						table, ok := tables[key]
						if !ok {
							t.Fatalf("%s has no %s", release, key)
						}
						known := map[string]bool{}
						for o, value := range table {
							known[normalizeOption(o)] = value
						}
						for i := 0; i < len(args); i++ {
							a := args[i]
							value, ok := known[normalizeOption(a)]
							switch {
							case !strings.HasPrefix(a, "-"):
								t.Errorf("%s: unexpected argument %q", key, a)
							case !ok:
								t.Errorf("%s %s does not take %s", key, release, a)
							case value && i+1 == len(args):
								t.Errorf("%s: %s needs a value", key, a)
							case value:
								if a == "--exec" {
									checkCommands(t, real.Commands[release], release, args[i+1])
								}
								i++
							}
						}
					})
				}
			}
		}
	}
}

// checkCommands checks that every command of an --exec line, as fdbcli of
// release reads it (tokenize), is a command fdbcli knows.
func checkCommands(t *testing.T, commands []string, release, line string) {
	t.Helper()
	parsed := tokenize(line, cliDialect(release[:3]))
	if parsed.malformed || parsed.partial {
		t.Errorf("fdbcli %s cannot parse %q", release, line)
	}
	for _, words := range parsed.commands {
		if len(words) > 0 && !slices.Contains(commands, words[0]) {
			t.Errorf("fdbcli has no command %q", words[0])
		}
	}
}

// TestExecRunnerLogGroup: the tools run with the provider's log group in
// their environment, where fdbcli reads it without --log.
func TestExecRunnerLogGroup(t *testing.T) {
	out, err := ExecRunner{}.Run(context.Background(), "/bin/sh", nil, "-c", "echo $FDB_NETWORK_OPTION_TRACE_LOG_GROUP")
	if err != nil {
		t.Skipf("no shell: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != fdb.ToolsLogGroup {
		t.Errorf("FDB_NETWORK_OPTION_TRACE_LOG_GROUP = %q, want %q", got, fdb.ToolsLogGroup)
	}
}
