// Package readmodel holds the in-memory read model of the company reads: companies, their reqs
// and their hiring pulse. A Builder makes one immutable Model from rows of the committed ledger
// that package snapshot reads (once per commit, for this model and the search index alike) and
// swaps in together with the search index. Its reqs are the search index's records of the same
// build (searchindex.Record, made by the index's Builder and shared, never copied), and its
// companies name their few-valued strings (directory values, coverage, censored function sets)
// by small ids in the same lineage's dictionaries (searchindex.Dictionaries, which package
// snapshot hands NewBuilder from the index's builder): the model imports package searchindex for
// the record and the dictionaries only. Reads never wait on ClickHouse.
//
// It owns the model and the rules that build it from analytics rows. It does no I/O: it must not
// query ClickHouse, poll the watermark, write any store or serve HTTP (package snapshot reads and
// swaps; handlers live in the api packages).
package readmodel

import (
	"math"
	"time"

	"github.com/planehq/hiringsignal/analytics"
)

// Pulse is a company's hiring pulse, shared by hiring-pulse, reqs/search (per company) and
// reqs/qualified include_pulse. Motion fields are pointers: null when the company has no
// observable ATS or board coverage (coverage_status no_ats_signal) — unknown is never zero.
type Pulse struct {
	CompanyID      uint64         `json:"company_id"`
	CoverageStatus string         `json:"coverage_status"` // covered or no_ats_signal
	IsHiring       *bool          `json:"is_hiring"`
	OpenReqCount   *int           `json:"open_req_count"`
	ActiveReqs     *int           `json:"active_reqs"`
	NewRoles30d    *int           `json:"new_roles_30d"`
	Velocity       *float64       `json:"velocity"`  // reqs first observed per week, trailing 4 weeks
	Direction      *string        `json:"direction"` // accelerating, steady or decelerating
	IsSurge        *bool          `json:"is_surge"`
	Momentum       []MomentumWeek `json:"momentum"` // weekly buckets, oldest first, whole history
	MotionAsOf     *time.Time     `json:"motion_as_of"`
}

// MomentumWeek is one weekly bucket of the company's publication flow.
type MomentumWeek struct {
	BucketStart time.Time `json:"bucket_start"`
	Opened      int       `json:"opened"`
	Reposted    int       `json:"reposted"`
	Closed      int       `json:"closed"`
	// Partial: the week was not observed whole: it began before the company's coverage start
	// (openings before it are unknown, and the reqs live at it are left-censored, not counted),
	// a gap in its region's crawl touches it (windows no cycle crawled, or the first cycle after
	// them, which dates every change of the gap at itself: analytics.Gap.Touches), or it has not
	// ended at the answer's as-of (the current week).
	Partial bool `json:"partial"`
}

// Windows and thresholds of the pulse rules (docs/decisions.md, "Company reads"). "now" is the
// model's AsOf (the latest committed cycle time), never the wall clock, so a backfill is
// reproducible.
const (
	Day              = 24 * time.Hour
	Week             = 7 * Day
	ActiveWindow     = 7*Day + 3*time.Hour // a live req confirmed by a read within the reobserve cadence plus one cycle
	NewRolesWindow   = 30 * Day
	VelocityWeeks    = 4 // velocity = reqs first observed per week over the trailing 4 weeks
	DirectionRatio   = 0.25
	DirectionMinDiff = 2
	SurgeMin         = 5 // a surge needs at least this many reqs first observed in the last 2 weeks
)

// pulseStats are the counts behind a pulse, accumulated while the model is built. They count one
// company's reqs, so int32 holds them (2^31 reqs a company is far beyond any ledger): 32 bytes a
// company where int was 64.
type pulseStats struct {
	open, active int32
	new30        int32 // first observed in (now-30d, now]
	cur4w        int32 // first observed in (now-28d, now]
	prev4w       int32 // first observed in (now-56d, now-28d]
	last2w       int32 // first observed in (now-14d, now]
	prior6w      int32 // first observed in (now-56d, now-14d]
	anyReq       bool
}

// countedWindow is the oldest first_seen a pulse counts: the 8 weeks of direction and surge.
const countedWindow = 8 * Week

// statsAt is c's pulse counts at now (at or after the AsOf c was built at): what a Builder
// would count for its reqs at now.
func (c *Company) statsAt(now time.Time) pulseStats {
	s := pulseStats{anyReq: c.stats.anyReq, open: int32(len(c.Live))}
	for _, fs := range c.recent {
		s.addFirstSeen(time.Unix(int64(fs), 0), now)
	}
	activeFrom := now.Add(-ActiveWindow).Unix()
	for i := range c.Live {
		if c.Live[i].LastEventAt >= activeFrom {
			s.active++
		}
	}
	return s
}

func (s *pulseStats) addFirstSeen(firstSeen, now time.Time) {
	age := now.Sub(firstSeen)
	if age < 0 {
		return
	}
	if age < NewRolesWindow {
		s.new30++
	}
	switch {
	case age < 2*Week:
		s.last2w++
		s.cur4w++
	case age < 4*Week:
		s.prior6w++
		s.cur4w++
	case age < 8*Week:
		s.prior6w++
		s.prev4w++
	}
}

// Pulse returns the hiring pulse of company id (false when the company is unknown), momentum
// included.
func (m *Model) Pulse(id uint64) (Pulse, bool) {
	c := m.Company(id)
	if c == nil {
		return Pulse{}, false
	}
	return m.PulseOf(c, true), true
}

// PulseOf computes the pulse of c; withMomentum false leaves Momentum null (cheaper).
func (m *Model) PulseOf(c *Company, withMomentum bool) Pulse {
	return m.pulseWith(c, c.stats, withMomentum)
}

// pulseWith is PulseOf over the counts s (c's own, or fewer: PulseUnder).
func (m *Model) pulseWith(c *Company, s pulseStats, withMomentum bool) Pulse {
	p := Pulse{CompanyID: c.ID, CoverageStatus: c.Coverage()}
	if !c.Covered() {
		return p // unknown is never zero: every motion field stays null
	}
	now := m.AsOf
	asOf := c.LastRead()
	if asOf.IsZero() {
		asOf = now
	}
	p.MotionAsOf = &asOf
	hiring := s.open > 0
	p.IsHiring = &hiring
	p.OpenReqCount = ptr(int(s.open))
	p.ActiveReqs = ptr(int(s.active))
	// A window that reaches back before the first read of the company would count the reqs
	// already open when observation began as new: such a window is unknown (null), not a number.
	from := c.ObservedFrom()
	observed := func(d time.Duration) bool { return !from.IsZero() && !from.After(now.Add(-d)) }
	if observed(NewRolesWindow) {
		p.NewRoles30d = ptr(int(s.new30))
	}
	if observed(VelocityWeeks * Week) {
		v := math.Round(float64(s.cur4w)/VelocityWeeks*100) / 100
		p.Velocity = &v
	}
	if observed(8 * Week) {
		d := direction(int(s.cur4w), int(s.prev4w))
		p.Direction = &d
		surge := isSurge(int(s.last2w), int(s.prior6w))
		p.IsSurge = &surge
	}
	if withMomentum {
		p.Momentum = momentumWeeks(c.momentum, now, from, m.gaps[c.Region()])
	}
	return p
}

// direction compares reqs first observed in the trailing 4 weeks with the 4 weeks before:
// accelerating when up by more than 25% and at least 2 reqs, decelerating when down by more
// than 25% and at least 2 reqs, steady otherwise.
func direction(cur, prev int) string {
	switch {
	case cur-prev >= DirectionMinDiff && float64(cur) > float64(prev)*(1+DirectionRatio):
		return "accelerating"
	case prev-cur >= DirectionMinDiff && float64(cur) < float64(prev)*(1-DirectionRatio):
		return "decelerating"
	}
	return "steady"
}

// isSurge: at least SurgeMin reqs first observed in the last 2 weeks, at a weekly rate at least
// twice the weekly rate of the 6 weeks before (last2w/2 >= 2 * prior6w/6).
func isSurge(last2w, prior6w int) bool {
	return last2w >= SurgeMin && 3*last2w >= 2*prior6w
}

// momentumWeeks expands the stored weeks into Monday buckets from the company's first week of
// flow through the week of now, zero-filled, oldest first, the weeks gaps touch partial. Empty
// (not null) for a covered company that never published.
func momentumWeeks(ws []week, now, observedFrom time.Time, gaps []analytics.Gap) []MomentumWeek {
	if len(ws) == 0 {
		return []MomentumWeek{}
	}
	last := mondayDay(now)
	if l := ws[len(ws)-1].day; l > last {
		last = l
	}
	first := ws[0].day
	out := make([]MomentumWeek, 0, (last-first)/7+1)
	i := 0
	for d := first; d <= last; d += 7 {
		mw := MomentumWeek{BucketStart: time.Unix(int64(d)*86400, 0).UTC()}
		mw.Partial = PartialWeek(mw.BucketStart, observedFrom, now, gaps)
		for i < len(ws) && ws[i].day < d {
			i++
		}
		if i < len(ws) && ws[i].day == d {
			mw.Opened, mw.Reposted, mw.Closed = int(ws[i].opened), int(ws[i].reposted), int(ws[i].closed)
		}
		out = append(out, mw)
	}
	return out
}

// PartialWeek reports whether the week starting at start was not observed whole between from
// (the start of observation; zero: unknown, not partial on that account) and now, or one of gaps
// touches it.
func PartialWeek(start, from, now time.Time, gaps []analytics.Gap) bool {
	if start.Before(from) || start.Add(Week).After(now) {
		return true
	}
	for _, g := range gaps {
		if g.Touches(start, start.Add(Week)) {
			return true
		}
	}
	return false
}

// mondayDay is the Monday (UTC) of t's week as days since the Unix epoch (1970-01-01 was a
// Thursday, so Mondays are the days d with (d+3) % 7 == 0).
func mondayDay(t time.Time) int32 {
	d := t.UTC().Unix() / 86400
	if t.UTC().Unix() < 0 && t.UTC().Unix()%86400 != 0 {
		d--
	}
	return int32(d - (d+3)%7)
}

func ptr[T any](v T) *T { return &v }
