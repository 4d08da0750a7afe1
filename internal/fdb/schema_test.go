package fdb_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// schemaReleases are the releases whose published status schema
// (fdbclient/Schemas.cpp, statusSchema) is under testdata/real/schema.
var schemaReleases = []string{"7.1.67", "7.3.79"}

func readSchema(t *testing.T, release string) map[string]any {
	t.Helper()
	out, err := os.ReadFile(filepath.Join(realDir, "schema", "status_schema_"+release+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(out, &schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// schemaPaths lists the paths of the status model that the schema lacks.
// In the schema an object with "$map" is a map of its value, a one element
// array a list of it and an object with "$enum" a string.
func schemaPaths(t reflect.Type, schema any, path string, missing *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := schema.(map[string]any)
		if v, isMap := obj["$map"]; ok && isMap {
			// A struct over a map of strings (locality) reads keys of it.
			if _, isString := v.(string); isString {
				return
			}
		}
		if !ok {
			*missing = append(*missing, path+" (not an object in the schema)")
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				schemaPaths(f.Type, schema, path, missing)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			v, ok := obj[name]
			if !ok {
				*missing = append(*missing, path+"."+name)
				continue
			}
			schemaPaths(f.Type, v, path+"."+name, missing)
		}
	case reflect.Map:
		obj, ok := schema.(map[string]any)
		if v, isMap := obj["$map"]; ok && isMap {
			schemaPaths(t.Elem(), v, path+".*", missing)
			return
		}
		*missing = append(*missing, path+" (not a $map in the schema)")
	case reflect.Slice:
		if arr, ok := schema.([]any); ok && len(arr) > 0 {
			schemaPaths(t.Elem(), arr[0], path+"[]", missing)
			return
		}
		if _, ok := schema.([]any); ok && t.Elem().Kind() == reflect.String {
			return // a list of strings the schema shows empty
		}
		*missing = append(*missing, path+" (not a list in the schema)")
	}
}

// TestStatusModelMatchesSchema: every field the status model reads is in the
// status schema of 7.1 and 7.3, at the same place and of the same shape, but
// for the fields listed here, which the schema does not describe and which
// the real documents show.
func TestStatusModelMatchesSchema(t *testing.T) {
	notInSchema := []string{
		// The backup layer is written by the backup agents, not by the
		// cluster controller: the schema leaves it out. Checked against
		// 6.2.15_operator_backup_running.json.
		".cluster.layers.backup",
	}
	// laterThan are the fields a release's schema lacks because they came
	// later: a storage server's engine in its metadata (7.2) and the
	// wiggle's state (7.3); the model reads them as absent there.
	laterThan := map[string][]string{
		"7.1.67": {
			".cluster.processes.*.roles[].storage_metadata.storage_engine",
			".cluster.storage_wiggler.primary.state",
			".cluster.storage_wiggler.remote.state",
		},
	}
	for _, release := range schemaReleases {
		t.Run(release, func(t *testing.T) {
			var missing []string
			schemaPaths(reflect.TypeFor[fdb.Status](), readSchema(t, release), "", &missing)
			want := append(slices.Clone(notInSchema), laterThan[release]...)
			if diff := gocmp.Diff(want, missing, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("status model paths the schema lacks (-want +got):\n%s", diff)
			}
		})
	}
}

// schemaEnum returns the $enum at path (keys separated by dots; "$map" and
// "[]" step into maps and lists) of a schema.
func schemaEnum(t *testing.T, schema map[string]any, path string) []string {
	t.Helper()
	var v any = schema
	for key := range strings.SplitSeq(path, ".") {
		if key == "[]" {
			v = v.([]any)[0]
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: %s is not an object", path, key)
		}
		v = obj[key]
	}
	var out []string
	for _, e := range v.(map[string]any)["$enum"].([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestStatusNamesMatchSchema: the names the provider compares status fields
// with are names the schema of 7.1 and 7.3 lists.
func TestStatusNamesMatchSchema(t *testing.T) {
	names := map[string][]string{
		"cluster.processes.$map.roles.[].role": {
			fdb.RoleStorage, fdb.RoleLog, fdb.RoleCoordinator, fdb.RoleClusterControl, fdb.RoleMaster,
			fdb.RoleCommitProxy, fdb.RoleGrvProxy, fdb.RoleResolver, fdb.RoleDataDistributor, fdb.RoleRatekeeper, fdb.RoleLogRouter,
		},
		"cluster.recovery_state.name": {
			fdb.RecoveryReadingCoordinatedState, fdb.RecoveryLockingCoordinatedState, fdb.RecoveryRecruitingTransactionServers,
			fdb.RecoveryInitializingTransactionServers, fdb.RecoveryAcceptingCommits, fdb.RecoveryAllLogsRecruited,
			fdb.RecoveryFullyRecovered, fdb.RecoveryConfigurationNeverCreated,
		},
		"cluster.data.state.name": {
			fdb.DataInitializing, fdb.DataMissing, fdb.DataHealing, fdb.DataHealthyRemovingServer, fdb.DataHealthy,
		},
		"cluster.configuration.redundancy_mode": {
			string(fdb.RedundancySingle), string(fdb.RedundancyDouble), string(fdb.RedundancyTriple), string(fdb.RedundancyThreeDataHall),
		},
		// log_servers_error is left out: fdbserver/Status.actor.cpp writes
		// it (7.1.67 and 7.3.79, "Timed out trying to retrieve log
		// servers.") but the schema's enum does not list it.
		"cluster.messages.[].name": {fdb.MessageStatusIncomplete, fdb.MessageStorageServersError},
	}
	for _, release := range schemaReleases {
		schema := readSchema(t, release)
		for path, want := range names {
			enum := schemaEnum(t, schema, path)
			for _, name := range want {
				if !slices.Contains(enum, name) {
					t.Errorf("%s: %s %q is not in the schema's enum %v", release, path, name, enum)
				}
			}
		}
	}
}

// TestReportedStorageEnginesInSchema: every storage engine name
// ReportedStorageEngine returns is one the release's schema lists.
func TestReportedStorageEnginesInSchema(t *testing.T) {
	keywords := []string{"ssd", "ssd-1", "ssd-2", "ssd-redwood-1", "ssd-redwood-1-experimental", "ssd-rocksdb-v1",
		"ssd-sharded-rocksdb", "memory", "memory-1", "memory-2", "memory-radixtree-beta"}
	for _, release := range schemaReleases {
		v, err := fdb.ParseVersion(release)
		if err != nil {
			t.Fatal(err)
		}
		enum := schemaEnum(t, readSchema(t, release), "cluster.configuration.storage_engine")
		for _, k := range keywords {
			if name, ok := fdb.ReportedStorageEngine(k, v); ok && !slices.Contains(enum, name) {
				t.Errorf("%s: configure %s reports %q, which the schema's enum %v lacks", release, k, name, enum)
			}
		}
	}
}
