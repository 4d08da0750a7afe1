package connector

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/testenv"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// kubeletSync is the longest the kubelet takes to deliver a changed
// ConfigMap to a pod's volume in the model: one sync period and the
// cache's jitter.
const kubeletSync = 70 * time.Second

// monitorWorld is one Cluster whose ConfigMap names one coordinator,
// 10.0.0.1:4501, in a namespace of its own where the monitor's account may
// read and patch its pods, and a simulator backend whose clock the test
// steps.
type monitorWorld struct {
	t       *testing.T
	cr      *fdbv1alpha1.Cluster
	cm      *corev1.ConfigMap
	backend SimFDB
	clock   *clocktesting.FakeClock
}

// newMonitorWorld creates the namespace ns with the ConfigMap of a Cluster
// of version and the monitor's access.
func newMonitorWorld(t *testing.T, ns, version string) *monitorWorld {
	t.Helper()
	testenv.Require(t, env)
	cr := &fdbv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Spec: fdbv1alpha1.ClusterSpec{ForProvider: fdbv1alpha1.ClusterParameters{Version: version}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: workload.ConfigMapName(cr)}, Data: configMapOf(cr)}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, cm} {
		if err := env.Client.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	grantMonitor(t, env.Client, ns)
	return &monitorWorld{t: t, cr: cr, cm: cm, backend: NewSimFDB(sim.NewRegistry(clk, sim.Options{Seed: 1})), clock: clk}
}

// withTag is image with its tag replaced by version.
func withTag(image, version string) string {
	return strings.TrimSuffix(image, workload.ImageTagVersion(image)) + version
}

// runPod creates storage group id's pod running on ip, its main container
// on the image of version image, its sidecar ready on the image of version
// staged, as a kubelet reports them.
func (w *monitorWorld) runPod(id, ip, image, staged string) *corev1.Pod {
	w.t.Helper()
	p := workload.Pod(w.cr, storageGroup(""), id)
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if c.Name == workload.SidecarContainer {
			c.Image = withTag(c.Image, staged)
		} else {
			c.Image = withTag(c.Image, image)
		}
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		})
	}
	createRunning(w.t, env.Client, p)
	return p
}

// stage makes pod p's sidecar report it staged version, as the kubelet
// reports a sidecar restarted on a new image once its probe passes.
func (w *monitorWorld) stage(p *corev1.Pod, version string) {
	w.t.Helper()
	w.update(p, func(p *corev1.Pod) {
		for i := range p.Spec.Containers {
			if c := &p.Spec.Containers[i]; c.Name == workload.SidecarContainer {
				c.Image = withTag(c.Image, version)
			}
		}
	})
	w.updateStatus(p, func(p *corev1.Pod) {
		for i := range p.Status.ContainerStatuses {
			if s := &p.Status.ContainerStatuses[i]; s.Name == workload.SidecarContainer {
				s.Image, s.RestartCount = withTag(s.Image, version), s.RestartCount+1
			}
		}
	})
}

// update changes pod p as the API server holds it.
func (w *monitorWorld) update(p *corev1.Pod, edit func(*corev1.Pod)) {
	w.t.Helper()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(p), p); err != nil {
		w.t.Fatal(err)
	}
	edit(p)
	if err := env.Client.Update(context.Background(), p); err != nil {
		w.t.Fatal(err)
	}
}

// updateStatus changes pod p's status as the API server holds it.
func (w *monitorWorld) updateStatus(p *corev1.Pod, edit func(*corev1.Pod)) {
	w.t.Helper()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(p), p); err != nil {
		w.t.Fatal(err)
	}
	edit(p)
	if err := env.Client.Status().Update(context.Background(), p); err != nil {
		w.t.Fatal(err)
	}
}

// configure writes the ConfigMap of the Cluster as edit leaves it.
func (w *monitorWorld) configure(edit func(*fdbv1alpha1.Cluster)) {
	w.t.Helper()
	c := w.cr.DeepCopy()
	edit(c)
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(w.cm), w.cm); err != nil {
		w.t.Fatal(err)
	}
	w.cm.Data = configMapOf(c)
	if err := env.Client.Update(context.Background(), w.cm); err != nil {
		w.t.Fatal(err)
	}
}

// look is one SimFDB.Client call: the simulator learns the pods as they
// are now.
func (w *monitorWorld) look() fdb.Client {
	w.t.Helper()
	db, err := w.backend.Client(context.Background(), Target{Client: env.Client, Live: env.Client}, w.cr, w.cm, nil, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return db
}

// process is what the status reports of group id's only process; false
// when it reports none.
func (w *monitorWorld) process(id string) (fdb.Process, bool) {
	w.t.Helper()
	st, err := w.look().Status(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	for _, p := range st.Cluster.Processes {
		if p.Locality.InstanceID == id {
			return p, true
		}
	}
	return fdb.Process{}, false
}

// restart kills group id's process, which restarts at once on what its
// monitor now runs, and reports it.
func (w *monitorWorld) restart(id string) (fdb.Process, bool) {
	w.t.Helper()
	p, ok := w.process(id)
	if !ok {
		w.t.Fatalf("%s runs no process to restart", id)
	}
	if err := w.look().Kill(context.Background(), []fdb.ProcessAddress{fdb.ProcessAddress(p.Address)}); err != nil {
		w.t.Fatal(err)
	}
	return w.process(id)
}

// runs is a process's version and binary (the first word of its
// command line); "not running" when there is none.
func runs(p fdb.Process, ok bool) string {
	if !ok {
		return "not running"
	}
	binary, _, _ := strings.Cut(p.CommandLine, " ")
	return p.Version + " " + binary
}

const (
	imageBinary = "/usr/bin/fdbserver"
	sharedBin   = "/var/fdb/shared-binaries/bin/"
)

// TestPatchConfiguredBeforeImageRunsTheImagesBinary checks the patch
// upgrade trap of the real monitor (readConfiguration at 7.3.63): a
// configuration of a version protocol-compatible with the monitor's image
// runs the image's /usr/bin/fdbserver, of the image's version, even when
// the sidecar staged the configured patch.
func TestPatchConfiguredBeforeImageRunsTheImagesBinary(t *testing.T) {
	w := newMonitorWorld(t, "monitor-patch-trap", "7.3.69")
	w.runPod("storage-1", "10.0.0.1", "7.3.63", "7.3.69")
	if diff := cmp.Diff("7.3.63 "+imageBinary, runs(w.process("storage-1"))); diff != "" {
		t.Errorf("configured 7.3.69 on a 7.3.63 image: -want, +got:\n%s", diff)
	}
}

// TestOlderMonitorRunsImageBinaryOnlyOnExactVersion checks the binary rule
// of monitors before 7.1.62 (readConfiguration at 7.1.61: the image's
// binary only for the image's own version, else the staged one, which must
// be there) against the later one (protocol compatibility, 7.1.62).
func TestOlderMonitorRunsImageBinaryOnlyOnExactVersion(t *testing.T) {
	w := newMonitorWorld(t, "monitor-older-rule", "7.1.67")
	w.runPod("storage-1", "10.0.0.1", "7.1.62", "7.1.62")
	w.runPod("storage-2", "10.0.0.2", "7.1.61", "7.1.67")
	w.runPod("storage-3", "10.0.0.3", "7.1.61", "7.1.61")
	cases := map[string]string{
		"storage-1": "7.1.62 " + imageBinary,                    // later rule: the image's patch
		"storage-2": "7.1.67 " + sharedBin + "7.1.67/fdbserver", // older rule: the staged binary
		"storage-3": "not running",                              // older rule, nothing staged: refused
	}
	for id, want := range cases {
		if diff := cmp.Diff(want, runs(w.process(id))); diff != "" {
			t.Errorf("%s: -want, +got:\n%s", id, diff)
		}
	}
}

// minorUpgradeDelivered is a 7.1.67 pod whose ConfigMap names 7.3.63 before
// its sidecar staged it, looked at once the kubelet wrote the change into
// its file (a kubelet sync after the change): what the provider did before
// issue 40.
func minorUpgradeDelivered(t *testing.T, ns string) (*monitorWorld, *corev1.Pod) {
	w := newMonitorWorld(t, ns, "7.1.67")
	p := w.runPod("storage-1", "10.0.0.1", "7.1.67", "7.1.67")
	if diff := cmp.Diff("7.1.67 "+imageBinary, runs(w.process("storage-1"))); diff != "" {
		t.Fatalf("before the upgrade: -want, +got:\n%s", diff)
	}
	w.configure(func(c *fdbv1alpha1.Cluster) { c.Spec.ForProvider.Version = "7.3.63" })
	w.look()
	w.clock.Step(kubeletSync)
	w.look() // the kubelet writes the file; the monitor refuses it
	return w, p
}

// TestConfigurationWithUnstagedBinaryIsRefusedAndKept checks that a
// monitor refuses a configuration whose binary is not staged and keeps the
// one it runs (readConfiguration, checkOwnerExecutable at 7.3.63): a
// restart runs the old version; and that staging the binary later makes it
// look again at nothing (no file event, no annotation).
func TestConfigurationWithUnstagedBinaryIsRefusedAndKept(t *testing.T) {
	w, p := minorUpgradeDelivered(t, "monitor-refused")
	if diff := cmp.Diff("7.1.67 "+imageBinary, runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted with 7.3.63 configured and not staged: -want, +got:\n%s", diff)
	}
	w.stage(p, "7.3.63")
	w.clock.Step(kubeletSync)
	if diff := cmp.Diff("7.1.67 "+imageBinary, runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted once 7.3.63 is staged, without a reload: -want, +got:\n%s", diff)
	}
}

// TestRefusedConfigurationReloadsOnTheAnnotation checks that a monitor
// reads its file again on an update of its pod whose
// outdated-config-map-seen annotation is later (in Unix seconds, strictly)
// than its last accepted load (watchPodTimestamps, OnUpdate at 7.3.63),
// and so accepts the configuration it refused once its binary is staged.
func TestRefusedConfigurationReloadsOnTheAnnotation(t *testing.T) {
	w, p := minorUpgradeDelivered(t, "monitor-reload")
	w.stage(p, "7.3.63")
	started := w.clock.Now().Add(-kubeletSync) // the monitor's only accepted load
	w.update(p, func(p *corev1.Pod) {
		metav1.SetMetaDataAnnotation(&p.ObjectMeta, workload.AnnotationOutdatedConfigMap, workload.ReloadAnnotation(started))
	})
	if diff := cmp.Diff("7.1.67 "+imageBinary, runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted after an annotation no later than the last load: -want, +got:\n%s", diff)
	}
	w.update(p, func(p *corev1.Pod) {
		metav1.SetMetaDataAnnotation(&p.ObjectMeta, workload.AnnotationOutdatedConfigMap, workload.ReloadAnnotation(w.clock.Now()))
	})
	if diff := cmp.Diff("7.3.63 "+sharedBin+"7.3.63/fdbserver", runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted after the reload annotation: -want, +got:\n%s", diff)
	}
}

// TestConfigMapChangeArrivesAfterTheKubeletDelay checks that a changed
// ConfigMap reaches a running pod's file only after the kubelet's delay
// (at most a sync period and the cache's jitter): a restart before it runs
// the old configuration, one after it the new.
func TestConfigMapChangeArrivesAfterTheKubeletDelay(t *testing.T) {
	w := newMonitorWorld(t, "monitor-kubelet-delay", "7.3.63")
	w.runPod("storage-1", "10.0.0.1", "7.3.63", "7.3.63")
	w.process("storage-1")
	w.configure(func(c *fdbv1alpha1.Cluster) {
		c.Spec.ForProvider.Processes = map[string]fdbv1alpha1.ProcessSettings{"general": {CustomParameters: []string{"knob_delivered=1"}}}
	})
	knob := func() bool {
		p, ok := w.restart("storage-1")
		return ok && strings.Contains(p.CommandLine, "--knob_delivered=1")
	}
	if knob() {
		t.Errorf("the change ran at once; want it only once the kubelet delivers it")
	}
	w.clock.Step(kubeletSync)
	if !knob() {
		t.Errorf("the change did not run one kubelet sync later")
	}
}

// TestMonitorAnnotatesTheConfigurationItLoaded checks that a monitor
// writes the bytes of each configuration it accepts to its pod's
// launcher-current-configuration annotation (loadConfiguration,
// updateAnnotations at 7.3.63), and leaves it when it refuses one.
func TestMonitorAnnotatesTheConfigurationItLoaded(t *testing.T) {
	w, p := minorUpgradeDelivered(t, "monitor-annotates")
	old := configMapOf(w.cr)["fdbmonitor-conf-storage-density-1"]
	w.look()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old, p.Annotations[workload.AnnotationCurrentConfiguration]); diff != "" {
		t.Errorf("annotation after the 7.3.63 configuration was refused: -want, +got:\n%s", diff)
	}
	w.stage(p, "7.3.63")
	w.update(p, func(p *corev1.Pod) {
		metav1.SetMetaDataAnnotation(&p.ObjectMeta, workload.AnnotationOutdatedConfigMap, workload.ReloadAnnotation(w.clock.Now()))
	})
	w.look()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w.cm.Data["fdbmonitor-conf-storage-density-1"], p.Annotations[workload.AnnotationCurrentConfiguration]); diff != "" {
		t.Errorf("annotation after the 7.3.63 configuration was accepted: -want, +got:\n%s", diff)
	}
}

// TestMainContainerRestartIsANewMonitor checks that a restart of the main
// container (its restart count moves) starts a new monitor, which loads
// the file as it is (monitor.run at 7.3.63: loadConfiguration first), so
// a configuration the old monitor refused runs once its binary is staged;
// and that the monitor's release is the image its container status
// reports.
func TestMainContainerRestartIsANewMonitor(t *testing.T) {
	w, p := minorUpgradeDelivered(t, "monitor-restart")
	w.stage(p, "7.3.63")
	if diff := cmp.Diff("7.1.67 "+imageBinary, runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted before the main container restarts: -want, +got:\n%s", diff)
	}
	w.updateStatus(p, func(p *corev1.Pod) {
		for i := range p.Status.ContainerStatuses {
			if s := &p.Status.ContainerStatuses[i]; s.Name != workload.SidecarContainer {
				s.RestartCount++
			}
		}
	})
	if diff := cmp.Diff("7.3.63 "+sharedBin+"7.3.63/fdbserver", runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted after the main container restarted: -want, +got:\n%s", diff)
	}
	w.updateStatus(p, func(p *corev1.Pod) {
		for i := range p.Status.ContainerStatuses {
			if s := &p.Status.ContainerStatuses[i]; s.Name != workload.SidecarContainer {
				s.Image, s.RestartCount = withTag(s.Image, "7.3.63"), s.RestartCount+1
			}
		}
	})
	if diff := cmp.Diff("7.3.63 "+imageBinary, runs(w.restart("storage-1"))); diff != "" {
		t.Errorf("restarted after the main container restarted on the 7.3.63 image: -want, +got:\n%s", diff)
	}
}
