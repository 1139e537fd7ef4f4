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

// The reads of the change feed (GET /v1/events): pages of the ledger by event_seq. A page is a
// primary-key range read of the events table (ordered by event_seq), never a scan: its span of
// event_seq is bounded by the caller. Of each event_seq it keeps the row of the highest version
// (a crashed cycle's rerun writes the same event_seq with a higher version), and it reads no row
// above the bound it is given, which the caller takes from a committed watermark.

// EventTypes are the ledger's event types, in the order the feed documents them.
var EventTypes = []string{EventOpened, EventReobserved, EventReposted, EventClosed}

// FeedEvent is one ledger event as the change feed serves it.
type FeedEvent struct {
	Seq        uint64
	Type       string
	ReqKey     string
	CompanyID  uint64
	OccurredAt time.Time
	ObservedAt time.Time
	RawTitle   string
	Function   string
	Country    string
	Board      string
	URL        string
	Location   string // the posting's location text ("" when the crawl had none)
	// CloseReason, GapFrom and GapTo are the event's own (Event): why a close closed ("" for an
	// ordinary one) and, for an event first seen in the first cycle after a gap, the interval the
	// change happened in (zero when it follows no gap).
	CloseReason string
	GapFrom     time.Time
	GapTo       time.Time
	// Version is the version of the row served: WriteCycle writes the wall clock (Unix ns) at
	// which the cycle's rows were written, just before its commit (the notifier's
	// commit-to-delivery latency starts there).
	Version uint64
}

// FeedQuery is one page of the change feed: events with event_seq in (After, Upper], ascending,
// at most Limit of them. Without a filter the page examines the positions After+1..After+Limit
// (event_seq has no gaps below a committed watermark); with one it examines at most Span
// positions past After and keeps the events whose latest version matches every filter given
// (CompanyIDs: any of them; Types: any of them).
type FeedQuery struct {
	After      uint64
	Upper      uint64 // highest event_seq the page may serve: a committed watermark, never above it
	Limit      int    // 1 or more
	Span       uint64 // filtered pages: most positions examined past After (1 or more)
	CompanyIDs []uint64
	Types      []string
}

// Filtered reports whether the query has a filter.
func (q *FeedQuery) Filtered() bool { return len(q.CompanyIDs) > 0 || len(q.Types) > 0 }

// FeedPage is a page of the change feed. Next is the cursor that continues it: the event_seq of
// its last event when the page is full, else the end of the span it examined (so a page with
// no event still moves forward over the positions it read). Next is never below After.
type FeedPage struct {
	Events []FeedEvent
	Next   uint64
}

// feedColumns are the events columns a FeedEvent carries, in scan order.
const feedColumns = "event_seq, event_type, req_key, company_id, occurred_at, observed_at, raw_title, function, country, board, url, location, " +
	"close_reason, gap_from, gap_to, version"

// ReadFeed reads the page q of the change feed.
func ReadFeed(ctx context.Context, ch driver.Conn, q FeedQuery) (FeedPage, error) {
	if q.Limit < 1 {
		return FeedPage{}, fmt.Errorf("cannot read the change feed: limit %d is below 1", q.Limit)
	}
	if q.After >= q.Upper {
		return FeedPage{Next: q.After}, nil
	}
	span := uint64(q.Limit)
	if q.Filtered() {
		if q.Span < 1 {
			return FeedPage{}, fmt.Errorf("cannot read the change feed: a filtered page needs a span of 1 or more")
		}
		span = q.Span
	}
	hi := q.Upper
	if q.Upper-q.After > span {
		hi = q.After + span
	}
	// The page's rows, joined to one row that says up to where the replica holds every position
	// past After (upto: the leading positions of the span it has, presence.go), so a page read
	// from a lagging replica ends before the first position it lacks, in the same query, on the
	// same replica. Without rows the join still gives that one row (event_seq 0).
	rowsSQL := "SELECT 1 AS k, " + feedColumns + " FROM events WHERE event_seq > ? AND event_seq <= ?"
	args := []any{q.After, q.After, q.After, hi, q.After, hi}
	if q.Filtered() {
		having, err := feedFilter(q)
		if err != nil {
			return FeedPage{}, err
		}
		// The filter applies to the latest version of each event_seq (argMax by version), so a
		// rerun that changed an event is filtered as it is served; the outer read fetches the
		// matching positions by primary key.
		rowsSQL += " AND event_seq IN (SELECT event_seq FROM events WHERE event_seq > ? AND event_seq <= ? GROUP BY event_seq HAVING " +
			having + " ORDER BY event_seq LIMIT " + strconv.Itoa(q.Limit) + ")"
		args = append(args, q.After, hi)
	}
	// No FINAL: ordered by (event_seq, version), the last row of each event_seq is its highest
	// version, which is what FINAL would keep.
	sql := `SELECT upto, ` + feedColumns + ` FROM
		(SELECT 1 AS k, ? + arrayCount((x, j) -> x = ? + j, s, arrayEnumerate(s)) AS upto
		 FROM (SELECT arraySort(groupUniqArray(event_seq)) AS s FROM events WHERE event_seq > ? AND event_seq <= ?))
		ALL LEFT JOIN (` + rowsSQL + `) USING k
		ORDER BY event_seq, version`
	rows, err := ch.Query(ctx, sql, args...)
	if err != nil {
		return FeedPage{}, fmt.Errorf("cannot read the change feed after event_seq %d: %w", q.After, err)
	}
	defer rows.Close()
	upto := q.After
	events := make([]FeedEvent, 0, min(q.Limit, int(hi-q.After)))
	for rows.Next() {
		var e FeedEvent
		if err := rows.Scan(&upto, &e.Seq, &e.Type, &e.ReqKey, &e.CompanyID, &e.OccurredAt, &e.ObservedAt, &e.RawTitle, &e.Function,
			&e.Country, &e.Board, &e.URL, &e.Location, &e.CloseReason, &e.GapFrom, &e.GapTo, &e.Version); err != nil {
			return FeedPage{}, fmt.Errorf("cannot scan a change feed row: %w", err)
		}
		if e.Seq == 0 {
			continue // the span's row without a page row
		}
		e.GapFrom, e.GapTo = fromLedgerTime(e.GapFrom), fromLedgerTime(e.GapTo)
		if n := len(events); n > 0 && events[n-1].Seq == e.Seq {
			events[n-1] = e // a higher version of the same event
			continue
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return FeedPage{}, fmt.Errorf("cannot read the change feed after event_seq %d: %w", q.After, err)
	}
	if upto < hi {
		// The replica lacks position upto+1 (it lags): serve up to upto only; the positions past
		// it are served once it holds them.
		hi = upto
		for len(events) > 0 && events[len(events)-1].Seq > hi {
			events = events[:len(events)-1]
		}
	}
	if len(events) > q.Limit { // cannot happen for a query above; kept so a page never exceeds its limit
		events = events[:q.Limit]
	}
	next := hi
	if len(events) == q.Limit {
		next = events[len(events)-1].Seq
	}
	return FeedPage{Events: events, Next: next}, nil
}

// feedFilter is the HAVING condition of q's filters over the latest version of each event_seq.
// Values are inlined (ClickHouse 18.16 takes a bound slice as an array, which IN refuses):
// company ids are formatted integers and types are checked against EventTypes, so nothing a
// caller sends reaches the SQL as text.
func feedFilter(q FeedQuery) (string, error) {
	var conds []string
	if len(q.Types) > 0 {
		var in strings.Builder
		for i, t := range q.Types {
			if !slices.Contains(EventTypes, t) {
				return "", fmt.Errorf("cannot filter the change feed by event_type %q: not one of %s", t, strings.Join(EventTypes, ", "))
			}
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteString("'" + t + "'")
		}
		conds = append(conds, "argMax(event_type, version) IN ("+in.String()+")")
	}
	if len(q.CompanyIDs) > 0 {
		var in strings.Builder
		for i, id := range q.CompanyIDs {
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteString(strconv.FormatUint(id, 10))
		}
		conds = append(conds, "argMax(company_id, version) IN ("+in.String()+")")
	}
	return strings.Join(conds, " AND "), nil
}

// FlooredWatermark is the highest event_seq a read floored at cutoff may serve within g: the
// event just before the first event of any committed cycle (seq_to at or below g.Watermark,
// cycle_time within g.At) whose cycle_time is after cutoff, or g.Watermark when there is none.
// Every event at or below it was observed by a cycle at or before cutoff, and no event above it
// was skipped: a cursor that stops at it serves the next event once its cycle is old enough,
// even when cycles did not commit in the order of their cycle_time (on-demand crawls).
func FlooredWatermark(ctx context.Context, ch driver.Conn, g Committed, cutoff time.Time) (uint64, error) {
	sub, args := g.cycles("seq_from")
	sub += " AND seq_to >= seq_from AND toUInt32(cycle_time) > ?" // cycles with events, newer than the cutoff
	args = append(args, uint32(max(cutoff.Unix(), 0)))
	var first, n uint64
	if err := ch.QueryRow(ctx, "SELECT min(seq_from), count() FROM ("+sub+")", args...).Scan(&first, &n); err != nil {
		return 0, fmt.Errorf("cannot read the cycles newer than the freshness floor (%s): %w", cutoff.UTC().Format(time.RFC3339), err)
	}
	switch {
	case n == 0:
		return g.Watermark, nil
	case first == 0: // event_seq starts at 1; kept so the bound can never wrap around
		return 0, nil
	}
	return min(g.Watermark, first-1), nil
}
