package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Reads for the search index (package searchindex). Like reads.go they see only the committed
// ledger (event_seq at or below the watermark).

// SearchReq is the current state of one req as the search index needs it: Req plus the ledger
// position of its opening (OpenSeq, the event_seq of its first event: the monotone cursor of
// reqs/qualified) and whether its salary was declared by the employer.
type SearchReq struct {
	Req
	OpenSeq        uint64
	SalaryDeclared bool
}

// SearchReqs streams every live req, and every req closed at or after closedSince, to fn in no
// particular order. Older closed reqs are left out (search serves live reqs; reqs/qualified with
// live_only=false looks back a bounded window).
func SearchReqs(ctx context.Context, ch driver.Conn, wm uint64, closedSince time.Time, fn func(*SearchReq) error) error {
	rows, err := ch.Query(ctx, `
		SELECT e.req_key, e.company_id, e.event_type, e.raw_title, e.title, e.function, e.country, e.location,
		       e.source_type, b.boards, e.board, e.url, e.first_seen, e.observed_at, e.salary_min_usd, e.salary_max_usd,
		       e.repost_count, e.requisition_id, e.open_seq, e.salary_declared
		FROM (
			SELECT req_key,
			       argMax(company_id, event_seq) AS company_id, argMax(event_type, event_seq) AS event_type,
			       argMax(raw_title, event_seq) AS raw_title, argMax(title, event_seq) AS title,
			       argMax(function, event_seq) AS function, argMax(country, event_seq) AS country,
			       argMax(location, event_seq) AS location, argMax(source_type, event_seq) AS source_type,
			       argMax(board, event_seq) AS board, argMax(url, event_seq) AS url,
			       argMax(first_seen, event_seq) AS first_seen, argMax(observed_at, event_seq) AS observed_at,
			       argMax(salary_min_usd, event_seq) AS salary_min_usd, argMax(salary_max_usd, event_seq) AS salary_max_usd,
			       argMax(repost_count, event_seq) AS repost_count, argMax(requisition_id, event_seq) AS requisition_id,
			       min(event_seq) AS open_seq, argMax(salary_declared, event_seq) AS salary_declared
			FROM (SELECT * FROM events FINAL WHERE event_seq <= ?)
			GROUP BY req_key
			HAVING event_type != 'closed' OR observed_at >= ?
		) AS e
		LEFT JOIN (SELECT req_key, arraySort(groupUniqArray(board)) AS boards FROM req_boards GROUP BY req_key) AS b
		USING req_key`, wm, closedSince.UTC())
	if err != nil {
		return fmt.Errorf("cannot read reqs for the search index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r := &SearchReq{}
		var declared uint8
		if err := rows.Scan(&r.ReqKey, &r.CompanyID, &r.EventType, &r.RawTitle, &r.Title, &r.Function, &r.Country, &r.Location,
			&r.SourceType, &r.Boards, &r.Board, &r.URL, &r.FirstSeen, &r.LastEventAt, &r.SalaryMinUSD, &r.SalaryMaxUSD,
			&r.RepostCount, &r.RequisitionID, &r.OpenSeq, &declared); err != nil {
			return fmt.Errorf("cannot scan a req for the search index: %w", err)
		}
		r.SalaryDeclared = declared == 1
		if len(r.Boards) == 0 && r.Board != "" {
			r.Boards = []string{r.Board}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cannot read reqs for the search index: %w", err)
	}
	return nil
}
