package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Reads the crawl rebuilds its state from (with Watermark, Companies and ATSHistory). Like the
// reads in reads.go they see only the committed ledger: event_seq at or below the watermark.

// CycleCommitted reports whether region has a committed cycle at tick or later.
func CycleCommitted(ctx context.Context, ch driver.Conn, region string, tick uint32) (bool, error) {
	var n uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM cycles WHERE region = ? AND tick >= ?", region, tick).Scan(&n); err != nil {
		return false, fmt.Errorf("cannot check cycle %s/%d: %w", region, tick, err)
	}
	return n > 0, nil
}

// StreamEventHeads streams every committed event (event_seq at or below wm) to fn in ledger
// order (event_seq, then version), so the last one fn sees of a req is its current state, as
// FINAL would keep it. Only ReqKey, Type, CompanyID, Tick, FirstSeen, RepostCount, Sources and
// DescriptionHash are filled. fn may keep e.
func StreamEventHeads(ctx context.Context, ch driver.Conn, wm uint64, fn func(e *Event) error) error {
	rows, err := ch.Query(ctx, `SELECT req_key, event_type, company_id, tick, first_seen, repost_count, sources, description_hash
		FROM events WHERE event_seq <= ? ORDER BY event_seq, version`, wm)
	if err != nil {
		return fmt.Errorf("cannot read the ledger: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e := &Event{}
		if err := rows.Scan(&e.ReqKey, &e.Type, &e.CompanyID, &e.Tick, &e.FirstSeen, &e.RepostCount, &e.Sources, &e.DescriptionHash); err != nil {
			return fmt.Errorf("cannot scan a ledger row: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ReqBoards returns, per req_key, every board a committed cycle sighted carrying it (in no
// particular order): a sighting a crashed cycle wrote is not read, so the crawler writes it again.
func ReqBoards(ctx context.Context, ch driver.Conn) (map[string][]string, error) {
	cond, args := AllCommitted.bySighting()
	rows, err := ch.Query(ctx, "SELECT req_key, groupUniqArray(board) FROM req_boards ANY LEFT JOIN "+companyRegions+
		" USING company_id WHERE "+cond+" GROUP BY req_key", args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read req_boards: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var k string
		var b []string
		if err := rows.Scan(&k, &b); err != nil {
			return nil, fmt.Errorf("cannot scan req_boards: %w", err)
		}
		out[k] = b
	}
	return out, rows.Err()
}

// latestEventsChunk is how many req_keys one LatestEvents query names.
const latestEventsChunk = 20_000

// LatestEvents reads the latest committed event (event_seq at or below wm) of each of keys, with
// every attribute of the req at it. CloseReason, GapFrom and GapTo stay zero: they describe that
// event, not the req, and an event the crawl builds from it (a close, a reobservation) must not
// inherit them. Every key must be in the committed ledger and be a req_key (16 lower-case hex
// characters).
func LatestEvents(ctx context.Context, ch driver.Conn, wm uint64, keys []string) (map[string]*Event, error) {
	out := make(map[string]*Event, len(keys))
	for start := 0; start < len(keys); start += latestEventsChunk {
		chunk := keys[start:min(start+latestEventsChunk, len(keys))]
		// Inlined: ClickHouse 18.16 takes a bound slice as an array, which IN refuses. req_keys
		// are 16 hex characters (checked), so inlining cannot inject anything.
		var in strings.Builder
		for i, k := range chunk {
			if !isHexKey(k) {
				return nil, fmt.Errorf("cannot read the ledger for req_key %q: not a req_key", k)
			}
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteByte('\'')
			in.WriteString(k)
			in.WriteByte('\'')
		}
		// No FINAL (a single-threaded merge on 18.16): ordered by (event_seq, version), the last row
		// per req is its latest event of the highest version, which is what FINAL would keep.
		if err := latestEvents(ctx, ch, wm, in.String(), out); err != nil {
			return nil, fmt.Errorf("cannot read the attributes of %d reqs from the ledger: %w", len(chunk), err)
		}
	}
	for _, k := range keys {
		if out[k] == nil {
			return nil, fmt.Errorf("req %s is not in the committed ledger (event_seq <= %d)", k, wm)
		}
	}
	return out, nil
}

// latestEvents adds to out the last event of each req of the quoted key list in.
func latestEvents(ctx context.Context, ch driver.Conn, wm uint64, in string, out map[string]*Event) error {
	rows, err := ch.Query(ctx, "SELECT "+attrColumns+" FROM events WHERE event_seq <= ? AND req_key IN ("+in+") ORDER BY event_seq, version", wm)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e := &Event{}
		var fs factScan
		if err := rows.Scan(append([]any{&e.Seq, &e.Type, &e.ReqKey, &e.CompanyID, &e.Region, &e.Tick, &e.OccurredAt, &e.ObservedAt, &e.FirstSeen,
			&e.RawTitle, &e.Title, &e.TitleKey, &e.Function, &e.Country, &e.Location, &e.SourceType, &e.Boards, &e.Sources, &e.Board, &e.URL,
			&e.RequisitionID, &e.SalMin, &e.SalMax, &e.SalDeclared, &e.RepostCount, &e.PostedAt}, fs.targets()...)...); err != nil {
			return fmt.Errorf("cannot scan a ledger row: %w", err)
		}
		e.Facts = fs.facts()
		out[e.ReqKey] = e // ascending event_seq: the last one wins
	}
	return rows.Err()
}

func isHexKey(k string) bool {
	if len(k) != 16 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !(k[i] >= '0' && k[i] <= '9' || k[i] >= 'a' && k[i] <= 'f') {
			return false
		}
	}
	return true
}

// LastCycle is a region's latest committed cycle.
type LastCycle struct {
	Tick      uint32
	CycleTime time.Time
}

// LastCycles returns every region's latest committed cycle: a region's next cycle more than one
// tick later follows a gap in its history.
func LastCycles(ctx context.Context, ch driver.Conn) (map[string]LastCycle, error) {
	rows, err := ch.Query(ctx, "SELECT region, max(tick), argMax(cycle_time, tick) FROM cycles GROUP BY region")
	if err != nil {
		return nil, fmt.Errorf("cannot read the latest cycles: %w", err)
	}
	defer rows.Close()
	out := map[string]LastCycle{}
	for rows.Next() {
		var region string
		var lc LastCycle
		if err := rows.Scan(&region, &lc.Tick, &lc.CycleTime); err != nil {
			return nil, fmt.Errorf("cannot read the latest cycles: %w", err)
		}
		out[region] = lc
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the latest cycles: %w", err)
	}
	return out, nil
}
