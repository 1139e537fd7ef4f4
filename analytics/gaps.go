package analytics

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Gaps in the history. A crawl region is crawled once per tick (a 3-hour window); a window in
// which the service was down or behind has no committed cycle. Nothing records it as such: the
// first cycle after it sees every change of the stretch at once, dated at itself. The gaps are
// derived from the cycles table alone (no table of their own): two committed cycles of a region
// whose ticks are more than one apart.

// Gap is a stretch of a crawl region's history that no committed cycle observed. From is the
// cycle_time of the region's last committed cycle before it, To the cycle_time of its first
// committed cycle after it: a change first seen at To happened somewhere in (From, To].
type Gap struct {
	Region   string
	From     time.Time
	To       time.Time
	FromTick uint32
	ToTick   uint32
}

// Missed is how many ticks of the region no cycle committed.
func (g Gap) Missed() uint32 { return g.ToTick - g.FromTick - 1 }

// Touches reports whether the gap bears on the span [start, end): its unobserved stretch
// (From, To) overlaps it, or its end To falls in it (the first cycle after the gap dates every
// change of the gap at To). A week it touches was not observed whole.
func (g Gap) Touches(start, end time.Time) bool { return g.From.Before(end) && !g.To.Before(start) }

// MaxGaps bounds one read of the gaps: the most recent MaxGaps are returned.
const MaxGaps = 1000

// GapQuery selects gaps: those of Region ("" every crawl region) that end after Since (zero: the
// whole history), the most recent Limit of them (0, or more than MaxGaps: MaxGaps). An on-demand
// crawl's region (CompanyRegion) runs on no schedule and has no gaps.
type GapQuery struct {
	Region string
	Since  time.Time
	Limit  int
}

// Gaps returns the gaps between committed cycles within g selected by q, ascending by To (then
// region). It reads the committed (region, tick, cycle_time) of the crawl regions since q.Since
// and, per region, the last one before it, so a gap that began before Since is found whole.
func Gaps(ctx context.Context, ch driver.Conn, g Committed, q GapQuery) ([]Gap, error) {
	limit := q.Limit
	if limit <= 0 || limit > MaxGaps {
		limit = MaxGaps
	}
	sub, args := g.cycles("region, tick, cycle_time")
	sub += " AND region NOT LIKE 'company:%'"
	if q.Region != "" {
		sub += " AND region = ?"
		args = append(args, q.Region)
	}
	type mark struct {
		tick uint32
		at   time.Time
	}
	prev := map[string]mark{}
	cond := ""
	var condArgs []any
	if !q.Since.IsZero() {
		since := uint32(max(q.Since.Unix(), 0))
		rows, err := ch.Query(ctx, "SELECT region, max(tick), argMax(cycle_time, tick) FROM ("+sub+" AND toUInt32(cycle_time) <= ?) GROUP BY region",
			append(append([]any{}, args...), since)...)
		if err != nil {
			return nil, fmt.Errorf("cannot read the committed cycles before %s: %w", q.Since.UTC().Format(time.RFC3339), err)
		}
		for rows.Next() {
			var r string
			var m mark
			if err := rows.Scan(&r, &m.tick, &m.at); err != nil {
				rows.Close()
				return nil, fmt.Errorf("cannot scan a region's last cycle before %s: %w", q.Since.UTC().Format(time.RFC3339), err)
			}
			prev[r] = m
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("cannot read the committed cycles before %s: %w", q.Since.UTC().Format(time.RFC3339), err)
		}
		cond, condArgs = " AND toUInt32(cycle_time) > ?", []any{since}
	}
	rows, err := ch.Query(ctx, "SELECT region, tick, min(cycle_time) FROM ("+sub+cond+") GROUP BY region, tick ORDER BY region, tick",
		append(args, condArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("cannot read the committed cycles for their gaps: %w", err)
	}
	defer rows.Close()
	var out []Gap
	for rows.Next() {
		var r string
		var m mark
		if err := rows.Scan(&r, &m.tick, &m.at); err != nil {
			return nil, fmt.Errorf("cannot scan a committed cycle: %w", err)
		}
		if p, ok := prev[r]; ok && m.tick > p.tick+1 {
			out = append(out, Gap{Region: r, From: p.at.UTC(), To: m.at.UTC(), FromTick: p.tick, ToTick: m.tick})
		}
		prev[r] = m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the committed cycles for their gaps: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].To.Equal(out[j].To) {
			return out[i].To.Before(out[j].To)
		}
		return out[i].Region < out[j].Region
	})
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// LatestGap is the most recent of gaps (the latest To; of those, the one that began first),
// false when there is none.
func LatestGap(gaps []Gap) (Gap, bool) {
	var best Gap
	found := false
	for _, g := range gaps {
		if !found || g.To.After(best.To) || (g.To.Equal(best.To) && g.From.Before(best.From)) {
			best, found = g, true
		}
	}
	return best, found
}
