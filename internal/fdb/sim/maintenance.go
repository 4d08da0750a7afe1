package sim

import (
	"context"
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errSetMaintenance   = "cannot set maintenance"
	errResetMaintenance = "cannot reset maintenance"
)

// SetMaintenance implements fdb.Client: until the time runs out, processes
// of the zone that go down keep their replicas waiting for them, as if the
// failure detection time had not passed.
func (s *Sim) SetMaintenance(ctx context.Context, zone string, seconds int) error {
	if err := s.beginAvailable(ctx, OpMaintenance, errSetMaintenance); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpMaintenance, zone, strconv.Itoa(seconds))
	if zone == "" || seconds <= 0 {
		return errors.Errorf("%s: zone %q for %ds", errSetMaintenance, zone, seconds)
	}
	s.maintenanceZone, s.maintenanceUntil = zone, s.now.Add(time.Duration(seconds)*time.Second)
	s.evaluate()
	return nil
}

// ResetMaintenance implements fdb.Client.
func (s *Sim) ResetMaintenance(ctx context.Context) error {
	if err := s.beginAvailable(ctx, OpMaintenance, errResetMaintenance); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.took(OpMaintenance, "off")
	s.maintenanceZone, s.maintenanceUntil = "", time.Time{}
	s.evaluate()
	return nil
}

// underMaintenance reports whether zone is under maintenance now.
func (s *Sim) underMaintenance(zone string) bool {
	return zone != "" && zone == s.maintenanceZone && s.now.Before(s.maintenanceUntil)
}
