package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The statements of the facts backfill (`hiringsignal facts backfill`, pipeline.BackfillFacts):
// it pages the reqs with a stored description in req_key order, reads each one's latest committed
// event whole and the texts stored for it, and writes the event again with facts derived anew
// from its text: the same event_seq at a higher version, which events' ReplacingMergeTree(version)
// keeps (as a crawl's resent write replaces a partial one). No event is added, so the change feed
// and the notifier see nothing new; the read side reads the new facts at its next build.

// MaxBackfillBatch bounds the reqs of one backfill batch (their texts are read at once: at most
// MaxDescription bytes each).
const MaxBackfillBatch = 1000

// DescribedReqKeys returns up to n req_keys after after ("": from the first), ascending, that
// req_descriptions holds a text for: a primary-key range read.
func DescribedReqKeys(ctx context.Context, ch driver.Conn, after string, n int) ([]string, error) {
	if after != "" && !isHexKey(after) {
		return nil, fmt.Errorf("cannot page reqs after %q: not a req_key (16 hex characters)", after)
	}
	if n < 1 || n > MaxBackfillBatch {
		return nil, fmt.Errorf("cannot page %d reqs at once: 1 to %d", n, MaxBackfillBatch)
	}
	rows, err := ch.Query(ctx, fmt.Sprintf("SELECT DISTINCT req_key FROM req_descriptions WHERE req_key > '%s' ORDER BY req_key LIMIT %d", after, n))
	if err != nil {
		return nil, fmt.Errorf("cannot page the reqs with a description after %q: %w", after, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("cannot scan a req_key: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// EventRow is a req's latest committed event as written (every column) and its row's version.
type EventRow struct {
	Event
	Version uint64
}

// LatestEventRows reads the latest committed event (event_seq <= wm) of each of keys (at most
// MaxBackfillBatch), every column, with its version; a req without one is absent.
func LatestEventRows(ctx context.Context, ch driver.Conn, wm uint64, keys []string) (map[string]*EventRow, error) {
	in, err := quotedKeys(keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*EventRow, len(keys))
	if in == "" {
		return out, nil
	}
	// No FINAL: ordered by (event_seq, version), the last row per req is its latest event of the
	// highest version.
	rows, err := ch.Query(ctx, "SELECT version, "+eventColumns+" FROM events WHERE event_seq <= ? AND req_key IN ("+in+") ORDER BY event_seq, version", wm)
	if err != nil {
		return nil, fmt.Errorf("cannot read the latest events of %d reqs: %w", len(keys), err)
	}
	defer rows.Close()
	for rows.Next() {
		r := &EventRow{}
		e := &r.Event
		var fs factScan
		targets := append([]any{&r.Version, &e.Seq, &e.Type, &e.ReqKey, &e.CompanyID, &e.Region, &e.Tick, &e.OccurredAt, &e.ObservedAt, &e.FirstSeen,
			&e.RawTitle, &e.Title, &e.TitleKey, &e.Function, &e.Country, &e.Location, &e.SourceType, &e.Boards, &e.Sources, &e.Board, &e.URL,
			&e.RequisitionID, &e.SalMin, &e.SalMax, &e.SalDeclared, &e.RepostCount, &e.PostedAt}, fs.targets()...)
		if err := rows.Scan(append(targets, &e.CloseReason, &e.GapFrom, &e.GapTo)...); err != nil {
			return nil, fmt.Errorf("cannot scan a ledger row: %w", err)
		}
		e.Facts = fs.facts()
		e.GapFrom, e.GapTo = fromLedgerTime(e.GapFrom), fromLedgerTime(e.GapTo)
		out[e.ReqKey] = r // ascending (event_seq, version): the last one wins
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the latest events of %d reqs: %w", len(keys), err)
	}
	return out, nil
}

// ReqTexts reads the texts req_descriptions holds for keys: per req, its text of hash want[k]
// when stored, else the one written last (a req whose event names no text, or a text not yet
// replicated). A req with no text is absent.
func ReqTexts(ctx context.Context, ch driver.Conn, want map[string]uint64) (map[string]Description, error) {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	in, err := quotedKeys(keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Description, len(keys))
	if in == "" {
		return out, nil
	}
	rows, err := ch.Query(ctx, "SELECT req_key, description_hash, any(description), max(written_at) FROM req_descriptions WHERE req_key IN ("+in+
		") GROUP BY req_key, description_hash")
	if err != nil {
		return nil, fmt.Errorf("cannot read the texts of %d reqs: %w", len(keys), err)
	}
	defer rows.Close()
	latest := map[string]time.Time{}
	for rows.Next() {
		var d Description
		var at time.Time
		if err := rows.Scan(&d.ReqKey, &d.Hash, &d.Text, &at); err != nil {
			return nil, fmt.Errorf("cannot scan a description: %w", err)
		}
		cur, have := out[d.ReqKey]
		switch {
		case have && cur.Hash == want[d.ReqKey]: // the event's text is kept
		case d.Hash == want[d.ReqKey], !have, at.After(latest[d.ReqKey]), at.Equal(latest[d.ReqKey]) && d.Hash > cur.Hash:
			out[d.ReqKey], latest[d.ReqKey] = d, at
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the texts of %d reqs: %w", len(keys), err)
	}
	return out, nil
}

// RewriteEvents writes events again as they are given (their facts changed), each under its own
// event_seq, at version, which must be above every version they were written at: the ledger keeps
// the new rows in place of the old. It refuses an event a ledger row must not hold, before
// writing anything.
func RewriteEvents(ctx context.Context, ch driver.Conn, events []Event, version uint64) error {
	if len(events) == 0 {
		return nil
	}
	for i := range events {
		if err := events[i].check(); err != nil {
			return err
		}
	}
	wr, err := newWriter(ctx, ch)
	if err != nil {
		return fmt.Errorf("cannot rewrite %d events: %w", len(events), err)
	}
	return insertEvents(wr, events, version, MaxBackfillBatch)
}

// quotedKeys is keys as a quoted SQL list (at most MaxBackfillBatch); inlined because ClickHouse
// 18.16 takes a bound slice as an array, which IN refuses. Every key is checked to be 16 hex
// characters, so nothing reaches the SQL as text.
func quotedKeys(keys []string) (string, error) {
	if len(keys) > MaxBackfillBatch {
		return "", fmt.Errorf("cannot read %d reqs at once: at most %d", len(keys), MaxBackfillBatch)
	}
	var in strings.Builder
	for i, k := range keys {
		if !isHexKey(k) {
			return "", fmt.Errorf("cannot read req_key %q: not a req_key", k)
		}
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString("'" + k + "'")
	}
	return in.String(), nil
}
