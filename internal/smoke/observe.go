package smoke

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// observer counts what the report shows of a phase: the Cluster's pods and
// processes when it ends, the events last seen during it, and the
// safety-policy decisions its polls saw.
type observer struct {
	c         client.Client
	namespace string
	cluster   string
	since     time.Time
	decisions map[string]bool
}

func newObserver(c client.Client, namespace, cluster string) *observer {
	return &observer{c: c, namespace: namespace, cluster: cluster}
}

// start begins a phase.
func (o *observer) start() {
	o.since = time.Now().Truncate(time.Second) // events carry whole seconds
	o.decisions = map[string]bool{}
}

// observe records the policy decisions on the Cluster and its process
// groups; it is best effort, as the Cluster may not exist (yet, or any
// more).
func (o *observer) observe(ctx context.Context) {
	cr := &v1alpha1.Cluster{}
	if err := o.c.Get(ctx, client.ObjectKey{Namespace: o.namespace, Name: o.cluster}, cr); err == nil {
		o.record(string(cr.UID), cr.GetLastPolicyDecision())
	}
	groups, err := o.groups(ctx)
	if err != nil {
		return
	}
	for i := range groups {
		o.record(string(groups[i].UID), groups[i].GetLastPolicyDecision())
	}
}

func (o *observer) record(uid string, d *v1alpha1.PolicyDecision) {
	if d == nil || d.Time.Time.Before(o.since) {
		return
	}
	o.decisions[fmt.Sprintf("%s/%s/%s/%s", uid, d.Action, d.Result, d.Time.UTC().Format(time.RFC3339Nano))] = true
}

// groups lists the Cluster's process groups.
func (o *observer) groups(ctx context.Context) ([]v1alpha1.ProcessGroup, error) {
	l := &v1alpha1.ProcessGroupList{}
	if err := o.c.List(ctx, l, client.InNamespace(o.namespace), client.MatchingLabels{workload.LabelCluster: o.cluster}); err != nil {
		return nil, fmt.Errorf("cannot list process groups: %w", err)
	}
	return l.Items, nil
}

// pods lists the pods of the Cluster's process groups.
func (o *observer) pods(ctx context.Context) ([]corev1.Pod, error) {
	l := &corev1.PodList{}
	if err := o.c.List(ctx, l, client.InNamespace(o.namespace), client.MatchingLabels{workload.LabelCluster: o.cluster}, client.HasLabels{workload.LabelProcessGroup}); err != nil {
		return nil, fmt.Errorf("cannot list pods: %w", err)
	}
	return l.Items, nil
}

// counts observes once more and counts.
func (o *observer) counts(ctx context.Context) (Counts, error) {
	o.observe(ctx)
	n := Counts{Decisions: len(o.decisions)}
	pods, err := o.pods(ctx)
	if err != nil {
		return n, err
	}
	n.Pods = len(pods)
	groups, err := o.groups(ctx)
	if err != nil {
		return n, err
	}
	for _, g := range groups {
		n.Processes += len(g.Status.AtProvider.ProcessIDs)
	}
	events := &corev1.EventList{}
	if err := o.c.List(ctx, events, client.InNamespace(o.namespace)); err != nil && !kerrors.IsNotFound(err) {
		return n, fmt.Errorf("cannot list events: %w", err)
	}
	for i := range events.Items {
		if e := &events.Items[i]; o.about(e) && !lastSeen(e).Before(o.since) {
			n.Events++
		}
	}
	return n, nil
}

// about reports whether e is about the Cluster or one of its objects: its
// process groups, pods and volume claims are named <cluster>-<group>.
func (o *observer) about(e *corev1.Event) bool {
	name := e.InvolvedObject.Name
	return name == o.cluster || strings.HasPrefix(name, o.cluster+"-")
}

// lastSeen is when an event last happened: events.k8s.io events (the
// scheduler's) carry only their event time.
func lastSeen(e *corev1.Event) time.Time {
	for _, t := range []time.Time{e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return e.CreationTimestamp.Time
}
