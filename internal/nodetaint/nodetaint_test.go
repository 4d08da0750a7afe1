package nodetaint

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

func TestOf(t *testing.T) {
	added := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	node := func(unschedulable bool, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: unschedulable, Taints: taints}}
	}
	maintenance := corev1.Taint{Key: "example.org/maintenance", Effect: corev1.TaintEffectNoSchedule}
	other := corev1.Taint{Key: "example.org/other", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}
	rules := []v1alpha1.TaintReplacement{{Key: "example.org/maintenance", DurationInSeconds: 600}, {Key: Wildcard, DurationInSeconds: 3600}}
	type want struct {
		m  Match
		ok bool
	}
	cases := map[string]struct {
		reason string
		node   *corev1.Node
		rules  []v1alpha1.TaintReplacement
		want   want
	}{
		"NoRules": {
			reason: "Without entries taints are ignored.",
			node:   node(false, maintenance),
		},
		"NoNode": {
			reason: "A pod on no node (yet) has no taint.",
			rules:  rules,
		},
		"Untainted": {
			reason: "A node without taints announces nothing.",
			node:   node(false),
			rules:  rules,
		},
		"ExactKey": {
			reason: "A taint is matched by the entry of its key.",
			node:   node(false, maintenance),
			rules:  rules,
			want:   want{Match{Key: "example.org/maintenance", After: 10 * time.Minute}, true},
		},
		"Wildcard": {
			reason: "A taint no entry names is matched by the wildcard, with the time the API server recorded it was added.",
			node:   node(false, other),
			rules:  rules,
			want:   want{Match{Key: "example.org/other", Added: &added, After: time.Hour}, true},
		},
		"NoWildcard": {
			reason: "Without a wildcard a taint no entry names is ignored.",
			node:   node(false, other),
			rules:  rules[:1],
		},
		"SoonestWins": {
			reason: "Of several matching taints the one replaced soonest wins.",
			node:   node(false, other, maintenance),
			rules:  rules,
			want:   want{Match{Key: "example.org/maintenance", After: 10 * time.Minute}, true},
		},
		"Cordoned": {
			reason: "A cordoned node carries node.kubernetes.io/unschedulable before the node controller adds it.",
			node:   node(true),
			rules:  []v1alpha1.TaintReplacement{{Key: corev1.TaintNodeUnschedulable, DurationInSeconds: 0}},
			want:   want{Match{Key: corev1.TaintNodeUnschedulable}, true},
		},
		"CordonNotNamed": {
			reason: "A cordon counts only when an entry names its taint (or the wildcard does).",
			node:   node(true),
			rules:  rules[:1],
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m, ok := Of(tc.node, tc.rules)
			if diff := cmp.Diff(tc.want, want{m, ok}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
