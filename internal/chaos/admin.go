package chaos

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/sim"
)

// armedCalls is how many calls an armed admin fault covers: all of those
// of the reconciles it is armed for.
const armedCalls = 1 << 20

// An armed fault degrades the provider's admin calls during its next few
// reconciles. It is armed on every database right before such a reconcile
// and cleared right after, so that the harness's own status reads, which
// its checks rest on, always see the database as it is.
type armed struct {
	name string
	// arm sets (on) or clears the fault on a database.
	arm func(db *sim.Sim, on bool) error
	// reconciles is how many reconciles are left.
	reconciles int
}

// adminOps are the admin operations a failure can hit.
var adminOps = []sim.Op{sim.OpStatus, sim.OpConfigure, sim.OpExclude, sim.OpInclude, sim.OpKill, sim.OpCoordinators}

// armedFaults are the kinds of armed faults.
var armedFaults = []struct {
	name string
	arm  func(r *run) func(db *sim.Sim, on bool) error
}{
	{"AdminTimeout", func(r *run) func(*sim.Sim, bool) error {
		op := adminOps[r.pick(len(adminOps))]
		return func(db *sim.Sim, on bool) error { return db.FailNext(op, fdb.ErrTimeout, calls(on)) }
	}},
	{"IncompleteStatus", func(*run) func(*sim.Sim, bool) error {
		return func(db *sim.Sim, on bool) error { return db.IncompleteStatusNext(calls(on)) }
	}},
	{"StatusWithoutRoles", func(*run) func(*sim.Sim, bool) error {
		return func(db *sim.Sim, on bool) error { return db.OmitRolesNext(calls(on)) }
	}},
	{"PartialKill", func(*run) func(*sim.Sim, bool) error {
		return func(db *sim.Sim, on bool) error { return db.PartialKillNext(calls(on), fdb.ErrTimeout) }
	}},
}

func calls(on bool) int {
	if on {
		return armedCalls
	}
	return 0
}

// armAdminFault arms one admin fault the seeded source picks for the next
// one to three reconciles.
func armAdminFault(_ context.Context, r *run, _ map[string]*database) (string, error) {
	k := armedFaults[r.pick(len(armedFaults))]
	a := &armed{name: k.name, arm: k.arm(r), reconciles: 1 + r.pick(3)}
	r.armed = append(r.armed, a)
	return fmt.Sprintf("%s armed for the next %d reconciles", a.name, a.reconciles), nil
}

// withArmed runs reconcile with the armed faults set on every database,
// then clears them and counts the reconcile against each.
func (r *run) withArmed(reconcile func()) error {
	if err := r.setArmed(true); err != nil {
		return err
	}
	reconcile()
	if err := r.setArmed(false); err != nil {
		return err
	}
	left := r.armed[:0]
	for _, a := range r.armed {
		if a.reconciles--; a.reconciles > 0 {
			left = append(left, a)
		}
	}
	r.armed = left
	return nil
}

func (r *run) setArmed(on bool) error {
	for _, a := range r.armed {
		for _, key := range slices.Sorted(maps.Keys(r.keysByName())) {
			if err := a.arm(r.sims.Registry.Get(key), on); err != nil {
				return err
			}
		}
	}
	return nil
}

// stallExclusions stops data from moving off excluded processes for the
// fault window: an exclusion that does not finish.
func stallExclusions(_ context.Context, r *run, before map[string]*database) (string, error) {
	if len(before) == 0 {
		return "", nil
	}
	for _, db := range distinct(before) {
		db.sim.StallExclusions(true)
	}
	r.stalledUntil = r.clock.Now().Add(faultWindow)
	return "exclusions stalled", nil
}

// unstall lets exclusions finish again once the stall's window passed (or
// at once, with now).
func (r *run) unstall(now bool) {
	if r.stalledUntil.IsZero() || (!now && r.clock.Now().Before(r.stalledUntil)) {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(r.keysByName())) {
		r.sims.Registry.Get(key).StallExclusions(false)
	}
	r.stalledUntil = time.Time{}
}

// recovery forces a recovery of every database, as a killed master would.
func recovery(_ context.Context, _ *run, before map[string]*database) (string, error) {
	n := 0
	for _, db := range distinct(before) {
		if db.sim.Recover() == nil {
			n++
		}
	}
	if n == 0 {
		return "", nil
	}
	return "forced a recovery", nil
}
