package api

import (
	"context"
	"time"

	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/api/metering"
)

// meter records one metered call in the metering log before the answer leaves, so a crash of the
// process after the answer still bills it (and, with --metering-fsync-interval 0, a crash of the
// machine too), then settles the call's spend-cap reservation to the units recorded. A call the
// handler marked NotBilled is recorded with no call and no unit.
func (s *Server) meter(c *Call, units int, now time.Time, spend *admission.Reservation) error {
	if c.Route.Meter == MeterCall || units < 0 || c.notBilled {
		units = 0
	}
	calls := int32(1)
	if c.notBilled {
		calls = 0
	}
	rec := metering.Record{CustomerID: c.Caller.CustomerID, AccountID: c.Caller.AccountID, KeyID: c.Caller.KeyID,
		Method: c.Route.Method, Route: c.Route.Path, MeterClass: string(c.Route.Meter), Function: c.function, Calls: calls, Units: int64(units),
		ForcedFresh: c.forcedFresh, OccurredAt: now.UTC(), Channel: channelOf(c.Ctx)}
	// Settled before the record is written: once written, a flush may move its units into the
	// month's rollup (and off this instance's spend hold) at any moment, and the caps must
	// already count them as this instance's unflushed units, not as a reservation besides.
	spend.Settle(int64(units))
	if err := s.usage.Append(c.lazy(), rec); err != nil {
		spend.Unsettle()
		return err
	}
	return nil
}

// FlushUsage moves every metered unit this instance recorded into Postgres (tests, usage reads).
// Concurrent flushes are coalesced (metering.Log.Flush).
func (s *Server) FlushUsage(ctx context.Context) error {
	if s.usage == nil {
		return nil
	}
	return s.usage.Flush(ctx)
}

// flushUsageFor is FlushUsage for a usage read of accountID: that account's cached spend is
// re-read at its next admission; no other account's cache is touched. Counted in
// hs_metering_read_flushes_total.
func (s *Server) flushUsageFor(ctx context.Context, accountID int64) error {
	s.metrics.GetOrCreateCounter("hs_metering_read_flushes_total").Inc()
	err := s.FlushUsage(ctx)
	s.caps.Invalidate(accountID)
	return err
}
