package analytics

import (
	"math"
	"time"
)

// Committed bounds a read to committed cycles: the rows a cycle wrote beside its events
// (companies, ats_history, req_boards) are served only once its cycles row exists, as events are
// served only at or below the watermark. A read snapshot also bounds them to its own watermark:
// cycles with seq_to at or below Watermark and, when At is set, cycle_time at or before At (the
// values Watermark returned), so a cycle committed while the snapshot builds is left to the next.
//
// companies and ats_history rows carry their cycle's (region, tick); req_boards rows its cycle's
// time as first_seen and, through the company, its region (a scheduled cycle) or
// CompanyRegion (an on-demand crawl).
type Committed struct {
	Watermark uint64
	At        time.Time // zero: no bound on cycle_time
}

// AllCommitted is every committed cycle (the crawler's own state reads).
var AllCommitted = Committed{Watermark: math.MaxUint64}

// AtWatermark is the bound of a read snapshot built at wm, whose latest cycle ran at at.
func AtWatermark(wm uint64, at time.Time) Committed { return Committed{Watermark: wm, At: at} }

// cycles is a subquery of cols of the committed cycles in the bound, and its arguments.
func (g Committed) cycles(cols string) (string, []any) {
	q := "SELECT " + cols + " FROM cycles WHERE seq_to <= ?"
	args := []any{g.Watermark}
	if !g.At.IsZero() {
		q += " AND toUInt32(cycle_time) <= ?"
		args = append(args, uint32(g.At.Unix()))
	}
	return q, args
}

// byRegionTick is a condition on a table with region and tick columns (companies): the row's
// cycle is committed within the bound.
func (g Committed) byRegionTick() (string, []any) {
	sub, args := g.cycles("region, tick")
	return "(region, tick) IN (" + sub + ")", args
}

// companyRegions is a joinable subquery of every company's region (company_id, region).
const companyRegions = "(SELECT company_id, argMax(region, tick) AS region FROM companies GROUP BY company_id)"

// coverageStarts is a joinable subquery of every company's coverage start (company_id,
// coverage_start): the first committed cycle (seq_to <= its one ? argument, the watermark) of the
// company's region. An opening observed at or before it is left-censored: the req was already
// live when observation began, so it is no opening, first hire or flow. A company whose region
// has no committed cycle gets the zero time (nothing censored).
const coverageStarts = "(SELECT company_id, coverage_start FROM " + companyRegions + ` ANY LEFT JOIN
	(SELECT region, min(cycle_time) AS coverage_start FROM cycles WHERE seq_to <= ? GROUP BY region) USING region)`

// bySighting is a condition on a table with company_id and first_seen joined with
// companyRegions (req_boards, ats_history): the sighting's cycle (the company's region or its
// on-demand region at the sighting's time, which is its cycle's time) is committed within the
// bound.
func (g Committed) bySighting() (string, []any) {
	sub, args := g.cycles("region, cycle_time")
	return "((region, first_seen) IN (" + sub + ") OR (concat('company:', toString(company_id)), first_seen) IN (" + sub + "))",
		append(append([]any{}, args...), args...)
}
