package shard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestParse(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Shard
		wantErr string
	}{
		"One":         {in: "0/1", want: Shard{Index: 0, Count: 1}},
		"LastOfThree": {in: "2/3", want: Shard{Index: 2, Count: 3}},
		"IndexTooBig": {in: "3/3", wantErr: `shard "3/3": the index must be at least 0 and less than the count, and the count at least 1`},
		"Negative":    {in: "-1/3", wantErr: `shard "-1/3": the index must be at least 0`},
		"NoCount":     {in: "1", wantErr: `shard "1" is not INDEX/COUNT, e.g. 0/3`},
		"NotNumbers":  {in: "a/b", wantErr: `shard "a/b" is not INDEX/COUNT`},
		"ZeroCount":   {in: "0/0", wantErr: `the count at least 1`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q): error %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q): -want, +got:\n%s", tc.in, diff)
			}
			if got.String() != tc.in {
				t.Errorf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}

// TestShardsAreDisjointAndCoverEveryNamespace: of COUNT shards exactly one
// owns each namespace, cluster-scoped objects belong to shard 0, and the
// hash spreads namespaces named alike (team-1, team-2, …) about evenly.
func TestShardsAreDisjointAndCoverEveryNamespace(t *testing.T) {
	for _, count := range []int{1, 2, 3, 7} {
		perShard := make([]int, count)
		for i := range 3000 {
			ns := fmt.Sprintf("team-%d", i)
			owners := 0
			for index := range count {
				if (Shard{Index: index, Count: count}).Owns(ns) {
					owners++
					perShard[index]++
				}
			}
			if owners != 1 {
				t.Fatalf("%d shards: namespace %s has %d owners, want 1", count, ns, owners)
			}
		}
		for index, n := range perShard {
			if even := 3000 / count; n < even*8/10 || n > even*12/10 {
				t.Errorf("%d shards: shard %d owns %d of 3000 namespaces, want within 20%% of %d", count, index, n, even)
			}
		}
		if !(Shard{Index: 0, Count: count}).Owns("") {
			t.Errorf("%d shards: shard 0 does not own the cluster-scoped objects", count)
		}
	}
	if !(Shard{}).Owns("anything") {
		t.Error("the zero Shard does not own everything")
	}
}

func TestReconcilerSkipsOtherShards(t *testing.T) {
	var reconciled []string
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		reconciled = append(reconciled, req.Namespace)
		return reconcile.Result{}, nil
	})
	s := Shard{Index: 1, Count: 2}
	var want []string
	for i := range 20 {
		ns := fmt.Sprintf("team-%d", i)
		if s.Owns(ns) {
			want = append(want, ns)
		}
		if _, err := s.Reconciler(r).Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "db"}}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, reconciled); diff != "" {
		t.Errorf("reconciled namespaces: -want, +got:\n%s", diff)
	}
	if len(want) == 0 || len(want) == 20 {
		t.Errorf("shard 1/2 owns %d of 20 namespaces: the test shows nothing", len(want))
	}
}

func TestLeaderElectionID(t *testing.T) {
	cases := map[string]struct {
		s    Shard
		want string
	}{
		"Unsharded": {s: Shard{Count: 1}, want: "lease"},
		"Zero":      {s: Shard{}, want: "lease"},
		"Sharded":   {s: Shard{Index: 1, Count: 3}, want: "lease-shard-1-of-3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.s.LeaderElectionID("lease")); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
