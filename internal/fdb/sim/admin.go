package sim

import (
	"slices"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// An AdminCall is a request that reached the database and may change it:
// the simulator's own record of what its clients asked, independent of
// what a client says it did. A call is recorded once the database took it
// in, before it is carried out, whether or not it then succeeds: a request
// that was never allowed must not reach the database at all.
type AdminCall struct {
	// At is the simulator's time of the call.
	At time.Time
	// Op is the operation.
	Op Op
	// Args are the call's arguments as text: the addresses of an
	// exclusion, inclusion, kill or coordinator change; the zone and
	// seconds of a maintenance; the tag of a backup or restore; the
	// data center of a forced recovery; the holder of a lock.
	Args []string
	// Groups are the process groups (locality_instance_id) of the
	// processes the addresses in Args name now, sorted.
	Groups []string
}

// AdminCalls returns every admin call the database took in since it was
// created, oldest first, from the from-th on (0 for all), when its options
// ask to record them (Options.RecordAdminCalls); none otherwise.
func (s *Sim) AdminCalls(from int) []AdminCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if from >= len(s.calls) {
		return nil
	}
	return slices.Clone(s.calls[max(from, 0):])
}

// took records an admin call of op with args, when the simulator records
// them; the caller holds the lock.
func (s *Sim) took(op Op, args ...string) {
	if s.opts.RecordAdminCalls {
		s.calls = append(s.calls, AdminCall{At: s.now, Op: op, Args: args})
	}
}

// tookOn records an admin call of op on the processes targets name, with
// their groups; the caller holds the lock.
func (s *Sim) tookOn(op Op, targets []fdb.ProcessAddress) {
	if !s.opts.RecordAdminCalls {
		return
	}
	args := make([]string, len(targets))
	var groups []string
	for i, t := range targets {
		args[i] = string(t)
		for _, id := range s.procIDs {
			if p := s.procs[id]; slices.ContainsFunc(p.views(), t.Matches) && !slices.Contains(groups, p.group) {
				groups = append(groups, p.group)
			}
		}
	}
	slices.Sort(groups)
	s.calls = append(s.calls, AdminCall{At: s.now, Op: op, Args: args, Groups: groups})
}
