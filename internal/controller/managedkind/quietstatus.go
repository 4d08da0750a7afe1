package managedkind

import (
	"context"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// quietManager hands crossplane-runtime's managed reconciler a client
// whose status updates are skipped when they would change nothing. The
// reconciler ends every reconcile with a status update, also when the
// status it read is the status it writes: the API server then writes
// nothing to etcd but still decodes, validates, admits and compares the
// whole object. At steady state — and for most reconciles of a fleet —
// that is the provider's entire API load.
type quietManager struct {
	ctrl.Manager
}

func (m quietManager) GetClient() client.Client {
	return quietClient{Client: m.Manager.GetClient()}
}

// quietClient is a client whose status updates are quiet.
type quietClient struct {
	client.Client
}

func (c quietClient) Status() client.SubResourceWriter {
	return quietStatus{SubResourceWriter: c.Client.Status(), reader: c.Client}
}

// quietStatus updates an object's status unless the object it was read
// as is still what the client reads, status and all: then the API server
// would return the object unchanged. A condition that is what the stored
// one says but for its transition time keeps the stored time: it did not
// transition. crossplane-runtime stamps the wall clock on a condition set
// anew within a reconcile (a deleted resource's Ready is Deleting, set
// again after Observe set it otherwise), and whether that time differs
// from the stored one, to the second, would otherwise decide whether the
// status is written (chaos seed 1 at 71b0477 with pod evictions: a
// replay wrote once more when a second boundary fell between two
// reconciles).
type quietStatus struct {
	client.SubResourceWriter
	reader client.Reader
}

func (s quietStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if len(opts) == 0 && s.unchanged(ctx, obj) {
		return nil
	}
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

// unchanged reports whether the client reads obj at obj's resource version
// with the status obj has, compared as the API server stores it (times to
// the second, empty values omitted), once obj's conditions that did not
// transition keep their stored times (keepTransitionTimes). Anything it
// cannot tell counts as a change.
func (s quietStatus) unchanged(ctx context.Context, obj client.Object) bool {
	stored, ok := obj.DeepCopyObject().(client.Object)
	if !ok || s.reader.Get(ctx, client.ObjectKeyFromObject(obj), stored) != nil {
		return false
	}
	if stored.GetResourceVersion() != obj.GetResourceVersion() {
		return false
	}
	got, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(stored)
	if err != nil {
		return false
	}
	want, err := keepTransitionTimes(obj, got)
	if err != nil {
		return false
	}
	return equality.Semantic.DeepEqual(want["status"], got["status"])
}

// keepTransitionTimes gives each of obj's status conditions that equals
// the condition of its type in stored (obj as stored, unstructured) but
// for its lastTransitionTime the stored time, and returns obj
// unstructured as it then is.
func keepTransitionTimes(obj client.Object, stored map[string]any) (map[string]any, error) {
	want, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	conds, _, _ := unstructured.NestedSlice(want, "status", "conditions")
	before, _, _ := unstructured.NestedSlice(stored, "status", "conditions")
	kept := false
	for i, c := range conds {
		cur, ok := c.(map[string]any)
		if !ok {
			continue
		}
		for _, b := range before {
			if old, ok := b.(map[string]any); ok && old["type"] == cur["type"] && sameButTime(cur, old) && cur[lastTransitionTime] != old[lastTransitionTime] {
				cur[lastTransitionTime], conds[i], kept = old[lastTransitionTime], cur, true
			}
		}
	}
	if !kept {
		return want, nil
	}
	if err := unstructured.SetNestedSlice(want, conds, "status", "conditions"); err != nil {
		return nil, err
	}
	return want, kruntime.DefaultUnstructuredConverter.FromUnstructured(want, obj)
}

// lastTransitionTime is the key of a condition's transition time.
const lastTransitionTime = "lastTransitionTime"

// sameButTime reports whether conditions a and b are equal but for their
// transition times.
func sameButTime(a, b map[string]any) bool {
	a, b = maps.Clone(a), maps.Clone(b)
	delete(a, lastTransitionTime)
	delete(b, lastTransitionTime)
	return equality.Semantic.DeepEqual(a, b)
}
