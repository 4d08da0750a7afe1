package connector

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/coordination"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbcli"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errListPods     = "cannot list FoundationDB pods"
	errListPVCs     = "cannot list FoundationDB volume claims"
	errListServices = "cannot list FoundationDB Services"
	errGetNode      = "cannot get node"
	errListNodes    = "cannot list nodes"
	errSyncSim      = "cannot tell the simulator which processes run"
	errSeedCoords   = "cannot give the simulator its cluster file"
	errListAgents   = "cannot list backup-agent Deployments"
	errSyncAgents   = "cannot tell the simulator how many backup agents run"
	errOpenLocker   = "cannot open the database to hold its global lock"
	errClusterFile  = "cannot write the cluster file of the global lock's client"

	errGetBlobCredentials = "cannot get the blob store's credentials Secret"
	errNoCredentialsKey   = "cannot get blob credentials: Secret %s/%s has no key %s"
)

// FDB returns the admin client of one FoundationDB cluster.
type FDB interface {
	// Client returns the admin client of cluster c, whose pods run in the
	// target cluster and whose ConfigMap cm holds the cluster file, for a
	// resource whose backups or restores use blob store blob (nil for a
	// resource that uses none), whose tools present tls (the Cluster's
	// client credentials; nil without tls settings).
	Client(ctx context.Context, target Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, blob *v1alpha1.BlobStore, tls *fdb.TLSCredentials) (fdb.Client, error)
	// Files returns what changes the coordination and cluster files of
	// cluster c's pods in the target cluster, whose ConfigMap is cm (the
	// way back from lost coordinators).
	Files(target Target, cm *corev1.ConfigMap) coordination.Files
}

// SimFDB reaches simulated databases that live as long as the provider
// process. A database is identified by its ConfigMap, which exists once
// per incarnation of a cluster: a Cluster that is orphaned and imported
// again by a new Cluster resource finds its database; one deleted and
// created again starts a new one. A ConfigMap written again after it was
// lost finds its database by the cluster file it holds. Like a real
// database learns its processes from the fdbserver processes that connect
// to it, a simulated database learns them from the cluster's pods: each
// call reports the running pods (and the stopped ones whose volume
// remains) to the simulator before returning it. Likewise it learns its backup agents,
// which a real database knows from the backup_agent processes that connect
// to it, from the ready replicas of the cluster's backup-agent Deployments.
type SimFDB struct {
	Registry *sim.Registry
	monitors *monitors
}

// NewSimFDB returns a SimFDB that reaches the databases of registry.
func NewSimFDB(registry *sim.Registry) SimFDB {
	return SimFDB{Registry: registry, monitors: &monitors{}}
}

// Client returns the simulator of c after syncing its processes with the
// cluster's pods and volume claims (and the TLS files the pods hold), and
// its backup agents with the cluster's backup-agent Deployments. A Cluster
// with tls settings, or whose cluster file names a TLS coordinator, gets
// the database as the provider's tools see it (sim.Client): they hold the
// cluster file of cm and the Cluster's client credentials tls,
// and reach the database only if that reaches a quorum of its
// coordinators; any other gets the simulator itself, as before TLS.
func (s SimFDB) Client(ctx context.Context, target Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, _ *v1alpha1.BlobStore, tls *fdb.TLSCredentials) (fdb.Client, error) {
	groups, err := s.simGroups(ctx, target, c, cm)
	if err != nil {
		return nil, err
	}
	agents, err := simAgents(ctx, target, c)
	if err != nil {
		return nil, err
	}
	connectionString := cm.Data[workload.KeyClusterFile]
	db := s.Registry.Open(string(cm.GetUID()), connectionString)
	// Each Cluster reports its own pods: the Clusters of a database's
	// other data centers report theirs to the same database.
	if err := db.SetProcessGroupsOf(c.GetNamespace()+"/"+c.GetName(), groups); err != nil {
		return nil, errors.Wrap(err, errSyncSim)
	}
	if err := db.SetBackupAgents(agents); err != nil {
		return nil, errors.Wrap(err, errSyncAgents)
	}
	if connectionString != "" && db.ConnectionString() == "" {
		if err := db.SetConnectionString(connectionString); err != nil {
			return nil, errors.Wrap(err, errSeedCoords)
		}
	}
	if tls == nil && !tlsCoordinators(connectionString) {
		return db, nil
	}
	return db.As(connectionString, tls), nil
}

// tlsCoordinators reports whether connection string cs names a TLS
// coordinator.
func tlsCoordinators(cs string) bool {
	parsed, err := fdb.ParseConnectionString(cs)
	return err == nil && slices.ContainsFunc(parsed.Coordinators, fdb.ProcessAddress.TLS)
}

// Sim returns the simulated database whose ConfigMap is cm, for tests and
// fault injection.
func (s SimFDB) Sim(cm *corev1.ConfigMap) *sim.Sim { return s.Registry.Get(string(cm.GetUID())) }

// The simulator learns its processes from the cluster's pods, volume claims
// and nodes, and its backup agents from the agents' Deployments.
// +kubebuilder:rbac:groups="",resources=pods;persistentvolumeclaims;nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch

// simGroups lists the cluster's pods, volume claims and their nodes, brings
// the kubelet's configuration files and the pods' monitors up to the
// registry's time (monitors.Look), and turns them into simulator process
// groups (processGroups).
func (s SimFDB) simGroups(ctx context.Context, target Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap) ([]sim.ProcessGroup, error) {
	pods := &corev1.PodList{}
	if err := target.List(ctx, pods, target.OfCluster(c)...); err != nil {
		return nil, errors.Wrap(err, errListPods)
	}
	pvcs := &corev1.PersistentVolumeClaimList{}
	if err := target.List(ctx, pvcs, target.OfCluster(c)...); err != nil {
		return nil, errors.Wrap(err, errListPVCs)
	}
	nodes, err := nodesOf(ctx, target, pods.Items)
	if err != nil {
		return nil, err
	}
	certs, err := certificateFiles(ctx, target, c, pods.Items, cm.Data)
	if err != nil {
		return nil, err
	}
	clk, seed := s.Registry.ClockAndSeed()
	runs, err := s.monitors.Look(ctx, target, c.GetNamespace()+"/"+c.GetName(), pods.Items, cm.Data, certs, clk.Now(), seed)
	if err != nil {
		return nil, err
	}
	services := &corev1.ServiceList{}
	if slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool { return workload.PodDensity(&p).ServiceIP }) {
		if err := target.List(ctx, services, target.OfCluster(c)...); err != nil {
			return nil, errors.Wrap(err, errListServices)
		}
	}
	return processGroups(c, pods.Items, pvcs.Items, nodes, services.Items, runs), nil
}

// nodesOf reads the nodes pods are bound to, those that exist: from the
// provider's cache each by name, so that a session's cost does not grow
// with the cluster's nodes; from an API server in one list.
func nodesOf(ctx context.Context, target Target, pods []corev1.Pod) ([]corev1.Node, error) {
	if !target.Cached {
		nodes := &corev1.NodeList{}
		if err := target.List(ctx, nodes); err != nil {
			return nil, errors.Wrap(err, errListNodes)
		}
		return nodes.Items, nil
	}
	var out []corev1.Node
	seen := map[string]bool{}
	for _, p := range pods {
		name := p.Spec.NodeName
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		n := corev1.Node{}
		switch err := target.Get(ctx, client.ObjectKey{Name: name}, &n); {
		case kerrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, errors.Wrap(err, errGetNode)
		}
		out = append(out, n)
	}
	return out, nil
}

// processGroups turns the cluster's pods and claims into simulator process
// groups: a Running pod with an IP on a Ready node whose monitor has
// started (runs, by UID) and whose processes can write their data
// directory (dataWritable) runs its processes (a failed node runs nothing)
// and resolves by its DNS name; a group whose pod exists but does not run
// (not Running, or on a failed node) is stopped and keeps its data, on its
// volume or, for a group without one, in the pod's own storage on its node
// until the pod is deleted; so is a group whose pod is gone but whose
// volume claim remains; a group with neither is gone. The processes run
// what the pod's monitor runs (monitorRun): the configuration it accepted
// last, on the fdbserver it chose then, expanded with the environment the
// pod's main container has, and of that binary's version: the image's for
// the image's own /usr/bin/fdbserver, whatever the configuration names.
// Processes that run keep what they started with until they restart
// (sim.ProcessGroup). A monitor that accepted nothing starts nothing and
// what runs keeps running (sim.ProcessGroup.Unconfigured; the Cluster's
// configuration stands in for it); one whose configuration says
// runServers false, or whose command line fdbserver refuses, runs no
// process (Stopped). Their localities, the zone included, are what those
// command lines say, never what the node's labels say: a pod whose zone
// variable is empty runs processes in the empty zone.
func processGroups(c *v1alpha1.Cluster, pods []corev1.Pod, pvcs []corev1.PersistentVolumeClaim, nodes []corev1.Node, services []corev1.Service, runs map[types.UID]monitorRun) []sim.ProcessGroup {
	failed := map[string]bool{}
	for _, n := range nodes {
		failed[n.Name] = !workload.NodeReady(&n)
	}
	byID := map[string]sim.ProcessGroup{}
	for _, p := range pods {
		id := p.Labels[workload.LabelProcessGroup]
		if id == "" || p.DeletionTimestamp != nil {
			continue
		}
		class := v1alpha1.ProcessClass(p.Labels[workload.LabelProcessClass])
		g := sim.ProcessGroup{ID: id, Class: string(class), ProcessesPerPod: workload.ProcessCount(&p)}
		run, started := runs[p.UID]
		if !workload.PodRunning(&p) || failed[p.Spec.NodeName] || !started || !dataWritable(&p) {
			g.Stopped = true
			byID[id] = g
			continue
		}
		active := run.active
		if active == nil {
			// What runs keeps running as it started; the Cluster's
			// configuration stands in for it, and nothing starts.
			cfg := workload.MonitorConfiguration(c, workload.PodDensity(&p))
			g.Unconfigured, active = true, &loaded{config: cfg, binary: workload.MonitorBinary(run.release, cfg.Version)}
		}
		lines, err := commandLines(active, g.ProcessesPerPod, workload.MonitorEnvironment(&p), run.release)
		if err != nil || unreachable(&p, lines, services) != "" {
			g.Stopped = true
			byID[id] = g
			continue
		}
		g.IP, g.DNSName, g.CommandLines, g.Files = p.Status.PodIP, workload.PodDNSName(c, &p), lines, run.files
		// A Cluster that names no version (one that is gone, seen through
		// its ConfigMap) stands in with the image's.
		g.Version = cmp.Or(active.config.Version, run.release)
		if workload.ImageBinary(active.binary) {
			g.Version = run.release
		}
		byID[id] = g
	}
	for _, pvc := range pvcs {
		id := pvc.Labels[workload.LabelProcessGroup]
		if _, known := byID[id]; id == "" || known || pvc.DeletionTimestamp != nil {
			continue
		}
		byID[id] = sim.ProcessGroup{ID: id, Class: pvc.Labels[workload.LabelProcessClass], Version: c.Spec.ForProvider.Version, Stopped: true}
	}
	out := make([]sim.ProcessGroup, 0, len(byID))
	for _, g := range byID {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// unreachable says why the processes of pod p, running command lines,
// cannot be part of the database; "" when they can. Each binds its listen
// addresses (fdb.BoundAddresses), which must be the pod's IPs, or it exits
// at once. Each is known by its public addresses: one of the pod's IPs
// reaches it; any other only through a Service whose cluster IP it is and
// that routes that port to the pod (workload.ServiceRoutes, the node's
// proxy). A process nothing reaches is shown down: the real one starts
// and may register with the cluster controller over its own connection,
// but no process can connect to it, so it serves nothing.
func unreachable(p *corev1.Pod, lines []string, services []corev1.Service) string {
	own := map[string]bool{p.Status.PodIP: true}
	for _, ip := range p.Status.PodIPs {
		own[ip.IP] = true
	}
	for _, line := range lines {
		for _, a := range fdb.BoundAddresses(line, "") {
			if host := fdb.ProcessAddress(a).Host(); !own[host] {
				return fmt.Sprintf("cannot bind %s: not an IP of pod %s", a, p.Name)
			}
		}
		for _, a := range fdb.ListenAddresses(line, "") {
			host, port := fdb.ProcessAddress(a).Host(), fdb.ProcessAddress(a).Port()
			if own[host] || slices.ContainsFunc(services, func(s corev1.Service) bool {
				return s.Spec.ClusterIP == host && workload.ServiceRoutes(&s, p, port)
			}) {
				continue
			}
			return fmt.Sprintf("no route to %s: neither an IP of pod %s nor a Service's that routes to it", a, p.Name)
		}
	}
	return ""
}

// commandLines are the command lines of the processes a monitor of release
// starts with the configuration it loaded, in environment env; an error
// when they run none.
func commandLines(l *loaded, processes int, env map[string]string, release string) ([]string, error) {
	out := make([]string, 0, processes)
	for n := 1; n <= processes; n++ {
		line, err := l.config.CommandLineOf(l.binary, n, env, release)
		if err != nil {
			return nil, err
		}
		out = append(out, line)
	}
	return out, nil
}

// simAgents counts the cluster's running backup agents: the ready replicas
// of its backup-agent Deployments (one per Backup) that are not being
// deleted.
func simAgents(ctx context.Context, target Target, c *v1alpha1.Cluster) (int, error) {
	list := &appsv1.DeploymentList{}
	if err := target.List(ctx, list, append(target.OfCluster(c), client.MatchingLabels{workload.LabelComponent: workload.ComponentBackupAgent})...); err != nil {
		return 0, errors.Wrap(err, errListAgents)
	}
	n := 0
	for _, d := range list.Items {
		if d.DeletionTimestamp == nil {
			n += int(d.Status.ReadyReplicas)
		}
	}
	return n, nil
}

// ToolsFDB reaches real databases with the FoundationDB command line tools
// of the version each cluster runs, found in BinaryDir/<major.minor>/.
type ToolsFDB struct {
	BinaryDir string
	// Locker opens the global lock's holder of the database a connection
	// string reaches: the native client library's (package bindings, in a
	// provider built with the tag fdb). Without it the client cannot hold
	// the lock (fdb.ErrNoLocker), and a Cluster that shares its database
	// takes no step with database-wide effect.
	Locker func(connectionString string) (fdb.Locker, error)
}

// Client returns an fdbcli-backed client for c, holding the global lock
// through t.Locker when there is one. It uses the version the processes run
// (during an upgrade, the old one) until the status reports one, then the
// spec's; while those two are of different protocols, a status the old
// version's tools cannot read is asked of the spec version's tools, which
// then serve the session (toolsAcrossUpgrade). The backups and restores
// it starts reach blob with the credentials of blob's Secret, which the
// backup agents mount too, read from the target namespace when a start
// needs them (blobCredentials). The tools of both versions present tls,
// the Cluster's client credentials (clientCredentials).
func (t ToolsFDB) Client(ctx context.Context, target Target, c *v1alpha1.Cluster, cm *corev1.ConfigMap, blob *v1alpha1.BlobStore, tls *fdb.TLSCredentials) (fdb.Client, error) {
	version := c.Status.AtProvider.RunningVersion
	if version == "" {
		version = c.Spec.ForProvider.Version
	}
	cfg := fdbcli.Config{ConnectionString: cm.Data[workload.KeyClusterFile], Version: version, BinaryDir: t.BinaryDir, TLS: tls}
	if blob != nil && blob.CredentialsSecretRef != nil {
		cfg.BlobCredentials = blobCredentials(target, workload.Namespace(c), *blob.CredentialsSecretRef)
	}
	if t.Locker != nil && cfg.ConnectionString != "" {
		l, err := t.Locker(cfg.ConnectionString)
		if err != nil {
			return nil, errors.Wrap(err, errOpenLocker)
		}
		cfg.Locker = l
	}
	running, err := fdbcli.New(cfg)
	if err != nil {
		return nil, err
	}
	spec := c.Spec.ForProvider.Version
	if fdb.ProtocolCompatible(version, spec) {
		return running, nil
	}
	next := cfg
	next.Version = spec
	return &toolsAcrossUpgrade{Client: running, next: func() (fdb.Client, error) { return fdbcli.New(next) }}, nil
}

// The provider's own backup and restore starts read the blob store's
// credentials from the Secret the backup agents mount.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// blobCredentials returns the content of key ref.Key of Secret ref.Name in
// namespace ns, read when called; an error names the Secret and key, never
// what they hold.
func blobCredentials(r client.Reader, ns string, ref xpv2.LocalSecretKeySelector) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		s := &corev1.Secret{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, s); err != nil {
			return nil, errors.Wrap(err, errGetBlobCredentials)
		}
		v, ok := s.Data[ref.Key]
		if !ok {
			return nil, errors.Errorf(errNoCredentialsKey, ns, ref.Name, ref.Key)
		}
		return v, nil
	}
}

// ClusterFile returns the path of a cluster file under dir that holds
// connectionString, writing it when it is not there yet: the native client
// library opens a database by its cluster file, and keeps one handle per
// path, so that each connection string has one file and one handle.
func ClusterFile(dir, connectionString string) (string, error) {
	if _, err := fdb.ParseConnectionString(connectionString); err != nil {
		return "", errors.Wrap(err, errClusterFile)
	}
	path := filepath.Join(dir, fmt.Sprintf("%x.cluster", sha256.Sum256([]byte(connectionString))))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", errors.Wrap(err, errClusterFile)
	}
	// Written whole under another name, then renamed: a reader never sees
	// half a file.
	tmp, err := os.CreateTemp(dir, "write-*")
	if err != nil {
		return "", errors.Wrap(err, errClusterFile)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone already after the rename
	if _, err := tmp.WriteString(connectionString + "\n"); err != nil {
		_ = tmp.Close()
		return "", errors.Wrap(err, errClusterFile)
	}
	if err := tmp.Close(); err != nil {
		return "", errors.Wrap(err, errClusterFile)
	}
	return path, errors.Wrap(os.Rename(tmp.Name(), path), errClusterFile)
}
