package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Streaming reads for the company read model (package readmodel; package snapshot runs them).
// They stream row by row so a 100,000-company corpus is never held twice in memory; like the
// reads in reads.go they see only the committed ledger (event_seq at or below the watermark,
// rows of committed cycles within the snapshot's bound: Committed).

// CompanyRegion is the cycles-table region of an on-demand crawl of one company,
// "company:<id>": the crawl writes its cycles under it and the read model finds them by it.
func CompanyRegion(companyID uint64) string { return fmt.Sprintf("company:%d", companyID) }

// RegionRead is the latest committed cycle of one cycles-table region (a crawl region, or
// CompanyRegion for an on-demand crawl of one company) and its first.
type RegionRead struct {
	Region string
	First  time.Time
	Latest time.Time
}

// RegionReads lists every region with its first and latest cycle time, of the committed cycles
// within g.
func RegionReads(ctx context.Context, ch driver.Conn, g Committed) ([]RegionRead, error) {
	sub, args := g.cycles("region, cycle_time")
	rows, err := ch.Query(ctx, "SELECT region, min(cycle_time), max(cycle_time) FROM ("+sub+") GROUP BY region ORDER BY region", args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read committed cycles per region: %w", err)
	}
	defer rows.Close()
	var out []RegionRead
	for rows.Next() {
		var r RegionRead
		if err := rows.Scan(&r.Region, &r.First, &r.Latest); err != nil {
			return nil, fmt.Errorf("cannot scan a region's cycles: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// StreamMomentum streams the same weekly flow as Momentum (company, Monday, opened, reposted,
// closed), ordered by company and week, to fn without collecting it.
func StreamMomentum(ctx context.Context, ch driver.Conn, wm uint64, fn func(w WeekCount) error) error {
	return streamMomentum(ctx, ch, wm, "", nil, fn)
}

// streamMomentum is StreamMomentum of the events that also meet cond (" AND <condition>" with
// its arguments condArgs, or "").
func streamMomentum(ctx context.Context, ch driver.Conn, wm uint64, cond string, condArgs []any, fn func(w WeekCount) error) error {
	args := append(append([]any{wm}, condArgs...), wm)
	rows, err := ch.Query(ctx, `
		SELECT company_id, toMonday(observed_at) AS week,
		       countIf(event_type = 'opened' AND observed_at > coverage_start) AS o, countIf(event_type = 'reposted') AS r, countIf(event_type = 'closed') AS c
		FROM (SELECT company_id, observed_at, event_type FROM events FINAL WHERE event_seq <= ? AND event_type != 'reobserved'`+cond+`)
		ANY LEFT JOIN `+coverageStarts+` USING company_id
		GROUP BY company_id, week HAVING o + r + c > 0 ORDER BY company_id, week`, args...)
	if err != nil {
		return fmt.Errorf("cannot read momentum: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var w WeekCount
		if err := rows.Scan(&w.Key, &w.BucketStart, &w.Opened, &w.Reposted, &w.Closed); err != nil {
			return fmt.Errorf("cannot scan a momentum week: %w", err)
		}
		if err := fn(w); err != nil {
			return err
		}
	}
	return rows.Err()
}

// StreamFirstHires streams the rows of FirstHires (per company and function, the first req ever
// observed) to fn without collecting them.
func StreamFirstHires(ctx context.Context, ch driver.Conn, wm uint64, fn func(f *FirstHire) error) error {
	rows, err := ch.Query(ctx, `
		SELECT company_id, function, min(first_seen), argMin(req_key, (first_seen, req_key)),
		       argMin(raw_title, (first_seen, req_key)), argMin(board, (first_seen, req_key))
		FROM (SELECT company_id, function, first_seen, req_key, raw_title, board FROM events FINAL
		      WHERE event_seq <= ? AND event_type = 'opened' AND function != '')
		ANY LEFT JOIN `+coverageStarts+` USING company_id
		GROUP BY company_id, function HAVING min(first_seen) > any(coverage_start) ORDER BY company_id, function`, wm, wm)
	if err != nil {
		return fmt.Errorf("cannot read first hires: %w", err)
	}
	defer rows.Close()
	var f FirstHire
	for rows.Next() {
		if err := rows.Scan(&f.CompanyID, &f.Function, &f.FirstSeen, &f.ReqKey, &f.RawTitle, &f.Board); err != nil {
			return fmt.Errorf("cannot scan a first hire: %w", err)
		}
		if err := fn(&f); err != nil {
			return err
		}
	}
	return rows.Err()
}

// BoardSighting is the first sighting of one board carrying any req of a company (one req's, in
// a ReqBoard).
type BoardSighting struct {
	CompanyID  uint64
	Board      string
	SourceType string // ats_tenant when the board is the company's own ATS, else board
	FirstSeen  time.Time
}

// StreamCompanyBoards streams, per company and board, the first time the board was seen carrying
// one of the company's reqs, for sightings of committed cycles within g, ordered by company and
// first sighting.
func StreamCompanyBoards(ctx context.Context, ch driver.Conn, g Committed, fn func(b *BoardSighting) error) error {
	return streamCompanyBoards(ctx, ch, g, "", fn)
}

// streamCompanyBoards is StreamCompanyBoards of the sightings that also meet and (" AND
// <condition>", or "").
func streamCompanyBoards(ctx context.Context, ch driver.Conn, g Committed, and string, fn func(b *BoardSighting) error) error {
	cond, args := g.bySighting()
	cond += and
	rows, err := ch.Query(ctx, `
		SELECT company_id, board, if(countIf(source_type = 'ats_tenant') > 0, 'ats_tenant', 'board'), min(first_seen) AS fs
		FROM req_boards ANY LEFT JOIN `+companyRegions+` USING company_id
		WHERE board != '' AND `+cond+`
		GROUP BY company_id, board ORDER BY company_id, fs, board`, args...)
	if err != nil {
		return fmt.Errorf("cannot read company boards: %w", err)
	}
	defer rows.Close()
	var b BoardSighting
	for rows.Next() {
		if err := rows.Scan(&b.CompanyID, &b.Board, &b.SourceType, &b.FirstSeen); err != nil {
			return fmt.Errorf("cannot scan a company board: %w", err)
		}
		if err := fn(&b); err != nil {
			return err
		}
	}
	return rows.Err()
}
