package testenv

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// ZoneLabel is the node label the test nodes carry their zone in.
const ZoneLabel = "topology.kubernetes.io/zone"

// NodeLocalStorageClass is the storage class of volumes that live on one
// node (local PersistentVolumes); claims of any other class follow their
// pod anywhere, like network volumes.
const NodeLocalStorageClass = "node-local"

// HostnameLabel is the node label that names the node.
const HostnameLabel = "kubernetes.io/hostname"

// SelectedNode is the claim annotation naming the node a node-local volume
// lives on.
const SelectedNode = "volume.kubernetes.io/selected-node"

// Nodes stands in for the kube-scheduler and the kubelets, which envtest
// does not run. It is a test helper, not a simulation of either: every
// period it
//   - binds each unscheduled pod to a Ready node that matches the pod's
//     nodeSelector, is not cordoned and carries no NoSchedule or NoExecute
//     taint the pod does not tolerate (round robin, in node-name order),
//     or says on its
//     PodScheduled condition why none does (Unschedulable),
//   - marks each bound pod Running and Ready with a pod IP (10.<zone>.<node>.<n>),
//     but never one in a terminal phase (Failed, Succeeded: a kubelet never
//     runs such a pod again; see Evict),
//   - finishes graceful deletions (as a kubelet would once containers stop)
//     and removes the pvc-protection finalizer of deleted claims no pod uses.
//   - reports every Deployment not being deleted as fully rolled out, all
//     spec.replicas ready and available (a stand-in for the deployment
//     controller, ReplicaSets and their pods, which envtest does not run
//     either; see readyDeployments).
//
// Pods on a node marked NotReady with SetReady stay as they are, like pods
// on a node that lost its kubelet. A claim of storage class
// NodeLocalStorageClass is bound to the node its first pod lands on: to a
// local PersistentVolume that only that node can use, and the annotation
// SelectedNode records the node, as the scheduler does for volumes that
// wait for their first consumer; every later pod that mounts it binds only
// to that node, and stays Pending while it is not Ready. A claim of any
// other class is bound, when its first pod lands, to a volume every node
// can use (so that it can grow, as only bound claims may). A volume goes
// with its claim.
type Nodes struct {
	c      client.Client
	period time.Duration

	mu     sync.Mutex
	nextIP map[string]int
	rr     int
}

// StartNodes creates perZone Ready nodes in each zone and runs the binding
// loop until ctx ends.
func StartNodes(ctx context.Context, c client.Client, zones []string, perZone int) (*Nodes, error) {
	n, err := CreateNodes(ctx, c, zones, perZone)
	if err != nil {
		return nil, err
	}
	go n.run(ctx)
	return n, nil
}

// CreateNodes creates perZone Ready nodes in each zone and returns the
// stand-in without running it: the caller drives it one Pass at a time,
// deterministically.
func CreateNodes(ctx context.Context, c client.Client, zones []string, perZone int) (*Nodes, error) {
	n := &Nodes{c: c, period: 50 * time.Millisecond, nextIP: map[string]int{}}
	for zi, z := range zones {
		for i := 0; i < perZone; i++ {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("node-%s-%d", z, i),
				Labels:      map[string]string{ZoneLabel: z, HostnameLabel: fmt.Sprintf("node-%s-%d", z, i)},
				Annotations: map[string]string{"test/ip-prefix": fmt.Sprintf("10.%d.%d", zi+1, i)},
			}}
			if err := c.Create(ctx, node); err != nil {
				return nil, err
			}
			if err := n.SetReady(ctx, node.Name, true); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// Pass runs one period of the stand-in: binding, starting, finishing
// deletions and rolling out Deployments, as the loop StartNodes runs does
// every period. Errors are transient conflicts with concurrent writers.
func (n *Nodes) Pass(ctx context.Context) error { return n.step(ctx) }

// SetReady marks a node Ready or NotReady, with the taint
// node.kubernetes.io/not-ready:NoSchedule off or on, as the node lifecycle
// controller keeps it.
func (n *Nodes) SetReady(ctx context.Context, name string, ready bool) error {
	node := &corev1.Node{}
	if err := n.c.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		return err
	}
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, LastTransitionTime: metav1.Now()}}
	if err := n.c.Status().Update(ctx, node); err != nil {
		return err
	}
	// The node lifecycle controller's taint by condition, which envtest
	// runs no controller-manager to keep: kube-apiserver's
	// TaintNodesByCondition admission puts it on every new node, and
	// without it gone no pod would schedule.
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	isNotReady := func(t corev1.Taint) bool { return t.MatchTaint(&notReady) }
	has := slices.ContainsFunc(node.Spec.Taints, isNotReady)
	if has == !ready {
		return nil
	}
	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, isNotReady)
	if !ready {
		node.Spec.Taints = append(node.Spec.Taints, notReady)
	}
	return n.c.Update(ctx, node)
}

// Evict fails the pod named key as a kubelet's node-pressure eviction
// does: it terminates the pod's containers and sets its phase to Failed,
// reason Evicted (Kubernetes, "Node-pressure Eviction"). The pod stays on
// its node, terminal: no kubelet runs it again, and only its deletion
// makes room for a new pod of the same name.
func (n *Nodes) Evict(ctx context.Context, key client.ObjectKey) error {
	p := &corev1.Pod{}
	if err := n.c.Get(ctx, key, p); err != nil {
		return err
	}
	now := metav1.Now()
	p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted"
	p.Status.Message = "The node was low on resource: ephemeral-storage."
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: now, Reason: "PodFailed"},
	}
	for i := range p.Status.ContainerStatuses {
		c := &p.Status.ContainerStatuses[i]
		c.Ready, c.Started = false, ptr.To(false)
		c.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", FinishedAt: now}}
	}
	return n.c.Status().Update(ctx, p)
}

func (n *Nodes) run(ctx context.Context) {
	t := time.NewTicker(n.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// Errors are transient conflicts with the controllers under
			// test; the next period retries.
			_ = n.step(ctx)
		}
	}
}

func (n *Nodes) step(ctx context.Context) error {
	nodes := &corev1.NodeList{}
	if err := n.c.List(ctx, nodes); err != nil {
		return err
	}
	sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
	ready := map[string]*corev1.Node{}
	for i := range nodes.Items {
		if workload.NodeReady(&nodes.Items[i]) {
			ready[nodes.Items[i].Name] = &nodes.Items[i]
		}
	}
	pods := &corev1.PodList{}
	if err := n.c.List(ctx, pods); err != nil {
		return err
	}
	// A claim is in use while a scheduled pod mounts it: an unscheduled
	// one never runs on a claim being deleted (claims), so it does not
	// hold the claim (pkg/controller/volume/pvcprotection, podUsesPVC,
	// v1.35).
	used := map[string]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && p.Spec.NodeName != "" {
				used[p.Namespace+"/"+v.PersistentVolumeClaim.ClaimName] = true
			}
		}
		switch {
		case p.DeletionTimestamp != nil:
			if p.Spec.NodeName == "" || ready[p.Spec.NodeName] != nil {
				_ = n.c.Delete(ctx, p, client.GracePeriodSeconds(0))
			}
		case p.Spec.NodeName == "":
			n.bind(ctx, p, nodes.Items, ready)
		case workload.PodTerminal(p):
		case ready[p.Spec.NodeName] != nil && p.Status.Phase != corev1.PodRunning:
			n.start(ctx, p, ready[p.Spec.NodeName])
		case ready[p.Spec.NodeName] != nil:
			n.restartChanged(ctx, p)
		}
	}
	pvcs := &corev1.PersistentVolumeClaimList{}
	if err := n.c.List(ctx, pvcs); err != nil {
		return err
	}
	for i := range pvcs.Items {
		pvc := &pvcs.Items[i]
		if pvc.DeletionTimestamp != nil && !used[pvc.Namespace+"/"+pvc.Name] && len(pvc.Finalizers) > 0 {
			pvc.Finalizers = nil
			if n.c.Update(ctx, pvc) == nil && strings.HasPrefix(pvc.Spec.VolumeName, volumePrefix) {
				// The volume goes with its claim.
				_ = n.c.Delete(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvc.Spec.VolumeName}})
			}
		}
	}
	if err := n.readyDeployments(ctx); err != nil {
		return err
	}
	return nil
}

// readyDeployments stands in for the deployment controller: it creates no
// ReplicaSets or pods, but sets the status of each Deployment that is not
// being deleted as if all spec.replicas had rolled out and were ready and
// available, so controllers that wait on readyReplicas can be tested.
func (n *Nodes) readyDeployments(ctx context.Context) error {
	list := &appsv1.DeploymentList{}
	if err := n.c.List(ctx, list); err != nil {
		return err
	}
	for i := range list.Items {
		d := &list.Items[i]
		if d.DeletionTimestamp != nil {
			continue
		}
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		s := d.Status
		if s.ObservedGeneration == d.Generation && s.Replicas == want && s.ReadyReplicas == want && s.AvailableReplicas == want && s.UpdatedReplicas == want {
			continue
		}
		d.Status.ObservedGeneration = d.Generation
		d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = want, want, want, want
		d.Status.UnavailableReplicas = 0
		_ = n.c.Status().Update(ctx, d)
	}
	return nil
}

func (n *Nodes) bind(ctx context.Context, p *corev1.Pod, nodes []corev1.Node, ready map[string]*corev1.Node) {
	claims, pinned, err := n.claims(ctx, p)
	if err != nil {
		n.unschedulable(ctx, p, err.Error())
		return
	}
	var fits []string
	var notReady, volume, cordoned, tainted, matching int
	// The pod's node selector and required node affinity, as the
	// scheduler's NodeAffinity plugin matches them.
	affinity := nodeaffinity.GetRequiredNodeAffinity(p)
	for _, node := range nodes {
		if ok, err := affinity.Match(&node); !ok || err != nil {
			continue
		}
		matching++
		switch {
		case ready[node.Name] == nil:
			notReady++
		case pinned != "" && pinned != node.Name:
			volume++
		case node.Spec.Unschedulable && !tolerates(p, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}):
			cordoned++
		case untolerated(p, node.Spec.Taints):
			tainted++
		default:
			fits = append(fits, node.Name)
		}
	}
	if len(fits) == 0 {
		// It stays Pending, as with a real scheduler, which says why on
		// the pod's PodScheduled condition. Only the nodes its selector
		// matches count: nodes are cluster-wide, and a count of all of
		// them would change with what else shares the API server.
		why := "no node matches the Pod's node selector"
		if matching > 0 {
			why = fmt.Sprintf("0/%d nodes matching the Pod's node selector are available: %d node(s) were not ready, %d node(s) had volume node affinity conflict", matching, notReady, volume)
			if cordoned+tainted > 0 {
				why += fmt.Sprintf(", %d node(s) were unschedulable, %d node(s) had untolerated taints", cordoned, tainted)
			}
		}
		n.unschedulable(ctx, p, why)
		return
	}
	n.mu.Lock()
	target := fits[n.rr%len(fits)]
	n.rr++
	n.mu.Unlock()
	for _, pvc := range claims {
		if pvc.Spec.VolumeName == "" && n.provision(ctx, pvc, target) != nil {
			return // retried next period
		}
	}
	_ = n.c.SubResource("binding").Create(ctx, p, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		Target:     corev1.ObjectReference{Kind: "Node", Name: target},
	})
}

// untolerated reports whether one of taints keeps pod p off its node, as
// kube-scheduler's TaintToleration filter does: a NoSchedule or NoExecute
// taint the pod does not tolerate (PreferNoSchedule only scores).
func untolerated(p *corev1.Pod, taints []corev1.Taint) bool {
	_, found := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), taints, p.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return found
}

// tolerates reports whether pod p tolerates taint, as kube-scheduler's
// NodeUnschedulable filter asks of a cordoned node's
// node.kubernetes.io/unschedulable.
func tolerates(p *corev1.Pod, taint corev1.Taint) bool {
	return corev1helpers.TolerationsTolerateTaint(klog.Background(), p.Spec.Tolerations, &taint, false)
}

// unschedulable marks pod p as the scheduler marks a pod it cannot place:
// its PodScheduled condition False, reason Unschedulable, with why
// (kube-scheduler's handleSchedulingFailure, whose message counts every
// node by reason; the stand-in's counts only the nodes the pod's selector
// matches, by its own reasons). It writes only a change.
func (n *Nodes) unschedulable(ctx context.Context, p *corev1.Pod, why string) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message == why {
			return
		}
	}
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: why, LastTransitionTime: metav1.Now()}}
	_ = n.c.Status().Update(ctx, p)
}

// volumePrefix starts the names of the volumes the stand-in provisions.
const volumePrefix = "testenv-"

// provision binds claim pvc, mounted by a pod bound to node, to a new
// PersistentVolume, as a provisioner and the volume binder would: a
// node-local claim to a local volume that only that node can use (required
// node affinity on its hostname), the claim annotated with the node; any
// other to a volume every node can use.
func (n *Nodes) provision(ctx context.Context, pvc *corev1.PersistentVolumeClaim, node string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: volumePrefix + string(pvc.UID)},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:         corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:      pvc.Spec.AccessModes,
			StorageClassName: ptr.Deref(pvc.Spec.StorageClassName, ""),
			ClaimRef:         &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/mnt/volumes/" + string(pvc.UID),
			}},
		},
	}
	if local(pvc) {
		pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/local/" + string(pvc.UID)}}
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: HostnameLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}}}
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, SelectedNode, node)
	}
	if err := n.c.Create(ctx, pv); err != nil && !kerrors.IsAlreadyExists(err) {
		return err
	}
	pvc.Spec.VolumeName = pv.Name
	if err := n.c.Update(ctx, pvc); err != nil {
		return err
	}
	pvc.Status.Phase = corev1.ClaimBound
	pvc.Status.AccessModes = pvc.Spec.AccessModes
	pvc.Status.Capacity = pv.Spec.Capacity
	return n.c.Status().Update(ctx, pvc)
}

// local reports whether claim pvc asks for a node-local volume.
func local(pvc *corev1.PersistentVolumeClaim) bool {
	return ptr.Deref(pvc.Spec.StorageClassName, "") == NodeLocalStorageClass
}

// claims are the volume claims pod p mounts, and the node a node-local one
// already lives on ("" when none does); or why the pod cannot be placed:
// a claim is missing or being deleted, as kube-scheduler's VolumeBinding
// filter refuses it (pkg/scheduler/framework/plugins/volumebinding,
// podHasPVCs, v1.35), which keeps a pod made anew off the claim of a lost
// disk until the claim is made anew too.
func (n *Nodes) claims(ctx context.Context, p *corev1.Pod) ([]*corev1.PersistentVolumeClaim, string, error) {
	var out []*corev1.PersistentVolumeClaim
	pinned := ""
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		pvc := &corev1.PersistentVolumeClaim{}
		switch err := n.c.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: v.PersistentVolumeClaim.ClaimName}, pvc); {
		case kerrors.IsNotFound(err):
			return nil, "", fmt.Errorf("persistentvolumeclaim %q not found", v.PersistentVolumeClaim.ClaimName)
		case err != nil:
			return nil, "", err
		}
		if pvc.DeletionTimestamp != nil {
			return nil, "", fmt.Errorf("persistentvolumeclaim %q is being deleted", pvc.Name)
		}
		out = append(out, pvc)
		if node := pvc.Annotations[SelectedNode]; local(pvc) && node != "" {
			pinned = node
		}
	}
	return out, pinned, nil
}

func (n *Nodes) start(ctx context.Context, p *corev1.Pod, node *corev1.Node) {
	n.mu.Lock()
	n.nextIP[node.Name]++
	ip := fmt.Sprintf("%s.%d", node.Annotations["test/ip-prefix"], n.nextIP[node.Name])
	n.mu.Unlock()
	now := metav1.Now()
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP, p.Status.HostIP = ip, ip
	p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	p.Status.StartTime = &now
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
	p.Status.ContainerStatuses = nil
	main := workload.MainContainer(p)
	for _, c := range p.Spec.Containers {
		status := corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}
		if main != nil && c.Name == main.Name && !workload.MonitorStarts(p) {
			status = crashLooping(c, now)
			p.Status.Conditions[1] = corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: now, Reason: "ContainersNotReady"}
		}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, status)
	}
	_ = n.c.Status().Update(ctx, p)
}

// CrashLoopBackOff reports whether pod p runs, not ready, with its main
// container backing off before a restart: what a kubelet shows of a
// container that fails as it starts (crashLooping).
func CrashLoopBackOff(p *corev1.Pod) bool {
	main := workload.MainContainer(p)
	if main == nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return false
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == main.Name && c.State.Waiting != nil && c.State.Waiting.Reason == "CrashLoopBackOff" {
			return true
		}
	}
	return false
}

// crashLooping is the status a kubelet gives container c when the command
// it names is not in its image (a CrashLoop drill's): the runtime fails it
// as it starts (exit code 128, StartError), and the kubelet backs off
// before each restart (CrashLoopBackOff; kubernetes pkg/kubelet/container
// sync_result.go and pkg/kubelet/kuberuntime, v1.35). The pod runs, never
// ready.
func crashLooping(c corev1.Container, now metav1.Time) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name: c.Name, Image: c.Image, RestartCount: 1,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off 10s restarting failed container=%s", c.Name)}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 128, Reason: "StartError",
			Message: fmt.Sprintf("exec: %q: executable file not found in $PATH", c.Command[0]), StartedAt: now, FinishedAt: now}},
	}
}

// restartChanged restarts, as a kubelet does, the containers of a running
// pod whose image was changed in place: each runs its new image, ready,
// with one more restart.
func (n *Nodes) restartChanged(ctx context.Context, p *corev1.Pod) {
	images := map[string]string{}
	for _, c := range p.Spec.Containers {
		images[c.Name] = c.Image
	}
	changed := false
	for i := range p.Status.ContainerStatuses {
		st := &p.Status.ContainerStatuses[i]
		if img, ok := images[st.Name]; ok && img != st.Image {
			st.Image, st.Ready, st.RestartCount, changed = img, true, st.RestartCount+1, true
			st.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}
		}
	}
	if changed {
		_ = n.c.Status().Update(ctx, p)
	}
}
