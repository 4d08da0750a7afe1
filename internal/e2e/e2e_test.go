package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/fieldpath"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/composition"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/localrun"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// crossplaneBinary is Crossplane core's command, as hack/controlplane.sh
// --crossplane builds it.
const crossplaneBinary = "crossplane"

// Waits of the lane: generous, for a loaded two-core machine.
const (
	laneTimeout  = 25 * time.Minute
	readyTimeout = 8 * time.Minute
	goneTimeout  = 5 * time.Minute
	poll         = 2 * time.Second
)

// lane is the running lane: the local run with Crossplane, and the example
// FDBDatabase every database of the lane starts from.
type lane struct {
	r       *localrun.Run
	example *unstructured.Unstructured
}

// database is an FDBDatabase the lane composes.
type database struct {
	name, size, redundancy string
	backup                 bool
	// want is the redundancy mode the function must choose.
	want v1alpha1.RedundancyMode
}

// TestFDBDatabase composes FDBDatabases through a real Crossplane core on
// the local kwok cluster, whose kube-controller-manager collects what an
// owner's deletion leaves. The provider is installed as Crossplane's
// package manager installs a package — its kinds inactive
// ManagedResourceDefinitions until the activation policy of the examples
// names them — and runs from the start. On three zones, redundancy auto (double) and
// double; one of them is deleted, and the Cluster, its ProcessGroups, pods,
// volume claims, ConfigMap and cluster-file Secret go with it (the default
// management policies, deletion protection off); then two more zones join,
// and redundancy auto (triple, with a backup: the example as written),
// triple, and a large triple (two storage servers per pod) are composed
// while the double database scales from small to medium. Each must become Ready end to end and publish its cluster file in
// the Secret its status names; how long each took is logged, never
// asserted.
func TestFDBDatabase(t *testing.T) {
	binPath := testenv.Getenv(t, testenv.LocalRunPathEnv, "hack/controlplane.sh --all --crossplane")
	crds := testenv.Getenv(t, testenv.CrossplaneCRDsEnv, "hack/crossplane.sh")
	crossplane := localcluster.LookPath(binPath, crossplaneBinary)
	if crossplane == "" {
		testenv.Unavailable(t, fmt.Sprintf("%s=%q has no %s; build it with hack/controlplane.sh --all --crossplane", testenv.LocalRunPathEnv, binPath, crossplaneBinary))
	}
	o := localrun.DefaultOptions()
	o.Root = testenv.Root()
	o.StateDir = t.TempDir()
	o.BinPath = binPath
	o.ClusterName = "fdb-e2e"
	o.Zones = 3
	o.Quickstart = false
	o.AsPackage = true
	o.Out = testenv.LogWriter{T: t}
	ctx, cancel := context.WithTimeout(context.Background(), laneTimeout)
	defer cancel()

	start := time.Now()
	r, err := localrun.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(context.Background()); err != nil {
			t.Error(err)
		}
		if pids, err := localrun.Processes(o.StateDir); err != nil || len(pids) != 0 {
			t.Errorf("processes of the lane still run after Stop: %v %v", pids, err)
		}
	})
	if err := r.StartCrossplane(ctx, crossplane, crds); err != nil {
		t.Fatal(err)
	}
	if err := r.CreateBlobCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	l := &lane{r: r}
	l.example = l.platform(ctx, t)
	t.Logf("Crossplane serves the FDBDatabase API %s after the start", time.Since(start).Round(time.Second))

	// Every resource's progress, in the test log, until the lane ends.
	progress, stopProgress := context.WithCancel(ctx)
	var reporting sync.WaitGroup
	reporting.Go(func() {
		_ = localrun.NewProgress(r.Client, localrun.Namespace, testenv.LogWriter{T: t}).ReportUntil(progress, 5*time.Second, nil)
	})
	defer reporting.Wait()
	defer stopProgress()

	small := string(composition.SizeSmall)
	if !t.Run("ThreeZones", func(t *testing.T) {
		for _, db := range []database{
			{name: "auto3", size: small, redundancy: composition.RedundancyAuto, want: v1alpha1.RedundancyDouble},
			{name: "double", size: small, redundancy: string(v1alpha1.RedundancyDouble), want: v1alpha1.RedundancyDouble},
		} {
			t.Run(db.name, func(t *testing.T) {
				t.Parallel()
				l.compose(ctx, t, db)
			})
		}
	}) {
		t.FailNow()
	}
	// Deleted before more zones join: auto would raise it to triple.
	if !t.Run("DeleteLeavesNothing", func(t *testing.T) { l.delete(ctx, t, "auto3") }) {
		t.FailNow()
	}
	if err := localcluster.CreateNodes(ctx, r.Client, localcluster.Zones(5), o.NodesPerZone); err != nil {
		t.Fatal(err)
	}
	t.Run("FiveZones", func(t *testing.T) {
		for _, db := range []database{
			{name: "auto5", size: small, redundancy: composition.RedundancyAuto, backup: true, want: v1alpha1.RedundancyTriple},
			{name: "triple", size: small, redundancy: string(v1alpha1.RedundancyTriple), want: v1alpha1.RedundancyTriple},
			{name: "large", size: string(composition.SizeLarge), redundancy: string(v1alpha1.RedundancyTriple), want: v1alpha1.RedundancyTriple},
		} {
			t.Run(db.name, func(t *testing.T) {
				t.Parallel()
				l.compose(ctx, t, db)
			})
		}
		t.Run("ScaleUp", func(t *testing.T) {
			t.Parallel()
			l.expandableVolumes(ctx, t)
			l.scale(ctx, t, "double", composition.SizeMedium)
		})
	})
}

// activate applies the activation policy of the provider's kinds
// (examples/composition/activationpolicy.yaml, which names them one by one)
// to a provider installed as a package, whose kinds are inactive
// ManagedResourceDefinitions: first it checks that the API server serves
// none of them and that the provider, behind safe-start, still runs; then
// it waits until Crossplane made a CRD of each and the client finds them.
func (l *lane) activate(ctx context.Context, t *testing.T) {
	t.Helper()
	kinds := []client.ObjectList{&v1alpha1.ClusterList{}, &v1alpha1.ProcessGroupList{}, &v1alpha1.BackupList{}, &v1alpha1.RestoreList{}, &apiv1alpha1.SafetyPolicyList{}}
	for _, list := range kinds {
		if err := l.r.Client.List(ctx, list); !meta.IsNoMatchError(err) {
			t.Fatalf("%T before activation: %v, want no API of the kind", list, err)
		}
	}
	select {
	case err := <-l.r.ProviderExited():
		t.Fatalf("the provider exited with its kinds inactive: %v; its log %s", err, l.r.ProviderLog())
	default:
	}
	policy, err := manifest.Read([]string{filepath.Join(testenv.Root(), "examples", "composition", "activationpolicy.yaml")}, "ManagedResourceActivationPolicy")
	if err != nil {
		t.Fatal(err)
	}
	if err := manifest.Apply(ctx, l.r.Client, policy); err != nil {
		t.Fatal(err)
	}
	for _, list := range kinds {
		gvk, err := apiutil.GVKForObject(list, l.r.Client.Scheme())
		if err != nil {
			t.Fatal(err)
		}
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
		if err := manifest.WaitServed(ctx, l.r.Client, gvk, 3*time.Minute); err != nil {
			t.Fatalf("an activated kind is not served: %v; Crossplane's log %s", err, l.r.CrossplaneLog())
		}
	}
}

// platform applies what a platform team does before an application team
// asks for a database: the activation policy of the provider's kinds
// (activate), the SafetyPolicy the Composition binds, the XRD and
// the Composition; it waits until Crossplane serves the API (the XRD is
// Established: an XRD without claims is never Offered) and the client finds
// its kind, and returns the example FDBDatabase.
func (l *lane) platform(ctx context.Context, t *testing.T) *unstructured.Unstructured {
	t.Helper()
	l.activate(ctx, t)
	dir := filepath.Join(testenv.Root(), "examples")
	objs, err := manifest.Read([]string{
		filepath.Join(dir, "safetypolicy.yaml"),
		filepath.Join(dir, "composition", "xrd.yaml"),
		filepath.Join(dir, "composition", "composition.yaml"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := manifest.Apply(ctx, l.r.Client, objs); err != nil {
		t.Fatal(err)
	}
	examples, err := manifest.Read([]string{filepath.Join(dir, "composition", "fdbdatabase.yaml")}, "FDBDatabase")
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) != 1 {
		t.Fatalf("examples/composition/fdbdatabase.yaml has %d FDBDatabases, want 1", len(examples))
	}
	for _, o := range objs {
		if o.GetKind() != "CompositeResourceDefinition" {
			continue
		}
		var last string
		err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			xrd := o.DeepCopy()
			if err := l.r.Client.Get(ctx, client.ObjectKeyFromObject(xrd), xrd); err != nil {
				return false, err
			}
			last = conditions(xrd, "Established")
			return isTrue(xrd, "Established"), nil
		})
		if err == nil {
			err = manifest.WaitServed(ctx, l.r.Client, examples[0].GroupVersionKind(), time.Minute)
		}
		if err != nil {
			t.Fatalf("Crossplane does not serve the XRD %s: %v; %s; Crossplane's log %s", o.GetName(), err, last, l.r.CrossplaneLog())
		}
	}
	return examples[0]
}

// compose creates the FDBDatabase db from the example, waits until it is
// Ready end to end, logs how long that took, and checks the redundancy the
// function chose and the cluster file in the Secret the status names.
func (l *lane) compose(ctx context.Context, t *testing.T, db database) {
	xr := l.example.DeepCopy()
	xr.SetName(db.name)
	xr.SetNamespace(localrun.Namespace)
	spec := map[string]any{"size": db.size, "redundancy": db.redundancy, "backup": map[string]any{"enabled": db.backup}}
	if err := unstructured.SetNestedMap(xr.Object, spec, "spec"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := manifest.Apply(ctx, l.r.Client, []*unstructured.Unstructured{xr}); err != nil {
		t.Fatal(err)
	}
	l.waitReady(ctx, t, db.name, nil)
	xr = l.get(ctx, t, db.name)
	zones, _, _ := unstructured.NestedInt64(xr.Object, "status", "zones")
	t.Logf("FDBDatabase %s (%s, redundancy %s, backup %t) Ready over %d zones after %s",
		db.name, db.size, db.redundancy, db.backup, zones, time.Since(start).Round(time.Second))

	got, _, _ := unstructured.NestedString(xr.Object, "status", "redundancy")
	if diff := cmp.Diff(string(db.want), got); diff != "" {
		t.Errorf("status.redundancy: %s", diff)
	}
	c := &v1alpha1.Cluster{}
	if err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: db.name}, c); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(db.want), string(c.Spec.ForProvider.DatabaseConfiguration.RedundancyMode)); diff != "" {
		t.Errorf("the composed Cluster's redundancy mode: %s", diff)
	}
	secretName, _, _ := unstructured.NestedString(xr.Object, "status", "clusterFileSecret")
	s := &corev1.Secret{}
	if err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: secretName}, s); err != nil {
		t.Fatalf("cannot read the cluster file from the Secret %q the FDBDatabase's status names: %v", secretName, err)
	}
	file := strings.TrimSpace(string(s.Data[cluster.KeyClusterFile]))
	if diff := cmp.Diff(c.Status.AtProvider.ConnectionString, file); diff != "" || file == "" {
		t.Errorf("Secret %s's %s against the Cluster's connection string: %s", secretName, cluster.KeyClusterFile, diff)
	}
	t.Logf("cluster file of %s: %s", db.name, file)
}

// expandableVolumes lets the local cluster's storage class expand volumes,
// as cloud disks' classes do, so that a larger size grows the volume claims
// in place. With a class that cannot, every stateful group is replaced,
// batch by batch, each waiting out the policies' real-time thresholds
// (the platform's storage-exclusions/at-most-two halves the first batch of
// three: see the Cluster's deniedBatch), which would make the lane minutes
// longer.
func (l *lane) expandableVolumes(ctx context.Context, t *testing.T) {
	t.Helper()
	sc := &storagev1.StorageClass{}
	sc.Name = localcluster.StorageClassName
	if err := l.r.Client.Patch(ctx, sc, client.RawPatch(types.MergePatchType, []byte(`{"allowVolumeExpansion":true}`))); err != nil {
		t.Fatal(err)
	}
}

// scale patches the FDBDatabase name to size and waits until its Cluster
// has that size's process counts and is up to date with them, runs that
// many process groups and pods with volume claims of its size, and the
// FDBDatabase is Ready again.
func (l *lane) scale(ctx context.Context, t *testing.T, name string, size composition.Size) {
	sh, err := composition.ShapeOf(size)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"size": size}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := l.r.Client.Patch(ctx, l.get(ctx, t, name), client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	want := map[v1alpha1.ProcessClass]int{
		v1alpha1.ProcessClassStorage:   sh.Counts.Storage,
		v1alpha1.ProcessClassLog:       sh.Counts.Log,
		v1alpha1.ProcessClassStateless: sh.Counts.Stateless,
	}
	l.waitReady(ctx, t, name, func(ctx context.Context) (bool, string, error) {
		c := &v1alpha1.Cluster{}
		if err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: name}, c); err != nil {
			return false, "", err
		}
		upToDate := c.GetCondition(xpv2.TypeUpToDate)
		current := upToDate.Status == corev1.ConditionTrue && cmp.Equal(c.Spec.ForProvider.ProcessCounts, sh.Counts)
		groups := &v1alpha1.ProcessGroupList{}
		if err := l.r.Client.List(ctx, groups, client.InNamespace(localrun.Namespace), client.MatchingLabels{workload.LabelCluster: name}); err != nil {
			return false, "", err
		}
		pods := &corev1.PodList{}
		if err := l.r.Client.List(ctx, pods, client.InNamespace(localrun.Namespace), client.MatchingLabels{workload.LabelCluster: name}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
			return false, "", err
		}
		claims := &corev1.PersistentVolumeClaimList{}
		if err := l.r.Client.List(ctx, claims, client.InNamespace(localrun.Namespace), client.MatchingLabels{workload.LabelCluster: name}); err != nil {
			return false, "", err
		}
		got := map[v1alpha1.ProcessClass]int{}
		for _, g := range groups.Items {
			got[g.Spec.ForProvider.ProcessClass]++
		}
		small := 0
		for _, c := range claims.Items {
			if c.Spec.Resources.Requests.Storage().Cmp(sh.VolumeSize) < 0 {
				small++
			}
		}
		total := sh.Counts.Storage + sh.Counts.Log + sh.Counts.Stateless
		why := fmt.Sprintf("Cluster UpToDate=%s with process counts %+v; process groups %v, %d pods, %d of %d volume claims under %s",
			upToDate.Status, c.Spec.ForProvider.ProcessCounts, got, len(pods.Items), small, len(claims.Items), sh.VolumeSize.String())
		return current && cmp.Equal(want, got) && len(pods.Items) == total && small == 0, why, nil
	})
	t.Logf("FDBDatabase %s scaled to %s and Ready again after %s", name, size, time.Since(start).Round(time.Second))
}

// delete deletes the FDBDatabase name and waits until everything of its
// database is gone: the garbage collector deletes the Cluster Crossplane
// composed, whose deletion (Delete in its management policies, allowed as
// DeleteCluster without deletion protection) deletes its ProcessGroups,
// which delete their pods and volume claims; the collector takes the
// ConfigMap and the cluster-file Secret the Cluster owns.
func (l *lane) delete(ctx context.Context, t *testing.T, name string) {
	c := &v1alpha1.Cluster{}
	if err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: name}, c); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := l.r.Client.Delete(ctx, l.get(ctx, t, name)); err != nil {
		t.Fatal(err)
	}
	key := func(n string) client.ObjectKey { return client.ObjectKey{Namespace: localrun.Namespace, Name: n} }
	owned := client.MatchingLabels{workload.LabelCluster: name}
	checks := []struct {
		what  string
		count func(context.Context) (int, error)
	}{
		{"FDBDatabase", func(ctx context.Context) (int, error) { return l.count(ctx, key(name), l.newXR()) }},
		{"Cluster", func(ctx context.Context) (int, error) { return l.count(ctx, key(name), &v1alpha1.Cluster{}) }},
		{"ProcessGroups", func(ctx context.Context) (int, error) { return l.countList(ctx, &v1alpha1.ProcessGroupList{}, owned) }},
		{"pods", func(ctx context.Context) (int, error) { return l.countList(ctx, &corev1.PodList{}, owned) }},
		{"volume claims", func(ctx context.Context) (int, error) {
			return l.countList(ctx, &corev1.PersistentVolumeClaimList{}, owned)
		}},
		{"ConfigMap", func(ctx context.Context) (int, error) {
			return l.count(ctx, key(workload.ConfigMapName(c)), &corev1.ConfigMap{})
		}},
		{"Secret", func(ctx context.Context) (int, error) {
			return l.count(ctx, key(composition.SecretName(name)), &corev1.Secret{})
		}},
	}
	gone := map[string]time.Duration{}
	var left []string
	err := wait.PollUntilContextTimeout(ctx, poll, goneTimeout, true, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, ch := range checks {
			if _, ok := gone[ch.what]; ok {
				continue
			}
			n, err := ch.count(ctx)
			if err != nil {
				return false, err
			}
			if n == 0 {
				gone[ch.what] = time.Since(start)
				continue
			}
			left = append(left, fmt.Sprintf("%d %s", n, ch.what))
		}
		return len(left) == 0, nil
	})
	if err != nil {
		t.Fatalf("FDBDatabase %s was deleted, but after %s %s remain: %v; provider log %s, Crossplane's log %s",
			name, time.Since(start).Round(time.Second), strings.Join(left, ", "), err, l.r.ProviderLog(), l.r.CrossplaneLog())
	}
	var after []string
	for _, ch := range checks {
		after = append(after, fmt.Sprintf("%s %s", ch.what, gone[ch.what].Round(100*time.Millisecond)))
	}
	t.Logf("FDBDatabase %s deleted; gone after: %s", name, strings.Join(after, ", "))
}

// waitReady waits until the FDBDatabase name and its Cluster are Ready and,
// when more is given, more holds.
func (l *lane) waitReady(ctx context.Context, t *testing.T, name string, more func(context.Context) (bool, string, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, poll, readyTimeout, true, func(ctx context.Context) (bool, error) {
		xr := l.newXR()
		if err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: name}, xr); err != nil {
			return false, err
		}
		c := &v1alpha1.Cluster{}
		clusterReady, clusterWhy := false, "no Cluster"
		switch err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: name}, c); {
		case kerrors.IsNotFound(err):
		case err != nil:
			return false, err
		default:
			ready := c.GetCondition(xpv2.TypeReady)
			clusterReady, clusterWhy = ready.Status == corev1.ConditionTrue, fmt.Sprintf("Cluster Ready=%s %s %s", ready.Status, ready.Reason, ready.Message)
		}
		done, why := true, ""
		if more != nil {
			var err error
			if done, why, err = more(ctx); err != nil {
				return false, err
			}
		}
		last = fmt.Sprintf("FDBDatabase %s; %s; %s", conditions(xr, "Ready", "Synced"), clusterWhy, why)
		return isTrue(xr, "Ready") && clusterReady && done, nil
	})
	if err != nil {
		t.Fatalf("FDBDatabase %s is not Ready: %v; last seen: %s; provider log %s, Crossplane's log %s",
			name, err, last, l.r.ProviderLog(), l.r.CrossplaneLog())
	}
}

// get returns the FDBDatabase name.
func (l *lane) get(ctx context.Context, t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	xr := l.newXR()
	if err := l.r.Client.Get(ctx, client.ObjectKey{Namespace: localrun.Namespace, Name: name}, xr); err != nil {
		t.Fatal(err)
	}
	return xr
}

// newXR is an empty FDBDatabase, to read one into.
func (l *lane) newXR() *unstructured.Unstructured {
	xr := &unstructured.Unstructured{}
	xr.SetGroupVersionKind(l.example.GroupVersionKind())
	return xr
}

// count is 1 when the object at key exists, 0 when it does not.
func (l *lane) count(ctx context.Context, key client.ObjectKey, o client.Object) (int, error) {
	switch err := l.r.Client.Get(ctx, key, o); {
	case kerrors.IsNotFound(err):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("cannot get %s: %w", key.Name, err)
	}
	return 1, nil
}

// countList counts the objects of a list's kind in the lane's namespace
// with the labels.
func (l *lane) countList(ctx context.Context, list client.ObjectList, labels client.MatchingLabels) (int, error) {
	if err := l.r.Client.List(ctx, list, client.InNamespace(localrun.Namespace), labels); err != nil {
		return 0, fmt.Errorf("cannot list %T: %w", list, err)
	}
	return meta.LenList(list), nil
}

// condition returns the condition typ of an object read as unstructured.
func condition(u *unstructured.Unstructured, typ string) xpv2.Condition {
	var s xpv2.ConditionedStatus
	_ = fieldpath.Pave(u.Object).GetValueInto("status", &s)
	return s.GetCondition(xpv2.ConditionType(typ))
}

// isTrue reports whether the condition typ of u is True.
func isTrue(u *unstructured.Unstructured, typ string) bool {
	return condition(u, typ).Status == corev1.ConditionTrue
}

// conditions renders the conditions types of u, for a failure message.
func conditions(u *unstructured.Unstructured, types ...string) string {
	var out []string
	for _, typ := range types {
		c := condition(u, typ)
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s=%s %s %s", typ, c.Status, c.Reason, c.Message)))
	}
	return strings.Join(out, "; ")
}
