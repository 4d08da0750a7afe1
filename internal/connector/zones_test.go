package connector

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/plan"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// TestSimZonesFromPodEnvironment runs the pods of three log and three
// storage groups, one of each in zones a, b and c, as the provider renders
// them, with their zone variable as given, and creates a double-replicated
// database on them. The processes' zones are what their monitor's
// configuration says with the pod's environment, not what the nodes'
// labels say (every node here is labelled with its zone): with the zone
// variable empty every process is in the empty zone, so no log team spans
// two zones and no coordinators can be chosen in distinct zones; without
// it the monitor refuses its configuration and nothing runs.
func TestSimZonesFromPodEnvironment(t *testing.T) {
	type result struct {
		Zones           map[string]string
		Available       bool
		CoordinatorsErr string
	}
	cr := &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "db"}, Spec: fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: "7.3.63"}}}
	zones := []string{"zone-a", "zone-b", "zone-c"}
	setZone := func(env []corev1.EnvVar, value string, keep bool) []corev1.EnvVar {
		out := slices.DeleteFunc(slices.Clone(env), func(e corev1.EnvVar) bool { return e.Name == workload.EnvZoneID })
		if keep {
			out = append(out, corev1.EnvVar{Name: workload.EnvZoneID, Value: value})
		}
		return out
	}
	cases := map[string]struct {
		env  func([]corev1.EnvVar) []corev1.EnvVar
		want result
	}{
		"ZoneVariableSet": {
			want: result{Zones: map[string]string{
				"log-1": "zone-a", "log-2": "zone-b", "log-3": "zone-c", "storage-1": "zone-a", "storage-2": "zone-b", "storage-3": "zone-c",
			}, Available: true},
		},
		"ZoneVariableEmpty": {
			env: func(env []corev1.EnvVar) []corev1.EnvVar { return setZone(env, "", true) },
			want: result{
				Zones:           map[string]string{"log-1": "", "log-2": "", "log-3": "", "storage-1": "", "storage-2": "", "storage-3": ""},
				CoordinatorsErr: "cannot choose coordinators: 3 needed in distinct zones, 0 eligible zones",
			},
		},
		"ZoneVariableMissing": {
			env: func(env []corev1.EnvVar) []corev1.EnvVar { return setZone(env, "", false) },
			want: result{
				Zones:           map[string]string{},
				CoordinatorsErr: "cannot choose coordinators: 3 needed in distinct zones, 0 eligible zones",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var pods []corev1.Pod
			var nodes []corev1.Node
			var coordinators []fdb.ProcessAddress
			for i, zone := range zones {
				node := corev1.Node{
					ObjectMeta: metav1.ObjectMeta{Name: "node-" + zone, Labels: map[string]string{workload.FaultDomainKey(cr): zone}},
					Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
				}
				nodes = append(nodes, node)
				for c, class := range []fdbv1alpha1.ProcessClass{fdbv1alpha1.ProcessClassLog, fdbv1alpha1.ProcessClassStorage} {
					pg := &fdbv1alpha1.ProcessGroup{Spec: fdbv1alpha1.ProcessGroupSpec{ForProvider: fdbv1alpha1.ProcessGroupParameters{
						ProcessClass: class, ProcessesPerPod: 1, FaultDomain: zone,
					}}}
					p := workload.Pod(cr, pg, fmt.Sprintf("%s-%d", class, i+1))
					if tc.env != nil {
						p.Spec.Containers[0].Env = tc.env(p.Spec.Containers[0].Env)
					}
					ip := fmt.Sprintf("10.0.%d.%d", c, i+1)
					p.Spec.NodeName, p.Status = node.Name, corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip}
					pods = append(pods, *p)
					if class == fdbv1alpha1.ProcessClassLog {
						coordinators = append(coordinators, fdb.ProcessAddress(ip+":4501"))
					}
				}
			}

			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			db := sim.New(clk, sim.Options{Seed: 1})
			if err := db.SetProcessGroups(processGroups(cr, pods, nil, nodes, nil, startedAll(pods, configMapOf(cr)))); err != nil {
				t.Fatal(err)
			}
			cs := fdb.ConnectionString{Description: "db", ID: "abc", Coordinators: coordinators}
			if err := db.SetConnectionString(cs.String()); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_ = db.Configure(ctx, fdb.DatabaseConfiguration{RedundancyMode: fdb.RedundancyDouble}, true) // fails where nothing runs
			clk.Step(time.Minute)
			st, err := db.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := result{Zones: map[string]string{}, Available: st.Client.DatabaseStatus.Available}
			for _, p := range st.Cluster.Processes {
				got.Zones[p.Locality.InstanceID] = p.Locality.ZoneID
			}
			if _, err := plan.ChooseCoordinators(plan.Processes(st), plan.RulesFor(fdb.RedundancyDouble, 0), nil, plan.Form{}); err != nil {
				got.CoordinatorsErr = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
