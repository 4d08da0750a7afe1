package backup

import (
	"context"
	"fmt"
	"math"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	appsv1 "k8s.io/api/apps/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/connector"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/step"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errGetAgents     = "cannot get the backup agents Deployment"
	errCreateAgents  = "cannot create the backup agents Deployment"
	errUpdateAgents  = "cannot update the backup agents Deployment"
	errDeleteAgents  = "cannot delete the backup agents Deployment"
	errStartBackup   = "cannot start the backup"
	errStopBackup    = "cannot stop the backup"
	errPauseBackups  = "cannot pause the backup agents"
	errResumeBackups = "cannot resume the backup agents"
	errModifyBackup  = "cannot modify the backup"
	errNoCluster     = "cannot create the backup agents: the Backup's Cluster does not exist"

	msgNoDatabase  = "waiting for the cluster's database: it has no cluster file yet"
	msgClusterGone = "the Backup's Cluster does not exist"
	msgUnreadable  = "cannot read the backup layer of the database: %v"

	reasonCreatedAgents event.Reason = "CreatedBackupAgents"
	reasonUpdatedAgents event.Reason = "UpdatedBackupAgents"
	reasonDeletedAgents event.Reason = "DeletedBackupAgents"
	reasonStarted       event.Reason = "StartedBackup"
	reasonStopped       event.Reason = "StoppedBackup"
	reasonPaused        event.Reason = "PausedBackups"
	reasonResumed       event.Reason = "ResumedBackups"
	reasonModified      event.Reason = "ModifiedBackup"
)

// external works against one Backup's agents and backup during one
// reconcile.
type external struct {
	managedkind.Deps
	session     *connector.Session
	cluster     *v1alpha1.Cluster
	clusterGone bool

	// obs and step are what Observe saw and planned, for the other methods.
	obs  *observation
	step *backupStep
}

// observation is what one reconcile knows of a backup, read once.
type observation struct {
	// agents is the agents Deployment, nil when absent or being deleted;
	// want is the one the provider builds now.
	agents *appsv1.Deployment
	want   *appsv1.Deployment
	// backup is the backup on the tag, nil when the tag never ran one;
	// layer is the backup layer of the status. Both are meaningful only
	// when unreadable is "".
	backup     *fdb.BackupStatus
	layer      fdb.BackupLayer
	unreadable string
	// status is the database status read in this reconcile, the evidence
	// of every decision; nil when it could not be read.
	status *fdb.Status
	// clusterGone: the Backup's Cluster does not exist.
	clusterGone bool
}

func (e *external) observe(ctx context.Context, b *v1alpha1.Backup) (*observation, error) {
	o := &observation{want: workload.BackupAgents(e.cluster, b), clusterGone: e.clusterGone}
	d := &appsv1.Deployment{}
	err := e.session.Target.Get(ctx, client.ObjectKeyFromObject(o.want), d)
	switch {
	case kerrors.IsNotFound(err):
	case err != nil:
		return nil, errors.Wrap(err, errGetAgents)
	case d.GetDeletionTimestamp() == nil:
		o.agents = d
	}
	switch {
	case e.clusterGone:
		o.unreadable = msgClusterGone
	case e.session.FDB == nil:
		o.unreadable = msgNoDatabase
	default:
		// An unreadable backup layer is an observation too: nothing that
		// needs it is done until it can be read.
		st, err := e.session.FDB.BackupStatus(ctx, workload.BackupTag(b))
		switch {
		case errors.Is(err, fdb.ErrNotFound):
		case err != nil:
			o.unreadable = fmt.Sprintf(msgUnreadable, err)
			return o, nil
		default:
			o.backup = st
		}
		status, err := e.session.FDB.Status(ctx)
		if err != nil {
			o.unreadable = fmt.Sprintf(msgUnreadable, err)
			return o, nil
		}
		o.status, o.layer = status, status.Cluster.Layers.Backup
	}
	return o, nil
}

func (o *observation) running() bool { return o.backup != nil && o.backup.Running }

func (o *observation) paused() bool {
	if o.backup != nil {
		return o.backup.AgentsPaused
	}
	return o.layer.Paused
}

func (o *observation) agentsReady() int {
	if o.agents == nil {
		return 0
	}
	return int(o.agents.Status.ReadyReplicas)
}

// facts are the planner's view of the Backup and the observation.
func (o *observation) facts(b *v1alpha1.Backup) facts {
	state := b.Spec.ForProvider.BackupState
	if state == "" {
		state = v1alpha1.BackupRunning
	}
	f := facts{
		ClusterGone:    o.clusterGone,
		State:          state,
		Tag:            workload.BackupTag(b),
		AgentCount:     workload.AgentCount(b),
		SnapshotPeriod: workload.SnapshotPeriodSeconds(b),
		AgentsExist:    o.agents != nil,
		Unreadable:     o.unreadable,
		Running:        o.running(),
		Paused:         o.paused(),
	}
	if o.agents != nil {
		f.AgentsCurrent = o.agents.Annotations[workload.AnnotationSpec] == o.want.Annotations[workload.AnnotationSpec]
		f.AgentReplicas = 1
		if r := o.agents.Spec.Replicas; r != nil {
			f.AgentReplicas = int(*r)
		}
	}
	if o.running() {
		f.Period = o.backup.SnapshotPeriodSeconds
	}
	return f
}

// Observe reads the Backup's world once, fills atProvider and plans the next
// step. It writes nothing. The backup exists while its agents Deployment
// exists or a backup runs on its tag; while the Backup is being deleted,
// only the agents count: a stopped backup without agents makes no more
// progress, and what it wrote stays in the blob store.
func (e *external) Observe(ctx context.Context, b *v1alpha1.Backup) (managed.ExternalObservation, error) {
	o, err := e.observe(ctx, b)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	e.obs = o
	exists := o.agents != nil || (!meta.WasDeleted(b) && o.running())
	if !exists {
		return managed.ExternalObservation{}, nil
	}
	b.Status.AtProvider = e.atProvider(b, o)

	f := o.facts(b)
	if ok, why := ready(f, o.agentsReady()); ok {
		b.SetConditions(xpv2.Available())
	} else {
		b.SetConditions(xpv2.Unavailable().WithMessage(why))
	}
	e.step = next(f)
	if e.step == nil {
		b.SetConditions(xpv2.ObserveMatched())
	} else {
		b.SetConditions(xpv2.UpdateRequested().WithMessage(e.step.message))
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: e.step == nil}, nil
}

// atProvider is the observed state of the backup.
func (e *external) atProvider(b *v1alpha1.Backup, o *observation) v1alpha1.BackupObservation {
	at := v1alpha1.BackupObservation{
		AgentsReady:        o.agentsReady(),
		Paused:             o.paused(),
		URL:                workload.BlobStoreStatusURL(b.Spec.ForProvider.BlobStore, b.GetName()),
		LastPolicyDecision: b.Status.AtProvider.LastPolicyDecision,
	}
	if bs := o.backup; bs != nil {
		at.State = string(bs.State)
		at.Running = bs.Running
		at.RestorableVersion = bs.LatestRestorableVersion
		at.SnapshotProgress = int(math.Floor(bs.SnapshotProgress))
		if bs.URL != "" {
			at.URL = workload.RedactURL(bs.URL)
		}
	}
	return at
}

// Create creates the agents Deployment and, unless the Backup is to be
// stopped, starts the backup once the safety policies allow it. Without a
// readable database only the agents are created; the next reconciles start
// the backup.
func (e *external) Create(ctx context.Context, b *v1alpha1.Backup) (managed.ExternalCreation, error) {
	if e.clusterGone {
		return managed.ExternalCreation{}, errors.New(errNoCluster)
	}
	if e.obs.agents == nil {
		if err := e.createAgents(ctx, b); err != nil {
			return managed.ExternalCreation{}, err
		}
	}
	f := e.obs.facts(b)
	if f.Unreadable != "" || f.State == v1alpha1.BackupStopped || f.Running {
		return managed.ExternalCreation{}, nil
	}
	return managed.ExternalCreation{}, e.start(ctx, b, fmt.Sprintf("starting the backup on tag %q", f.Tag))
}

// Update takes the step Observe planned.
func (e *external) Update(ctx context.Context, b *v1alpha1.Backup) (managed.ExternalUpdate, error) {
	s := e.step
	if s == nil {
		return managed.ExternalUpdate{}, nil
	}
	tag := workload.BackupTag(b)
	var err error
	switch s.kind {
	case stepWait:
	case stepCreateAgents:
		err = e.createAgents(ctx, b)
	case stepUpdateAgents:
		err = e.updateAgents(ctx, b, s.message)
	case stepStart:
		err = e.start(ctx, b, s.message)
	case stepStop:
		err = e.stop(ctx, b, s.message, e.obs.paused())
	case stepPause:
		err = e.gated(ctx, b, apiv1alpha1.ActionPauseBackup, s.message, nil, reasonPaused, func() error {
			return errors.Wrap(e.session.FDB.PauseBackups(ctx), errPauseBackups)
		})
	case stepResume:
		err = e.gated(ctx, b, apiv1alpha1.ActionResumeBackup, s.message, nil, reasonResumed, func() error {
			return errors.Wrap(e.session.FDB.ResumeBackups(ctx), errResumeBackups)
		})
	case stepModify:
		err = e.gated(ctx, b, apiv1alpha1.ActionModifyBackup, s.message, nil, reasonModified, func() error {
			req := fdb.BackupRequest{Tag: tag, SnapshotPeriodSeconds: workload.SnapshotPeriodSeconds(b)}
			return errors.Wrap(e.session.FDB.ModifyBackup(ctx, req), errModifyBackup)
		})
	}
	return managed.ExternalUpdate{}, err
}

// Delete stops a running backup, once the safety policies allow it, and
// removes the agents. Without a database (the Cluster or its cluster file
// is gone) the agents are removed right away; with one that cannot be read,
// nothing is removed until it can: the backup might still run.
func (e *external) Delete(ctx context.Context, b *v1alpha1.Backup) (managed.ExternalDelete, error) {
	o := e.obs
	if e.session.FDB != nil && !e.clusterGone {
		if o.unreadable != "" {
			return managed.ExternalDelete{}, errors.Wrap(errors.New(o.unreadable), errStopBackup)
		}
		if o.running() {
			msg := fmt.Sprintf("stopping the backup on tag %q: the Backup is being deleted", workload.BackupTag(b))
			if err := e.stop(ctx, b, msg, false); err != nil {
				return managed.ExternalDelete{}, err
			}
		}
	}
	if o.agents == nil {
		return managed.ExternalDelete{}, nil
	}
	if err := client.IgnoreNotFound(e.session.Target.Delete(ctx, o.agents, client.PropagationPolicy(metav1.DeletePropagationBackground))); err != nil {
		return managed.ExternalDelete{}, errors.Wrap(err, errDeleteAgents)
	}
	e.Record.Event(b, event.Normal(reasonDeletedAgents, "deleted Deployment "+o.agents.Name))
	return managed.ExternalDelete{}, nil
}

// Disconnect releases nothing: sessions hold no connections.
func (e *external) Disconnect(context.Context) error { return nil }

// A Backup reads, creates, updates and deletes its agents Deployment.
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;delete

func (e *external) createAgents(ctx context.Context, b *v1alpha1.Backup) error {
	if err := client.IgnoreAlreadyExists(e.session.Target.Create(ctx, e.obs.want.DeepCopy())); err != nil {
		return errors.Wrap(err, errCreateAgents)
	}
	e.Record.Event(b, event.Normal(reasonCreatedAgents, fmt.Sprintf("created Deployment %s with %d backup agents", e.obs.want.Name, workload.AgentCount(b))))
	return nil
}

func (e *external) updateAgents(ctx context.Context, b *v1alpha1.Backup, msg string) error {
	d := e.obs.agents.DeepCopy()
	d.Spec = e.obs.want.Spec
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	for k, v := range e.obs.want.Labels {
		d.Labels[k] = v
	}
	meta.AddAnnotations(d, e.obs.want.Annotations)
	if err := e.session.Target.Update(ctx, d); err != nil {
		return errors.Wrap(err, errUpdateAgents)
	}
	e.Record.Event(b, event.Normal(reasonUpdatedAgents, msg))
	return nil
}

// start starts the backup on the Backup's tag. A backup that already runs
// there is taken as started.
func (e *external) start(ctx context.Context, b *v1alpha1.Backup, msg string) error {
	req := fdb.BackupRequest{
		URL:                   workload.BlobStoreURL(b.Spec.ForProvider.BlobStore, b.GetName()),
		Tag:                   workload.BackupTag(b),
		SnapshotPeriodSeconds: workload.SnapshotPeriodSeconds(b),
	}
	return e.gated(ctx, b, apiv1alpha1.ActionStartBackup, msg, nil, reasonStarted, func() error {
		err := e.session.FDB.StartBackup(ctx, req)
		if errors.Is(err, fdb.ErrAlreadyExists) {
			return nil
		}
		return errors.Wrap(err, errStartBackup)
	})
}

// stop discontinues the backup on the Backup's tag, then resumes the
// paused agents when resume is set, so that the backup can finish. The
// safety policies see whether it is the cluster's last running backup, the
// age of its restorable version and whether the Backup carries the override
// annotation.
func (e *external) stop(ctx context.Context, b *v1alpha1.Backup, msg string, resume bool) error {
	tag := workload.BackupTag(b)
	layerTag, reported := e.obs.layer.Tags[tag]
	details := map[string]any{
		policy.DetailIsLastRunningBackup:         lastRunning(e.obs.layer, tag),
		policy.DetailRestorableVersionAgeSeconds: restorableVersionAge(layerTag, reported, b.GetCreationTimestamp().Time, e.Clock.Now()),
		policy.DetailOverrideAnnotation:          b.GetAnnotations()[policy.AnnotationAllowStopLastBackup] == "true",
	}
	return e.gated(ctx, b, apiv1alpha1.ActionStopBackup, msg, details, reasonStopped, func() error {
		if err := e.session.FDB.StopBackup(ctx, tag); err != nil && !errors.Is(err, fdb.ErrNotFound) {
			return errors.Wrap(err, errStopBackup)
		}
		if resume {
			return errors.Wrap(e.session.FDB.ResumeBackups(ctx), errResumeBackups)
		}
		return nil
	})
}

// gated takes action t on the backup through the gate-and-record path, with
// the database status read in this reconcile as evidence.
func (e *external) gated(ctx context.Context, b *v1alpha1.Backup, t apiv1alpha1.ActionType, msg string, details map[string]any, reason event.Reason, run func() error) error {
	s := step.Step{Reason: reason, Message: msg,
		Action: &policy.Action{Type: t, Targets: []string{workload.BackupTag(b)}, Reason: msg, Details: details}}
	ev := managedkind.Evidence{Cluster: e.cluster, Status: e.obs.status, Changed: e.session.Changed, Firsthand: e.session.Firsthand}
	return e.Take(ctx, b, ev, s, func(context.Context) error { return run() })
}
