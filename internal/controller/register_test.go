package controller

import (
	"testing"

	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apisv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/options"
)

// recordingGate is a safe-start gate whose CRDs never become established:
// it records the kinds each registered controller waits for and starts
// none.
type recordingGate struct {
	registered [][]schema.GroupVersionKind
}

func (g *recordingGate) Register(_ func(), gvks ...schema.GroupVersionKind) {
	g.registered = append(g.registered, gvks)
}

func (g *recordingGate) Set(schema.GroupVersionKind, bool) bool { return false }

func TestSetup(t *testing.T) {
	type want struct {
		err        error
		registered [][]schema.GroupVersionKind
	}
	cases := map[string]struct {
		reason string
		gate   *recordingGate
		want   want
	}{
		"EveryControllerBehindTheGate": {
			reason: "Every controller, the config kinds' and SafetyPolicy's included, waits for the CRDs of every kind of the provider it watches or reads (a Backup's and a Restore's their Cluster and its ProcessGroups, which the index of each Cluster's objects needs); none starts before (the manager is not even touched).",
			gate:   &recordingGate{},
			want: want{registered: [][]schema.GroupVersionKind{
				{apisv1alpha1.ProviderConfigGroupVersionKind, apisv1alpha1.ProviderConfigUsageGroupVersionKind},
				{apisv1alpha1.ClusterProviderConfigGroupVersionKind, apisv1alpha1.ProviderConfigUsageGroupVersionKind},
				{apisv1alpha1.SafetyPolicyGroupVersionKind},
				{v1alpha1.ClusterGroupVersionKind, v1alpha1.ProcessGroupGroupVersionKind},
				{v1alpha1.ProcessGroupGroupVersionKind, v1alpha1.ClusterGroupVersionKind},
				{v1alpha1.BackupGroupVersionKind, v1alpha1.ClusterGroupVersionKind, v1alpha1.ProcessGroupGroupVersionKind},
				{v1alpha1.RestoreGroupVersionKind, v1alpha1.ClusterGroupVersionKind, v1alpha1.ProcessGroupGroupVersionKind},
			}},
		},
		"NoGate": {
			reason: "Without a safe-start gate no controller is set up: one would wait for ever for a kind that is not active.",
			want:   want{err: errors.New(errNoSafeStart)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := options.Options{Options: xpcontroller.Options{Logger: logging.NewNopLogger()}}
			if tc.gate != nil {
				o.Gate = tc.gate
			}
			err := Setup(nil, o)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nSetup(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			var got [][]schema.GroupVersionKind
			if tc.gate != nil {
				got = tc.gate.registered
			}
			if diff := cmp.Diff(tc.want.registered, got); diff != "" {
				t.Errorf("\n%s\nregistered kinds: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
