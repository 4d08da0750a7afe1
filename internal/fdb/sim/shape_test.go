package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// realDir holds the real FoundationDB artefacts (see its SOURCES.md).
const realDir = "../testdata/real"

// realShapeDocuments are the real status documents whose shapes the
// simulator's are compared with: the 7.1 ones first, and the 6.2.15 one
// for the backup layer, which the schema leaves out.
var realShapeDocuments = []string{
	"7.1.0-rc1_operator_healthy.json", "7.1.43_operator_unreachable_testers.json", "6.2.15_operator_backup_running.json",
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// mapPaths are the objects of `status json` keyed by names (process IDs,
// tags, versions), not by field names; their keys read as "*". The schema
// marks them "$map" but for the backup layer, which it leaves out.
var mapPaths = []string{".cluster.layers.backup.instances", ".cluster.layers.backup.tags"}

// shapes adds the JSON type at each path of v to out: object keys are
// steps, the elements of an array share the step "[]" and the keys of a
// map (schema "$map", or mapPaths) the step "*".
func shapes(v, schema any, path string, out map[string]map[string]bool) {
	if out[path] == nil {
		out[path] = map[string]bool{}
	}
	out[path][jsonType(v)] = true
	switch v := v.(type) {
	case map[string]any:
		obj, _ := schema.(map[string]any)
		inner, isMap := obj["$map"]
		isMap = isMap || slices.Contains(mapPaths, path)
		for k, e := range v {
			if isMap {
				shapes(e, inner, path+".*", out)
				continue
			}
			shapes(e, obj[k], path+"."+k, out)
		}
	case []any:
		var elem any
		if arr, ok := schema.([]any); ok && len(arr) > 0 {
			elem = arr[0]
		}
		for _, e := range v {
			shapes(e, elem, path+"[]", out)
		}
	}
}

// schemaType is the JSON type the schema gives a path (its values are
// examples; an "$enum" is a string); "" when the schema lacks the path.
func schemaType(schema any, path string) string {
	v := schema
	for _, step := range strings.Split(strings.TrimPrefix(strings.ReplaceAll(path, "[]", ".[]"), "."), ".") {
		switch s := v.(type) {
		case map[string]any:
			if inner, ok := s["$map"]; ok && step == "*" {
				v = inner
				continue
			}
			next, ok := s[step]
			if !ok {
				return ""
			}
			v = next
		case []any:
			if step != "[]" || len(s) == 0 {
				return ""
			}
			v = s[0]
		default:
			return ""
		}
	}
	if obj, ok := v.(map[string]any); ok {
		if _, enum := obj["$enum"]; enum {
			return "string"
		}
	}
	return jsonType(v)
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// simStatuses are status documents of the simulator in the states the
// provider meets: before configure new, healthy with clients, exclusions,
// maintenance, a running backup and a restore, with the cluster
// controller's view incomplete, and while the perpetual wiggle replaces a
// storage server to change the storage engine.
func simStatuses(t *testing.T) map[string][]byte {
	ctx := context.Background()
	out := map[string][]byte{}
	read := func(name string, c *fdbtest.Cluster) {
		b, err := c.Sim.StatusJSON(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	c := fdbtest.NewCluster(t, fdbtest.Topology{Storage: 4, Logs: 3, Stateless: 2, StorageProcessesPerPod: 2}, sim.Options{Seed: 5})
	read("NotConfigured", c)
	c.Create(t, fdb.RedundancyTriple)
	read("Healthy", c)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Sim.ConnectClient("10.9.0.1:40001", "app", "7.3.63", "7.1.67"))
	must(c.Sim.SetBackupAgents(2))
	must(c.Sim.StartBackup(ctx, fdb.BackupRequest{URL: "file:///b", SnapshotPeriodSeconds: 10}))
	must(c.Sim.Exclude(ctx, []fdb.ProcessAddress{fdb.InstanceTarget("storage-1"), c.Address(t, "storage-2")}))
	must(c.Sim.SetMaintenance(ctx, "storage-3", 600))
	c.Clock.Step(5 * time.Second)
	read("ExcludingUnderMaintenanceWithBackupAndClients", c)
	must(c.Sim.StartRestore(ctx, fdb.RestoreRequest{URL: "file:///b"}))
	c.Clock.Step(time.Minute)
	read("Restoring", c)
	must(c.Sim.IncompleteStatusNext(1))
	read("Incomplete", c)
	w := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 5})
	w.Create(t, fdb.RedundancyTriple)
	migrate := fdb.DatabaseConfiguration{StorageEngine: "ssd-redwood-1-experimental", StorageMigrationType: fdb.StorageMigrationGradual, PerpetualStorageWiggle: ptrTo(1)}
	must(w.Sim.Configure(ctx, migrate, false))
	w.Clock.Step(70 * time.Second)
	read("WigglingToAnotherEngine", w)
	return out
}

// TestStatusShapesMatchRealDocuments: every path of the simulator's
// `status json` (object keys, "*" for the keys of a map, "[]" for the
// elements of a list) has a JSON type the real documents show at that path
// or, for paths none of them shows, that the schema of 7.1 and 7.3 gives
// it; no value is null (FoundationDB writes an empty list, never null).
// The storage engine reads as the real status of the running version names
// it.
func TestStatusShapesMatchRealDocuments(t *testing.T) {
	schemas := map[string]any{}
	for _, release := range []string{"7.1.67", "7.3.79"} {
		schemas[release] = readJSON(t, filepath.Join(realDir, "schema", "status_schema_"+release+".json"))
	}
	// The shapes of each real document, and of all of them.
	real := map[string]map[string]bool{}
	var docs []map[string]map[string]bool
	for _, name := range realShapeDocuments {
		doc := map[string]map[string]bool{}
		shapes(readJSON(t, filepath.Join(realDir, "status", name)), schemas["7.1.67"], "", doc)
		docs = append(docs, doc)
		for path, types := range doc {
			if real[path] == nil {
				real[path] = map[string]bool{}
			}
			for typ := range types {
				real[path][typ] = true
			}
		}
	}
	// The paths the provider reads (the status model's) that every real
	// 7.1 document has.
	model := map[string]bool{}
	modelPaths(reflect.TypeFor[fdb.Status](), "", model)
	var required []string
	for _, path := range slices.Sorted(maps.Keys(model)) {
		if notModelled(path) {
			continue
		}
		if !slices.ContainsFunc(docs[:2], func(doc map[string]map[string]bool) bool { _, ok := doc[path]; return !ok }) {
			required = append(required, path)
		}
	}
	for name, doc := range simStatuses(t) {
		t.Run(name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				t.Fatal(err)
			}
			got := map[string]map[string]bool{}
			shapes(v, schemas["7.1.67"], "", got)
			var wrong []string
			for _, path := range slices.Sorted(maps.Keys(got)) {
				for _, typ := range slices.Sorted(maps.Keys(got[path])) {
					if !shapeAllowed(real, schemas, path, typ) {
						wrong = append(wrong, fmt.Sprintf("%s: %s", path, typ))
					}
				}
			}
			if diff := cmp.Diff([]string(nil), wrong); diff != "" {
				t.Errorf("paths of the simulator's status whose type no real document nor schema has (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(name, "Incomplete") && name != "NotConfigured" {
				var missing []string
				for _, path := range required {
					if _, ok := got[path]; !ok {
						missing = append(missing, path)
					}
				}
				if len(missing) > 0 {
					t.Errorf("paths every real 7.1 document has that the provider reads and the simulator's complete status lacks:\n%s", strings.Join(missing, "\n"))
				}
			}
		})
	}
}

// notModelled reports whether the simulator leaves out a path every real
// 7.1 document has, and why that is right or a known limit.
func notModelled(path string) bool {
	for _, prefix := range []string{
		// FoundationDB writes the role counts only when they are
		// configured (DatabaseConfiguration::toJSON leaves out -1, the
		// default); the real documents' clusters had them configured.
		// The simulator writes them likewise.
		".cluster.configuration.commit_proxies", ".cluster.configuration.grv_proxies", ".cluster.configuration.log_routers",
		".cluster.configuration.logs", ".cluster.configuration.remote_logs", ".cluster.configuration.resolvers",
		// The simulator runs no workload: it has no lag and no queues
		// (docs/SIMULATOR.md, What the simulator leaves out), and leaves
		// them out rather than report invented numbers.
		".cluster.processes.*.roles[].data_lag", ".cluster.processes.*.roles[].durability_lag", ".cluster.qos",
		// Written only while clients are connected (clientStatusFetcher);
		// the real documents were read by a connected fdbcli, while the
		// simulator lists only the clients ConnectClient connected.
		".cluster.clients.supported_versions",
	} {
		if path == prefix || strings.HasPrefix(path, prefix+".") || strings.HasPrefix(path, prefix+"[") {
			return true
		}
	}
	return false
}

// modelPaths adds the paths of the fields of type t, the status model, to
// out, named as shapes names them.
func modelPaths(t reflect.Type, path string, out map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" {
		out[path] = true
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				modelPaths(f.Type, path, out)
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				modelPaths(f.Type, path+"."+name, out)
			}
		}
	case reflect.Map:
		modelPaths(t.Elem(), path+".*", out)
	case reflect.Slice:
		modelPaths(t.Elem(), path+"[]", out)
	}
}

// shapeAllowed reports whether a value of type typ at path is what real
// FoundationDB writes there.
func shapeAllowed(real map[string]map[string]bool, schemas map[string]any, path, typ string) bool {
	if typ == "null" {
		return false
	}
	if types, ok := real[path]; ok {
		return types[typ]
	}
	for _, schema := range schemas {
		if schemaType(schema, path) != typ {
			return false
		}
	}
	return true
}

// TestStatusReportsStorageEngineAsReleased: the simulator reports the
// storage engine `configure <keyword>` sets by the name the status of the
// version its processes run gives it (fdb.ReportedStorageEngine), not the
// keyword.
func TestStatusReportsStorageEngineAsReleased(t *testing.T) {
	cases := map[string]struct {
		version, keyword, want string
	}{
		"SsdOn71":                   {version: "7.1.67", keyword: "ssd", want: "ssd-2"},
		"MemoryOn71":                {version: "7.1.67", keyword: "memory", want: "memory-2"},
		"MemoryOn73":                {version: "7.3.63", keyword: "memory", want: "memory"},
		"Memory2On73":               {version: "7.3.63", keyword: "memory-2", want: "memory"},
		"RedwoodExperimentalOn71":   {version: "7.1.67", keyword: "ssd-redwood-1-experimental", want: "ssd-redwood-1-experimental"},
		"RedwoodExperimentalOn73":   {version: "7.3.63", keyword: "ssd-redwood-1-experimental", want: "ssd-redwood-1"},
		"RedwoodOn73":               {version: "7.3.63", keyword: "ssd-redwood-1", want: "ssd-redwood-1"},
		"ShardedRocksDBOn73":        {version: "7.3.63", keyword: "ssd-sharded-rocksdb", want: "ssd-sharded-rocksdb"},
		"RedwoodKeywordRefusedOn71": {version: "7.1.67", keyword: "ssd-redwood-1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tp := fdbtest.Topology{Storage: 3, Logs: 3, Stateless: 1, Version: tc.version}
			c := fdbtest.NewCluster(t, tp, sim.Options{Seed: 3})
			err := c.Sim.Configure(context.Background(), fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble, StorageEngine: tc.keyword}, true)
			if tc.want == "" {
				if err == nil {
					t.Errorf("configure new %s on %s: no error, want a refusal", tc.keyword, tc.version)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Configuration(t).StorageEngine); diff != "" {
				t.Errorf("storage_engine: -want, +got:\n%s", diff)
			}
		})
	}
}
