package managedkind

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
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
// would return the object unchanged.
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
// the second, empty values omitted). Anything it cannot tell counts as a
// change.
func (s quietStatus) unchanged(ctx context.Context, obj client.Object) bool {
	stored, ok := obj.DeepCopyObject().(client.Object)
	if !ok || s.reader.Get(ctx, client.ObjectKeyFromObject(obj), stored) != nil {
		return false
	}
	if stored.GetResourceVersion() != obj.GetResourceVersion() {
		return false
	}
	want, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false
	}
	got, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(stored)
	if err != nil {
		return false
	}
	return equality.Semantic.DeepEqual(want["status"], got["status"])
}
