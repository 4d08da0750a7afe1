package connector

import (
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/coordination"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/statuscache"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

const (
	errGetConfigMap = "cannot get the cluster's ConfigMap"
	errConnectFDB   = "cannot connect to FoundationDB"
)

// Session is what an external client works with during one reconcile of a
// resource that belongs to a Cluster.
type Session struct {
	// Target is the Kubernetes cluster that runs the pods.
	Target Target
	// ConfigMap is the cluster's ConfigMap, nil while it does not exist.
	ConfigMap *corev1.ConfigMap
	// ConnectionString is the cluster file the provider wrote, "" before
	// the first coordinators were chosen.
	ConnectionString string
	// FDB administers the database; nil while there is no cluster file.
	FDB fdb.Client
	// Files changes the coordination and cluster files of the cluster's
	// pods; nil while there is no cluster file.
	Files coordination.Files
	// ClientSecret is the certificate Secret FDB's clients present
	// (workload.ClientSecretName) as the session read it; nil for a
	// Cluster without tls settings or while the Secret does not exist.
	ClientSecret *corev1.Secret

	// changed marks the database changed in the status cache; nil without
	// a cache or an admin client.
	changed func()
	// shared is FDB's status cache client, owe makes the resource's next
	// reconcile read the database itself; nil without a cache or an admin
	// client.
	shared *statuscache.Client
	owe    func()
}

// Changed makes the next status read of the session's database go to the
// database: the reconcile changed something its status shows.
func (s *Session) Changed() {
	if s.changed != nil {
		s.changed()
	}
}

// Firsthand reports whether the database status the reconcile read came
// from a read of its own. When it did not (another's read, shared up to the
// age StatusAge allows the resource), the resource's next reconcile reads
// the database itself: a step that changes the database waits for it
// (managedkind.Evidence.Firsthand). Without a status cache every read is
// firsthand.
func (s *Session) Firsthand() bool {
	if s.shared == nil || s.shared.ReadHere() {
		return true
	}
	s.owe()
	return false
}

// Connector opens sessions.
type Connector struct {
	Targets *Targets
	FDB     FDB
	// Statuses, when set, shares status reads among the sessions of a
	// database, each no older than StatusAge allows its resource.
	Statuses  *statuscache.Cache
	StatusAge func(mg resource.Managed) time.Duration
}

// A session reads the cluster's ConfigMap.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch

// Session records mg's use of its provider config and opens a session on
// cluster c, the Cluster mg is or belongs to.
func (k *Connector) Session(ctx context.Context, mg resource.ModernManaged, c *v1alpha1.Cluster) (*Session, error) {
	target, err := k.Targets.Client(ctx, mg)
	if err != nil {
		return nil, err
	}
	s := &Session{Target: target}
	if s.ClientSecret, err = clientSecret(ctx, target, c); err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	err = target.Get(ctx, client.ObjectKey{Namespace: workload.Namespace(c), Name: workload.ConfigMapName(c)}, cm)
	switch {
	case kerrors.IsNotFound(err):
		return s, nil
	case err != nil:
		return nil, errors.Wrap(err, errGetConfigMap)
	}
	s.ConfigMap, s.ConnectionString = cm, cm.Data[workload.KeyClusterFile]
	if s.ConnectionString == "" {
		return s, nil
	}
	creds, err := clientCredentials(c, cm, s.ClientSecret)
	if err != nil {
		return nil, err
	}
	if s.FDB, err = k.FDB.Client(ctx, target, c, cm, blobStore(mg), creds); err != nil {
		return nil, errors.Wrap(err, errConnectFDB)
	}
	s.Files = k.FDB.Files(target, cm)
	if k.Statuses != nil {
		key, resource := statuscache.Key(s.ConnectionString, creds), fmt.Sprintf("%T %s/%s", mg, mg.GetNamespace(), mg.GetName())
		s.shared = k.Statuses.Client(key, resource, s.FDB, k.StatusAge(mg))
		s.FDB, s.changed, s.owe = s.shared, func() { k.Statuses.Changed(key) }, func() { k.Statuses.Owe(resource) }
	}
	return s, nil
}

// blobStore is the blob store mg writes backups to or restores from; nil
// for a resource that uses none.
func blobStore(mg resource.ModernManaged) *v1alpha1.BlobStore {
	switch mg := mg.(type) {
	case *v1alpha1.Backup:
		return &mg.Spec.ForProvider.BlobStore
	case *v1alpha1.Restore:
		return &mg.Spec.ForProvider.BlobStore
	}
	return nil
}
