package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The req read of the read snapshot (package snapshot), which builds the company read model and
// the search index from one pass over the committed ledger: what either needs of a req is read
// here once.

// LedgerReq is the current state of one req (its latest committed event) with what the search
// index adds to what the company read model needs. Its PostedAt is the exception: the posted_at
// of the first event that carried one, whatever came after (a reobserved event of a source that
// gives no date, a repost with a later one), nil when none did.
type LedgerReq struct {
	// Req carries no RequisitionID; Boards are the (non-empty) boards committed cycles saw
	// carrying the req, or its latest board when none was.
	Req
	OpenSeq        uint64 // event_seq of its first event: the monotone cursor of reqs/qualified
	LastSeq        uint64 // event_seq of its latest event (the row it is): where a snapshot finds it again (ReqAt)
	SalaryDeclared bool   // the salary was declared by the employer
	// AnyBoards are Boards with an empty board name kept (the search index's list, as it always
	// read it), or its latest board when none was.
	AnyBoards []string
}

// boardsAtLeastLatest names the latest event's board in Boards and AnyBoards when no sighting
// did (a req first seen on a board before sightings were kept).
func (r *LedgerReq) boardsAtLeastLatest() {
	if len(r.Boards) == 0 && r.Board != "" {
		r.Boards = []string{r.Board}
	}
	if len(r.AnyBoards) == 0 && r.Board != "" {
		r.AnyBoards = []string{r.Board}
	}
}

// StreamLedgerReqs streams every req's current state at the watermark of g (live and closed),
// with the board sightings of committed cycles within g, ordered by req_key, to fn. It reads the
// reqs in ranges of req_key of about ReqRangeEvents events each (ReqKeyRanges), one range after
// the other, so that ClickHouse sorts one range at a time: its memory is bounded by the range and
// the first rows arrive once the first range is sorted, whatever the size of the ledger. Each
// range merges three req_key-ordered streams in Go (the latest events, the opening event_seq per
// req, the board sightings per req), which on ClickHouse 18.16 is several times faster than the
// JOIN. fn must not keep r (it is reused); its slices may be kept.
func StreamLedgerReqs(ctx context.Context, ch driver.Conn, g Committed, fn func(r *LedgerReq) error) error {
	return streamLedgerReqRanges(ctx, ch, g, ReqRangeEvents, fn)
}

// ReqRangeEvents is about how many events of the ledger one range of the full req read spans:
// the latest-event query of a range sorts some 0.7 of them (one a req), and on a 10-million-req
// ledger (14 million events, 15 ranges) it held 976 MiB of ClickHouse's memory (the dev stack
// allows 6 GB a query). Every range scans the whole events table once more, so fewer, larger
// ranges read faster.
const ReqRangeEvents = 1_000_000

// streamLedgerReqRanges is StreamLedgerReqs with ranges of about perRange events (0: one range).
func streamLedgerReqRanges(ctx context.Context, ch driver.Conn, g Committed, perRange int, fn func(r *LedgerReq) error) error {
	ranges := []KeyRange{{}}
	if perRange > 0 {
		var err error
		if ranges, err = ReqKeyRanges(ctx, ch, g.Watermark, perRange); err != nil {
			return err
		}
	}
	for _, r := range ranges {
		cond, args := r.cond()
		if err := streamLedgerReqs(ctx, ch, g, cond, args, companyRegions, fn); err != nil {
			return err
		}
	}
	return nil
}

// KeyRange is a range of req_key: From (inclusive, "" for no lower bound) to To (exclusive, ""
// for no upper bound). The zero KeyRange is every key.
type KeyRange struct{ From, To string }

// cond is the range as a condition on req_key (" AND ..." with its arguments; "" for every key).
func (r KeyRange) cond() (string, []any) {
	switch {
	case r.From == "" && r.To == "":
		return "", nil
	case r.From == "":
		return " AND req_key < ?", []any{r.To}
	case r.To == "":
		return " AND req_key >= ?", []any{r.From}
	}
	return " AND req_key >= ? AND req_key < ?", []any{r.From, r.To}
}

// keyPrefix is how many leading bytes of req_key ReqKeyRanges counts events by: req keys are 16
// hex digits of a hash (pipeline.ReqKey), so 3 give 4,096 buckets of even size.
const keyPrefix = 3

// ReqKeyRanges cuts the req keys of the events at or below wm into consecutive ranges of about
// perRange events each (a range is never cut inside a req's events, so a range can hold more
// when one key prefix does), ascending, covering every key: the first has no lower bound and
// the last no upper bound; one range (the zero KeyRange) when the ledger holds at most perRange.
// It counts events by req_key prefix in one scan of two columns, without FINAL (an estimate:
// a rewritten event not yet merged counts twice).
func ReqKeyRanges(ctx context.Context, ch driver.Conn, wm uint64, perRange int) ([]KeyRange, error) {
	if perRange <= 0 {
		return nil, fmt.Errorf("cannot cut req ranges of %d events: ask for at least 1", perRange)
	}
	rows, err := ch.Query(ctx, `SELECT substring(req_key, 1, ?) AS p, count() FROM events WHERE event_seq <= ? GROUP BY p ORDER BY p`,
		keyPrefix, wm)
	if err != nil {
		return nil, fmt.Errorf("cannot count events by req_key prefix: %w", err)
	}
	defer rows.Close()
	var out []KeyRange
	from := ""
	var n uint64
	for rows.Next() {
		var p string
		var c uint64
		if err := rows.Scan(&p, &c); err != nil {
			return nil, fmt.Errorf("cannot scan an event count by req_key prefix: %w", err)
		}
		if n > 0 && n+c > uint64(perRange) {
			out = append(out, KeyRange{From: from, To: p})
			from, n = p, 0
		}
		n += c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot count events by req_key prefix: %w", err)
	}
	return append(out, KeyRange{From: from}), nil
}

// StreamTouchedLedgerReqs streams, as StreamLedgerReqs does, the current state at the watermark
// of g of the reqs that have an event with event_seq in (after, upto] (upto at or below g's
// watermark): for each such req exactly the row StreamLedgerReqs gives (the same latest event,
// opening and board sightings; a req's events all carry its req_key). The notifier's fast path
// reads a committed cycle's reqs with it, without the full pass.
func StreamTouchedLedgerReqs(ctx context.Context, ch driver.Conn, g Committed, after, upto uint64, fn func(r *LedgerReq) error) error {
	const keys = "req_key IN (SELECT req_key FROM events WHERE event_seq > ? AND event_seq <= ?)"
	keyArgs := []any{after, upto}
	// The region join read for the touched reqs' companies only: the same region per company.
	regions := "(SELECT company_id, argMax(region, tick) AS region FROM companies WHERE company_id IN " +
		"(SELECT company_id FROM req_boards WHERE " + keys + ") GROUP BY company_id)"
	touched := " AND " + keys
	return streamLedgerReqs(ctx, ch, g, touched, keyArgs, regions, fn, keyArgs...)
}

// streamLedgerReqs is StreamLedgerReqs restricted by keyCond (" AND <condition on req_key>" with
// keyArgs; "" for every req), regions being the joinable subquery of the companies' regions (its
// arguments regionArgs come first in the board read).
func streamLedgerReqs(ctx context.Context, ch driver.Conn, g Committed, keyCond string, keyArgs []any, regions string,
	fn func(r *LedgerReq) error, regionArgs ...any) error {
	wm := g.Watermark
	// PREWHERE on event_seq, the sorting key: every version of an event has its event_seq, so
	// the filter keeps or drops them together before FINAL picks the latest, so FINAL merges the
	// latest events only (under WHERE it merged every column of every event, then filtered).
	rows, err := ch.Query(ctx, `
		SELECT req_key, company_id, event_type, raw_title, title, function, country, location, source_type, board, url,
		       first_seen, observed_at, salary_min_usd, salary_max_usd, repost_count, salary_declared, posted_at, `+factColumns+`, event_seq
		FROM events FINAL
		PREWHERE event_seq IN (SELECT max(event_seq) FROM events FINAL WHERE event_seq <= ?`+keyCond+` GROUP BY req_key)
		ORDER BY req_key`, append([]any{wm}, keyArgs...)...)
	if err != nil {
		return fmt.Errorf("cannot read current reqs: %w", err)
	}
	defer rows.Close()
	// The opening of each req and the posted_at of its first event that carried one (epoch zero
	// when none did: argMinIf's default).
	orows, err := ch.Query(ctx, `
		SELECT req_key, min(event_seq), argMinIf(assumeNotNull(posted_at), event_seq, isNotNull(posted_at))
		FROM events FINAL WHERE event_seq <= ?`+keyCond+` GROUP BY req_key ORDER BY req_key`,
		append([]any{wm}, keyArgs...)...)
	if err != nil {
		return fmt.Errorf("cannot read req openings: %w", err)
	}
	defer orows.Close()
	cond, args := g.bySighting()
	brows, err := ch.Query(ctx, `
		SELECT req_key, arraySort(groupUniqArrayIf(board, board != '')), arraySort(groupUniqArray(board))
		FROM req_boards ANY LEFT JOIN `+regions+` USING company_id
		WHERE `+cond+keyCond+` GROUP BY req_key ORDER BY req_key`, append(append(append([]any{}, regionArgs...), args...), keyArgs...)...)
	if err != nil {
		return fmt.Errorf("cannot read req boards: %w", err)
	}
	defer brows.Close()

	var oKey string
	var oSeq uint64
	var oPosted time.Time
	nextOpening := func() (bool, error) {
		if !orows.Next() {
			return false, orows.Err()
		}
		if err := orows.Scan(&oKey, &oSeq, &oPosted); err != nil {
			return false, fmt.Errorf("cannot scan a req opening: %w", err)
		}
		return true, nil
	}
	var bKey string
	var bBoards, bAny []string
	nextBoards := func() (bool, error) {
		if !brows.Next() {
			return false, brows.Err()
		}
		if err := brows.Scan(&bKey, &bBoards, &bAny); err != nil {
			return false, fmt.Errorf("cannot scan req boards: %w", err)
		}
		return true, nil
	}
	oOK, err := nextOpening()
	if err != nil {
		return err
	}
	bOK, err := nextBoards()
	if err != nil {
		return err
	}
	r := &LedgerReq{}
	for rows.Next() {
		*r = LedgerReq{}
		var declared uint8
		var fs factScan
		if err := rows.Scan(append(append([]any{&r.ReqKey, &r.CompanyID, &r.EventType, &r.RawTitle, &r.Title, &r.Function, &r.Country, &r.Location,
			&r.SourceType, &r.Board, &r.URL, &r.FirstSeen, &r.LastEventAt, &r.SalaryMinUSD, &r.SalaryMaxUSD, &r.RepostCount,
			&declared, &r.PostedAt}, fs.targets()...), &r.LastSeq)...); err != nil {
			return fmt.Errorf("cannot scan a current req: %w", err)
		}
		r.Facts = fs.facts()
		r.SalaryDeclared = declared == 1
		for oOK && oKey < r.ReqKey {
			if oOK, err = nextOpening(); err != nil {
				return err
			}
		}
		if oOK && oKey == r.ReqKey {
			r.OpenSeq = oSeq
			if p := fromLedgerTime(oPosted); !p.IsZero() {
				r.PostedAt = &p
			}
		}
		for bOK && bKey < r.ReqKey {
			if bOK, err = nextBoards(); err != nil {
				return err
			}
		}
		if bOK && bKey == r.ReqKey {
			r.Boards, r.AnyBoards = bBoards, bAny
		}
		r.boardsAtLeastLatest()
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cannot read current reqs: %w", err)
	}
	return nil
}
