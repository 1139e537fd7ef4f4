package snapshot

import (
	"time"

	"github.com/planehq/hiringsignal/read/readmodel"
)

// PulseUnder is c's pulse as a caller with a freshness floor may see it: without the reqs first
// seen after cutoff (readmodel.FreshBefore; zero: the model's pulse as it is). The hidden reqs
// come from the search index of the same snapshot, which holds every one of them, closed ones
// too (they are younger than its 30-day window of closed reqs); readmodel.PulseUnder takes them
// out. The search routes and the company reads both serve pulses this way, so their counts agree.
func (s *Snapshot) PulseUnder(c *readmodel.Company, withMomentum bool, cutoff time.Time) readmodel.Pulse {
	if cutoff.IsZero() || s.Index == nil {
		return s.Model.PulseOf(c, withMomentum)
	}
	var hidden []readmodel.Hidden
	reqs := s.Index.CompanyReqs(c.ID)
	for i := range reqs {
		if r := &reqs[i]; readmodel.Hides(cutoff, r.FirstSeen) {
			hidden = append(hidden, readmodel.Hidden{FirstSeen: r.FirstSeen, LastEventAt: r.LastEventAt, Live: r.Live, RepostCount: r.RepostCount})
		}
	}
	return s.Model.PulseUnder(c, withMomentum, hidden)
}
