package localrun

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
)

// group of the managed resources.
const mrGroup = "foundationdb.m.crossplane.io"

// watched are the kinds a run reports on, one line per resource;
// ProcessGroups are many, so they get one line for all.
var watched = []string{"Cluster", "Backup", "Restore"}

// line is what a person watching the quickstart sees of one resource.
type line struct {
	Key    string // Kind/name
	Ready  string // the Ready condition's status and reason
	Synced string
	Detail string // kind-specific facts
	Event  string // the last event: reason and message
	Policy string // the last safety-policy decision
}

// String renders the line: the conditions and details, then the event and
// the policy decision each on a line of its own, indented by indent.
func (l line) String(indent string) string {
	s := strings.TrimRight(fmt.Sprintf("%-26s Ready=%-18s Synced=%-5s %s", l.Key, l.Ready, l.Synced, l.Detail), " ")
	for _, p := range []struct{ label, v string }{{"event:  ", l.Event}, {"policy: ", l.Policy}} {
		if p.v != "" {
			s += "\n" + indent + p.label + p.v
		}
	}
	return s
}

// condition returns a condition's status and, when not True, its reason.
func condition(u *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != typ {
			continue
		}
		s, _ := m["status"].(string)
		if r, _ := m["reason"].(string); s != "True" && r != "" {
			s += " (" + r + ")"
		}
		return s
	}
	return "-"
}

// detail says what matters of a resource beyond its conditions.
func detail(u *unstructured.Unstructured) string {
	switch u.GetKind() {
	case "Cluster":
		total, _, _ := unstructured.NestedInt64(u.Object, "status", "atProvider", "processGroups", "total")
		excluded, _, _ := unstructured.NestedInt64(u.Object, "status", "atProvider", "processGroups", "excluded")
		available, _, _ := unstructured.NestedBool(u.Object, "status", "atProvider", "health", "available")
		ft, _, _ := unstructured.NestedInt64(u.Object, "status", "atProvider", "health", "faultTolerance")
		s := fmt.Sprintf("%d process groups", total)
		if excluded > 0 {
			s += fmt.Sprintf(", %d excluded", excluded)
		}
		if available {
			s += fmt.Sprintf(", available, fault tolerance %d", ft)
		}
		return s + operations(u)
	case "Backup":
		st, _, _ := unstructured.NestedString(u.Object, "status", "atProvider", "state")
		if st != "" {
			return "state " + st
		}
	}
	return ""
}

// operations renders status.atProvider.operations: "; Upgrade to 7.3.69 2/5
// since 10:04:00".
func operations(u *unstructured.Unstructured) string {
	ops, _, _ := unstructured.NestedSlice(u.Object, "status", "atProvider", "operations")
	var s string
	for _, o := range ops {
		m, _ := o.(map[string]any)
		str := func(k string) string { v, _ := m[k].(string); return v }
		num := func(k string) int64 { v, _ := m[k].(int64); return v }
		s += "; " + str("operation")
		if t := str("target"); t != "" {
			s += " to " + t
		}
		s += fmt.Sprintf(" %d/%d", num("done"), num("total"))
		if since, err := time.Parse(time.RFC3339, str("since")); err == nil {
			s += " since " + since.UTC().Format(time.TimeOnly)
		}
	}
	return s
}

// lastDecision renders status.atProvider.lastPolicyDecision.
func lastDecision(u *unstructured.Unstructured) string {
	d, ok, _ := unstructured.NestedMap(u.Object, "status", "atProvider", "lastPolicyDecision")
	if !ok {
		return ""
	}
	str := func(k string) string { s, _ := d[k].(string); return s }
	s := str("action")
	if t, _, _ := unstructured.NestedStringSlice(d, "targets"); len(t) > 0 {
		s += " " + strings.Join(t, ",")
	}
	s += ": " + str("result")
	if r := str("rule"); r != "" {
		s += " by " + r
	}
	// An allowed action's message only repeats it.
	if m := str("message"); m != "" && str("result") != "Allowed" {
		s += " — " + m
	}
	return s
}

// eventKey identifies the object an event is about.
func eventKey(kind, name string) string { return kind + "/" + name }

// stamped is a rendered event or decision with its time.
type stamped struct {
	text string
	at   time.Time
}

// newest returns the later of two.
func newest(a, b stamped) stamped {
	if b.at.After(a.at) {
		return b
	}
	return a
}

// uninformative are the events crossplane-runtime records after every
// write, which would hide the provider's own.
var uninformative = map[string]bool{"CreatedExternalResource": true, "UpdatedExternalResource": true}

// lastEvents keeps the newest informative event of each object.
func lastEvents(events []corev1.Event) map[string]stamped {
	last := map[string]stamped{}
	for _, e := range events {
		if uninformative[e.Reason] {
			continue
		}
		k := eventKey(e.InvolvedObject.Kind, e.InvolvedObject.Name)
		last[k] = newest(last[k], stamped{e.Reason + ": " + e.Message, eventTime(e)})
	}
	return last
}

func eventTime(e corev1.Event) time.Time {
	switch {
	case e.Series != nil:
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// decisionTime is when status.atProvider.lastPolicyDecision was made.
func decisionTime(u *unstructured.Unstructured) time.Time {
	s, _, _ := unstructured.NestedString(u.Object, "status", "atProvider", "lastPolicyDecision", "time")
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// lines turns the watched resources, their process groups and events into
// report lines, in a stable order. The process groups share one line, with
// the newest event and policy decision among them.
func lines(objs, groups []unstructured.Unstructured, events []corev1.Event) []line {
	last := lastEvents(events)
	var out []line
	for i := range objs {
		u := &objs[i]
		out = append(out, line{
			Key:    eventKey(u.GetKind(), u.GetName()),
			Ready:  condition(u, "Ready"),
			Synced: condition(u, "Synced"),
			Detail: detail(u),
			Event:  last[eventKey(u.GetKind(), u.GetName())].text,
			Policy: lastDecision(u),
		})
	}
	if len(groups) > 0 {
		out = append(out, groupsLine(groups, last))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func groupsLine(groups []unstructured.Unstructured, last map[string]stamped) line {
	ready, excluded := 0, 0
	byClass := map[string]int{}
	var event, decision stamped
	for i := range groups {
		g := &groups[i]
		if condition(g, "Ready") == "True" {
			ready++
		}
		if x, _, _ := unstructured.NestedBool(g.Object, "status", "atProvider", "excluded"); x {
			excluded++
		}
		c, _, _ := unstructured.NestedString(g.Object, "spec", "forProvider", "processClass")
		byClass[c]++
		if e := last[eventKey(g.GetKind(), g.GetName())]; e.text != "" {
			event = newest(event, stamped{g.GetName() + " " + e.text, e.at})
		}
		if d := lastDecision(g); d != "" {
			decision = newest(decision, stamped{g.GetName() + " " + d, decisionTime(g)})
		}
	}
	classes := make([]string, 0, len(byClass))
	for c, n := range byClass {
		classes = append(classes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(classes)
	return line{
		Key: "ProcessGroups", Ready: fmt.Sprintf("%d/%d", ready, len(groups)), Synced: "-",
		Detail: fmt.Sprintf("%s; %d excluded", strings.Join(classes, ", "), excluded),
		Event:  event.text, Policy: decision.text,
	}
}

// nodesLine says how many nodes are Ready and, of each that is not, why
// and which pods are still on it.
func nodesLine(nodes []corev1.Node, pods []corev1.Pod) line {
	on := map[string][]string{}
	for _, p := range pods {
		on[p.Spec.NodeName] = append(on[p.Spec.NodeName], p.Name)
	}
	ready := 0
	var down []string
	for _, n := range nodes {
		status, reason := localcluster.NodeReady(&n)
		if status == corev1.ConditionTrue {
			ready++
			continue
		}
		s := fmt.Sprintf("%s Ready=%s", n.Name, status)
		if reason != "" {
			s += " (" + reason + ")"
		}
		if p := on[n.Name]; len(p) > 0 {
			sort.Strings(p)
			s += ", pods " + strings.Join(p, ", ")
		}
		down = append(down, s)
	}
	sort.Strings(down)
	return line{Key: "Nodes", Ready: fmt.Sprintf("%d/%d", ready, len(nodes)), Synced: "-", Detail: strings.Join(down, "; ")}
}

// Progress reports the resources of a namespace to a person: a line for each
// resource whenever it changes, and one for the nodes.
type Progress struct {
	c         client.Client
	namespace string
	out       io.Writer
	start     time.Time
	seen      map[string]string
}

// NewProgress reports on the managed resources in namespace to out.
func NewProgress(c client.Client, namespace string, out io.Writer) *Progress {
	return &Progress{c: c, namespace: namespace, out: out, start: time.Now(), seen: map[string]string{}}
}

// Report prints the lines that changed since the last report, and returns
// the watched resources.
func (p *Progress) Report(ctx context.Context) ([]unstructured.Unstructured, error) {
	var objs []unstructured.Unstructured
	for _, k := range watched {
		l, err := p.list(ctx, k)
		if err != nil {
			return nil, err
		}
		objs = append(objs, l...)
	}
	groups, err := p.list(ctx, "ProcessGroup")
	if err != nil {
		return nil, err
	}
	events := &corev1.EventList{}
	if err := p.c.List(ctx, events, client.InNamespace(p.namespace)); err != nil {
		return nil, fmt.Errorf("cannot list events: %w", err)
	}
	nodes := &corev1.NodeList{}
	if err := p.c.List(ctx, nodes); err != nil {
		return nil, fmt.Errorf("cannot list nodes: %w", err)
	}
	pods := &corev1.PodList{}
	if err := p.c.List(ctx, pods, client.InNamespace(p.namespace)); err != nil {
		return nil, fmt.Errorf("cannot list pods: %w", err)
	}
	for _, l := range append(lines(objs, groups, events.Items), nodesLine(nodes.Items, pods.Items)) {
		s := l.String("         ")
		if p.seen[l.Key] == s {
			continue
		}
		p.seen[l.Key] = s
		fmt.Fprintf(p.out, "[%5ds] %s\n", int(time.Since(p.start).Seconds()), s)
	}
	return objs, nil
}

func (p *Progress) list(ctx context.Context, kind string) ([]unstructured.Unstructured, error) {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(schema.GroupVersionKind{Group: mrGroup, Version: "v1alpha1", Kind: kind + "List"})
	if err := p.c.List(ctx, l, client.InNamespace(p.namespace)); err != nil {
		return nil, fmt.Errorf("cannot list %ss: %w", kind, err)
	}
	return l.Items, nil
}

// ReportUntil reports every period until done holds for the watched
// resources or ctx ends; with a nil done, until ctx ends.
func (p *Progress) ReportUntil(ctx context.Context, period time.Duration, done func([]unstructured.Unstructured) bool) error {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		objs, err := p.Report(ctx)
		if err == nil && done != nil && done(objs) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// ClusterReady holds when the named Cluster is among objs and Ready.
func ClusterReady(name string) func([]unstructured.Unstructured) bool {
	return func(objs []unstructured.Unstructured) bool {
		for i := range objs {
			if objs[i].GetKind() == "Cluster" && objs[i].GetName() == name {
				return condition(&objs[i], "Ready") == "True"
			}
		}
		return false
	}
}
