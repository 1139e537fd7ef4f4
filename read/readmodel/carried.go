package readmodel

import (
	"time"

	"github.com/planehq/hiringsignal/analytics"
)

// MomentumRows is the weekly flow company id was built with (the analytics.StreamMomentum rows
// of its own, in their order: by week), nil when the model has no such company or it had no
// flow. A commit applied to the model's snapshot adds the commit's weeks to them
// (analytics.StreamMomentumBetween) instead of reading the company's whole history again.
func (m *Model) MomentumRows(id uint64) []analytics.WeekCount {
	c := m.Company(id)
	if c == nil || len(c.momentum) == 0 {
		return nil
	}
	out := make([]analytics.WeekCount, len(c.momentum))
	for i, w := range c.momentum {
		out[i] = analytics.WeekCount{Key: id, BucketStart: time.Unix(int64(w.day)*86400, 0).UTC(),
			Opened: uint64(w.opened), Reposted: uint64(w.reposted), Closed: uint64(w.closed)}
	}
	return out
}
