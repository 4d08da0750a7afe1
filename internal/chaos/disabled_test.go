package chaos

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
	"github.com/google/go-cmp/cmp"
)

// TestChaosCatchesDisabledRule disables one safety rule at a time the way
// a user can — a SafetyPolicy named like the default one, which always
// allows, replaces it — and shows that the harness, on the seeds of the
// default budget, catches what the rule prevents (each case stops at the
// first seed that does).
func TestChaosCatchesDisabledRule(t *testing.T) {
	testenv.Require(t, env)
	cases := map[string]struct {
		action   v1alpha1.ActionType
		workload Workload
		// caught are the checks whose violation shows the rule missing.
		caught []string
	}{
		// A group removed before its data was re-replicated.
		"fdb-unreachable-removal": {v1alpha1.ActionRemoveUnreachableProcessGroup, workloadNamed(t, "node-loss"), []string{"volume-deleted", "sim/RemovedHeldData", "sim/DataLoss"}},
		// A restore started over a database's data.
		// Two instances acting at once, the global lock disabled: the
		// Clusters ask for it (and acknowledge it) and the policy that
		// holds it back while another instance holds the lock allows it.
		"fdb-locks":   {v1alpha1.ActionDisableLocks, regionWorkload("multi-region-unlocked", unlocked), []string{"lock-holder"}},
		"fdb-restore": {v1alpha1.ActionStartRestore, workloadNamed(t, "backup-restore"), []string{"restore-over-data"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			allow := &v1alpha1.SafetyPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: v1alpha1.SafetyPolicySpec{
					Actions:     []v1alpha1.ActionType{tc.action},
					Validations: []v1alpha1.Validation{{Name: "always", Expression: "true"}},
				},
			}
			if err := env.Client.Create(ctx, allow); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), allow) })
			caught := func(vs []Violation) bool {
				return slices.ContainsFunc(vs, func(v Violation) bool { return slices.Contains(tc.caught, v.Check) })
			}
			var reports []*Report
			for seed := uint64(1); seed <= uint64(DefaultSeeds); seed++ {
				rep, err := Run(ctx, env, seed, tc.workload, DefaultSteps, fmt.Sprintf("disabled-%d-%d", seed, runs.Add(1)))
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if os.Getenv(TraceEnv) != "" {
					for _, l := range rep.Lines {
						fmt.Println(l)
					}
				}
				reports = append(reports, rep)
				if caught(rep.Violations) {
					break
				}
			}
			s := Summarize(reports)
			var out strings.Builder
			s.Print(&out)
			t.Log("\n" + out.String())
			if !caught(s.Violations) {
				t.Errorf("with %s replaced by an always-allow policy, %d %s seeds found none of %v", name, len(reports), tc.workload.Name, tc.caught)
			}
		})
	}
}

// workloadNamed returns the workload called name.
func workloadNamed(t *testing.T, name string) Workload {
	t.Helper()
	for _, w := range Workloads {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("no workload %q", name)
	return Workload{}
}

// unlocked is the multi-region workload's Cluster of data center dc with
// its global lock disabled, acknowledged.
func unlocked(ns, dc string) *fdbv1alpha1.Cluster {
	c := regionCluster(ns, dc)
	c.Spec.ForProvider.Locks.DisableLocks = true
	c.SetAnnotations(map[string]string{policy.AnnotationAllowDisableLocks: "true"})
	return c
}

// TestChaosCatchesPlantedExclusion plants exclusions no decision allows:
// once the database is up, an exclusion reaches it outside the provider's
// gate. The checks that read the simulator's own record of admin calls
// find it (and, for one beyond the exclusion budget, that too); the
// provider's journal never saw it.
func TestChaosCatchesPlantedExclusion(t *testing.T) {
	testenv.Require(t, env)
	cases := map[string]struct {
		// groups picks the storage groups to exclude among the run's.
		groups func(ids []string) []string
		want   []string
	}{
		"OneGroup": {func(ids []string) []string { return ids[:1] }, []string{"ungated-admin-call"}},
		// Double redundancy, three storage groups wanted and reporting:
		// one may be in flight.
		"EveryGroup": {func(ids []string) []string { return ids }, []string{"exclusion-budget", "ungated-admin-call"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			planted := Op{Name: "exclude storage groups outside the gate", Do: func(ctx context.Context, r *run) error {
				db := r.used[clusterName]
				if db == nil {
					return fmt.Errorf("the provider never reached database %s", clusterName)
				}
				var targets []fdb.ProcessAddress
				for _, id := range tc.groups(storageGroups(t, r)) {
					targets = append(targets, fdb.ProcessAddress("locality_instance_id:"+id))
				}
				return db.Exclude(ctx, targets)
			}, Converged: func(*run) (bool, string) { return true, "" }}
			checks := violatedChecks(t, Workload{Name: "planted-exclude", Ops: []Op{bootstrap(false), planted}}, nil)
			if diff := cmp.Diff(tc.want, checks); diff != "" {
				t.Errorf("violations after a planted exclusion (-want +got):\n%s", diff)
			}
		})
	}
}

// storageGroups returns the storage groups of the run's Cluster, sorted.
func storageGroups(t *testing.T, r *run) []string {
	t.Helper()
	var ids []string
	for _, o := range r.hist.latest()[groupKind] {
		if pg := o.(*fdbv1alpha1.ProcessGroup); pg.Spec.ForProvider.ProcessClass == fdbv1alpha1.ProcessClassStorage {
			ids = append(ids, pg.ID())
		}
	}
	if len(ids) == 0 {
		t.Fatal(errNoStorageGroup)
	}
	slices.Sort(ids)
	return ids
}

// TestChaosCatchesPlantedPodDeletion plants a pod deletion no decision
// allows late in a storage density migration, once one of the old groups
// is being removed: the provider's identity deletes the pod of a new
// storage group outside the gate. The check that reads the API server's
// audit log finds it; the provider's journal and its client's record of
// writes (disruption-grant, volume-deleted) never see it.
func TestChaosCatchesPlantedPodDeletion(t *testing.T) {
	testenv.Require(t, env)
	planted := false
	plant := fault{"PlantedPodDeletion", func(ctx context.Context, r *run, _ map[string]*database) (string, error) {
		now := r.hist.latest()
		old, pod := 0, (*corev1.Pod)(nil)
		for _, o := range now[groupKind] {
			pg := o.(*fdbv1alpha1.ProcessGroup)
			switch {
			case pg.Spec.ForProvider.ProcessClass != fdbv1alpha1.ProcessClassStorage:
			case pg.Spec.ForProvider.ProcessesPerPod == 2:
				if p := podOf(now, clusterName, pg.ID()); pod == nil && p != nil && p.DeletionTimestamp == nil {
					pod = p
				}
			case pg.GetDeletionTimestamp() == nil:
				old++
			}
		}
		if planted || old == 3 || pod == nil {
			return "", nil
		}
		planted = true
		return "deleted pod " + pod.Name + " as the provider, outside the gate", r.asProvider.Delete(ctx, pod)
	}}
	migrate := storageDensity(2)
	migrate.Faults = []fault{plant}
	checks := violatedChecks(t, Workload{Name: "planted-pod-deletion", Ops: []Op{bootstrap(false), migrate}}, &planted)
	if diff := cmp.Diff([]string{"ungated-deletion"}, checks); diff != "" {
		t.Errorf("violations after a planted pod deletion (-want +got):\n%s", diff)
	}
}

// TestChaosCatchesPlantedDisruption plants, through the provider's own
// client, the deletion of two storage pods in two zones with no grant and
// no decision: the checks of its writes find a pod deleted outside the
// granted domain and two domains disrupted at once, and the audit log's
// check both deletions ungated.
func TestChaosCatchesPlantedDisruption(t *testing.T) {
	testenv.Require(t, env)
	planted := false
	plant := fault{"PlantedDisruption", func(ctx context.Context, r *run, _ map[string]*database) (string, error) {
		now, zones, pods := r.hist.latest(), map[string]bool{}, []*corev1.Pod(nil)
		for _, p := range r.pods() {
			if z := zoneOf(now, p); workload.HasVolume(p) && p.Labels[workload.LabelProcessClass] == string(fdbv1alpha1.ProcessClassStorage) && !zones[z] && len(pods) < 2 {
				zones[z], pods = true, append(pods, p)
			}
		}
		if planted || len(pods) < 2 {
			return "", nil
		}
		planted = true
		c := r.instances[0].prov.client
		for _, p := range pods {
			if err := c.Delete(ctx, p); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("deleted pods %s and %s as the provider, outside the gate", pods[0].Name, pods[1].Name), nil
	}}
	w := Workload{Name: "planted-disruption", Ops: []Op{bootstrap(false), {Name: "disrupt two zones outside the gate", Faults: []fault{plant},
		Do: func(context.Context, *run) error { return nil }}}}
	if diff := cmp.Diff([]string{"disruption-grant", "one-domain", "ungated-deletion"}, violatedChecks(t, w, &planted)); diff != "" {
		t.Errorf("violations after a planted disruption (-want +got):\n%s", diff)
	}
}

// TestChaosCatchesNonConvergence plants an operation that cannot
// converge: a pod template whose node selector no node matches, so the
// first zone's recreated pods stay Pending and the rollout stops there,
// as it must. Nothing unsafe happens; only the convergence check fires.
func TestChaosCatchesNonConvergence(t *testing.T) {
	testenv.Require(t, env)
	nowhere := Op{Name: "roll out onto nodes that do not exist", Do: func(ctx context.Context, r *run) error {
		return r.updateCluster(ctx, func(c *fdbv1alpha1.Cluster) {
			c.Spec.ForProvider.Processes = map[string]fdbv1alpha1.ProcessSettings{"general": {PodTemplate: &corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"chaos.foundationdb.test/nowhere": "true"}},
			}}}
		})
	}}
	checks := violatedChecks(t, Workload{Name: "planted-non-convergence", Ops: []Op{bootstrap(false), nowhere}}, nil)
	if diff := cmp.Diff([]string{"convergence"}, checks); diff != "" {
		t.Errorf("violations after a rollout that cannot converge (-want +got):\n%s", diff)
	}
}

// TestChaosCatchesPlantedForeignClusterFile plants, beside a second
// database, the run's ConfigMap written again with that database's
// cluster file: the run's Cluster then reaches a database not its own.
func TestChaosCatchesPlantedForeignClusterFile(t *testing.T) {
	testenv.Require(t, env)
	const other = "other"
	planted := false
	plant := fault{"PlantedForeignClusterFile", func(ctx context.Context, r *run, _ map[string]*database) (string, error) {
		var own, foreign *corev1.ConfigMap
		for _, o := range r.hist.latest()[cmKind] {
			switch cm := o.(*corev1.ConfigMap); cm.Labels[workload.LabelCluster] {
			case clusterName:
				own = cm
			case other:
				foreign = cm
			}
		}
		if planted || own == nil || foreign == nil || foreign.Data[workload.KeyClusterFile] == "" {
			return "", nil
		}
		planted = true
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: own.Namespace, Name: own.Name, Labels: own.Labels}, Data: maps.Clone(own.Data)}
		cm.Data[workload.KeyClusterFile] = foreign.Data[workload.KeyClusterFile]
		if err := r.kube.Delete(ctx, own); err != nil {
			return "", err
		}
		return "wrote ConfigMap " + cm.Name + " again with Cluster " + other + "'s cluster file", r.kube.Create(ctx, cm)
	}}
	both := Op{Name: "bootstrap two databases", Do: func(ctx context.Context, r *run) error {
		c := cluster(r.ns)
		c.SetName(other)
		c.Spec.ForProvider.DataCenter = other // its group IDs differ from the run's Cluster's
		if err := r.createCluster(ctx, c); err != nil {
			return err
		}
		return r.createCluster(ctx, cluster(r.ns))
	}}
	w := Workload{Name: "planted-foreign-cluster-file", Clusters: map[string]int{clusterName: 0, other: 0},
		Ops: []Op{both, {Name: "write the cluster file of another database", Faults: []fault{plant}, Do: func(context.Context, *run) error { return nil },
			// Its fault windows go on until the plant could strike: the
			// other database has its cluster file.
			Converged: func(r *run) (bool, string) {
				if !planted {
					return false, "nothing planted yet"
				}
				return clusterConverged(r)
			}}}}
	if checks := violatedChecks(t, w, &planted); !slices.Contains(checks, "database-identity") {
		t.Errorf("a Cluster given another database's cluster file: no database-identity violation among %v", checks)
	}
}

// violatedChecks runs workload w on seed 1 and returns the checks it found
// violated, sorted, once each. It fails the test when planted (if given)
// is still false after the run: nothing was planted.
func violatedChecks(t *testing.T, w Workload, planted *bool) []string {
	t.Helper()
	rep, err := Run(context.Background(), env, 1, w, DefaultSteps, fmt.Sprintf("planted-%d", runs.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	if planted != nil && !*planted {
		t.Fatalf("%s: nothing was planted", w.Name)
	}
	var checks []string
	for _, v := range rep.Violations {
		if !slices.Contains(checks, v.Check) {
			checks = append(checks, v.Check)
		}
	}
	slices.Sort(checks)
	return checks
}
