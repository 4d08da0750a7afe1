package localrun

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

func TestNextStepsFailANode(t *testing.T) {
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name, class, node string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{workload.LabelCluster: ClusterName, workload.LabelProcessClass: class}},
			Spec:       corev1.PodSpec{NodeName: node},
		}
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(
		pod("quickstart-log-1", "log", "node-zone-a-0"),
		pod("quickstart-storage-2", "storage", "node-zone-b-1"),
		pod("quickstart-stateless-1", "stateless", "node-zone-b-1"),
		pod("quickstart-storage-1", "storage", "node-zone-c-0"),
	).Build()
	o := DefaultOptions()
	r := &Run{Client: c, opts: o, st: state(t.TempDir()), cluster: newCluster(o, nil)}
	r.cluster.Binaries = localcluster.Binaries{}
	var b bytes.Buffer
	if err := r.NextSteps(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Fail a node: node-zone-b-1 runs quickstart-stateless-1, quickstart-storage-2.",
		"  kubectl annotate node node-zone-b-1 provider-foundationdb.dev/fail=true   # NotReady\n",
		"  kubectl annotate node node-zone-b-1 provider-foundationdb.dev/fail-        # Ready again\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("NextSteps does not print %q:\n%s", want, b.String())
		}
	}
}
