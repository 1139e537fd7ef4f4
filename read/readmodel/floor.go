package readmodel

import "time"

// Hidden is a req a caller's freshness floor keeps out of its rows (first seen after the
// floor's cutoff): what PulseUnder needs to take it out of a pulse.
type Hidden struct {
	FirstSeen   int64 // unix seconds
	LastEventAt int64 // unix seconds
	Live        bool
	RepostCount uint32
}

// PulseUnder is the pulse of c without the hidden reqs, so that a floored answer's counts agree
// with its rows: open_req_count, is_hiring and active_reqs drop the hidden live reqs;
// new_roles_30d, velocity, direction and is_surge count them as never opened; momentum (when
// asked) drops their opening from the week of their first_seen and, for a hidden req that
// closed or was reposted since, that flow from the week of its latest event. The windows still
// end at the model's AsOf. A hidden req is at most a floor old, so every flow it made is among
// these. A hidden req that is also left-censored (coverage began within the floor) made no
// opening, so none is taken out for it.
func (m *Model) PulseUnder(c *Company, withMomentum bool, hidden []Hidden) Pulse {
	if len(hidden) == 0 || !c.Covered() {
		return m.PulseOf(c, withMomentum)
	}
	s := c.stats
	now := m.AsOf
	activeFrom := now.Add(-ActiveWindow).Unix()
	for _, h := range hidden {
		var d pulseStats
		d.addFirstSeen(time.Unix(h.FirstSeen, 0), now)
		s.new30 -= d.new30
		s.cur4w -= d.cur4w
		s.prev4w -= d.prev4w
		s.last2w -= d.last2w
		s.prior6w -= d.prior6w
		if h.Live {
			s.open--
			if h.LastEventAt >= activeFrom {
				s.active--
			}
		}
	}
	p := m.pulseWith(c, s, withMomentum)
	if !withMomentum {
		return p
	}
	bucket := func(unix int64) *MomentumWeek {
		day := time.Unix(int64(mondayDay(time.Unix(unix, 0)))*86400, 0).UTC()
		for i := len(p.Momentum) - 1; i >= 0; i-- {
			if p.Momentum[i].BucketStart.Equal(day) {
				return &p.Momentum[i]
			}
		}
		return nil
	}
	for _, h := range hidden {
		// A left-censored req (live when coverage began) was never counted as an opening.
		if w := bucket(h.FirstSeen); w != nil && w.Opened > 0 && !c.censors(h.FirstSeen) {
			w.Opened--
		}
		w := bucket(h.LastEventAt)
		if w == nil {
			continue
		}
		if !h.Live && w.Closed > 0 {
			w.Closed--
		}
		w.Reposted = max(0, w.Reposted-int(h.RepostCount))
	}
	return p
}

// FreshBefore is the first_seen cutoff of a freshness floor of floorS seconds (the caller plan's
// plans.FreshnessFloorS) at asOf, the latest committed cycle's time: a req first seen after it
// is hidden from every read. Zero when floorS is 0 (paid plans): nothing is hidden. The search
// routes and the company reads share it, so both hide exactly the same reqs.
func FreshBefore(asOf time.Time, floorS int) time.Time {
	if floorS <= 0 {
		return time.Time{}
	}
	return asOf.Add(-time.Duration(floorS) * time.Second)
}

// Hides reports whether a req first seen at firstSeen (unix seconds) is after cutoff
// (FreshBefore; zero hides nothing).
func Hides(cutoff time.Time, firstSeen int64) bool {
	return !cutoff.IsZero() && firstSeen > cutoff.Unix()
}
