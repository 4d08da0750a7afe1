package smoke

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// root is the repository root, for examples/.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestFdbcliOutput reads what fdbcli prints for a committed write and for a
// get, found and not (fdbcli/fdbcli.actor.cpp at 7.1.67 and 7.3.63).
func TestFdbcliOutput(t *testing.T) {
	const key = "provider-foundationdb-smoke/20260102-030405"
	type want struct {
		Committed   bool
		Value       string
		Found, Read bool
	}
	cases := map[string]struct {
		out  string
		want want
	}{
		"Written": {out: "Committed (123456789)\n", want: want{Committed: true}},
		"Found": {out: "`" + key + "' is `0a1b2c3d4e5f6a7b'\nCommitted (123456790)\n",
			want: want{Committed: true, Value: "0a1b2c3d4e5f6a7b", Found: true, Read: true}},
		"NotFound":    {out: "`" + key + "': not found\n", want: want{Read: true}},
		"OtherKey":    {out: "`other' is `x'\n", want: want{}},
		"Unavailable": {out: "The database is unavailable; type `status' for more information.\n", want: want{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v, found, ok := valueOf(tc.out, key)
			got := want{Committed: committed(tc.out), Value: v, Found: found, Read: ok}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

// fdbPod is a running pod of Cluster quickstart whose main container has
// FDB_CLUSTER_FILE, or not.
func fdbPod(name string, clusterFile bool) *corev1.Pod {
	main := corev1.Container{Name: "foundationdb"}
	if clusterFile {
		main.Env = []corev1.EnvVar{{Name: "FDB_CLUSTER_FILE", Value: "/var/dynamic-conf/fdb.cluster"}}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "fdb-smoke", Labels: map[string]string{
			workload.LabelCluster: "quickstart", workload.LabelProcessGroup: strings.TrimPrefix(name, "quickstart-"),
		}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{main, {Name: workload.SidecarContainer}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// fakeFdbcli is a database that fdbcli commands in pods read and write; it
// records each command and the pod and container it ran in. lose makes a
// write commit without the key reaching the database.
type fakeFdbcli struct {
	data map[string]string
	ran  []string
	lose bool
}

func (f *fakeFdbcli) exec(_ context.Context, ns, pod, container string, command []string, _ io.Reader) (string, string, error) {
	f.ran = append(f.ran, fmt.Sprintf("%s/%s/%s: %q", ns, pod, container, command))
	if len(command) != 5 || command[0] != "fdbcli" || command[3] != "--exec" {
		return "", "unknown command", errors.New("exit status 1")
	}
	var out strings.Builder
	for _, c := range strings.Split(command[4], "; ") {
		switch w := strings.Fields(c); {
		case w[0] == "set" && len(w) == 3:
			if !f.lose {
				f.data[w[1]] = w[2]
			}
			fmt.Fprintln(&out, "Committed (1)")
		case w[0] == "get" && len(w) == 2:
			if v, ok := f.data[w[1]]; ok {
				fmt.Fprintf(&out, "`%s' is `%s'\n", w[1], v)
			} else {
				fmt.Fprintf(&out, "`%s': not found\n", w[1])
			}
		case w[0] == "clear" && len(w) == 2:
			delete(f.data, w[1])
			fmt.Fprintln(&out, "Committed (2)")
		}
	}
	return out.String(), "", nil
}

func TestKey(t *testing.T) {
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		mode   Mode
		pods   []client.Object
		lose   bool
		// want is the status, the note's start, and the pods fdbcli ran in.
		want   Status
		note   string
		ranIn  []string
		leftIn int
	}{
		"WritesInOnePodReadsInAnother": {
			reason: "On a real cluster the key is written in the first pod by name, read back and cleared in the last.",
			mode:   Real, pods: []client.Object{fdbPod("quickstart-storage-1", true), fdbPod("quickstart-log-1", true), fdbPod("quickstart-stateless-1", true)},
			want: OK, note: "wrote provider-foundationdb-smoke/", ranIn: []string{"quickstart-log-1", "quickstart-storage-1"},
		},
		"PodsWithoutClusterFileAreNotUsed": {
			reason: "A pod whose main container has no FDB_CLUSTER_FILE is not one fdbcli can find the database from.",
			mode:   Real, pods: []client.Object{fdbPod("quickstart-storage-1", false), fdbPod("quickstart-log-1", true)},
			want: OK, note: "wrote ", ranIn: []string{"quickstart-log-1", "quickstart-log-1"},
		},
		"NoPodFails": {
			reason: "Without a pod to run fdbcli in, the phase fails rather than pass.",
			mode:   Real, pods: []client.Object{fdbPod("quickstart-storage-1", false)},
			want: Failed, note: "no running pod of Cluster quickstart",
		},
		"LostWriteFails": {
			reason: "A key that does not read back as written fails the phase.",
			mode:   Real, pods: []client.Object{fdbPod("quickstart-storage-1", true), fdbPod("quickstart-log-1", true)}, lose: true,
			want: Failed, note: "fdbcli in pod quickstart-storage-1 does not find provider-foundationdb-smoke/", ranIn: []string{"quickstart-log-1", "quickstart-storage-1"},
		},
		"SkippedOnKwok": {
			reason: "On the local cluster the phase finds its pods, says what it would run, and is skipped, never passed.",
			mode:   Local, pods: []client.Object{fdbPod("quickstart-storage-1", true), fdbPod("quickstart-log-1", true)},
			want: Skipped, note: `kwok pods run no containers: would run ["fdbcli" "--timeout" "30" "--exec" "writemode on; set provider-foundationdb-smoke/`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			db := &fakeFdbcli{data: map[string]string{}, lose: tc.lose}
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(tc.pods...).Build()
			r := newRunner(c, Options{Mode: tc.mode, Namespace: "fdb-smoke", ClusterName: "quickstart", Timeouts: DefaultTimeouts(), Exec: db.exec, Out: io.Discard})
			r.seen.start()
			note, err := r.key(context.Background())
			status := OK
			var skip *skipped
			switch {
			case asSkipped(err, &skip):
				status, note = Skipped, skip.Error()
			case err != nil:
				status, note = Failed, err.Error()
			}
			if status != tc.want || !strings.HasPrefix(note, tc.note) {
				t.Errorf("%s\nkey(): %s %q, want %s %q…", tc.reason, status, note, tc.want, tc.note)
			}
			var ranIn []string
			for _, r := range db.ran {
				ranIn = append(ranIn, strings.Split(r, "/")[1])
				if !strings.Contains(r, "/foundationdb: ") {
					t.Errorf("fdbcli ran outside the main container: %s", r)
				}
			}
			if diff := cmp.Diff(tc.ranIn, ranIn); diff != "" {
				t.Errorf("%s\npods fdbcli ran in, -want +got:\n%s", tc.reason, diff)
			}
			if len(db.data) != 0 {
				t.Errorf("%s\nthe key is left in the database: %v", tc.reason, db.data)
			}
		})
	}
}

func TestQuickstart(t *testing.T) {
	o := Options{Root: root(), Namespace: "fdb-smoke", ClusterName: "smoke", Version: "7.3.63", ImageRepository: "registry.example/fdb-kubernetes-monitor",
		FaultDomainKey: "kubernetes.io/hostname", StorageClass: "fast"}
	cr, err := Quickstart(o)
	if err != nil {
		t.Fatal(err)
	}
	p := cr.Spec.ForProvider
	got := map[string]any{
		"name": cr.Namespace + "/" + cr.Name, "version": p.Version, "image": p.Image.Repository, "faultDomain": p.FaultDomain.Key,
		"storage": p.ProcessCounts.Storage, "secret": cr.GetWriteConnectionSecretToReference().Name,
		"params": string(p.Safety.Params.Raw), "uptime": p.Automation.MinimumUptimeSecondsForBounce,
	}
	for class, s := range p.Processes {
		got["storageClass/"+class] = ptr.Deref(s.StorageClassName, "")
	}
	want := map[string]any{
		"name": "fdb-smoke/smoke", "version": "7.3.63", "image": "registry.example/fdb-kubernetes-monitor", "faultDomain": "kubernetes.io/hostname",
		"storage": 5, "secret": "smoke-fdb", "params": `{"minSecondsSinceRecoveryForExclude":0,"minSecondsSinceRecoveryForInclude":0}`, "uptime": 1,
		"storageClass/general": "fast", "storageClass/storage": "fast",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Quickstart(), -want +got:\n%s", diff)
	}
}

// TestProviderDeploymentPassesTheRestrictedPodSecurityStandard evaluates
// the provider's pod with the Pod Security Admission library at
// "restricted", and checks it runs the real backend as the ServiceAccount.
func TestProviderDeploymentPassesTheRestrictedPodSecurityStandard(t *testing.T) {
	d, err := ProviderDeployment("system:serviceaccount:crossplane-system:provider-foundationdb", "registry.example/provider-foundationdb:v1")
	if err != nil {
		t.Fatal(err)
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template
	if r := policy.AggregateCheckResults(evaluator.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, &pod.ObjectMeta, &pod.Spec)); !r.Allowed {
		t.Errorf("refused at restricted: %s: %s", r.ForbiddenReason(), r.ForbiddenDetail())
	}
	got := []string{d.Namespace, pod.Spec.ServiceAccountName, pod.Spec.Containers[0].Image, strings.Join(pod.Spec.Containers[0].Args, " ")}
	want := []string{"crossplane-system", "provider-foundationdb", "registry.example/provider-foundationdb:v1", "--fdb-backend=real"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	if _, err := ProviderDeployment("alice", "x"); err == nil {
		t.Error("ProviderDeployment of a user that is no ServiceAccount: want an error")
	}
}

func TestReportWrite(t *testing.T) {
	r := Report{
		{Phase: "install the provider", Status: OK, Note: "Deployment", Took: 1234 * time.Millisecond},
		{Phase: "write and read a key with fdbcli", Status: Skipped, Note: "kwok pods run no containers", Counts: Counts{Pods: 11, Processes: 11}},
		{Phase: "scale storage down by one", Status: Failed, Note: "not done within 1s", Took: time.Second, Counts: Counts{Pods: 11, Processes: 11, Events: 3, Decisions: 2}},
		{Phase: "delete the Cluster", Status: NotRun},
	}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `phase                             result   time  pods  processes  events  decisions
install the provider              ok       1.2s  0     0          0       0
write and read a key with fdbcli  skipped  0s    11    11         0       0
scale storage down by one         FAILED   1s    11    11         3       2
delete the Cluster                not run  -     -     -          -       -
install the provider: Deployment
write and read a key with fdbcli: kwok pods run no containers
scale storage down by one: not done within 1s
`
	if diff := cmp.Diff(want, trimLines(b.String())); diff != "" {
		t.Errorf("Write(), -want +got:\n%s", diff)
	}
	if f := r.Failed(); f == nil || f.Phase != "scale storage down by one" {
		t.Errorf("Failed() = %+v, want the scale-down", f)
	}
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// TestRunStopsAtTheFirstFailedPhase: a phase that fails ends the run; the
// error names it, and the phases after it are reported as not run.
func TestRunStopsAtTheFirstFailedPhase(t *testing.T) {
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).Build()
	r := newRunner(c, Options{Install: InstallDeployment, Namespace: "fdb-smoke", ClusterName: "quickstart", Version: "7.3.63", UpgradeTo: "7.3.69",
		Timeouts: DefaultTimeouts(), Poll: time.Millisecond, Out: io.Discard})
	report, err := r.run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `phase "install the provider" failed`) {
		t.Errorf("run() error %v, want the install phase's failure", err)
	}
	var got []Status
	for _, res := range report {
		got = append(got, res.Status)
	}
	want := []Status{Failed, NotRun, NotRun, NotRun, NotRun, NotRun, NotRun}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses, -want +got:\n%s", diff)
	}
}
