package chaos

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/clusterindex"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

const (
	errSnapshot = "cannot snapshot the API server"
	errKindOf   = "cannot tell the kind of an object"
	errNoIndex  = "cannot list by field %s: the provider's cache indexes no such field"
)

// A snapshot is the API server's objects of the watched kinds after one
// step, by kind, in the API server's order (namespace, name).
type snapshot map[schema.GroupVersionKind][]client.Object

// find returns the object named key of kind gvk, or nil.
func (s snapshot) find(gvk schema.GroupVersionKind, key client.ObjectKey) client.Object {
	for _, o := range s[gvk] {
		if o.GetName() == key.Name && o.GetNamespace() == key.Namespace {
			return o
		}
	}
	return nil
}

// history is every snapshot the harness took in one run, one per step:
// what the provider's informer caches could have shown at each step.
type history struct {
	live   client.Client
	scheme *runtime.Scheme
	// namespace limits the namespaced kinds to the run's namespace.
	namespace string
	kinds     []schema.GroupVersionKind
	snaps     []snapshot
	// takenAt is when each snapshot was taken, on the run's clock: it
	// holds what was written until then, and nothing written after, at
	// the same time or later (an operation between two steps).
	takenAt []time.Time
	// now is the API server's objects of the watched kinds as they are
	// now, but for the dirty kinds.
	now snapshot
	// writes counts the writes that succeeded, of any kind.
	writes int
	// dirty are the kinds written since now was brought up to date.
	// Nothing but the run's clients writes to the API server (envtest
	// runs no controllers), so the other kinds are as they were.
	dirty map[schema.GroupVersionKind]bool
}

// wrote takes in a write of obj that returned err: a create, update or
// patch that succeeded left obj as the API server stores it, which now
// takes as is; after any other write the kind is listed anew — a failed
// one, a deletion, and a write to an object being deleted (one that
// removes its last finalizer deletes it, yet answers with the object).
func (h *history) wrote(obj client.Object, deleted bool, err error) error {
	if err == nil {
		h.writes++
	}
	gvk, kerr := apiutil.GVKForObject(obj, h.scheme)
	if kerr != nil || !h.watched(gvk) {
		return err
	}
	if err != nil || deleted || obj.GetDeletionTimestamp() != nil || h.now == nil || h.dirty[gvk] || !h.covers(obj.GetNamespace()) {
		h.dirty[gvk] = true
		return err
	}
	stored := obj.DeepCopyObject().(client.Object)
	stored.GetObjectKind().SetGroupVersionKind(gvk)
	key := client.ObjectKeyFromObject(obj)
	items := h.now[gvk]
	i, found := slices.BinarySearchFunc(items, key, func(o client.Object, k client.ObjectKey) int {
		return strings.Compare(o.GetNamespace()+"/"+o.GetName(), k.Namespace+"/"+k.Name)
	})
	next := slices.Clone(items)
	if found {
		next[i] = stored
	} else {
		next = slices.Insert(next, i, stored)
	}
	h.now[gvk] = next
	return nil
}

// holds reports whether the history holds the objects of kind gvk in
// namespace ns: all of a cluster-scoped kind, those of its namespace of a
// namespaced one.
func (h *history) holds(gvk schema.GroupVersionKind, ns string) bool {
	return h.watched(gvk) && h.covers(ns)
}

// covers reports whether the history keeps objects of namespace ns (""
// for cluster-scoped ones).
func (h *history) covers(ns string) bool {
	return ns == "" || ns == h.namespace
}

// refresh brings now up to date: the kinds written since are listed anew
// from the API server, the others are as they were.
func (h *history) refresh(ctx context.Context) error {
	if h.now != nil && len(h.dirty) == 0 {
		return nil
	}
	s := snapshot{}
	for _, gvk := range h.kinds {
		if h.now != nil && !h.dirty[gvk] {
			s[gvk] = h.now[gvk]
			continue
		}
		items, err := h.list(ctx, gvk)
		if err != nil {
			return errors.Wrap(err, errSnapshot)
		}
		s[gvk] = items
	}
	h.now = s
	clear(h.dirty)
	return nil
}

// record appends the newest snapshot: the API server's objects now.
func (h *history) record(ctx context.Context, now time.Time) error {
	if err := h.refresh(ctx); err != nil {
		return err
	}
	h.snaps, h.takenAt = append(h.snaps, maps.Clone(h.now)), append(h.takenAt, now)
	return nil
}

// changed reports whether the newest snapshot differs from the one before
// in any of kinds.
func (h *history) changed(kinds ...schema.GroupVersionKind) bool {
	if len(h.snaps) < 2 {
		return true
	}
	for _, k := range kinds {
		if !slices.Equal(h.latest()[k], h.previous()[k]) {
			return true
		}
	}
	return false
}

func (h *history) list(ctx context.Context, gvk schema.GroupVersionKind) ([]client.Object, error) {
	obj, err := h.scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, err
	}
	list := obj.(client.ObjectList)
	var opts []client.ListOption
	if namespaced, err := apiutil.IsGVKNamespaced(gvk, h.live.RESTMapper()); err != nil {
		return nil, err
	} else if namespaced {
		opts = append(opts, client.InNamespace(h.namespace))
	}
	if err := h.live.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	objs, err := items(list)
	for _, o := range objs {
		o.GetObjectKind().SetGroupVersionKind(gvk) // as every object of the history has it, however it was read
	}
	return objs, err
}

// items returns a list's items as objects.
func items(list client.ObjectList) ([]client.Object, error) {
	raw, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, len(raw))
	for i, o := range raw {
		out[i] = o.(client.Object)
	}
	return out, nil
}

// latest is the newest snapshot.
func (h *history) latest() snapshot { return h.snaps[len(h.snaps)-1] }

// previous is the snapshot before the newest one (the newest when there is
// only one).
func (h *history) previous() snapshot { return h.snaps[max(len(h.snaps)-2, 0)] }

// recent are the newest n+1 snapshots, newest first (fewer at the start).
func (h *history) recent(n int) []snapshot {
	var out []snapshot
	for i := len(h.snaps) - 1; i >= 0 && i >= len(h.snaps)-1-n; i-- {
		out = append(out, h.snaps[i])
	}
	return out
}

// watched reports whether the harness snapshots kind gvk.
func (h *history) watched(gvk schema.GroupVersionKind) bool {
	for _, k := range h.kinds {
		if k == gvk {
			return true
		}
	}
	return false
}

// A view reads the history the way one informer cache per kind would: each
// kind lags the newest snapshot by a number of steps the run draws each
// step, but never goes back in time (an informer only moves forward).
type view struct {
	h *history
	// lag is how many steps each kind lags now.
	lag map[schema.GroupVersionKind]int
	// served is the newest snapshot each kind has served.
	served map[schema.GroupVersionKind]int
}

func newView(h *history) *view {
	v := &view{h: h, lag: map[schema.GroupVersionKind]int{}, served: map[schema.GroupVersionKind]int{}}
	// A cache that starts lists everything: it begins fresh.
	for _, k := range h.kinds {
		v.served[k] = len(h.snaps) - 1
	}
	return v
}

// at returns the snapshot kind gvk serves now.
func (v *view) at(gvk schema.GroupVersionKind) snapshot {
	i := max(v.served[gvk], len(v.h.snaps)-1-v.lag[gvk])
	v.served[gvk] = i
	return v.h.snaps[i]
}

// asOf is when the oldest snapshot the view may serve in this step was
// taken: a reconcile that read the world through it saw nothing written
// later, whatever it read.
func (v *view) asOf() time.Time {
	lag := 0
	for _, l := range v.lag {
		lag = max(lag, l)
	}
	return v.h.takenAt[max(len(v.h.takenAt)-1-lag, 0)]
}

// current returns o, or the newest version of it when that differs from o
// only in its resourceVersion and managed fields. Whether the API server
// bumps the resourceVersion of a write that changes nothing else depends
// on wall-clock timestamps it keeps in the managed fields; serving the
// newer version keeps the provider's conflicts, and so the run, the same
// from one replay to the next.
func (v *view) current(gvk schema.GroupVersionKind, o client.Object) client.Object {
	n := v.h.latest().find(gvk, client.ObjectKeyFromObject(o))
	if n == nil || n == o {
		return o
	}
	a, b := o.DeepCopyObject().(client.Object), n.DeepCopyObject().(client.Object)
	for _, c := range []client.Object{a, b} {
		c.SetResourceVersion("")
		c.SetManagedFields(nil)
	}
	if !equality.Semantic.DeepEqual(a, b) {
		return o
	}
	return n
}

// get serves obj from the lagging snapshot of its kind.
func (v *view) get(gvk schema.GroupVersionKind, key client.ObjectKey, obj client.Object) error {
	return v.at(gvk).get(gvk, key, obj, func(o client.Object) client.Object { return v.current(gvk, o) })
}

// list serves list from the lagging snapshot of its item kind, filtered by
// namespace and labels.
func (v *view) list(gvk schema.GroupVersionKind, list client.ObjectList, opts ...client.ListOption) error {
	return v.at(gvk).list(gvk, list, func(o client.Object) client.Object { return v.current(gvk, o) }, opts...)
}

// get serves obj named key of kind gvk, as version picks it.
func (s snapshot) get(gvk schema.GroupVersionKind, key client.ObjectKey, obj client.Object, version func(client.Object) client.Object) error {
	o := s.find(gvk, key)
	if o == nil {
		return kerrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: strings.ToLower(gvk.Kind)}, key.Name)
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(version(o).DeepCopyObject()).Elem())
	return nil
}

// list serves list of item kind gvk, filtered by namespace, labels and,
// as the provider's cache does, the index of each Cluster's objects
// (clusterindex), each item as version picks it.
func (s snapshot) list(gvk schema.GroupVersionKind, list client.ObjectList, version func(client.Object) client.Object, opts ...client.ListOption) error {
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if lo.FieldSelector != nil {
		for _, r := range lo.FieldSelector.Requirements() {
			if r.Field != clusterindex.Field {
				return errors.Errorf(errNoIndex, r.Field)
			}
		}
	}
	var items []runtime.Object
	for _, o := range s[gvk] {
		if lo.Namespace != "" && o.GetNamespace() != lo.Namespace {
			continue
		}
		if lo.LabelSelector != nil && !lo.LabelSelector.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		if lo.FieldSelector != nil && !lo.FieldSelector.Matches(indexed(o)) {
			continue
		}
		items = append(items, version(o).DeepCopyObject())
	}
	return meta.SetList(list, items)
}

// indexed are the fields of o the provider's cache indexes.
func indexed(o client.Object) fields.Set {
	out := fields.Set{}
	if v := clusterindex.Of(o); len(v) > 0 {
		out[clusterindex.Field] = v[0]
	}
	return out
}

// itemKind returns the kind of a list's items.
func itemKind(list client.ObjectList, s *runtime.Scheme) (schema.GroupVersionKind, error) {
	gvk, err := apiutil.GVKForObject(list, s)
	if err != nil {
		return gvk, errors.Wrap(err, errKindOf)
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return gvk, nil
}
