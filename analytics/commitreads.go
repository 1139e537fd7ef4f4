package analytics

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The req read of a commit applied to a read snapshot (package snapshot) that costs the commit,
// not the ledger: the events table is ordered by event_seq, so a company's reqs are found by a
// scan, but a req's latest event by its position, and the commit's own events by their range.
// The snapshot carries where each req's rows lie (ReqAt); the read takes the touched companies'
// reqs at those positions and the events above the snapshot's watermark, and folds the latter
// into the former as the full read would have.

// ReqAt is where one req's rows lie in the ledger at a snapshot's watermark: what a snapshot
// carries of each req so that a commit applied to it reads the req again without a scan
// (StreamCompanyLedgerReqsAbove).
type ReqAt struct {
	Last     uint64 // event_seq of its latest event (LedgerReq.LastSeq)
	Open     uint64 // event_seq of its first (LedgerReq.OpenSeq)
	PostedAt int64  // LedgerReq.PostedAt in unix seconds; 0 when nil
}

// At is where r's rows lie.
func (r *LedgerReq) At() ReqAt {
	a := ReqAt{Last: r.LastSeq, Open: r.OpenSeq}
	if r.PostedAt != nil {
		a.PostedAt = r.PostedAt.Unix()
	}
	return a
}

// MaxPositionsRead bounds the positions StreamCompanyLedgerReqsAbove reads (formatted integers
// in one query's text). Each position costs a granule of the events table (8,192 rows), so a read
// of more of them costs about what the company-filtered scan (StreamCompanyLedgerReqs) does: a
// larger delta is read so.
const MaxPositionsRead = 4096

// StreamCompanyLedgerReqsAbove is StreamCompanyLedgerReqs of the companies ids for a snapshot at
// the watermark after that carries known, where the reqs of those companies with an event at or
// below after lie (every one of them; ReqAt as StreamLedgerReqs or this read gave them at after):
// it reads the events at known's latest positions and the events with event_seq in (after,
// g.Watermark] (which the caller's TouchedCompanies put among ids), and the board sightings of
// ids, and gives each req exactly the row StreamLedgerReqs gives it at g, in the same order. The
// latest event is the highest of the two; the opening is known's or the req's first event above
// after; PostedAt is known's or the first that an event above after carried. Committed events
// are never rewritten, which is what lets a position read at after stand at g.
//
// At most MaxPositionsRead positions: one query of the events, one of the board sightings.
func StreamCompanyLedgerReqsAbove(ctx context.Context, ch driver.Conn, g Committed, ids []uint64, after uint64, known []ReqAt,
	fn func(r *LedgerReq) error) error {
	in, err := idList(ids)
	if err != nil {
		return err
	}
	if len(known) > MaxPositionsRead {
		return fmt.Errorf("cannot read %d reqs at their positions at once: ask for at most %d", len(known), MaxPositionsRead)
	}
	if after > g.Watermark {
		return fmt.Errorf("cannot read the reqs above watermark %d at watermark %d: it is below", after, g.Watermark)
	}
	isID := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		isID[id] = true
	}
	at := make(map[uint64]ReqAt, len(known))
	lasts := make([]uint64, 0, len(known))
	for _, k := range known {
		if k.Last > after {
			return fmt.Errorf("cannot read req positions above watermark %d: position %d is past it", after, k.Last)
		}
		at[k.Last] = k
		lasts = append(lasts, k.Last)
	}
	slices.Sort(lasts)

	type state struct {
		r      LedgerReq
		posted int64 // unix seconds of the first posted_at an event carried (0: none yet)
	}
	reqs := map[string]*state{}
	read := func(cond string, args ...any) error {
		rows, err := ch.Query(ctx, `
			SELECT event_seq, req_key, company_id, event_type, raw_title, title, function, country, location, source_type, board, url,
			       first_seen, observed_at, salary_min_usd, salary_max_usd, repost_count, salary_declared, posted_at, `+factColumns+`
			FROM events FINAL WHERE `+cond+` ORDER BY event_seq`, args...)
		if err != nil {
			return fmt.Errorf("cannot read the touched reqs' events: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var r LedgerReq
			var seq uint64
			var declared uint8
			var fs factScan
			if err := rows.Scan(append([]any{&seq, &r.ReqKey, &r.CompanyID, &r.EventType, &r.RawTitle, &r.Title, &r.Function, &r.Country,
				&r.Location, &r.SourceType, &r.Board, &r.URL, &r.FirstSeen, &r.LastEventAt, &r.SalaryMinUSD, &r.SalaryMaxUSD, &r.RepostCount,
				&declared, &r.PostedAt}, fs.targets()...)...); err != nil {
				return fmt.Errorf("cannot scan a touched req's event: %w", err)
			}
			if !isID[r.CompanyID] {
				continue // not asked for (TouchedCompanies lists every company with an event in the range)
			}
			r.Facts = fs.facts()
			r.SalaryDeclared = declared == 1
			r.LastSeq = seq
			st := reqs[r.ReqKey]
			if seq <= after {
				// The req's latest event at after: its opening and posted date are known's.
				k := at[seq]
				r.OpenSeq = k.Open
				st = &state{posted: k.PostedAt}
				reqs[r.ReqKey] = st
			} else if st == nil {
				// A req first seen above after: this is its first event.
				r.OpenSeq = seq
				st = &state{}
				reqs[r.ReqKey] = st
			} else {
				r.OpenSeq = st.r.OpenSeq
			}
			if st.posted == 0 && r.PostedAt != nil {
				st.posted = r.PostedAt.Unix()
			}
			st.r = r
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("cannot read the touched reqs' events: %w", err)
		}
		return nil
	}
	// In event_seq order, the positions (all at or below after) before the commits' events: each
	// req's rows arrive oldest first.
	cond := "(event_seq > ? AND event_seq <= ?)"
	if len(lasts) > 0 {
		cond = "event_seq IN " + seqList(lasts) + " OR " + cond
	}
	if err := read(cond, after, g.Watermark); err != nil {
		return err
	}

	boards, err := companyReqBoards(ctx, ch, g, in)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		st := reqs[k]
		r := &st.r
		if st.posted != 0 {
			p := time.Unix(st.posted, 0).UTC()
			r.PostedAt = &p
		}
		if b, ok := boards[k]; ok {
			r.Boards, r.AnyBoards = b[0], b[1]
		}
		r.boardsAtLeastLatest()
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// companyReqBoards is the board read of StreamLedgerReqs for the reqs of the companies in (an
// idList): per req_key its non-empty boards and all of its boards, of the sightings of committed
// cycles within g. req_boards is ordered by company first, so this reads those companies' rows
// only.
func companyReqBoards(ctx context.Context, ch driver.Conn, g Committed, in string) (map[string][2][]string, error) {
	regions := "(SELECT company_id, argMax(region, tick) AS region FROM companies WHERE company_id IN " + in + " GROUP BY company_id)"
	cond, args := g.bySighting()
	rows, err := ch.Query(ctx, `
		SELECT req_key, arraySort(groupUniqArrayIf(board, board != '')), arraySort(groupUniqArray(board))
		FROM req_boards ANY LEFT JOIN `+regions+` USING company_id
		WHERE `+cond+` AND company_id IN `+in+` GROUP BY req_key`, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read req boards: %w", err)
	}
	defer rows.Close()
	out := map[string][2][]string{}
	for rows.Next() {
		var key string
		var b, anyB []string
		if err := rows.Scan(&key, &b, &anyB); err != nil {
			return nil, fmt.Errorf("cannot scan req boards: %w", err)
		}
		out[key] = [2][]string{b, anyB}
	}
	return out, rows.Err()
}

// seqList is seqs as the text of an IN list.
func seqList(seqs []uint64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, s := range seqs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(s, 10))
	}
	b.WriteByte(')')
	return b.String()
}
