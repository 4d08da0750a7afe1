// Package nodetaint matches a node's taints against a Cluster's
// automation.taintReplacements: whether the node announces planned
// maintenance that gets the process groups on it replaced, and how long it
// must have done so first. Every function is pure.
package nodetaint

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// Wildcard is the key of the entry that matches every taint key no other
// entry names.
const Wildcard = "*"

// A Match is the taint of a node that an entry names.
type Match struct {
	Key string
	// Added is when the taint was added, when the API server recorded it
	// (only for NoExecute taints); nil otherwise.
	Added *metav1.Time
	// After is how long the node must carry it before its groups are
	// replaced.
	After time.Duration
}

// Of returns the taint of node n that rules name, if any: each taint is
// matched by the entry of its key, else by the wildcard's. A cordoned node
// (spec.unschedulable) carries node.kubernetes.io/unschedulable, as the
// node controller adds it, even before it does. Of several matches the one
// replaced soonest wins.
func Of(n *corev1.Node, rules []v1alpha1.TaintReplacement) (Match, bool) {
	if n == nil || len(rules) == 0 {
		return Match{}, false
	}
	taints := n.Spec.Taints
	if n.Spec.Unschedulable {
		taints = append([]corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}, taints...)
	}
	var best Match
	found := false
	for _, t := range taints {
		rule, ok := ruleFor(t.Key, rules)
		if !ok {
			continue
		}
		m := Match{Key: t.Key, Added: t.TimeAdded, After: time.Duration(rule.DurationInSeconds) * time.Second}
		if !found || m.After < best.After {
			best, found = m, true
		}
	}
	return best, found
}

// ruleFor is the entry that names key: its own, else the wildcard's.
func ruleFor(key string, rules []v1alpha1.TaintReplacement) (v1alpha1.TaintReplacement, bool) {
	if key == "" {
		return v1alpha1.TaintReplacement{}, false
	}
	var wildcard *v1alpha1.TaintReplacement
	for i, r := range rules {
		switch r.Key {
		case key:
			return r, true
		case Wildcard:
			wildcard = &rules[i]
		}
	}
	if wildcard == nil {
		return v1alpha1.TaintReplacement{}, false
	}
	return *wildcard, true
}
