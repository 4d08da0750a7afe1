package connector

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"reflect"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const errAnnotateLoaded = "cannot annotate a pod with the monitor configuration it loaded"

// The simulated monitors annotate their pods with the configuration they
// loaded, as the real ones do with their own ServiceAccount.
// +kubebuilder:rbac:groups="",resources=pods,verbs=patch

// How long the kubelet takes to write a changed ConfigMap into the volumes
// of the pods that mount it: it looks at each pod once a sync period
// (--sync-frequency, default 1m: kubelet's command line reference) and
// reads the ConfigMap through a cache whose entries live a while longer
// ("Mounted ConfigMaps are updated automatically": the delay is the sync
// period plus the cache's propagation delay, Kubernetes documentation,
// Configure a Pod to Use a ConfigMap, and kubernetes pkg/kubelet/
// configmap/configmap_manager.go at v1.35).
const (
	kubeletSyncPeriod = time.Minute
	configMapCacheTTL = 10 * time.Second
)

// monitors stands in for the kubelet's ConfigMap volume and the
// fdb-kubernetes-monitor of each running pod of each cluster, by pod UID,
// across SimFDB.Client calls (apple/foundationdb fdbkubernetesmonitor/
// monitor.go and kubernetes.go, at 7.1.61, 7.1.67, 7.3.47 and 7.3.63):
//
//   - The pod's configuration file is the ConfigMap's key its volume
//     projects as config.json as the pod started with it; a later change
//     reaches the file a while after it is first seen (kubeletDelay).
//   - A monitor starts with the pod's main container, once its
//     ServiceAccount may do what the monitor needs (monitorMayStart): on a
//     new pod, and on each restart of the main container (its restart
//     count moves), with nothing loaded. It loads the file when it starts,
//     on every change of the file, and on an update of its pod (a new
//     resourceVersion) whose AnnotationOutdatedConfigMap is later than its
//     last configuration time, in Unix seconds (watchPodTimestamps).
//   - A load (readConfiguration, loadConfiguration) refuses a file that is
//     missing or does not decode, one whose binary (workload.MonitorBinary,
//     by the monitor's release) is neither the image's own nor staged, and
//     one whose arguments it cannot generate: the monitor keeps what it
//     runs and reads the file again only on the next file change or
//     annotation. A load it accepts becomes the active configuration
//     (acceptConfiguration; an equal one changes nothing in releases that
//     compare) and the monitor writes the file's bytes to its pod's
//     AnnotationCurrentConfiguration (updateAnnotations) when they differ.
//
// The staged binaries are a pod's emptyDir: every version its sidecar has
// been seen ready with since the pod started.
type monitors struct {
	mu sync.Mutex
	// clusters are the pods of each cluster, by cluster key.
	clusters map[string]*clusterPods
}

// clusterPods are the running pods of one cluster, by UID.
type clusterPods struct {
	mu   sync.Mutex
	pods map[types.UID]*podState
}

// podState is what lives in one running pod: its configuration file, a
// change to it the kubelet has yet to write, the binaries its sidecar
// staged, its main container's monitor, nil until it starts, and its TLS
// files.
type podState struct {
	file    configFile
	pending *delivery
	staged  map[string]bool
	monitor *monitor
	// files are the pod's TLS files and filesPending a change to them
	// the kubelet has yet to write (deliverFiles).
	files        podFiles
	filesPending *filesDelivery
}

// configFile is the content of a pod's monitor configuration file; absent
// when the pod has none.
type configFile struct {
	raw     string
	present bool
}

// delivery is a ConfigMap change the kubelet writes into the pod's file at
// a time.
type delivery struct {
	file configFile
	at   time.Time
}

// monitor is one run of a pod's fdb-kubernetes-monitor.
type monitor struct {
	// restarts is the main container's restart count it runs in.
	restarts int32
	// release is the version of its image.
	release string
	// active is the configuration it runs; nil before it accepts one.
	active *loaded
	// lastConfiguration is when it last accepted a new configuration.
	lastConfiguration time.Time
	// resourceVersion is that of its pod when it last looked.
	resourceVersion string
}

// loaded is a configuration a monitor accepted: the file's bytes, decoded,
// and the fdbserver it chose for it.
type loaded struct {
	raw    string
	config workload.MonitorConfig
	binary string
}

// monitorRun is what a started monitor runs: its release and the
// configuration it accepted (nil when none), and the TLS files its pod
// holds.
type monitorRun struct {
	release string
	active  *loaded
	files   podFiles
}

// Look brings the kubelet's files and the monitors of the cluster named key
// up to time now: pods are all of the cluster's pods and data its
// ConfigMap's data, as the API server holds them, and certs the TLS files
// their volumes would hold now, by UID (certificateFiles); seed draws the
// kubelet's delays. It annotates the pods whose monitor accepted a load through
// target, and returns what the started monitors run, by pod UID. A pod
// that does not run (running) has no monitor and forgets its state.
func (m *monitors) Look(ctx context.Context, target client.Client, key string, pods []corev1.Pod, data map[string]string, certs map[types.UID]podFiles, now time.Time, seed uint64) (map[types.UID]monitorRun, error) {
	m.mu.Lock()
	if m.clusters == nil {
		m.clusters = map[string]*clusterPods{}
	}
	cp := m.clusters[key]
	if cp == nil {
		cp = &clusterPods{}
		m.clusters[key] = cp
	}
	m.mu.Unlock()
	cp.mu.Lock()
	defer cp.mu.Unlock()
	next := map[types.UID]*podState{}
	out := map[types.UID]monitorRun{}
	for i := range pods {
		p := &pods[i]
		if !workload.PodRunning(p) {
			continue
		}
		st, ok := cp.pods[p.UID]
		if !ok {
			// The kubelet fills the volume before the containers start.
			st = &podState{file: mountedFile(p, data), staged: map[string]bool{}, files: certs[p.UID]}
		}
		st.deliverFiles(p, certs[p.UID], now, seed)
		next[p.UID] = st
		run, err := st.look(ctx, target, p, data, now, seed)
		if err != nil {
			cp.pods = next
			return nil, err
		}
		if run != nil {
			out[p.UID] = *run
		}
	}
	cp.pods = next
	return out, nil
}

// look brings pod p's state up to time now and returns what its monitor
// runs; nil when it has not started.
func (st *podState) look(ctx context.Context, target client.Client, p *corev1.Pod, data map[string]string, now time.Time, seed uint64) (*monitorRun, error) {
	if v := workload.StagedVersion(p); v != "" {
		st.staged[v] = true
	}
	changed := st.deliver(p, data, now, seed)
	restarts, release := mainContainer(p)
	if st.monitor != nil && st.monitor.restarts != restarts {
		st.monitor = nil // a new monitor, with nothing loaded
	}
	env := workload.MonitorEnvironment(p)
	loadedAny := false
	if st.monitor == nil {
		ok, err := monitorMayStart(ctx, target, p)
		if err != nil || !ok {
			return nil, err
		}
		st.monitor = &monitor{restarts: restarts, release: release, resourceVersion: p.ResourceVersion}
		loadedAny = st.monitor.load(st.file, st.staged, env, now)
	} else {
		if changed {
			loadedAny = st.monitor.load(st.file, st.staged, env, now)
		}
		if p.ResourceVersion != st.monitor.resourceVersion {
			st.monitor.resourceVersion = p.ResourceVersion
			if t, ok := workload.ReloadRequested(p); ok && t.Unix() > st.monitor.lastConfiguration.Unix() {
				loadedAny = st.monitor.load(st.file, st.staged, env, now) || loadedAny
			}
		}
	}
	if loadedAny {
		if err := annotateLoaded(ctx, target, p, st.monitor.active.raw); err != nil {
			return nil, err
		}
	}
	return &monitorRun{release: st.monitor.release, active: st.monitor.active, files: st.files}, nil
}

// deliver plays the kubelet's part in pod p's volume at time now: a
// ConfigMap content for the file other than the file's is written once its
// delay (kubeletDelay, from when the first change since the last write was
// seen) is over, with whatever the ConfigMap holds then; one that is back
// to the file's content is not written. It reports whether it wrote the
// file.
func (st *podState) deliver(p *corev1.Pod, data map[string]string, now time.Time, seed uint64) bool {
	current := mountedFile(p, data)
	switch {
	case current == st.file:
		st.pending = nil
		return false
	case st.pending == nil:
		st.pending = &delivery{file: current, at: now.Add(kubeletDelay(seed, p, current.raw))}
	default:
		st.pending.file = current
	}
	if now.Before(st.pending.at) {
		return false
	}
	st.file, st.pending = st.pending.file, nil
	return true
}

// kubeletDelay is how long after a change of a file's content is first
// seen the kubelet writes it into pod p's volume: drawn from the
// simulator's seed, the pod's name and the content (not its UID nor its
// namespace, which differ from one run of a seed to the next), more than
// nothing and at most one sync period and the cache's time to live.
func kubeletDelay(seed uint64, p *corev1.Pod, content string) time.Duration {
	h := fnv.New64a()
	_ = binary.Write(h, binary.LittleEndian, seed)
	for _, s := range []string{p.Name, content} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	span := uint64(kubeletSyncPeriod + configMapCacheTTL)
	return time.Duration(1 + h.Sum64()%span)
}

// load is the monitor's loadConfiguration of file at time now with the
// binaries staged and environment env; it reports whether it accepted it.
func (mon *monitor) load(file configFile, staged map[string]bool, env map[string]string, now time.Time) bool {
	if !file.present {
		return false
	}
	var cfg workload.MonitorConfig
	if err := json.Unmarshal([]byte(file.raw), &cfg); err != nil || cfg.Version == "" {
		return false
	}
	next := &loaded{raw: file.raw, config: cfg, binary: workload.MonitorBinary(mon.release, cfg.Version)}
	if !workload.ImageBinary(next.binary) && !staged[cfg.Version] || cfg.RefusedArguments(env, mon.release) != nil {
		return false
	}
	same := mon.active != nil && mon.active.binary == next.binary && reflect.DeepEqual(mon.active.config, next.config)
	if !same || !workload.MonitorComparesConfigurations(mon.release) {
		mon.active, mon.lastConfiguration = next, now
	}
	return true
}

// mainContainer is the restart count of pod p's main container and the
// version of its image, as its status reports them when it does (else as
// its spec names it).
func mainContainer(p *corev1.Pod) (int32, string) {
	release := workload.ImageVersion(p)
	if main := workload.MainContainer(p); main != nil {
		for _, s := range p.Status.ContainerStatuses {
			if s.Name == main.Name {
				return s.RestartCount, cmp.Or(workload.ImageTagVersion(s.Image), release)
			}
		}
	}
	return 0, release
}

// mountedFile is the monitor configuration file of pod p with the
// ConfigMap's data.
func mountedFile(p *corev1.Pod, data map[string]string) configFile {
	raw, ok := workload.MountedMonitorConfigFile(p, data)
	return configFile{raw: raw, present: ok}
}

// annotateLoaded writes raw to pod p's AnnotationCurrentConfiguration
// unless it holds it already: a merge patch of the annotation alone. A pod
// that is gone is not annotated.
func annotateLoaded(ctx context.Context, target client.Client, p *corev1.Pod, raw string) error {
	if v, ok := p.Annotations[workload.AnnotationCurrentConfiguration]; ok && v == raw {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{workload.AnnotationCurrentConfiguration: raw}}})
	if err != nil {
		return errors.Wrap(err, errAnnotateLoaded)
	}
	if err := target.Patch(ctx, p, client.RawPatch(types.MergePatchType, patch)); err != nil && !kerrors.IsNotFound(err) {
		return errors.Wrap(err, errAnnotateLoaded)
	}
	return nil
}
