package api

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/planehq/hiringsignal/oltp"
)

// meter records one metered call durably (the metering log fsyncs before returning) so a crash
// after the answer leaves still bills it.
func (s *Server) meter(c *Call, units int, now time.Time) error {
	if c.Route.Meter == MeterCall || units < 0 {
		units = 0
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	rec := oltp.UsageRecord{UnitID: hex.EncodeToString(b[:]), CustomerID: c.Caller.CustomerID, AccountID: c.Caller.AccountID, KeyID: c.Caller.KeyID,
		Method: c.Route.Method, Route: c.Route.Path, MeterClass: string(c.Route.Meter), Function: c.function, Calls: 1, Units: int64(units),
		ForcedFresh: c.forcedFresh, OccurredAt: now.UTC()}
	if err := s.usage.Append(c.Context(), rec); err != nil {
		return err
	}
	s.caps.add(c.Caller.AccountID, int64(units))
	return nil
}
