package managedkind

import (
	"context"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

func TestLockOf(t *testing.T) {
	cluster := func(mutate func(p *v1alpha1.ClusterParameters), status ...func(c *v1alpha1.Cluster)) *v1alpha1.Cluster {
		c := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "db"}}
		c.Spec.ForProvider.Locks.DurationSeconds = 300
		mutate(&c.Spec.ForProvider)
		for _, s := range status {
			s(c)
		}
		return c
	}
	regions := func(p *v1alpha1.ClusterParameters) {
		p.DataCenter = "dc1"
		p.DatabaseConfiguration.Regions = []v1alpha1.Region{{DataCenters: []v1alpha1.RegionDataCenter{{ID: "dc1"}}}}
	}
	cases := map[string]struct {
		reason string
		c      *v1alpha1.Cluster
		want   *Lock
	}{
		"Alone": {
			reason: "A Cluster without regions or a seed acts alone on its database: no lock.",
			c:      cluster(func(*v1alpha1.ClusterParameters) {}),
		},
		"DataCenter": {
			reason: "The Cluster of a data center holds the lock under the data center's ID.",
			c:      cluster(regions),
			want:   &Lock{Holder: "dc1", Duration: 5 * time.Minute},
		},
		"Seeded": {
			reason: "A Cluster that joins another's database without a data center holds it under its namespaced name.",
			c:      cluster(func(p *v1alpha1.ClusterParameters) { p.SeedConnectionString = "db:abc@10.0.0.1:4501" }),
			want:   &Lock{Holder: "team/db", Duration: 5 * time.Minute},
		},
		"FirstDataHall": {
			reason: "The first data hall's Cluster joins no other, yet the other halls' Clusters act on its database: it holds the lock under the hall's ID.",
			c:      cluster(func(p *v1alpha1.ClusterParameters) { p.DataHall = "hall1" }),
			want:   &Lock{Holder: "hall1", Duration: 5 * time.Minute},
		},
		"DefaultDuration": {
			reason: "A duration left out is the default.",
			c:      cluster(func(p *v1alpha1.ClusterParameters) { regions(p); p.Locks.DurationSeconds = 0 }),
			want:   &Lock{Holder: "dc1", Duration: fdb.DefaultLockDuration},
		},
		"DisabledAsAllowed": {
			reason: "A Cluster whose locks the safety policies let it disable takes none.",
			c: cluster(func(p *v1alpha1.ClusterParameters) { regions(p); p.Locks.DisableLocks = true }, func(c *v1alpha1.Cluster) {
				c.Status.AtProvider.LocksDisabled = true
			}),
		},
		"DisableNotAllowedYet": {
			reason: "Asking to disable locks changes nothing until the policies allow it (DisableLocks).",
			c:      cluster(func(p *v1alpha1.ClusterParameters) { regions(p); p.Locks.DisableLocks = true }),
			want:   &Lock{Holder: "dc1", Duration: 5 * time.Minute},
		},
		"Reenabled": {
			reason: "Locks asked for again are taken at once.",
			c: cluster(regions, func(c *v1alpha1.Cluster) {
				c.Status.AtProvider.LocksDisabled = true
			}),
			want: &Lock{Holder: "dc1", Duration: 5 * time.Minute},
		},
	}
	if l := LockOf(cluster(regions), nil); l != nil {
		t.Errorf("LockOf without a database client = %+v, want none: only the steps that make the database run then", l)
	}
	locker := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1}).Sim
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, LockOf(tc.c, locker), cmpopts.IgnoreFields(Lock{}, "Locker")); diff != "" {
				t.Errorf("\n%s\nLockOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestLockTake: the first step takes the lock (an event says so), later
// ones extend it quietly, and another holder's steps wait, told who holds
// it.
func TestLockTake(t *testing.T) {
	c := fdbtest.NewCluster(t, fdbtest.Triple, sim.Options{Seed: 1})
	c.Create(t, fdb.RedundancyTriple)
	ctx := context.Background()
	dc1 := &Lock{Locker: c.Sim, Holder: "dc1", Duration: time.Minute}
	dc2 := &Lock{Locker: c.Sim, Holder: "dc2", Duration: time.Minute}
	if _, taken, err := dc1.take(ctx, c.Clock.Now()); err != nil || !taken {
		t.Fatalf("first take = %t, %v; want taken", taken, err)
	}
	c.Clock.Step(30 * time.Second)
	if held, taken, err := dc1.take(ctx, c.Clock.Now()); err != nil || taken || !held.End.Equal(c.Clock.Now().Add(time.Minute)) {
		t.Errorf("the holder's next step = %+v, %t, %v; want an extension to a minute from now", held, taken, err)
	}
	if seen, _, err := dc2.take(ctx, c.Clock.Now()); err == nil || !strings.HasPrefix(err.Error(), "cannot take the global lock: the global lock is held by dc1 until") || seen.Holder != "dc1" {
		t.Errorf("another holder's step = %+v, %v; want it told, once, that dc1 holds the lock", seen, err)
	}
	c.Clock.Step(2 * time.Minute)
	if _, taken, err := dc2.take(ctx, c.Clock.Now()); err != nil || !taken {
		t.Errorf("another holder's step once the lock expired = %t, %v; want taken", taken, err)
	}
}

func TestGlobal(t *testing.T) {
	for a, want := range map[string]bool{
		"Exclude": true, "Include": true, "ChangeCoordinators": true, "ConfigureDatabase": true, "Kill": true, "Upgrade": true,
		"DeletePod": true, "ForceDeletePod": true, "SetMaintenance": true, "ResetMaintenance": true, "FailoverRegion": true,
		"CreateProcessGroup": false, "RemoveProcessGroup": false, "ReplaceProcessGroup": false, "StartBackup": false, "DeleteCluster": false,
	} {
		if got := Global(apiv1alpha1.ActionType(a)); got != want {
			t.Errorf("Global(%s) = %t, want %t", a, got, want)
		}
	}
}

// TestNeedsLock: the steps that make the database and a forced recovery
// of an unavailable one take no lock; other global steps do.
func TestNeedsLock(t *testing.T) {
	cases := map[string]struct {
		a    policy.Action
		want bool
	}{
		"Exclude":             {policy.Action{Type: apiv1alpha1.ActionExclude}, true},
		"InitialCoordinators": {policy.Action{Type: apiv1alpha1.ActionChangeCoordinators, Details: map[string]any{policy.DetailInitial: true}}, false},
		"ConfigureNew":        {policy.Action{Type: apiv1alpha1.ActionConfigureDatabase, Details: map[string]any{policy.DetailNewDatabase: true}}, false},
		"PlannedFailover":     {policy.Action{Type: apiv1alpha1.ActionFailoverRegion, Details: map[string]any{policy.DetailForced: false}}, true},
		"ForcedFailover":      {policy.Action{Type: apiv1alpha1.ActionFailoverRegion, Details: map[string]any{policy.DetailForced: true}}, false},
		"CreateProcessGroup":  {policy.Action{Type: apiv1alpha1.ActionCreateProcessGroup}, false},
	}
	for name, tc := range cases {
		if got := NeedsLock(tc.a); got != tc.want {
			t.Errorf("%s: NeedsLock = %t, want %t", name, got, tc.want)
		}
	}
}

// TestLockCondition: the GlobalLock condition says who holds the lock, True
// only for the Cluster itself, and never when it ends: an extension changes
// nothing.
func TestLockCondition(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := &v1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "db", Generation: 3}}
	c.Spec.ForProvider.DataCenter = "dc1"
	cases := map[string]struct {
		holder string
		want   xpv2.Condition
	}{
		"Holding": {"dc1", xpv2.Condition{Type: TypeGlobalLock, Status: corev1.ConditionTrue, Reason: ReasonHoldingLock,
			Message: "holds the global lock as dc1", LastTransitionTime: metav1.NewTime(now), ObservedGeneration: 3}},
		"Another": {"dc2", xpv2.Condition{Type: TypeGlobalLock, Status: corev1.ConditionFalse, Reason: ReasonLockElsewhere,
			Message: "dc2 holds the global lock: steps with database-wide effect wait for it", LastTransitionTime: metav1.NewTime(now), ObservedGeneration: 3}},
		"NotHeld": {"", xpv2.Condition{Type: TypeGlobalLock, Status: corev1.ConditionFalse, Reason: ReasonLockNotHeld,
			Message: "does not hold the global lock, and saw no one else hold it", LastTransitionTime: metav1.NewTime(now), ObservedGeneration: 3}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, LockCondition(c, tc.holder, now)); diff != "" {
				t.Errorf("LockCondition(...): -want, +got:\n%s", diff)
			}
		})
	}
	extended := c.DeepCopy()
	recordLock(extended, fdb.GlobalLock{Holder: "dc1", Start: now, End: now.Add(time.Minute)}, now)
	before := extended.GetCondition(TypeGlobalLock)
	recordLock(extended, fdb.GlobalLock{Holder: "dc1", Start: now, End: now.Add(2 * time.Minute)}, now.Add(time.Minute))
	if diff := cmp.Diff(before, extended.GetCondition(TypeGlobalLock)); diff != "" {
		t.Errorf("the condition after an extension: -before, +after:\n%s", diff)
	}
}
