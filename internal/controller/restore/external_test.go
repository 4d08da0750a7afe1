package restore

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

func restoreOf(mod ...func(*v1alpha1.Restore)) *v1alpha1.Restore {
	r := &v1alpha1.Restore{
		ObjectMeta: metav1.ObjectMeta{Name: "from-nightly", Namespace: "team"},
		Spec: v1alpha1.RestoreSpec{ForProvider: v1alpha1.RestoreParameters{
			ClusterReference: v1alpha1.ClusterReference{ClusterName: "restored"},
			BlobStore:        v1alpha1.BlobStore{AccountName: "backup@minio:9000", BackupName: "nightly", URLParameters: []string{"secure_connection=0"}},
		}},
	}
	for _, m := range mod {
		m(r)
	}
	return r
}

func TestRequest(t *testing.T) {
	version := int64(123456789)
	cases := map[string]struct {
		reason  string
		restore *v1alpha1.Restore
		want    fdb.RestoreRequest
	}{
		"Everything": {
			reason:  "a restore of everything to the newest restorable version, tagged with the Restore's name",
			restore: restoreOf(),
			want:    fdb.RestoreRequest{URL: "blobstore://backup@minio:9000/nightly?bucket=fdb-backups&secure_connection=0", Tag: "from-nightly"},
		},
		"RangesAndVersion": {
			reason: "key ranges and a point in time; the tag is the external name",
			restore: restoreOf(func(r *v1alpha1.Restore) {
				meta.SetExternalName(r, "adopted")
				r.Spec.ForProvider.KeyRanges = []v1alpha1.KeyRange{{Start: "a", End: "m"}, {Start: "x", End: `\xff`}}
				r.Spec.ForProvider.BackupVersion = &version
			}),
			want: fdb.RestoreRequest{
				URL: "blobstore://backup@minio:9000/nightly?bucket=fdb-backups&secure_connection=0", Tag: "adopted",
				KeyRanges: []fdb.KeyRange{{Begin: "a", End: "m"}, {Begin: "x", End: `\xff`}}, Version: version,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, request(tc.restore)); diff != "" {
				t.Errorf("%s\nrequest: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	cases := map[string]struct {
		status fdb.RestoreStatus
		want   int
	}{
		"Queued":    {status: fdb.RestoreStatus{State: fdb.RestoreQueued}, want: 0},
		"Running":   {status: fdb.RestoreStatus{State: fdb.RestoreRunning, BlocksDone: 333, BlocksTotal: 1024}, want: 32},
		"Completed": {status: fdb.RestoreStatus{State: fdb.RestoreCompleted, BlocksDone: 1023, BlocksTotal: 1024}, want: 100},
		"Aborted":   {status: fdb.RestoreStatus{State: fdb.RestoreAborted, BlocksDone: 100, BlocksTotal: 200}, want: 50},
		"Overshoot": {status: fdb.RestoreStatus{State: fdb.RestoreRunning, BlocksDone: 300, BlocksTotal: 200}, want: 100},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, progress(&tc.status)); diff != "" {
				t.Errorf("progress: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestState(t *testing.T) {
	type result struct {
		State v1alpha1.RestoreState
		Known bool
	}
	cases := map[string]struct {
		in   fdb.RestoreState
		want result
	}{
		"Queued":    {in: fdb.RestoreQueued, want: result{v1alpha1.RestoreQueued, true}},
		"Starting":  {in: fdb.RestoreStarting, want: result{v1alpha1.RestoreStarting, true}},
		"Running":   {in: fdb.RestoreRunning, want: result{v1alpha1.RestoreRunning, true}},
		"Completed": {in: fdb.RestoreCompleted, want: result{v1alpha1.RestoreCompleted, true}},
		"Aborted":   {in: fdb.RestoreAborted, want: result{v1alpha1.RestoreAborted, true}},
		"Unknown":   {in: "Unknown", want: result{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, ok := state(tc.in)
			if diff := cmp.Diff(tc.want, result{s, ok}); diff != "" {
				t.Errorf("state: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestMayHoldData: a destination counts as empty only on positive evidence;
// missing status fields never read as "empty".
func TestMayHoldData(t *testing.T) {
	empty := &fdb.Status{}
	empty.Cluster.Processes = map[string]fdb.Process{"p": {}}
	empty.Cluster.Data.State.Name = fdb.DataHealthy
	withData := &fdb.Status{Cluster: empty.Cluster}
	withData.Cluster.Data.TotalKVSizeBytes = 1
	noDataState := &fdb.Status{}
	noDataState.Cluster.Processes = empty.Cluster.Processes
	incomplete := &fdb.Status{Cluster: empty.Cluster}
	incomplete.Cluster.Messages = []fdb.Message{{Name: fdb.MessageStatusIncomplete}}
	cases := map[string]struct {
		status *fdb.Status
		want   bool
	}{
		"Empty":              {status: empty, want: false},
		"HoldsData":          {status: withData, want: true},
		"NoStatus":           {status: nil, want: true},
		"DataSectionMissing": {status: noDataState, want: true},
		"Incomplete":         {status: incomplete, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, mayHoldData(tc.status)); diff != "" {
				t.Errorf("mayHoldData: -want, +got:\n%s", diff)
			}
		})
	}
}
