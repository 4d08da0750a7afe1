package managedkind

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// firsthandConnector connects external clients whose gated steps, when
// planned on a shared status (ErrSecondhand), end the reconcile without an
// error: the step is not a failure but left to the next reconcile, which
// reads the database itself.
type firsthandConnector[T resource.Managed] struct {
	managed.TypedExternalConnector[T]
}

func (c firsthandConnector[T]) Connect(ctx context.Context, mg T) (managed.TypedExternalClient[T], error) {
	e, err := c.TypedExternalConnector.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return firsthandExternal[T]{e}, nil
}

// firsthandExternal passes every call to its client and reads
// ErrSecondhand as no error.
type firsthandExternal[T resource.Managed] struct {
	managed.TypedExternalClient[T]
}

func (e firsthandExternal[T]) Create(ctx context.Context, mg T) (managed.ExternalCreation, error) {
	c, err := e.TypedExternalClient.Create(ctx, mg)
	return c, secondhandIsWaiting(err)
}

func (e firsthandExternal[T]) Update(ctx context.Context, mg T) (managed.ExternalUpdate, error) {
	u, err := e.TypedExternalClient.Update(ctx, mg)
	return u, secondhandIsWaiting(err)
}

func (e firsthandExternal[T]) Delete(ctx context.Context, mg T) (managed.ExternalDelete, error) {
	d, err := e.TypedExternalClient.Delete(ctx, mg)
	return d, secondhandIsWaiting(err)
}

// secondhandIsWaiting returns err, or nil when it is ErrSecondhand.
func secondhandIsWaiting(err error) error {
	if errors.Is(err, ErrSecondhand) {
		return nil
	}
	return err
}
