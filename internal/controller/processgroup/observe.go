package processgroup

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/nodetaint"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errGetPod    = "cannot get the group's pod"
	errGetPVC    = "cannot get the group's volume claim"
	errGetNode   = "cannot get the pod's node"
	errGetSvc    = "cannot get the group's Service"
	statusFailed = "status unreadable"
)

// observation is what one reconcile knows of a process group, read once.
type observation struct {
	id   string
	pod  *corev1.Pod
	pvc  *corev1.PersistentVolumeClaim
	node *corev1.Node
	// service is the group's Service, read only for a group known by its
	// Service's IP.
	service *corev1.Service
	// want is the pod the group should run: for a group known by its
	// Service's IP, annotated with that IP once the Service has one
	// (workload.AnnotationPublicIP).
	want *corev1.Pod
	// status is the database's status, nil without one; procs are the
	// group's processes in it.
	status *fdb.Status
	procs  []fdb.Process
	// version is the FoundationDB version the Cluster asks for.
	version string
	// drain is what the status proves about removing the group; without a
	// status it proves nothing.
	drain fdb.Drain
	// at is the group's observed state; grantWhy says why the group may
	// not disrupt its pod now ("" when it may or need not).
	at       v1alpha1.ProcessGroupObservation
	grantWhy string
	// configMap is the data of the Cluster's ConfigMap, nil without one;
	// now is when the observation was made.
	configMap map[string]string
	now       time.Time
}

// reloadAfter is how long a pod's monitor may report another configuration
// than its ConfigMap holds before its ProcessGroup asks it to read its file
// again (workload.AnnotationOutdatedConfigMap), and how long it waits
// before it asks again: longer than the kubelet takes to deliver a changed
// ConfigMap (a sync period and its cache's time to live), after which only
// a monitor that refused the file (its binary was not staged yet) still
// runs another, and reads it again only when asked.
const reloadAfter = 90 * time.Second

// reloads reports whether the group asks its pod's monitor to read its
// configuration again: the pod runs, its monitor has reported another
// configuration than the ConfigMap holds for it (IncorrectConfigMap) for
// reloadAfter, and it was not asked within reloadAfter.
func (o *observation) reloads() bool {
	if !o.running() {
		return false
	}
	since, ok := o.at.ConditionSince(v1alpha1.IncorrectConfigMap)
	if !ok || o.now.Sub(since) < reloadAfter {
		return false
	}
	asked, ok := workload.ReloadRequested(o.pod)
	return !ok || o.now.Sub(asked) >= reloadAfter
}

// recreates reports whether the group wants its pod recreated: its spec
// drifted, an upgrade left its processes behind on a version the database
// no longer speaks (fdb.LeftBehind), or they run another patch release than
// the Cluster's, which its monitor runs only from an image of that release
// (fdb.OnOtherPatch). Each takes the disruption grant of its domain
// (external.grant) before it goes.
func (o *observation) recreates() bool {
	return o.has(v1alpha1.IncorrectPodSpec) || fdb.LeftBehind(o.status, o.version, o.at.Addresses) || fdb.OnOtherPatch(o.procs, o.version)
}

// has reports whether the group's observed state has condition t.
func (o *observation) has(t v1alpha1.ProcessGroupConditionType) bool {
	return slices.ContainsFunc(o.at.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool { return c.Type == t })
}

// get reads an object of the target cluster; it returns nil when absent.
func get[T client.Object](ctx context.Context, c client.Client, key client.ObjectKey, obj T, msg string) (T, error) {
	var none T
	err := c.Get(ctx, key, obj)
	if kerrors.IsNotFound(err) {
		return none, nil
	}
	if err != nil {
		return none, errors.Wrap(err, msg)
	}
	return obj, nil
}

// Observing a group reads its pod, volume claim, Service and the pod's
// node; Setup watches them for their deletion.
// +kubebuilder:rbac:groups="",resources=pods;persistentvolumeclaims;services;nodes,verbs=get;list;watch

func (e *external) observe(ctx context.Context, pg *v1alpha1.ProcessGroup) (*observation, error) {
	c, id := e.cluster, pg.ID()
	o := &observation{id: id, want: workload.Pod(c, pg, id), version: c.Spec.ForProvider.Version, now: e.Clock.Now()}
	if cm := e.session.ConfigMap; cm != nil {
		o.configMap = cm.Data
	}
	ns := workload.Namespace(c)
	var err error
	if o.pod, err = get(ctx, e.session.Target, client.ObjectKey{Namespace: ns, Name: workload.PodName(c, id)}, &corev1.Pod{}, errGetPod); err != nil {
		return nil, err
	}
	if o.pvc, err = get(ctx, e.session.Target, client.ObjectKey{Namespace: ns, Name: workload.PVCName(c, id)}, &corev1.PersistentVolumeClaim{}, errGetPVC); err != nil {
		return nil, err
	}
	if pg.Spec.ForProvider.PublicIPSource.Service() {
		if o.service, err = get(ctx, e.session.Target, client.ObjectKey{Namespace: ns, Name: workload.PodName(c, id)}, &corev1.Service{}, errGetSvc); err != nil {
			return nil, err
		}
		if ip := o.serviceIP(); ip != "" {
			o.want.Annotations[workload.AnnotationPublicIP] = ip
		}
	}
	if o.pod != nil && o.pod.Spec.NodeName != "" {
		if o.node, err = get(ctx, e.session.Target, client.ObjectKey{Name: o.pod.Spec.NodeName}, &corev1.Node{}, errGetNode); err != nil {
			return nil, err
		}
	}
	if e.session.FDB != nil {
		// An unreadable status is an observation too: the group's processes
		// cannot be seen, and nothing that needs them is done.
		if s, err := e.session.FDB.Status(ctx); err == nil {
			o.status = s
			for _, p := range s.Cluster.Processes {
				if p.Locality.InstanceID == id {
					o.procs = append(o.procs, p)
				}
			}
			sort.Slice(o.procs, func(i, j int) bool { return o.procs[i].Locality.ProcessID < o.procs[j].Locality.ProcessID })
		}
	}
	return o, nil
}

// serviceIP is the cluster IP of the group's Service; empty without a
// Service, or while it has none.
func (o *observation) serviceIP() string { return workload.ServiceIP(o.service) }

// missingService reports whether group pg is known by its Service's IP
// and that Service, or its IP, is missing.
func (o *observation) missingService(pg *v1alpha1.ProcessGroup) bool {
	return pg.Spec.ForProvider.PublicIPSource.Service() && o.serviceIP() == ""
}

// tearingDown reports whether the group's pod, and the volume claim of a
// stateful group, are gone or being deleted: a removal already took its
// step, and a reconcile that sees the processes gone meanwhile must not take
// (and record) another. A pod gone while its claim stays, e.g. deleted by
// hand, is not a teardown.
func (o *observation) tearingDown(stateful bool) bool {
	podGoing := o.pod == nil || o.pod.DeletionTimestamp != nil
	claimGoing := !stateful || o.pvc == nil || o.pvc.DeletionTimestamp != nil
	return podGoing && claimGoing
}

func (o *observation) running() bool { return workload.PodRunning(o.pod) }

// servesNothing reports whether the group's pod does not run or, in a
// status whose view is complete, none of its processes report
// (fdb.ReportingOf): recreating it disrupts nothing the database still has.
// Without such a status that is not known: false.
func (o *observation) servesNothing() bool {
	if !o.running() {
		return true
	}
	n, ok := fdb.ReportingOf(o.status, o.id, workload.PublicIP(o.pod))
	return ok && n == 0
}

// notRunning says why pod p, which does not run, does not: the
// scheduler's reason when it could not place it (its PodScheduled
// condition False, e.g. "Unschedulable: 0/6 nodes are available: ..."),
// or the terminal phase it ended in, after msgNotRunning. The Cluster's
// Ready condition names each group with it, so a pod stuck Pending says
// why where users look.
func notRunning(p *corev1.Pod) string {
	switch {
	case p == nil || p.DeletionTimestamp != nil:
	case p.Status.Phase == corev1.PodPending:
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return fmt.Sprintf("%s: Pending, %s: %s", msgNotRunning, c.Reason, c.Message)
			}
		}
	case workload.PodTerminal(p) && p.Status.Reason != "":
		return msgNotRunning + ": " + ended(p)
	}
	return msgNotRunning
}

func (o *observation) zone(key string) string {
	if len(o.procs) > 0 && o.procs[0].Locality.ZoneID != "" {
		return o.procs[0].Locality.ZoneID
	}
	if o.node != nil {
		return o.node.Labels[key]
	}
	return ""
}

// conditions are the group's problems now.
func (e *external) conditions(pg *v1alpha1.ProcessGroup, o *observation) []v1alpha1.ProcessGroupConditionType {
	var out []v1alpha1.ProcessGroupConditionType
	add := func(ok bool, t v1alpha1.ProcessGroupConditionType) {
		if ok {
			out = append(out, t)
		}
	}
	stateful := pg.Spec.ForProvider.ProcessClass.IsStateful()
	add(o.pod == nil, v1alpha1.MissingPod)
	add(stateful && o.pvc == nil, v1alpha1.MissingPVC)
	add(o.pod != nil && o.pod.Status.Phase == corev1.PodPending, v1alpha1.PodPending)
	add(o.pod != nil && o.pod.Status.Phase == corev1.PodFailed, v1alpha1.PodFailing)
	add(o.pod != nil && o.pod.DeletionTimestamp != nil, v1alpha1.ResourcesTerminating)
	add(o.missingService(pg), v1alpha1.MissingService)
	add(o.pod != nil && o.pod.Annotations[workload.AnnotationSpec] != o.want.Annotations[workload.AnnotationSpec] || o.staleIP(pg), v1alpha1.IncorrectPodSpec)
	add(o.node != nil && !workload.NodeReady(o.node), v1alpha1.NodeNotReady)
	_, tainted := nodetaint.Of(o.node, e.cluster.Spec.ForProvider.Automation.TaintReplacements)
	add(tainted, v1alpha1.NodeTainted)
	// A group is missing processes from its creation until they report,
	// whatever its pod's phase; without a status that cannot be told, and
	// the condition stays as it was.
	if o.status == nil {
		add(e.has(pg, v1alpha1.MissingProcesses), v1alpha1.MissingProcesses)
	} else {
		add(len(o.procs) < max(pg.Spec.ForProvider.ProcessesPerPod, 1), v1alpha1.MissingProcesses)
	}
	if o.status != nil && o.running() {
		add(slices.ContainsFunc(o.procs, func(p fdb.Process) bool { return p.CommandLine != e.commandLine(pg, o, p) }), v1alpha1.IncorrectCommandLine)
		add(o.drain.Excluded && pg.GetDeletionTimestamp() == nil, v1alpha1.ProcessIsMarkedAsExcluded)
		add(slices.ContainsFunc(o.procs, func(p fdb.Process) bool { return fdb.IOErrorOf(p) != "" }), v1alpha1.ProcessHasIOError)
	}
	// The configuration the pod's monitor reports it loaded, read from the
	// pod in this reconcile, is not the one the ConfigMap holds for it:
	// its processes would restart on another (see workload.ConfigurationLoaded).
	if o.running() {
		_, mounts := workload.MountedMonitorConfig(o.pod, o.configMap)
		add(mounts && !workload.ConfigurationLoaded(o.pod, o.configMap), v1alpha1.IncorrectConfigMap)
	}
	return out
}

// staleIP reports whether the group's pod holds another public IP than
// its Service's cluster IP (the Service was made anew): its processes are
// known by an address that no longer reaches them, and only a new pod,
// whose container reads the annotation when it starts, takes the new one.
func (o *observation) staleIP(pg *v1alpha1.ProcessGroup) bool {
	return workload.StalePublicIP(pg, o.pod, o.service)
}

// has reports whether the group's recorded state has condition t.
func (e *external) has(pg *v1alpha1.ProcessGroup, t v1alpha1.ProcessGroupConditionType) bool {
	return slices.ContainsFunc(pg.Status.AtProvider.ProcessGroupConditions, func(c v1alpha1.ProcessGroupCondition) bool { return c.Type == t })
}

// commandLine is the command line process p of the group should run, on
// the machine it reports, as its pod's monitor would start it: on the
// binary the monitor chooses by the version of the pod's image, with the
// pod's IPs as its environment gives them (all of a dual-stack pod's, of
// which the configuration picks its family's).
func (e *external) commandLine(pg *v1alpha1.ProcessGroup, o *observation, p fdb.Process) string {
	at := workload.PodPlacement(o.pod, o.zone(workload.FaultDomainKey(e.cluster)), p.Locality.MachineID)
	return workload.ProcessCommandLine(e.cluster, workload.GroupDensity(pg), o.id, fdb.ProcessNumber(o.id, p.Locality.ProcessID), at, workload.ImageVersion(o.pod))
}

// atProvider is the observed state of the group; conditions keep the time
// they were first seen. It records in o.drain what the status proves about
// removing the group.
func (e *external) atProvider(pg *v1alpha1.ProcessGroup, o *observation, now time.Time) v1alpha1.ProcessGroupObservation {
	prev := pg.Status.AtProvider
	at := v1alpha1.ProcessGroupObservation{
		FaultDomain:        o.zone(workload.FaultDomainKey(e.cluster)),
		DNSName:            workload.DNSName(e.cluster, o.id),
		ExclusionTime:      prev.ExclusionTime,
		RemovalTime:        prev.RemovalTime,
		LastPolicyDecision: prev.LastPolicyDecision,
	}
	if o.pod != nil {
		at.PodName = o.pod.Name
	}
	for _, p := range o.procs {
		at.Addresses = append(at.Addresses, p.Address)
		at.ProcessIDs = append(at.ProcessIDs, p.Locality.ProcessID)
	}
	if len(o.procs) == 0 && o.running() {
		// Before the database reports them, the processes are where the
		// pod says they listen.
		for n := 1; n <= max(pg.Spec.ForProvider.ProcessesPerPod, 1); n++ {
			at.Addresses = append(at.Addresses, workload.PrimaryAddress(e.cluster, workload.PublicIP(o.pod), n))
			at.ProcessIDs = append(at.ProcessIDs, fdb.ProcessID(o.id, n, pg.Spec.ForProvider.ProcessesPerPod))
		}
	}
	if o.status != nil {
		// Addresses it had before count too: a group whose pod is gone may
		// still be a coordinator.
		// So do the addresses of the other kind (TLS or plain text) on the
		// same ports: while the processes listen on both, a coordinator
		// may be named by either.
		o.drain = fdb.DrainOf(o.status, o.id, pg.Spec.ForProvider.ProcessesPerPod, fdb.AddressNames(at.DNSName, eitherKind(append(slices.Clone(at.Addresses), prev.Addresses...))...))
		at.Excluded, at.Roles = o.drain.Excluded, fdb.RemovalRoles(o.drain.Roles)
	}
	stamp := metav1.NewTime(now)
	if at.Excluded && at.ExclusionTime == nil {
		at.ExclusionTime = &stamp
	}
	if !at.Excluded {
		at.ExclusionTime = nil
	}
	at.ExclusionProgress = exclusionProgress(at.Excluded, prev.ExclusionProgress, o.status, o.id, stamp)
	if pg.GetDeletionTimestamp() != nil && at.RemovalTime == nil {
		// The provider's clock, not the API server's deletion timestamp:
		// every age the Cluster measures is on one clock.
		at.RemovalTime = &stamp
	}
	taint, _ := nodetaint.Of(o.node, e.cluster.Spec.ForProvider.Automation.TaintReplacements)
	for _, t := range e.conditions(pg, o) {
		since := stamp
		for _, c := range prev.ProcessGroupConditions {
			if c.Type == t {
				since = c.Since
			}
		}
		// A taint the API server dated counts from when it was added.
		if t == v1alpha1.NodeTainted && taint.Added != nil && taint.Added.Before(&since) {
			since = *taint.Added
		}
		at.ProcessGroupConditions = append(at.ProcessGroupConditions, v1alpha1.ProcessGroupCondition{Type: t, Since: since})
	}
	return at
}

// eitherKind are addresses, each followed by the address of the other kind
// (TLS or plain text) of the same process (fdb.OtherKind).
func eitherKind(addresses []string) []string {
	out := make([]string, 0, 2*len(addresses))
	for _, a := range addresses {
		out = append(out, a, string(fdb.OtherKind(fdb.ProcessAddress(a))))
	}
	return out
}

// exclusionProgress is how much data group id's storage servers hold
// while it is excluded, from status s: the bytes at its exclusion kept
// from prev, the bytes left and since when they are so. Without a status,
// or with the group's processes not reporting, it stays as recorded; nil
// once the group is not excluded.
func exclusionProgress(excluded bool, prev *v1alpha1.ExclusionProgress, s *fdb.Status, id string, now metav1.Time) *v1alpha1.ExclusionProgress {
	if !excluded {
		return nil
	}
	if s == nil {
		return prev
	}
	bytes, reporting := fdb.StoredBytes(s, id)
	switch {
	case !reporting:
		return prev
	case prev == nil:
		return &v1alpha1.ExclusionProgress{BytesAtExclusion: bytes, BytesLeft: bytes, ObservedAt: now}
	case prev.BytesLeft == bytes:
		return prev
	}
	return &v1alpha1.ExclusionProgress{BytesAtExclusion: prev.BytesAtExclusion, BytesLeft: bytes, ObservedAt: now}
}
