package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	changelogsv1alpha1 "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/manifest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/version"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// changeLogSidecar is a change-logs sidecar that passes on the entries it
// receives.
type changeLogSidecar struct {
	changelogsv1alpha1.UnimplementedChangeLogServiceServer
	entries chan *changelogsv1alpha1.ChangeLogEntry
}

func (s *changeLogSidecar) SendChangeLog(_ context.Context, r *changelogsv1alpha1.SendChangeLogRequest) (*changelogsv1alpha1.SendChangeLogResponse, error) {
	s.entries <- r.GetEntry()
	return &changelogsv1alpha1.SendChangeLogResponse{}, nil
}

// entry is what TestNewChangeLogs checks of a change log entry.
type entry struct {
	Provider, Kind, Name string
	Operation            changelogsv1alpha1.OperationType
}

func TestNewChangeLogs(t *testing.T) {
	cases := map[string]struct {
		reason  string
		enabled bool
		want    *entry
	}{
		"Disabled": {
			reason: "Without --enable-changelogs there is no change logger.",
		},
		"Enabled": {
			reason:  "With --enable-changelogs entries reach the sidecar on --changelogs-socket-path, with the provider's version.",
			enabled: true,
			want:    &entry{Provider: version.Version, Kind: "Cluster", Name: "db", Operation: changelogsv1alpha1.OperationType_OPERATION_TYPE_CREATE},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			socket := filepath.Join(t.TempDir(), "changelogs.sock")
			l, err := net.Listen("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			sidecar := &changeLogSidecar{entries: make(chan *changelogsv1alpha1.ChangeLogEntry, 1)}
			srv := grpc.NewServer()
			changelogsv1alpha1.RegisterChangeLogServiceServer(srv, sidecar)
			go func() { _ = srv.Serve(l) }()
			t.Cleanup(srv.Stop)

			args := []string{"--changelogs-socket-path=" + socket}
			if tc.enabled {
				args = append(args, "--enable-changelogs")
			}
			f, err := parseFlags(args)
			if err != nil {
				t.Fatal(err)
			}
			clo, conn, err := newChangeLogs(f)
			if err != nil {
				t.Fatal(err)
			}
			var got *entry
			if clo != nil {
				t.Cleanup(func() { _ = conn.Close() })
				cr := &v1alpha1.Cluster{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.ClusterKind},
					ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}}
				if err := clo.ChangeLogger.Log(context.Background(), cr, changelogsv1alpha1.OperationType_OPERATION_TYPE_CREATE, nil, nil); err != nil {
					t.Fatal(err)
				}
				e := <-sidecar.entries
				got = &entry{Provider: e.GetProvider(), Kind: e.GetKind(), Name: e.GetName(), Operation: e.GetOperation()}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nnewChangeLogs(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestMetricsShowManagedResourceState runs the provider's manager as main
// builds it, with the simulator, on a real API server, applies the example
// Cluster and scrapes /metrics until the state metrics of every managed
// kind are there: the kinds' recorders started with their controllers,
// once the CRD gate saw the kinds' CRDs.
func TestMetricsShowManagedResourceState(t *testing.T) {
	testenv.Require(t, env)
	addr := loopbackAddress(t)
	f, err := parseFlags([]string{"--fdb-backend=sim", "--leader-election=false", "--metrics-bind-address=" + addr,
		"--health-probe-bind-address=0", "--poll-state-metric=100ms"})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := newManager(env.Provider, f, logging.NewNopLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	})

	objs, err := manifest.Read([]string{filepath.Join(testenv.Root(), "examples", "cluster.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if err := manifest.Apply(ctx, env.Client, objs); err != nil {
		t.Fatal(err)
	}

	want := []string{
		`crossplane_managed_resource_exists{gvk="foundationdb.m.crossplane.io/v1alpha1, Kind=Backup"} 0`,
		`crossplane_managed_resource_exists{gvk="foundationdb.m.crossplane.io/v1alpha1, Kind=Cluster"} 1`,
		`crossplane_managed_resource_exists{gvk="foundationdb.m.crossplane.io/v1alpha1, Kind=ProcessGroup"} 0`,
		`crossplane_managed_resource_exists{gvk="foundationdb.m.crossplane.io/v1alpha1, Kind=Restore"} 0`,
	}
	var got []string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		got = scrape(t, "http://"+addr+"/metrics", "crossplane_managed_resource_exists{")
		return cmp.Equal(want, got), nil
	})
	if err != nil {
		t.Errorf("/metrics: -want, +got:\n%s", cmp.Diff(want, got))
	}
	// The simulator's calls cost what the tools would (--sim-tool-cost's
	// default), counted on the same registry.
	for _, name := range []string{"fdb_tool_cpu_seconds_total ", "fdb_cluster_controller_status_cpu_seconds_total "} {
		if got := scrape(t, "http://"+addr+"/metrics", name); len(got) != 1 {
			t.Errorf("/metrics: %q lines %q, want one", name, got)
		}
	}
}

// loopbackAddress returns a loopback address with a port that was free a
// moment ago.
func loopbackAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// scrape returns the lines of the metrics at url that start with prefix;
// none while the endpoint does not answer.
func scrape(t *testing.T, url, prefix string) []string {
	t.Helper()
	resp, err := http.Get(url) //nolint:gosec // the test's own endpoint
	if err != nil {
		return nil
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, prefix) {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
	}
	return lines
}

// TestEventBudget: the provider's event broadcaster delivers more events of
// one object than client-go's default budget (25 at once) would, each a
// step's record.
func TestEventBudget(t *testing.T) {
	testenv.Require(t, env)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "event-budget"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	b := newEventBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	t.Cleanup(b.Shutdown)
	rec := b.NewRecorder(env.Scheme, corev1.EventSource{Component: "provider-foundationdb"})
	const steps = 60
	for i := range steps {
		rec.Eventf(cm, corev1.EventTypeNormal, fmt.Sprintf("Step%d", i), "step %d", i)
	}
	var got int
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=event-budget"})
		if err != nil {
			return false, err
		}
		got = len(list.Items)
		return got == steps, nil
	})
	if err != nil {
		t.Errorf("%d of %d events of one object reached the API server: %v", got, steps, err)
	}
}
