package chaos

import (
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fdbv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// statusReads records, for one provider incarnation, when it last read
// each database's status and which database each Cluster's reconciles
// reach. A reconcile may decide on a status its cache shared, read before
// the API server view it read the rest of the world through: what it
// confirms is only as fresh as the older of the two. Chaos seed 1777 at
// 1eb5a2a: dc1 changed coordinators; dc2, on another instance, confirmed
// its status twice after that on a read shared from before, and its next
// read wrote the new cluster file into its ConfigMap after the harness had
// seen the run converged.
type statusReads struct {
	clock clock.PassiveClock
	// at is when the status of the database each cluster file reaches
	// was last read.
	at map[string]time.Time
	// fileOf is the cluster file each Cluster's reconciles last reached,
	// by Cluster name.
	fileOf map[string]string
}

func newStatusReads(clk clock.PassiveClock) *statusReads {
	return &statusReads{clock: clk, at: map[string]time.Time{}, fileOf: map[string]string{}}
}

// reached notes that a reconcile of the Cluster named cluster reaches the
// database of file.
func (s *statusReads) reached(cluster, file string) { s.fileOf[cluster] = file }

// read notes a status of the database of file read now.
func (s *statusReads) read(file string) { s.at[file] = s.clock.Now() }

// asOf returns when the database status obj's status was made of was
// read: the Cluster's, or a ProcessGroup's Cluster's, last read; at for
// other kinds, and the zero time for a Cluster or group whose database
// was never read: such a status proves nothing about the database.
func (s *statusReads) asOf(obj client.Object, at time.Time) time.Time {
	var cluster string
	switch o := obj.(type) {
	case *fdbv1alpha1.Cluster:
		cluster = o.GetName()
	case *fdbv1alpha1.ProcessGroup:
		cluster = o.Spec.ForProvider.ClusterName
	default:
		return at
	}
	file, ok := s.fileOf[cluster]
	if !ok {
		return time.Time{}
	}
	if read := s.at[file]; read.Before(at) {
		return read
	}
	return at
}
