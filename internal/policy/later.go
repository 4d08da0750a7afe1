package policy

import (
	"context"
	"maps"
	"slices"
	"time"
)

// AllowedWithin is how far ahead AllowedAfter looks: a wait longer than a
// day is no wait for the clock alone.
const AllowedWithin = 24 * time.Hour

// agingDetails are the action details that are ages: they grow as time
// passes.
var agingDetails = []string{DetailMinimumUptimeSeconds, DetailFailedSeconds, DetailTaintedSeconds, DetailRestorableVersionAgeSeconds}

// Later is the input as it would be d from now if nothing but the clock
// moved: every age grows by d (the time since the last recovery when
// known, the process groups' conditions, the action's uptimes, failure and
// taint times, the restorable version's age) and the certificates' time left
// shrinks by d. The engine's now moves with it (see AllowedAfter).
func (in Input) Later(d time.Duration) Input {
	s := int64(d / time.Second)
	out := in
	if out.Cluster.SecondsSinceLastRecovery >= 0 {
		out.Cluster.SecondsSinceLastRecovery += s
	}
	if out.Cluster.TLS.Certificates {
		out.Cluster.TLS.CertificateSecondsLeft -= s
	}
	if len(in.Action.Details) > 0 {
		out.Action.Details = maps.Clone(in.Action.Details)
		for _, k := range agingDetails {
			switch v := out.Action.Details[k].(type) {
			case int:
				out.Action.Details[k] = v + int(s)
			case int64:
				out.Action.Details[k] = v + s
			case float64:
				out.Action.Details[k] = v + float64(s)
			}
		}
	}
	out.ProcessGroups = slices.Clone(in.ProcessGroups)
	for i := range out.ProcessGroups {
		g := &out.ProcessGroups[i]
		g.Conditions = slices.Clone(g.Conditions)
		for j := range g.Conditions {
			g.Conditions[j].AgeSeconds += s
		}
	}
	return out
}

// AllowedAfter is how long from now the policies would allow in's action,
// which they deny now, if nothing but the clock moved (Later): the
// earliest whole second within
// AllowedWithin at which they do, found by bisection, as an age passes a
// threshold only once. False when they would not allow it within
// AllowedWithin, e.g. because what denies it is no age.
func (e *Engine) AllowedAfter(ctx context.Context, policies []Policy, in Input) (time.Duration, bool) {
	now := e.clock.Now()
	allowed := func(d time.Duration) bool {
		return e.decide(ctx, policies, in.Later(d), now.Add(d)).Allowed
	}
	if !allowed(AllowedWithin) {
		return 0, false
	}
	lo, hi := time.Duration(0), AllowedWithin
	for hi-lo > time.Second {
		mid := (lo + hi) / 2
		mid -= mid % time.Second
		if allowed(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}
