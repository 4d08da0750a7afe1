package fdb_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// realDir holds output of real FoundationDB releases, each file named in
// SOURCES.md with where it comes from.
const realDir = "testdata/real"

// realFacts is what the provider derives from one real status document.
type realFacts struct {
	Available, Healthy, QuorumReachable bool
	// Coordinators is "reachable/listed" from client.coordinators;
	// ConnectionString how many coordinators cluster.connection_string
	// names (0 when it is absent or unparsable).
	Coordinators     string
	ConnectionString int
	// Incomplete is Status.Incomplete(); Complete is what DrainOf says of
	// any group: whether the status can show every role and the data held;
	// WhyNot why it cannot.
	Incomplete, Complete bool
	WhyNot               string
	Recovery             string
	ActiveGenerations    int
	SecondsSinceRecovery *float64
	Generation           int64
	LogGenerations       int
	Redundancy           fdb.RedundancyMode
	// ConfigurationRead and MaintenanceRead are what Status says of them.
	ConfigurationRead, MaintenanceRead bool
	StorageEngine                      string
	Exclusions                         []fdb.ProcessAddress
	// Excluded are the processes reporting excluded.
	Excluded  []string
	Processes int
	// Instances are the process groups (instance_id) with their process
	// count; Unowned the processes without one.
	Instances map[string]int
	Unowned   int
	// Roles counts the processes serving each role; RolesUnknown those
	// whose roles the status does not list.
	Roles        map[string]int
	RolesUnknown int
	Data         string
	DataHealthy  bool
	MinReplicas  int
	MovingBytes  int64
	KVBytes      int64
	// StoredBytes is what the storage roles hold, summed.
	StoredBytes    int64
	FaultTolerance int
	RunningVersion string
	// Incompatible are cluster.incompatible_connections.
	Incompatible []string
	// Drained are the groups DrainOf proves drained.
	Drained []string
	// Backup summarises cluster.layers.backup: agents running, paused and
	// each tag as running/restorable.
	Backup string
	// ClientsKnown is whether the status lists clients; ClientsWithout71
	// and ClientsWithout73 how many connected clients, the provider's tools
	// left out, could not talk to a 7.1 or a 7.3 database.
	ClientsKnown                       bool
	ClientsWithout71, ClientsWithout73 int
}

func factsOf(s *fdb.Status) realFacts {
	c := &s.Cluster
	f := realFacts{
		Available:            s.Client.DatabaseStatus.Available,
		Healthy:              s.Client.DatabaseStatus.Healthy,
		QuorumReachable:      s.Client.Coordinators.QuorumReachable,
		Incomplete:           s.Incomplete(),
		Recovery:             c.RecoveryState.Name,
		ActiveGenerations:    c.RecoveryState.ActiveGenerations,
		SecondsSinceRecovery: c.RecoveryState.SecondsSinceLastRecovered,
		Generation:           c.Generation,
		LogGenerations:       len(c.Logs),
		Redundancy:           c.Configuration.RedundancyMode,
		ConfigurationRead:    s.ConfigurationRead(),
		MaintenanceRead:      s.MaintenanceRead(),
		StorageEngine:        c.Configuration.StorageEngine,
		Exclusions:           fdb.Exclusions(s),
		Processes:            len(c.Processes),
		Instances:            map[string]int{},
		Roles:                map[string]int{},
		Data:                 c.Data.State.Name,
		DataHealthy:          c.Data.State.Healthy,
		MinReplicas:          c.Data.State.MinReplicasRemaining,
		MovingBytes:          c.Data.MovingData.InFlightBytes + c.Data.MovingData.InQueueBytes,
		KVBytes:              c.Data.TotalKVSizeBytes,
		FaultTolerance:       c.FaultTolerance.Zones(),
		RunningVersion:       fdb.RunningVersion(s),
		Incompatible:         c.IncompatibleConnections,
	}
	reachable := 0
	for _, co := range s.Client.Coordinators.Coordinators {
		if co.Reachable {
			reachable++
		}
	}
	f.Coordinators = fmt.Sprintf("%d/%d", reachable, len(s.Client.Coordinators.Coordinators))
	if cs, err := fdb.ParseConnectionString(c.ConnectionString); err == nil {
		f.ConnectionString = len(cs.Coordinators)
	}
	d := fdb.DrainOf(s, "no-such-group", 1, nil)
	f.Complete = d.Complete
	if !d.Complete {
		f.WhyNot = d.Why
	}
	for _, p := range c.Processes {
		if p.Excluded {
			f.Excluded = append(f.Excluded, p.Address)
		}
		if p.Locality.InstanceID == "" {
			f.Unowned++
		}
		if p.Roles == nil {
			f.RolesUnknown++
		}
		for _, r := range p.Roles {
			f.Roles[r.Role]++
			if r.Role == fdb.RoleStorage {
				f.StoredBytes += r.StoredBytes
			}
		}
	}
	slices.Sort(f.Excluded)
	for id, ps := range fdb.ProcessesByInstance(s) {
		f.Instances[id] = len(ps)
		if fdb.DrainOf(s, id, len(ps), nil).Drained {
			f.Drained = append(f.Drained, id)
		}
	}
	slices.Sort(f.Drained)
	if b := c.Layers.Backup; b.Instances != nil || b.Tags != nil || b.InstancesRunning > 0 {
		var tags []string
		for _, tag := range slices.Sorted(maps.Keys(b.Tags)) {
			t := b.Tags[tag]
			tags = append(tags, fmt.Sprintf("%s running=%v restorable=%v", tag, t.RunningBackup, t.RunningBackupIsRestorable))
		}
		f.Backup = fmt.Sprintf("agents=%d paused=%v tags=[%s]", b.InstancesRunning, b.Paused, strings.Join(tags, "; "))
	}
	n71, _, known := fdb.ClientsWithout(s, fdb.Version{Major: 7, Minor: 1, Patch: 27}, fdb.ToolsLogGroup)
	n73, _, _ := fdb.ClientsWithout(s, fdb.Version{Major: 7, Minor: 3, Patch: 63}, fdb.ToolsLogGroup)
	f.ClientsKnown, f.ClientsWithout71, f.ClientsWithout73 = known, n71, n73
	return f
}

// readReal parses one real status document.
func readReal(t *testing.T, name string) *fdb.Status {
	t.Helper()
	out, err := os.ReadFile(filepath.Join(realDir, "status", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := fdb.ParseStatus(out)
	if err != nil {
		t.Fatalf("ParseStatus(%s): %v", name, err)
	}
	return s
}

// realStatusFiles lists the real status documents.
func realStatusFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(realDir, "status", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no real status documents: %v", err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	return files
}

// TestRealStatusDocuments parses every real status document and checks what
// the provider derives from it. Old releases name fields differently or
// leave them out: what is missing must read as unknown or unsafe, never as
// healthy, fault tolerant or drained.
func TestRealStatusDocuments(t *testing.T) {
	cases := realStatusCases()
	for _, name := range realStatusFiles(t) {
		t.Run(name, func(t *testing.T) {
			want, ok := cases[name]
			if !ok {
				t.Fatalf("no expectation for %s: add one", name)
			}
			if diff := gocmp.Diff(want, factsOf(readReal(t, name))); diff != "" {
				t.Errorf("derived facts (-want +got):\n%s", diff)
			}
		})
	}
	for name := range cases {
		if _, err := os.Stat(filepath.Join(realDir, "status", name)); err != nil {
			t.Errorf("expectation for a missing document: %v", err)
		}
	}
}

// TestRealArtefactsHaveSources: every file under testdata/real is named in
// SOURCES.md, which says where it comes from.
func TestRealArtefactsHaveSources(t *testing.T) {
	f, err := os.Open(filepath.Join(realDir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for field := range strings.FieldsSeq(sc.Text()) {
			listed[strings.Trim(field, "`|*,")] = true
		}
	}
	err = filepath.WalkDir(realDir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() == "SOURCES.md" {
			return err
		}
		rel, _ := filepath.Rel(realDir, path)
		if !listed[filepath.ToSlash(rel)] {
			t.Errorf("%s is not listed in SOURCES.md with its source", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// safety is what a decision may rely on from a status. Losing a field of
// the document may make each only less permissive.
type safety struct {
	Available, Healthy, Quorum, DataHealthy bool
	Incomplete                              bool
	FaultTolerance, MinReplicas             int
	// Drained, Complete and HoldsData per process group (DrainOf).
	Drained, Complete, HoldsData map[string]bool
	// ClientsWithout per target version, when the status lists clients.
	ClientsWithout map[string]int
}

func safetyOf(s *fdb.Status, groups map[string]int) safety {
	out := safety{
		Available:      s.Client.DatabaseStatus.Available,
		Healthy:        s.Client.DatabaseStatus.Healthy,
		Quorum:         s.Client.Coordinators.QuorumReachable,
		DataHealthy:    s.Cluster.Data.State.Healthy,
		Incomplete:     s.Incomplete(),
		FaultTolerance: s.Cluster.FaultTolerance.Zones(),
		MinReplicas:    s.Cluster.Data.State.MinReplicasRemaining,
		Drained:        map[string]bool{},
		Complete:       map[string]bool{},
		HoldsData:      map[string]bool{},
		ClientsWithout: map[string]int{},
	}
	for id, n := range groups {
		d := fdb.DrainOf(s, id, n, nil)
		out.Drained[id], out.Complete[id], out.HoldsData[id] = d.Drained, d.Complete, d.HoldsData
	}
	for _, v := range []fdb.Version{{Major: 7, Minor: 1}, {Major: 7, Minor: 3}} {
		if n, _, known := fdb.ClientsWithout(s, v, fdb.ToolsLogGroup); known {
			out.ClientsWithout[v.MajorMinor()] = n
		}
	}
	return out
}

// laxer lists how got is more permissive than base.
func laxer(base, got safety) []string {
	var out []string
	flip := func(name string, b, g bool) {
		if !b && g {
			out = append(out, name+" became true")
		}
	}
	flip("available", base.Available, got.Available)
	flip("healthy", base.Healthy, got.Healthy)
	flip("quorum reachable", base.Quorum, got.Quorum)
	flip("data healthy", base.DataHealthy, got.DataHealthy)
	if base.Incomplete && !got.Incomplete {
		out = append(out, "the status became complete")
	}
	if got.FaultTolerance > base.FaultTolerance {
		out = append(out, fmt.Sprintf("fault tolerance rose from %d to %d", base.FaultTolerance, got.FaultTolerance))
	}
	if got.MinReplicas > base.MinReplicas {
		out = append(out, fmt.Sprintf("min replicas remaining rose from %d to %d", base.MinReplicas, got.MinReplicas))
	}
	for _, id := range slices.Sorted(maps.Keys(base.Drained)) {
		flip(id+" drained", base.Drained[id], got.Drained[id])
		flip(id+" complete", base.Complete[id], got.Complete[id])
		if base.HoldsData[id] && !got.HoldsData[id] {
			out = append(out, id+" no longer holds data")
		}
	}
	for v, n := range got.ClientsWithout {
		if b, ok := base.ClientsWithout[v]; ok && n < b {
			out = append(out, fmt.Sprintf("clients unable to talk to %s fell from %d to %d", v, b, n))
		}
	}
	return out
}

// modelFields visits every key of raw that the status model reads, with
// its path; removing the key is what a release without the field sends.
func modelFields(raw any, t reflect.Type, path string, visit func(obj map[string]any, key, path string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := raw.(map[string]any)
		if !ok {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				modelFields(raw, f.Type, path, visit)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if v, ok := obj[name]; ok {
				visit(obj, name, path+"."+name)
				modelFields(v, f.Type, path+"."+name, visit)
			}
		}
	case reflect.Map:
		if obj, ok := raw.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				modelFields(obj[k], t.Elem(), path+"."+k, visit)
			}
		}
	case reflect.Slice:
		if arr, ok := raw.([]any); ok {
			for i, v := range arr {
				modelFields(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), visit)
			}
		}
	}
}

// TestRealStatusWithoutEachField removes, one at a time, every field the
// status model reads from real documents, and checks that no decision
// becomes more permissive: a field an older or newer release leaves out, or
// one FoundationDB omits while it cannot compute it, reads as unknown.
func TestRealStatusWithoutEachField(t *testing.T) {
	drainLog4 := func(doc map[string]any) {
		// An edited copy of a real document in which log-4 finished
		// draining: excluded by locality, serving nothing.
		c := doc["cluster"].(map[string]any)
		for _, p := range c["processes"].(map[string]any) {
			p := p.(map[string]any)
			if p["locality"].(map[string]any)["instance_id"] == "log-4" {
				p["excluded"], p["roles"] = true, []any{}
			}
		}
		cfg := c["configuration"].(map[string]any)
		cfg["excluded_servers"] = []any{map[string]any{"locality": "locality_instance_id:log-4"}}
	}
	cases := map[string]struct {
		file        string
		edit        func(map[string]any)
		wantDrained []string
	}{
		"7.1.0-rc1":               {file: "7.1.0-rc1_operator_healthy.json"},
		"7.1.0-rc1 log-4 drained": {file: "7.1.0-rc1_operator_healthy.json", edit: drainLog4, wantDrained: []string{"log-4"}},
		"7.1.43":                  {file: "7.1.43_operator_unreachable_testers.json"},
		"6.2.15":                  {file: "6.2.15_operator_backup_running.json"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := os.ReadFile(filepath.Join(realDir, "status", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(doc)
			}
			parse := func() *fdb.Status {
				b, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				s, err := fdb.ParseStatus(b)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			groups := map[string]int{}
			for id, ps := range fdb.ProcessesByInstance(parse()) {
				groups[id] = len(ps)
			}
			base := safetyOf(parse(), groups)
			var drained []string
			for _, id := range slices.Sorted(maps.Keys(base.Drained)) {
				if base.Drained[id] {
					drained = append(drained, id)
				}
			}
			if diff := gocmp.Diff(tc.wantDrained, drained); diff != "" {
				t.Errorf("drained groups of the whole document (-want +got):\n%s", diff)
			}
			// The fields of one process of each class stand for the
			// others, which repeat them.
			sampled, classes := map[string]bool{}, map[string]bool{}
			procs := doc["cluster"].(map[string]any)["processes"].(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(procs)) {
				class, _ := procs[k].(map[string]any)["class_type"].(string)
				sampled[".cluster.processes."+k] = !classes[class]
				classes[class] = true
			}
			removed := 0
			modelFields(doc, reflect.TypeFor[fdb.Status](), "", func(obj map[string]any, key, path string) {
				if parts := strings.SplitN(path, ".", 5); len(parts) > 3 && parts[2] == "processes" && !sampled[strings.Join(parts[:4], ".")] {
					return
				}
				v := obj[key]
				delete(obj, key)
				defer func() { obj[key] = v }()
				removed++
				if l := laxer(base, safetyOf(parse(), groups)); len(l) > 0 {
					t.Errorf("without %s: %s", path, strings.Join(l, "; "))
				}
			})
			if removed < 100 {
				t.Errorf("removed %d fields, want the document to exercise the model", removed)
			}
		})
	}
}
