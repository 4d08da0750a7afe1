package cluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Connection-detail keys.
const (
	KeyClusterFile      = "clusterFile"
	KeyConnectionString = "connectionString"
)

const (
	errDeleteConfigMap = "cannot delete the cluster's ConfigMap"
)

// external works against one Cluster's target cluster and database during
// one reconcile.
type external struct {
	managedkind.Deps
	session *connector.Session

	// obs and step are what Observe saw and planned, for Update.
	obs  *observation
	step *step
}

// Observe reads the cluster's world once, fills atProvider and plans the
// next step. It writes nothing.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalObservation, error) {
	obs, err := e.observe(ctx, cr)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if e.session.ConfigMap == nil && len(obs.groups) == 0 {
		return managed.ExternalObservation{}, nil
	}
	e.obs = obs
	cs := e.connectionString(obs)
	cr.Status.AtProvider = obs.atProvider(cs, cr.Status.AtProvider)
	e.step = e.next(cr, obs)

	switch {
	case obs.available() && obs.configured():
		cr.SetConditions(xpv2.Available())
	case obs.statusErr != nil:
		cr.SetConditions(xpv2.Unavailable().WithMessage(obs.statusErr.Error()))
	case e.step != nil:
		cr.SetConditions(xpv2.Creating().WithMessage(e.step.message))
	default:
		cr.SetConditions(xpv2.Unavailable())
	}
	if e.step == nil {
		cr.SetConditions(xpv2.ObserveMatched())
	} else {
		cr.SetConditions(xpv2.UpdateRequested().WithMessage(e.step.message))
	}

	var details managed.ConnectionDetails
	if cs != "" {
		details = managed.ConnectionDetails{KeyClusterFile: []byte(cs + "\n"), KeyConnectionString: []byte(cs)}
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: e.step == nil, ConnectionDetails: details}, nil
}

// Create writes the cluster's ConfigMap; the next reconciles create the
// process groups, coordinators and database step by step.
func (e *external) Create(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, e.writeConfigMap(ctx, cr, workload.ConfigMap(cr, "", workload.Densities(cr)).Data)
}

// Update takes the step Observe planned, once the safety policies allow it.
func (e *external) Update(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalUpdate, error) {
	s := e.step
	if s == nil || s.run == nil {
		return managed.ExternalUpdate{}, nil
	}
	if s.action != nil {
		decision, err := e.Check(ctx, cr, cr, e.obs.status, *s.action)
		cr.Status.AtProvider.LastPolicyDecision = decision
		if err != nil {
			return managed.ExternalUpdate{}, err
		}
	}
	if err := s.run(ctx); err != nil {
		return managed.ExternalUpdate{}, err
	}
	e.Record.Event(cr, event.Normal(s.reason, s.message))
	return managed.ExternalUpdate{}, nil
}

// Delete tears down what the Cluster created: its ProcessGroups (which,
// with the Cluster gone, delete their pods and volumes without excluding
// them first: the whole database goes) and its ConfigMap.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.Cluster) (managed.ExternalDelete, error) {
	for i := range e.obs.groups {
		if err := client.IgnoreNotFound(e.Kube.Delete(ctx, &e.obs.groups[i])); err != nil {
			return managed.ExternalDelete{}, errors.Wrap(err, errDeleteGroup)
		}
	}
	if cm := e.session.ConfigMap; cm != nil {
		if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, cm)); err != nil {
			return managed.ExternalDelete{}, errors.Wrap(err, errDeleteConfigMap)
		}
	}
	return managed.ExternalDelete{}, nil
}

// Disconnect releases nothing: sessions hold no connections.
func (e *external) Disconnect(context.Context) error { return nil }
