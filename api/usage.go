package api

import (
	"time"

	"github.com/planehq/hiringsignal/oltp"
)

// usageResponse: the five customer totals (calls, source_rows, changes, watches,
// delivered_changes) each equal the sum over keys[].
type usageResponse struct {
	WindowHours         int64            `json:"window"`
	Since               time.Time        `json:"since"`
	Calls               int64            `json:"calls"`
	SourceRows          int64            `json:"source_rows"`
	Changes             int64            `json:"changes"`
	Watches             int64            `json:"watches"`
	DeliveredChanges    int64            `json:"delivered_changes"`
	ForcedFresh         int64            `json:"forced_fresh"`
	ByMeterClass        map[string]int64 `json:"by_meter_class"`
	ByFunction          map[string]int64 `json:"by_function"`
	ReferralCreditUnits int64            `json:"referral_credit_units"`
	SLACreditUnits      int64            `json:"sla_credit_units"`
	Keys                []oltp.KeyUsage  `json:"keys"`
}

func (s *Server) usageTotals(c *Call) (int, error) {
	window, _ := c.Int("window")
	if err := s.FlushUsage(c.Context()); err != nil {
		s.log.Warn("usage read before this instance's metering reached Postgres", "err", err)
	}
	// Whole seconds: the ledger rolls calls up per second, so the window starts on a bucket edge.
	since := s.now().Add(-time.Duration(window) * time.Hour).UTC().Truncate(time.Second)
	keys, err := oltp.UsageByKey(c.Context(), s.pool, c.Caller.CustomerID, since)
	if err != nil {
		return 0, Internal(err)
	}
	out := usageResponse{WindowHours: window, Since: since, ByMeterClass: map[string]int64{}, ByFunction: map[string]int64{}, Keys: keys}
	if out.Keys == nil {
		out.Keys = []oltp.KeyUsage{}
	}
	for _, cls := range []string{oltp.MeterSourceRow, oltp.MeterChange, oltp.MeterWatch, oltp.MeterDeliveredChange} {
		out.ByMeterClass[cls] = 0
	}
	for _, k := range keys {
		out.Calls += k.Calls
		out.SourceRows += k.SourceRows
		out.Changes += k.Changes
		out.Watches += k.Watches
		out.DeliveredChanges += k.DeliveredChanges
		out.ForcedFresh += k.ForcedFresh
		for m, v := range k.ByMeterClass {
			out.ByMeterClass[m] += v
		}
		for f, v := range k.ByFunction {
			out.ByFunction[f] += v
		}
	}
	return 0, c.JSON(200, out)
}
