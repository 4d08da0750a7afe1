package apis_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/version"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// examples reads every object in examples/*.yaml.
func examples(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.Root(), "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(raw)), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				break
			}
			if len(u.Object) == 0 {
				continue
			}
			out[filepath.Base(f)+"/"+u.GetKind()+"/"+u.GetName()] = u
		}
	}
	return out
}

func exampleOf(t *testing.T, kind string) *unstructured.Unstructured {
	t.Helper()
	for _, u := range examples(t) {
		if u.GetKind() == kind {
			return u.DeepCopy()
		}
	}
	t.Fatalf("no example of kind %s", kind)
	return nil
}

func TestExamplesAreAccepted(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	kinds := map[string]bool{}
	for name, u := range examples(t) {
		t.Run(name, func(t *testing.T) {
			if err := env.Client.Create(ctx, u.DeepCopy()); err != nil {
				t.Fatalf("example rejected: %v", err)
			}
			kinds[u.GetKind()] = true
		})
	}
	for _, k := range []string{"Cluster", "ProcessGroup", "Backup", "Restore", "ProviderConfig", "ClusterProviderConfig", "SafetyPolicy"} {
		if !kinds[k] {
			t.Errorf("examples/ has no accepted %s", k)
		}
	}
}

// TestRoundTrip creates one fully populated object of every managed kind and
// reads it back: every field survives the CRD schema (nothing is pruned) and
// defaults are applied by the API server.
func TestRoundTrip(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	three, six := 3, 6
	version := int64(42)
	cls := "fast"
	size := resource.MustParse("32Gi")
	no := false
	blob := fdbv1alpha1.BlobStore{
		AccountName:          "key@blob.example.com:443",
		Bucket:               "bucket-1",
		BackupName:           "nightly",
		CredentialsSecretRef: &xpv2.LocalSecretKeySelector{LocalSecretReference: xpv2.LocalSecretReference{Name: "creds"}, Key: "credentials"},
		URLParameters:        []string{"secure_connection=0"},
	}
	mrSpec := xpv2.ManagedResourceSpec{
		WriteConnectionSecretToReference: &xpv2.LocalSecretReference{Name: "out"},
		ProviderConfigReference:          &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "remote"},
		ManagementPolicies:               xpv2.ManagementPolicies{xpv2.ManagementActionObserve},
	}
	params := &kruntime.RawExtension{Raw: []byte(`{"minSecondsSinceRecoveryForExclude":300}`)}

	cases := map[string]struct {
		obj  client.Object
		spec func(client.Object) any
		want any
	}{
		"Cluster": {
			obj: &fdbv1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: "rt-cluster", Namespace: "default"},
				Spec: fdbv1alpha1.ClusterSpec{ManagedResourceSpec: mrSpec, ForProvider: fdbv1alpha1.ClusterParameters{
					Version: "7.1.67",
					DatabaseConfiguration: fdbv1alpha1.DatabaseConfiguration{
						RedundancyMode: fdbv1alpha1.RedundancyTriple, StorageEngine: "ssd-redwood-1", UsableRegions: 1,
						Logs: &three, CommitProxies: &three, GrvProxies: &three, Resolvers: &three, LogRouters: &three, RemoteLogs: &three,
					},
					ProcessCounts:          fdbv1alpha1.ProcessCounts{Storage: 6, Log: 4, Stateless: 3, Transaction: 1, ClusterController: 1},
					StorageServersPerPod:   2,
					LogServersPerPod:       2,
					StorageMigrationMethod: fdbv1alpha1.StorageMigrationReplaceGroups,
					CoordinatorSelection:   []fdbv1alpha1.CoordinatorSelectionSetting{{ProcessClass: fdbv1alpha1.ProcessClassLog, Priority: 2}, {ProcessClass: fdbv1alpha1.ProcessClassStorage}},
					FaultDomain:            fdbv1alpha1.FaultDomain{Key: "kubernetes.io/hostname"},
					Processes: map[string]fdbv1alpha1.ProcessSettings{"storage": {
						PodTemplate:      &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "db"}}},
						VolumeSize:       &size,
						StorageClassName: &cls,
						CustomParameters: []string{"knob_disable_posix_kernel_aio=1"},
						VolumeClaimTemplate: &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "db"}},
							Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}}},
					}},
					Image: fdbv1alpha1.ImageSettings{Repository: "registry.example.com/fdb", PullPolicy: corev1.PullAlways, PullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
						Configs: []fdbv1alpha1.ImageConfig{{Version: "7.1.67", TagSuffix: "-1"}, {Repository: "mirror.example.com/fdb"}}},
					TargetNamespace: "fdb",
					Routing:         fdbv1alpha1.Routing{UseDNSInClusterFile: &no, DNSDomain: "cluster.example"},
					Safety:          fdbv1alpha1.SafetySettings{Policies: []string{"storage-exclusions"}, Params: params},
					Automation: fdbv1alpha1.AutomationOptions{MaxConcurrentReplacements: 2, FailureDetectionTimeSeconds: 600, MinimumUptimeSecondsForBounce: 60, StuckRemovalSeconds: 1800,
						TaintReplacements: []fdbv1alpha1.TaintReplacement{{Key: "example.org/maintenance", DurationInSeconds: 3600}, {Key: "*", DurationInSeconds: 7200}}},
					Locks: fdbv1alpha1.LockOptions{DurationSeconds: 300, DenyList: []fdbv1alpha1.LockDenyEntry{{ID: "dc9"}, {ID: "dc8", Allow: true}}},
				}},
			},
			spec: func(o client.Object) any { return o.(*fdbv1alpha1.Cluster).Spec },
		},
		"ClusterDefaults": {
			obj: &fdbv1alpha1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Name: "rt-cluster-defaults", Namespace: "default"},
				Spec:       fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: "7.3.63", ProcessCounts: fdbv1alpha1.ProcessCounts{Storage: 3}}},
			},
			spec: func(o client.Object) any { return o.(*fdbv1alpha1.Cluster).Spec },
			want: fdbv1alpha1.ClusterSpec{
				ManagedResourceSpec: xpv2.ManagedResourceSpec{
					ProviderConfigReference: &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"},
					ManagementPolicies:      xpv2.ManagementPolicies{xpv2.ManagementActionAll},
				},
				ForProvider: fdbv1alpha1.ClusterParameters{
					Version:                "7.3.63",
					DatabaseConfiguration:  fdbv1alpha1.DatabaseConfiguration{RedundancyMode: fdbv1alpha1.RedundancyDouble, StorageEngine: "ssd-2", UsableRegions: 1},
					ProcessCounts:          fdbv1alpha1.ProcessCounts{Storage: 3},
					StorageServersPerPod:   1,
					LogServersPerPod:       1,
					StorageMigrationMethod: fdbv1alpha1.StorageMigrationWiggle,
					FaultDomain:            fdbv1alpha1.FaultDomain{Key: "topology.kubernetes.io/zone"},
					Image:                  fdbv1alpha1.ImageSettings{Repository: "foundationdb/fdb-kubernetes-monitor", PullPolicy: corev1.PullIfNotPresent},
					Routing:                fdbv1alpha1.Routing{DNSDomain: "cluster.local"},
					Automation:             fdbv1alpha1.AutomationOptions{MaxConcurrentReplacements: 1, FailureDetectionTimeSeconds: 7200, MinimumUptimeSecondsForBounce: 600, StuckRemovalSeconds: 600},
					Locks:                  fdbv1alpha1.LockOptions{DurationSeconds: 600},
				},
			},
		},
		"ProcessGroup": {
			obj: &fdbv1alpha1.ProcessGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "rt-pg", Namespace: "default"},
				Spec: fdbv1alpha1.ProcessGroupSpec{ManagedResourceSpec: mrSpec, ForProvider: fdbv1alpha1.ProcessGroupParameters{
					ClusterReference: fdbv1alpha1.ClusterReference{ClusterName: "c", ClusterRef: &xpv2.NamespacedReference{Name: "c"}},
					ProcessClass:     fdbv1alpha1.ProcessClassLog, ProcessesPerPod: 2, FaultDomain: "zone-b",
				}},
			},
			spec: func(o client.Object) any { return o.(*fdbv1alpha1.ProcessGroup).Spec },
		},
		"Backup": {
			obj: &fdbv1alpha1.Backup{
				ObjectMeta: metav1.ObjectMeta{Name: "rt-backup", Namespace: "default"},
				Spec: fdbv1alpha1.BackupSpec{ManagedResourceSpec: mrSpec, ForProvider: fdbv1alpha1.BackupParameters{
					ClusterReference: fdbv1alpha1.ClusterReference{ClusterSelector: &xpv2.NamespacedSelector{MatchLabels: map[string]string{"app": "x"}}},
					BackupState:      fdbv1alpha1.BackupPaused, AgentCount: six, SnapshotPeriodSeconds: 3600, BlobStore: blob, Tag: "nightly",
				}},
			},
			spec: func(o client.Object) any { return o.(*fdbv1alpha1.Backup).Spec },
		},
		"Restore": {
			obj: &fdbv1alpha1.Restore{
				ObjectMeta: metav1.ObjectMeta{Name: "rt-restore", Namespace: "default"},
				Spec: fdbv1alpha1.RestoreSpec{ManagedResourceSpec: mrSpec, ForProvider: fdbv1alpha1.RestoreParameters{
					ClusterReference: fdbv1alpha1.ClusterReference{ClusterName: "c"},
					BlobStore:        blob, KeyRanges: []fdbv1alpha1.KeyRange{{Start: "a", End: "b"}}, BackupVersion: &version, AllowNonEmptyDestination: true,
				}},
			},
			spec: func(o client.Object) any { return o.(*fdbv1alpha1.Restore).Spec },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = tc.spec(tc.obj.DeepCopyObject().(client.Object))
			}
			if err := env.Client.Create(ctx, tc.obj); err != nil {
				t.Fatalf("Create: %v", err)
			}
			got := tc.obj.DeepCopyObject().(client.Object)
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(tc.obj), got); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if diff := cmp.Diff(want, tc.spec(got)); diff != "" {
				t.Errorf("spec after round trip: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestStatusRoundTrip writes the observed state of a Cluster and a
// ProcessGroup through the status subresource and reads it back.
func TestStatusRoundTrip(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	now := metav1.Now().Rfc3339Copy()
	c := &fdbv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "status-cluster", Namespace: "default"},
		Spec:       fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: "7.3.63", ProcessCounts: fdbv1alpha1.ProcessCounts{Storage: 3}}},
	}
	if err := env.Client.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	c.Status.AtProvider = fdbv1alpha1.ClusterObservation{
		ConnectionString: "status_cluster:abc@10.0.0.1:4501,10.0.0.2:4501,10.0.0.3:4501",
		Configured:       true,
		RunningVersion:   "7.3.63",
		Health:           fdbv1alpha1.ClusterHealth{Available: true, Healthy: true, FullReplication: true, FaultTolerance: 1, RecoveryState: "fully_recovered", ActiveGenerations: 1, RecoveryGeneration: 4, LastRecoveryTime: &now},
		Coordinators:     []string{"10.0.0.1:4501", "10.0.0.2:4501", "10.0.0.3:4501"},
		ProcessGroups:    fdbv1alpha1.ProcessGroupCounts{Total: 3, ByClass: map[string]int{"storage": 3}, Excluded: 1, Removing: 1},
		LastPolicyDecision: &fdbv1alpha1.PolicyDecision{Action: "Exclude", Targets: []string{"storage-3"}, Result: "Denied",
			Rule: "fdb-defaults/min-recovery-time", Message: "42s since last recovery, needs 120s", Time: now},
	}
	c.SetConditions(xpv2.Available())
	want := c.Status.DeepCopy()
	if err := env.Client.Status().Update(ctx, c); err != nil {
		t.Fatalf("status update: %v", err)
	}
	got := &fdbv1alpha1.Cluster{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.AtProvider, got.Status.AtProvider); diff != "" {
		t.Errorf("atProvider: -want, +got:\n%s", diff)
	}
	if got.GetCondition(xpv2.TypeReady).Reason != xpv2.ReasonAvailable {
		t.Errorf("Ready condition lost: %+v", got.Status.Conditions)
	}

	pg := &fdbv1alpha1.ProcessGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "status-pg", Namespace: "default"},
		Spec: fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{
			ClusterReference: fdbv1alpha1.ClusterReference{ClusterName: "status-cluster"}, ProcessClass: fdbv1alpha1.ProcessClassStorage,
		}},
	}
	if err := env.Client.Create(ctx, pg); err != nil {
		t.Fatal(err)
	}
	pg.Status.AtProvider = fdbv1alpha1.ProcessGroupObservation{
		PodName: "status-cluster-storage-1", Addresses: []string{"10.0.0.1:4501"}, ProcessIDs: []string{"storage-1-1"},
		FaultDomain: "zone-a", Roles: []string{"storage"}, Excluded: true, ExclusionTime: &now, RemovalTime: &now,
		ProcessGroupConditions: []fdbv1alpha1.ProcessGroupCondition{{Type: fdbv1alpha1.MissingProcesses, Since: now}},
	}
	wantPG := pg.Status.AtProvider.DeepCopy()
	if err := env.Client.Status().Update(ctx, pg); err != nil {
		t.Fatalf("status update: %v", err)
	}
	gotPG := &fdbv1alpha1.ProcessGroup{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pg), gotPG); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*wantPG, gotPG.Status.AtProvider); diff != "" {
		t.Errorf("atProvider: -want, +got:\n%s", diff)
	}
}

// set returns a mutation that sets a field of an unstructured object.
func set(value any, path ...string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
			panic(err)
		}
	}
}

func unset(path ...string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, path...) }
}

// all returns a mutation that applies mutations in order.
func all(mutations ...func(*unstructured.Unstructured)) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		for _, m := range mutations {
			m(u)
		}
	}
}

// dc is a data center of a region, as unstructured content.
func dc(id string, satellite bool) map[string]any {
	return map[string]any{"id": id, "satellite": satellite}
}

// regions returns a mutation that gives a Cluster one region per list of
// data centers.
func regions(dcs ...[]any) func(*unstructured.Unstructured) {
	var rs []any
	for _, d := range dcs {
		rs = append(rs, map[string]any{"datacenters": d})
	}
	return set(rs, "spec", "forProvider", "databaseConfiguration", "regions")
}

// TestBadInputRejected checks that bad input is rejected at admission with a
// message naming the field.
func TestBadInputRejected(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	fp := []string{"spec", "forProvider"}
	at := func(p ...string) []string { return append(append([]string{}, fp...), p...) }

	cases := map[string]struct {
		kind   string
		mutate func(*unstructured.Unstructured)
		want   []string
	}{
		"ClusterBadVersion":        {"Cluster", set("7.3", at("version")...), []string{"spec.forProvider.version", "MAJOR.MINOR.PATCH"}},
		"ClusterUnsupportedLine":   {"Cluster", set("7.4.1", at("version")...), []string{"spec.forProvider.version", "7.1 or 7.3"}},
		"ClusterMissingVersion":    {"Cluster", unset(at("version")...), []string{"spec.forProvider.version", "Required value"}},
		"ClusterBadRedundancy":     {"Cluster", set("quadruple", at("databaseConfiguration", "redundancyMode")...), []string{"spec.forProvider.databaseConfiguration.redundancyMode", "Unsupported value"}},
		"ClusterBadStorageEngine":  {"Cluster", set("ext4", at("databaseConfiguration", "storageEngine")...), []string{"spec.forProvider.databaseConfiguration.storageEngine"}},
		"ClusterBadWiggleEngine":   {"Cluster", set("ext4", at("databaseConfiguration", "perpetualStorageWiggleEngine")...), []string{"spec.forProvider.databaseConfiguration.perpetualStorageWiggleEngine", "Unsupported value"}},
		"ClusterBadPublicIPSource": {"Cluster", set("node", at("routing", "publicIPSource")...), []string{"spec.forProvider.routing.publicIPSource", "Unsupported value"}},
		"ClusterServiceIPsByDNS": {"Cluster", all(set("service", at("routing", "publicIPSource")...), set(true, at("routing", "useDNSInClusterFile")...)),
			[]string{"spec.forProvider.routing", "useDNSInClusterFile cannot be true with publicIPSource service"}},
		"ClusterStorageServers0":      {"Cluster", set(int64(0), at("storageServersPerPod")...), []string{"spec.forProvider.storageServersPerPod", "between 1 and 8"}},
		"ClusterStorageServers9":      {"Cluster", set(int64(9), at("storageServersPerPod")...), []string{"spec.forProvider.storageServersPerPod", "between 1 and 8"}},
		"ClusterLogServers0":          {"Cluster", set(int64(0), at("logServersPerPod")...), []string{"spec.forProvider.logServersPerPod", "between 1 and 8"}},
		"ClusterLogServers9":          {"Cluster", set(int64(9), at("logServersPerPod")...), []string{"spec.forProvider.logServersPerPod", "between 1 and 8"}},
		"ClusterNegativeStorage":      {"Cluster", set(int64(-1), at("processCounts", "storage")...), []string{"spec.forProvider.processCounts.storage"}},
		"ClusterUsableRegions3":       {"Cluster", set(int64(3), at("databaseConfiguration", "usableRegions")...), []string{"spec.forProvider.databaseConfiguration.usableRegions"}},
		"ClusterBadTargetNamespace":   {"Cluster", set("Not_A_Namespace", at("targetNamespace")...), []string{"spec.forProvider.targetNamespace"}},
		"ClusterStuckRemovalTooShort": {"Cluster", set(int64(10), at("automation", "stuckRemovalSeconds")...), []string{"spec.forProvider.automation.stuckRemovalSeconds", "greater than or equal to 60"}},
		"ClusterBadGroupToReplace":    {"Cluster", set([]any{"Storage 3"}, at("processGroupsToReplace")...), []string{"spec.forProvider.processGroupsToReplace[0]", "should match"}},
		"ClusterDetectionTooShort":    {"Cluster", set(int64(5), at("automation", "failureDetectionTimeSeconds")...), []string{"spec.forProvider.automation.failureDetectionTimeSeconds", "greater than or equal to 60"}},
		"ClusterBadTaintKey": {"Cluster", set([]any{map[string]any{"key": "example.org/main tenance", "durationInSeconds": int64(0)}}, at("automation", "taintReplacements")...),
			[]string{"spec.forProvider.automation.taintReplacements[0].key", "should match"}},
		"ClusterNegativeTaintDuration": {"Cluster", set([]any{map[string]any{"key": "*", "durationInSeconds": int64(-1)}}, at("automation", "taintReplacements")...),
			[]string{"spec.forProvider.automation.taintReplacements[0].durationInSeconds", "greater than or equal to 0"}},
		"ClusterTaintKeyTwice": {"Cluster", set([]any{map[string]any{"key": "*", "durationInSeconds": int64(0)}, map[string]any{"key": "*", "durationInSeconds": int64(60)}}, at("automation", "taintReplacements")...),
			[]string{"spec.forProvider.automation.taintReplacements[1]", "Duplicate value"}},
		"ClusterUsableRegions2OneRegion": {"Cluster", set(int64(2), at("databaseConfiguration", "usableRegions")...),
			[]string{"spec.forProvider.databaseConfiguration", "usableRegions 2 needs two regions"}},
		"ClusterRegionTwoMains": {"Cluster", regions([]any{dc("dc1", false), dc("dc2", false)}),
			[]string{"spec.forProvider.databaseConfiguration.regions", "exactly one main data center"}},
		"ClusterDataCenterInTwoRegions": {"Cluster", regions([]any{dc("dc1", false)}, []any{dc("dc2", false), dc("dc1", true)}),
			[]string{"spec.forProvider.databaseConfiguration.regions", "a data center is in one region only"}},
		"ClusterSatelliteModeWithoutSatellite": {"Cluster", all(set("dc1", at("dataCenter")...), set([]any{map[string]any{
			"datacenters": []any{dc("dc1", false)}, "satelliteRedundancyMode": "one_satellite_double"}}, at("databaseConfiguration", "regions")...)),
			[]string{"spec.forProvider.databaseConfiguration.regions[0]", "satelliteRedundancyMode needs a satellite data center"}},
		"ClusterUnknownDataCenter": {"Cluster", all(regions([]any{dc("dc1", false)}), set("dc9", at("dataCenter")...)),
			[]string{"spec.forProvider", "dataCenter must be one of the regions' data centers"}},
		"ClusterRegionsWithoutDataCenter": {"Cluster", regions([]any{dc("dc1", false)}),
			[]string{"spec.forProvider", "a Cluster that shares its database (regions or seedConnectionString) names its dataCenter"}},
		"ClusterSeedWithoutDataCenter": {"Cluster", set("db:abc@10.0.0.1:4501", at("seedConnectionString")...),
			[]string{"spec.forProvider", "a Cluster that shares its database (regions or seedConnectionString) names its dataCenter"}},
		"ClusterBadSeed": {"Cluster", all(set("dc2", at("dataCenter")...), set("db@10.0.0.1:4501", at("seedConnectionString")...)),
			[]string{"spec.forProvider.seedConnectionString", "should match"}},
		"ClusterLockTooShort": {"Cluster", set(int64(10), at("locks", "durationSeconds")...),
			[]string{"spec.forProvider.locks.durationSeconds", "greater than or equal to 60"}},
		"ClusterBadManagementPolicy": {"Cluster", set([]any{"Destroy"}, "spec", "managementPolicies"),
			[]string{"spec.managementPolicies"}},
		"ClusterTLSWithoutSecretName": {"Cluster", set(map[string]any{"enabled": true}, at("tls")...), []string{"spec.forProvider.tls.secretName", "Required value"}},
		"ClusterTLSTrustedCANotPEM":   {"Cluster", set([]any{"not a certificate"}, at("tls", "trustedCAs")...), []string{"spec.forProvider.tls.trustedCAs[0]", "should match"}},
		"ClusterDrillBadFault": {"Cluster", set(map[string]any{"name": "d1", "fault": "Explode", "processGroups": []any{"storage-1"}}, at("drill")...),
			[]string{"spec.forProvider.drill.fault", "Unsupported value"}},
		"ClusterDrillTooLong": {"Cluster", set(map[string]any{"name": "d1", "fault": "CrashLoop", "processGroups": []any{"storage-1"}, "durationSeconds": int64(7200)}, at("drill")...),
			[]string{"spec.forProvider.drill.durationSeconds", "less than or equal to 3600"}},
		"ClusterDrillNoGroups": {"Cluster", set(map[string]any{"name": "d1", "fault": "CrashLoop", "processGroups": []any{}}, at("drill")...),
			[]string{"spec.forProvider.drill.processGroups"}},
		"ProcessGroupBadClass":       {"ProcessGroup", set("master", at("processClass")...), []string{"spec.forProvider.processClass", "Unsupported value"}},
		"ProcessGroupNoCluster":      {"ProcessGroup", unset(at("clusterRef")...), []string{"spec.forProvider", "one of clusterName, clusterRef or clusterSelector is required"}},
		"ProcessGroupNineProcs":      {"ProcessGroup", set(int64(9), at("processesPerPod")...), []string{"spec.forProvider.processesPerPod"}},
		"BackupZeroAgents":           {"Backup", set(int64(0), at("agentCount")...), []string{"spec.forProvider.agentCount", "at least 1"}},
		"BackupBadState":             {"Backup", set("Running!", at("backupState")...), []string{"spec.forProvider.backupState", "Unsupported value"}},
		"BackupBadAccount":           {"Backup", set("not an account", at("blobStore", "accountName")...), []string{"spec.forProvider.blobStore.accountName", "<key>@<host>[:<port>]"}},
		"BackupMissingBlobStore":     {"Backup", unset(at("blobStore")...), []string{"spec.forProvider.blobStore", "Required value"}},
		"BackupZeroSnapshotPeriod":   {"Backup", set(int64(0), at("snapshotPeriodSeconds")...), []string{"spec.forProvider.snapshotPeriodSeconds"}},
		"BackupBadURLParameter":      {"Backup", set([]any{"secure_connection"}, at("blobStore", "urlParameters")...), []string{"spec.forProvider.blobStore.urlParameters[0]"}},
		"RestoreKeyRangeBackwards":   {"Restore", set([]any{map[string]any{"start": "b", "end": "a"}}, at("keyRanges")...), []string{"spec.forProvider.keyRanges[0]", "start must sort before end"}},
		"RestoreKeyRangeEmpty":       {"Restore", set([]any{map[string]any{"start": "a", "end": "a"}}, at("keyRanges")...), []string{"spec.forProvider.keyRanges[0]", "start must sort before end"}},
		"SafetyPolicyNoValidations":  {"SafetyPolicy", unset("spec", "validations"), []string{"spec.validations", "Required value"}},
		"SafetyPolicyBadAction":      {"SafetyPolicy", set([]any{"Explode"}, "spec", "actions"), []string{"spec.actions[0]", "Unsupported value"}},
		"SafetyPolicyBadEnforcement": {"SafetyPolicy", set("Block", "spec", "enforcement"), []string{"spec.enforcement", "Unsupported value"}},
		"ProviderConfigSecretWithoutRef": {"ProviderConfig", unset("spec", "credentials", "secretRef"),
			[]string{"spec.credentials", "credentials.secretRef is required when credentials.source is Secret"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := exampleOf(t, tc.kind)
			u.SetName(strings.ToLower(name))
			tc.mutate(u)
			err := env.Client.Create(ctx, u)
			if err == nil {
				t.Fatalf("bad input accepted; want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err.Error(), w)
				}
			}
		})
	}
}

// TestVersionsOfTheImageLinesAccepted checks that admission takes a version
// of each FoundationDB line the provider's image carries tools for
// (version.FoundationDBLines) and refuses the lines beside them, which it
// could not administer.
func TestVersionsOfTheImageLinesAccepted(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	want := map[string]bool{}
	for _, line := range version.FoundationDBLines {
		want[line] = true
	}
	for _, major := range []int{6, 7, 8} {
		for minor := 0; minor <= 5; minor++ {
			line := fmt.Sprintf("%d.%d", major, minor)
			t.Run(line, func(t *testing.T) {
				u := exampleOf(t, "Cluster")
				u.SetName("version-" + strings.ReplaceAll(line, ".", "-"))
				set(line+".99", "spec", "forProvider", "version")(u)
				err := env.Client.Create(ctx, u)
				if got := err == nil; got != want[line] {
					t.Errorf("version %s.99 accepted: %t, want %t (%v)", line, got, want[line], err)
				}
				if err == nil {
					_ = env.Client.Delete(ctx, u)
				}
			})
		}
	}
}

// TestVersionsBelowTheMonitorMinimumRefused holds the CRD's version rules to
// version.MinimumPatch: on each line the first patch whose
// fdb-kubernetes-monitor runs the image's fdbserver for every
// protocol-compatible version is accepted, the patch before it is refused
// with a message naming the field and that minimum.
func TestVersionsBelowTheMonitorMinimumRefused(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	for _, line := range version.FoundationDBLines {
		minimum, ok := version.MinimumPatch[line]
		if !ok {
			t.Fatalf("line %s has no minimum patch", line)
		}
		first := fmt.Sprintf("%s.%d", line, minimum)
		for v, accepted := range map[string]bool{first: true, fmt.Sprintf("%s.%d", line, minimum-1): false} {
			t.Run(v, func(t *testing.T) {
				u := exampleOf(t, "Cluster")
				u.SetName("minimum-" + strings.ReplaceAll(v, ".", "-"))
				set(v, "spec", "forProvider", "version")(u)
				err := env.Client.Create(ctx, u)
				if err == nil {
					_ = env.Client.Delete(ctx, u)
				}
				got := struct{ Accepted, NamesMinimum bool }{err == nil, err != nil && strings.Contains(err.Error(), "version must be "+first+" or later")}
				want := struct{ Accepted, NamesMinimum bool }{accepted, !accepted}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("version %s (-want +got):\n%s\nerror: %v", v, diff, err)
				}
			})
		}
	}
}

// TestMultiRegionAccepted: the Clusters of a two-region database with a
// satellite in each region, one per data center, are accepted.
func TestMultiRegionAccepted(t *testing.T) {
	testenv.Require(t, env)
	region := func(main, satellite string, priority int64) map[string]any {
		return map[string]any{"datacenters": []any{
			map[string]any{"id": main, "priority": priority}, map[string]any{"id": satellite, "priority": priority, "satellite": true},
		}, "satelliteLogs": int64(2), "satelliteRedundancyMode": "one_satellite_double"}
	}
	for _, dataCenter := range []string{"dc1", "dc2", "dc3", "dc4"} {
		u := exampleOf(t, "Cluster")
		u.SetName("multi-region-" + dataCenter)
		all(set(dataCenter, "spec", "forProvider", "dataCenter"), set(int64(2), "spec", "forProvider", "databaseConfiguration", "usableRegions"),
			set([]any{region("dc1", "dc2", 1), region("dc3", "dc4", 0)}, "spec", "forProvider", "databaseConfiguration", "regions"),
			set([]any{map[string]any{"id": "dc9"}}, "spec", "forProvider", "locks", "denyList"))(u)
		if err := env.Client.Create(context.Background(), u); err != nil {
			t.Errorf("the Cluster of data center %s rejected: %v", dataCenter, err)
		}
	}
}

// TestImmutableFields checks the update rules: fields that must not change
// after creation are rejected with a message naming them.
func TestImmutableFields(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	fp := []string{"spec", "forProvider"}
	at := func(p ...string) []string { return append(append([]string{}, fp...), p...) }

	cases := map[string]struct {
		kind   string
		mutate func(*unstructured.Unstructured)
		want   string
	}{
		"ProcessGroupClass":       {"ProcessGroup", set("log", at("processClass")...), "processClass is immutable"},
		"ProcessGroupClusterName": {"ProcessGroup", set("other", at("clusterName")...), "clusterName is immutable once set"},
		"BackupTag":               {"Backup", set("other", at("tag")...), "tag is immutable"},
		"RestoreKeyRanges":        {"Restore", set([]any{map[string]any{"start": "a", "end": "z"}}, at("keyRanges")...), "immutable once the restore is created"},
		"RestoreBackupVersion":    {"Restore", set(int64(7), at("backupVersion")...), "immutable once the restore is created"},
		"RestoreBlobStore":        {"Restore", set("other", at("blobStore", "backupName")...), "immutable once the restore is created"},
		"ClusterDataCenter":       {"Cluster", set("dc2", at("dataCenter")...), "dataCenter is immutable once set"},
		"ClusterStorageEngineWithMigrationDisabled": {"Cluster", all(set("disabled", at("databaseConfiguration", "storageMigrationType")...),
			set("ssd-redwood-1", at("databaseConfiguration", "storageEngine")...)), "storageEngine cannot change while storageMigrationType is disabled"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := exampleOf(t, tc.kind)
			u.SetName("immutable-" + strings.ToLower(name))
			switch tc.kind {
			case "ProcessGroup":
				set("quickstart", at("clusterName")...)(u)
			case "Cluster":
				all(set("dc1", at("dataCenter")...), set("db:abc@10.0.0.1:4501", at("seedConnectionString")...))(u)
			}
			if err := env.Client.Create(ctx, u); err != nil {
				t.Fatalf("Create: %v", err)
			}
			tc.mutate(u)
			err := env.Client.Update(ctx, u)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Update: got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestPrinterColumns checks what `kubectl get` shows for each kind, read
// from the CRDs the API server serves.
func TestPrinterColumns(t *testing.T) {
	testenv.Require(t, env)
	managed := []string{"READY", "SYNCED", "EXTERNAL-NAME"}
	cases := map[string][]string{
		"clusters.foundationdb.m.crossplane.io":      append(managed, "VERSION", "AVAILABLE", "FAULT TOLERANCE", "PROCESS GROUPS", "REPLACING", "LOCK", "LAST RECOVERY", "AGE"),
		"processgroups.foundationdb.m.crossplane.io": append(managed, "CLASS", "ADDRESS", "EXCLUDED", "REPLACING", "AGE"),
		"backups.foundationdb.m.crossplane.io":       append(managed, "STATE", "RESTORABLE VERSION", "AGENTS", "AGE"),
		"restores.foundationdb.m.crossplane.io":      append(managed, "STATE", "PROGRESS", "AGE"),
		"safetypolicies.foundationdb.crossplane.io":  {"READY", "ENFORCEMENT", "ACTIONS", "AGE"},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, crd); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range crd.Spec.Versions[0].AdditionalPrinterColumns {
				got = append(got, c.Name)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("columns: -want, +got:\n%s", diff)
			}
			if cats := crd.Spec.Names.Categories; !strings.Contains(strings.Join(cats, ","), "foundationdb") {
				t.Errorf("categories %v lack foundationdb", cats)
			}
		})
	}
}

// TestTLSStaysOnceSet: a Cluster keeps its tls settings, which its pods
// need for as long as any process or coordinator speaks TLS; it goes back
// to plain text with enabled false, which admission takes.
func TestTLSStaysOnceSet(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	u := exampleOf(t, "Cluster")
	u.SetName("tls-stays")
	if err := env.Client.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Client.Delete(ctx, u) }()
	removed := u.DeepCopy()
	unset("spec", "forProvider", "tls")(removed)
	err := env.Client.Update(ctx, removed)
	if err == nil || !strings.Contains(err.Error(), "tls cannot be removed once set") {
		t.Errorf("removing tls: error %v, want one saying tls cannot be removed once set", err)
	}
	set(false, "spec", "forProvider", "tls", "enabled")(u)
	if err := env.Client.Update(ctx, u); err != nil {
		t.Errorf("tls.enabled false refused: %v", err)
	}
}
