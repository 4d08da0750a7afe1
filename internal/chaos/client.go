package chaos

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// errCrashed is what every call of a crashed provider returns: the process
// is gone, its remaining code runs against nothing.
const errCrashed = "cannot reach the API server: the provider crashed"

// A write is one API write the provider made, for the checks.
type write struct {
	verb string
	obj  client.Object
	// groupsSeen is the snapshot of ProcessGroups, by index in the
	// history, the writer's cache served when it wrote: what a Cluster's
	// status sums up.
	groupsSeen int
	// asOf is when the oldest snapshot the writer's cache could serve was
	// taken (view.asOf), or the database status it used was read when
	// that is older (statusReads.asOf): what the write makes of the
	// world, it made of the world as of then.
	asOf time.Time
}

// providerClient is the client of one provider incarnation: reads of the
// watched kinds come from its lagging view (its informer caches), other
// reads and every write go to the API server, so optimistic concurrency
// conflicts happen as in production. After each successful write, crash
// decides whether the provider dies there.
type providerClient struct {
	client.Client
	view  *view
	reads *statusReads
	crash func() bool
	// dead is set once the provider crashed: every later call fails.
	dead   bool
	writes []write
}

func (c *providerClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return errors.Wrap(err, errKindOf)
	}
	if !c.view.h.watched(gvk) {
		return c.Client.Get(ctx, key, obj, opts...)
	}
	return c.view.get(gvk, key, obj)
}

func (c *providerClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	gvk, err := itemKind(list, c.Scheme())
	if err != nil {
		return err
	}
	if !c.view.h.watched(gvk) {
		return c.Client.List(ctx, list, opts...)
	}
	return c.view.list(gvk, list, opts...)
}

// asOf is when the world obj's status, as this provider made it now, was
// read: the older of its view and the database status it used.
func (c *providerClient) asOf(obj client.Object) time.Time {
	return c.reads.asOf(obj, c.view.asOf())
}

// wrote records a write that succeeded and decides whether the provider
// crashes right after it.
func (c *providerClient) wrote(verb string, obj client.Object, err error) error {
	if err != nil {
		return err
	}
	c.writes = append(c.writes, write{verb: verb, obj: obj.DeepCopyObject().(client.Object), groupsSeen: c.view.served[groupKind], asOf: c.asOf(obj)})
	if c.crash() {
		c.dead = true
	}
	return nil
}

func (c *providerClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	return c.wrote("create", obj, c.Client.Create(ctx, obj, opts...))
}

func (c *providerClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	return c.wrote("update", obj, c.Client.Update(ctx, obj, opts...))
}

func (c *providerClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	return c.wrote("patch", obj, c.Client.Patch(ctx, obj, patch, opts...))
}

func (c *providerClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	return c.wrote("delete", obj, c.Client.Delete(ctx, obj, opts...))
}

func (c *providerClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	if c.dead {
		return errors.New(errCrashed)
	}
	return c.wrote("deleteAllOf", obj, c.Client.DeleteAllOf(ctx, obj, opts...))
}

func (c *providerClient) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *providerClient) SubResource(name string) client.SubResourceClient {
	return &subResource{SubResourceClient: c.Client.SubResource(name), c: c, name: name}
}

// subResource writes a subresource (status, binding) through the provider
// client's crash and record path.
type subResource struct {
	client.SubResourceClient
	c    *providerClient
	name string
}

func (s *subResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	if s.c.dead {
		return errors.New(errCrashed)
	}
	return s.c.wrote(s.name+"/create", obj, s.SubResourceClient.Create(ctx, obj, sub, opts...))
}

func (s *subResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if s.c.dead {
		return errors.New(errCrashed)
	}
	return s.c.wrote(s.name+"/update", obj, s.SubResourceClient.Update(ctx, obj, opts...))
}

func (s *subResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if s.c.dead {
		return errors.New(errCrashed)
	}
	return s.c.wrote(s.name+"/patch", obj, s.SubResourceClient.Patch(ctx, obj, patch, opts...))
}

// podDeletes returns the pods among the writes that were deleted.
func podDeletes(ws []write) []*corev1.Pod {
	var out []*corev1.Pod
	for _, w := range ws {
		if p, ok := w.obj.(*corev1.Pod); ok && w.verb == "delete" {
			out = append(out, p)
		}
	}
	return out
}

// recorder is a client of the API server that marks the kind of every
// write in the history, so that the next snapshot lists it anew. Every
// writer of the run goes through one: the harness, the stand-in kubelets
// and the provider. It reads the watched kinds in the run's namespace from
// the history brought up to date — what the API server would answer, at a
// fraction of the requests — and everything else from the API server.
type recorder struct {
	client.Client
	h *history
}

func (c *recorder) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return errors.Wrap(err, errKindOf)
	}
	if !c.h.holds(gvk, key.Namespace) {
		return c.Client.Get(ctx, key, obj, opts...)
	}
	if err := c.h.refresh(ctx); err != nil {
		return err
	}
	return c.h.now.get(gvk, key, obj, asIs)
}

func (c *recorder) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := itemKind(list, c.Scheme())
	if err != nil {
		return err
	}
	if !c.h.holds(gvk, (&client.ListOptions{}).ApplyOptions(opts).Namespace) {
		return c.Client.List(ctx, list, opts...)
	}
	if err := c.h.refresh(ctx); err != nil {
		return err
	}
	return c.h.now.list(gvk, list, asIs, opts...)
}

// asIs serves an object as the history holds it.
func asIs(o client.Object) client.Object { return o }

func (c *recorder) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return c.h.wrote(obj, false, c.Client.Create(ctx, obj, opts...))
}

func (c *recorder) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.h.wrote(obj, false, c.Client.Update(ctx, obj, opts...))
}

func (c *recorder) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.h.wrote(obj, false, c.Client.Patch(ctx, obj, patch, opts...))
}

func (c *recorder) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return c.h.wrote(obj, true, c.Client.Delete(ctx, obj, opts...))
}

func (c *recorder) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	return c.h.wrote(obj, true, c.Client.DeleteAllOf(ctx, obj, opts...))
}

func (c *recorder) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *recorder) SubResource(name string) client.SubResourceClient {
	return &recordedSubResource{SubResourceClient: c.Client.SubResource(name), h: c.h}
}

type recordedSubResource struct {
	client.SubResourceClient
	h *history
}

func (s *recordedSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	return s.h.wrote(obj, true, s.SubResourceClient.Create(ctx, obj, sub, opts...))
}

func (s *recordedSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	return s.h.wrote(obj, false, s.SubResourceClient.Update(ctx, obj, opts...))
}

func (s *recordedSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	return s.h.wrote(obj, false, s.SubResourceClient.Patch(ctx, obj, patch, opts...))
}
