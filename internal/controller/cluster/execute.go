package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-foundationdb/internal/disruption"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// Error strings of the mutations.
const (
	errUpdateConfigMap     = "cannot update the cluster's ConfigMap"
	errRecordClusterFile   = "cannot record the cluster file in the Cluster's status"
	errRecordRecovery      = "cannot record the recovery from lost coordinators in the Cluster's status"
	errRecoverCoordinators = "cannot recover from lost coordinators"
	errNoFiles             = "cannot recover from lost coordinators: the session reaches no pod files"
	errWriteService        = "cannot write the cluster's headless Service"
	errWriteAccess         = "cannot write the monitor's ServiceAccount, Role or RoleBinding"
	errCreateGroup         = "cannot create ProcessGroup"
	errZoneNotReady        = "cannot create ProcessGroup %s: zone %s has no Ready node now (the cached view of the nodes was behind); the next reconcile picks another"
	errDeleteGroup         = "cannot delete ProcessGroup"
	errUpdateGroup         = "cannot update ProcessGroup"
	errForceDeletePod      = "cannot force-delete pod"
	errExpandVolume        = "cannot expand volume claim"
	errSettleClaim         = "cannot take the new-volume mark off a volume claim"
	errConfigure           = "cannot configure the database"
	errForceRecovery       = "cannot force a recovery of the database"
	errExclude             = "cannot exclude process groups"
	errInclude             = "cannot include process groups"
	errBounce              = "cannot restart processes"
	errCoordinators        = "cannot change coordinators"
	errMaintenance         = "cannot change the maintenance zone"
	errReleaseLock         = "cannot release the global lock"
	errDenyList            = "cannot write the global lock's deny list"
	errUnknownStep         = "cannot take a step of unknown kind"
)

// The Cluster's mutations write its ConfigMap and headless Service and the
// monitor's ServiceAccount, Role and RoleBinding, create,
// mark and remove its ProcessGroups, force-delete the pods of failed nodes,
// expand volume claims and take their new-volume marks off.
// +kubebuilder:rbac:groups="",resources=configmaps;services;serviceaccounts,verbs=create;update
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=create;update
// The monitor's Role grants what it needs on pods; Kubernetes lets nobody
// grant a permission it lacks, so the provider holds those too.
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=foundationdb.m.crossplane.io,resources=processgroups,verbs=create;update;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=delete
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=update;patch

// execute makes the one mutation of step s; the gate already allowed it.
func (e *external) execute(ctx context.Context, cr *v1alpha1.Cluster, s *clusterStep) error {
	db := e.session.FDB
	switch s.Kind {
	case kindWriteConfigMap, kindFirstCoordinators:
		if err := e.writeConfigMap(ctx, cr, s.ConfigMap); err != nil {
			return err
		}
		return e.settleClaims(ctx, s.Claims)
	case kindWriteService:
		if s.Service.ResourceVersion == "" {
			return errors.Wrap(client.IgnoreAlreadyExists(e.session.Target.Create(ctx, s.Service)), errWriteService)
		}
		return errors.Wrap(e.session.Target.Update(ctx, s.Service), errWriteService)
	case kindWriteNetworkPolicy, kindDeleteNetworkPolicy:
		return e.writeNetworkPolicy(ctx, s)
	case kindWriteDisruptionBudget, kindDeleteDisruptionBudget:
		return e.writeDisruptionBudget(ctx, s)
	case kindWriteAccess:
		for _, obj := range s.Access {
			write := e.session.Target.Update
			if obj.GetResourceVersion() == "" {
				write = func(ctx context.Context, obj client.Object, _ ...client.UpdateOption) error {
					return client.IgnoreAlreadyExists(e.session.Target.Create(ctx, obj))
				}
			}
			if err := write(ctx, obj); err != nil {
				return errors.Wrap(err, errWriteAccess)
			}
		}
		return nil
	case kindRecoverCoordinators:
		return e.recoverCoordinators(ctx, cr, s)
	case kindCreateGroups:
		if err := zonesStillReady(ctx, e.session.Target.Live, cr, s.Groups); err != nil {
			return err
		}
		for _, pg := range s.Groups {
			if err := client.IgnoreAlreadyExists(e.Kube.Create(ctx, pg.DeepCopy())); err != nil {
				return errors.Wrap(err, errCreateGroup)
			}
		}
		return nil
	case kindForceDeletePods:
		for _, pod := range s.Pods {
			err := e.session.Target.Delete(ctx, pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &pod.UID})
			if client.IgnoreNotFound(err) != nil {
				return errors.Wrap(err, errForceDeletePod)
			}
		}
		return nil
	case kindMarkReplacements:
		for _, pg := range s.Groups {
			if err := e.Kube.Update(ctx, pg); err != nil {
				return errors.Wrap(err, errUpdateGroup)
			}
			e.Record.Event(pg, event.Normal(reasonReplacing, "the Cluster is replacing this group: "+pg.GetAnnotations()[v1alpha1.AnnotationReplacement]))
		}
		return nil
	case kindExpandVolumes:
		for _, claim := range s.Claims {
			if err := e.session.Target.Update(ctx, claim); err != nil {
				return errors.Wrap(err, errExpandVolume)
			}
		}
		return nil
	case kindSyncPolicies:
		for _, pg := range s.Groups {
			if err := e.Kube.Update(ctx, pg); err != nil {
				return errors.Wrap(err, errUpdateGroup)
			}
		}
		return nil
	case kindRemoveGroups:
		for _, pg := range s.Groups {
			if err := client.IgnoreNotFound(e.Kube.Delete(ctx, pg)); err != nil {
				return errors.Wrap(err, errDeleteGroup)
			}
		}
		return nil
	case kindConfigureNew:
		if err := db.Configure(ctx, s.Configuration, true); err != nil && !errors.Is(err, fdb.ErrAlreadyExists) {
			return errors.Wrap(err, errConfigure)
		}
		// Recorded now: a database that cannot recover yet (a
		// three_data_hall one before its other halls join) has a status
		// without its configuration for as long as that lasts.
		cr.Status.AtProvider.Configured = true
		return nil
	case kindConfigure:
		return errors.Wrap(db.Configure(ctx, s.Configuration, false), errConfigure)
	case kindForceRecovery:
		return errors.Wrap(db.ForceRecovery(ctx, s.DataCenter), errForceRecovery)
	case kindExclude:
		return errors.Wrap(db.Exclude(ctx, s.Addresses), errExclude)
	case kindInclude:
		return errors.Wrap(db.Include(ctx, s.Addresses), errInclude)
	case kindBounce:
		return errors.Wrap(db.Kill(ctx, s.Addresses), errBounce)
	case kindSetMaintenance:
		if err := db.SetMaintenance(ctx, s.Zone, disruption.MaintenanceSeconds); err != nil {
			return errors.Wrap(err, errMaintenance)
		}
		cr.Status.AtProvider.MaintenanceZone = s.Zone
		return nil
	case kindResetMaintenance:
		if err := db.ResetMaintenance(ctx); err != nil {
			return errors.Wrap(err, errMaintenance)
		}
		cr.Status.AtProvider.MaintenanceZone = ""
		return nil
	case kindUpdateDenyList:
		var entries []fdb.LockDenyEntry
		for _, e := range cr.Spec.ForProvider.Locks.DenyList {
			entries = append(entries, fdb.LockDenyEntry{ID: e.ID, Allow: e.Allow})
		}
		if err := db.UpdateLockDenyList(ctx, entries); err != nil {
			return errors.Wrap(err, errDenyList)
		}
		cr.Status.AtProvider.LockDenyList = slices.Clone(cr.Spec.ForProvider.Locks.DenyList)
		return nil
	case kindDisableLocks:
		cr.Status.AtProvider.LocksDisabled = true
		return nil
	case kindDrill:
		startDrill(cr, e.Clock.Now())
		return nil
	case kindReleaseLock:
		if err := db.ReleaseLock(ctx, managedkind.LockID(cr)); err != nil {
			return errors.Wrap(err, errReleaseLock)
		}
		cr.Status.AtProvider.GlobalLock = nil
		cr.SetConditions(managedkind.LockCondition(cr, "", e.Clock.Now()))
		return nil
	case kindChangeCoordinators:
		cs, err := db.ChangeCoordinators(ctx, s.Addresses)
		if err != nil {
			return errors.Wrap(err, errCoordinators)
		}
		if err := e.writeConfigMap(ctx, cr, configMapData(cr, e.obs, cs)); err != nil {
			return err
		}
		return e.settleClaims(ctx, s.Claims)
	}
	return errors.Errorf("%s %q", errUnknownStep, s.Kind)
}

// settleClaims takes the new-volume mark off claims: their groups serve
// coordinators the step just named, and the coordinator change writes the
// coordinated state to them; or the step wrote the first cluster file, and
// whatever names their groups' coordinators comes after. A merge patch, so
// that a cache behind on an earlier removal removes the mark once more
// instead of conflicting; naming the UID of the claim planned with, so
// that the API server rejects it (the UID is immutable) for a claim made
// anew since, whose mark stays. A crash before it leaves the marks, and
// the next reconcile changes the coordinators once more.
func (e *external) settleClaims(ctx context.Context, claims []*corev1.PersistentVolumeClaim) error {
	for _, c := range claims {
		patch := fmt.Sprintf(`{"metadata":{"uid":%q,"annotations":{%q:null}}}`, c.UID, workload.AnnotationNewVolume)
		if err := e.session.Target.Patch(ctx, c.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); client.IgnoreNotFound(err) != nil {
			return errors.Wrap(err, errSettleClaim)
		}
	}
	return nil
}

// writeConfigMap creates or updates the cluster's ConfigMap with data, and
// records the cluster file it wrote: the status of this reconcile was
// observed before the write, and a ConfigMap lost before the next one gets
// back what the Cluster recorded (the seed it joined with, the first
// coordinators it chose, the coordinators it changed to), never an empty
// cluster file.
func (e *external) writeConfigMap(ctx context.Context, cr *v1alpha1.Cluster, data map[string]string) error {
	cm := workload.ConfigMap(cr, "", nil)
	cm.Data = data
	var err error
	if e.session.ConfigMap == nil {
		err = client.IgnoreAlreadyExists(e.session.Target.Create(ctx, cm))
	} else {
		cur := e.session.ConfigMap.DeepCopy()
		cur.Data, cur.Labels = data, cm.Labels
		err = e.session.Target.Update(ctx, cur)
	}
	if err != nil {
		return errors.Wrap(err, errUpdateConfigMap)
	}
	cs := data[workload.KeyClusterFile]
	if cs == "" {
		return nil
	}
	cr.Status.AtProvider.ConnectionString = cs
	if cs == e.session.ConnectionString {
		return nil
	}
	return errors.Wrap(e.recordAtProvider(ctx, cr, map[string]any{"connectionString": cs}), errRecordClusterFile)
}

// recordAtProvider writes fields of atProvider (a cluster file the
// ConfigMap holds now, a recovery from lost coordinators under way) into
// the Cluster's status on the API server at once rather than with the
// status write that ends the reconcile: that write loses a conflict when
// the reconcile began from a cache that had not yet seen the previous
// one's, and a ConfigMap lost before a later reconcile recorded them would
// get back the cluster file before. The patch carries cr's
// resourceVersion, so that cr's own status write follows it without a
// conflict; when cr is stale it is sent without one — it sets only the
// fields this step owns — and cr's status write conflicts as it would
// have. (The status patch is the one managedkind's decisions are recorded
// with.)
func (e *external) recordAtProvider(ctx context.Context, cr *v1alpha1.Cluster, fields map[string]any) error {
	patch := func(rv string) error {
		p := map[string]any{"status": map[string]any{"atProvider": fields}}
		if rv != "" {
			p["metadata"] = map[string]any{"resourceVersion": rv}
		}
		body, err := json.Marshal(p)
		if err != nil {
			return err
		}
		recorded := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: cr.GetNamespace(), Name: cr.GetName()}}
		if err := e.Kube.Status().Patch(ctx, recorded, client.RawPatch(types.MergePatchType, body)); err != nil {
			return err
		}
		if rv != "" {
			cr.SetResourceVersion(recorded.GetResourceVersion())
		}
		return nil
	}
	err := patch(cr.GetResourceVersion())
	if kerrors.IsConflict(err) {
		err = patch("")
	}
	return err
}

// recoverCoordinators takes recovery r: the record first (a ConfigMap
// that names the new coordinators must never be taken back to the ones
// given up, which the status may still name), then the coordination files
// (a coordinator restarted on the new connection string before it has
// them would be a blank one), the ConfigMap with its new cluster file
// (pods made from now on seed from it, step s's ConfigMap), and last the
// restarts of r's pods on it. A recovery that restarts stranded pods only
// (no ConfigMap in s) writes nothing else.
func (e *external) recoverCoordinators(ctx context.Context, cr *v1alpha1.Cluster, s *clusterStep) error {
	r, files := s.Recovery, e.session.Files
	if files == nil {
		return errors.New(errNoFiles)
	}
	if s.ConfigMap != nil {
		record := &v1alpha1.CoordinatorRecoveryObservation{From: r.From.String(), To: r.To.String(), Since: metav1.NewTime(e.Clock.Now())}
		if err := e.recordAtProvider(ctx, cr, map[string]any{"coordinatorRecovery": record}); err != nil {
			return errors.Wrap(err, errRecordRecovery)
		}
		cr.Status.AtProvider.CoordinatorRecovery = record
		for _, to := range r.Copies {
			if err := files.CopyCoordinationFiles(ctx, r.Survivor, to); err != nil {
				return errors.Wrap(err, errRecoverCoordinators)
			}
		}
		if err := e.writeConfigMap(ctx, cr, s.ConfigMap); err != nil {
			return err
		}
		if err := e.settleClaims(ctx, s.Claims); err != nil {
			return err
		}
	}
	for _, p := range r.Pods {
		if err := files.RestartOn(ctx, p, r.To.String()); err != nil {
			return errors.Wrap(err, errRecoverCoordinators)
		}
	}
	return nil
}

// zonesStillReady confirms, on a read without a cache, that each new
// group's zone has a Ready node: a group is pinned to its zone for good, and
// one placed from a stale view into a zone that just failed would wait there
// until replaced.
func zonesStillReady(ctx context.Context, live client.Reader, cr *v1alpha1.Cluster, groups []*v1alpha1.ProcessGroup) error {
	zones, err := readyZones(ctx, live, cr)
	if err != nil {
		return err
	}
	return placedInReadyZones(groups, zones)
}

// placedInReadyZones fails for the first group placed in a zone that is not
// among the Ready zones; a group without a zone goes anywhere.
func placedInReadyZones(groups []*v1alpha1.ProcessGroup, ready []string) error {
	for _, pg := range groups {
		if z := pg.Spec.ForProvider.FaultDomain; z != "" && !slices.Contains(ready, z) {
			return errors.Errorf(errZoneNotReady, pg.ID(), z)
		}
	}
	return nil
}
