package analytics

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Presence: a reader never serves past an event it does not hold. A replica that lags (its
// fetches behind, or just restarted) may hold a cycle's commit row and not yet all of the
// events the row commits: read at max(seq_to), it would build a torn snapshot and move feed
// cursors and the notifier's position past events it has not seen, which nothing ever serves
// again. So the readers take the highest committed watermark whose events the replica holds
// every one of, and a lagging replica delays them, never makes them skip:
//
//   - the read snapshot builds at ReadWatermark, which applies its tick rule to the committed
//     cycles below the present bound;
//   - the notifier's fast path moves to PresentWatermark past its position;
//   - a feed page (ReadFeed) checks its own span in the same query that reads it, and ends
//     before the first position the replica lacks.
//
// A watermark W is present above after when the replica holds every event_seq in (after, W]
// and committed cycles cover every one of those positions: event_seq has no gaps and committed
// cycles partition it (a cycle's seq_from..seq_to holds its events; an empty cycle has seq_to =
// seq_from-1), so both counts reach W - after exactly when nothing is missing: no events of a
// commit row the replica has, and no commit row of events it has. Both are held to at least, not
// exactly, W - after: the events are counted FINAL (one per event_seq and partition: a streaming
// merge over the primary key, no hash set), so a rerun that moved an event to another month's
// partition counts twice, and a count held to exactly would stall every reader on that event
// forever; a lagging replica's counts fall short, which is what the check is for.

// PresentWatermark is the highest committed watermark at or above after that is present above
// it on the replica that answers (after itself when none is), with the latest cycle time of the
// cycles at or below it.
func PresentWatermark(ctx context.Context, ch driver.Conn, after uint64) (uint64, time.Time, error) {
	head, _, err := ledgerHead(ctx, ch)
	if err != nil {
		return 0, time.Time{}, err
	}
	wm, err := presentBound(ctx, ch, after, head)
	if err != nil {
		return 0, time.Time{}, err
	}
	var at time.Time
	if err := ch.QueryRow(ctx, "SELECT max(cycle_time) FROM cycles WHERE seq_to <= ?", wm).Scan(&at); err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the cycle time at watermark %d: %w", wm, err)
	}
	return wm, at, nil
}

// presentBound is the highest committed seq_to in [after, head] present above after (see the top
// of the file), after when none is. head is the committed head; when after is at or past it
// there is nothing to check.
func presentBound(ctx context.Context, ch driver.Conn, after, head uint64) (uint64, error) {
	if head <= after {
		return head, nil
	}
	ok, err := present(ctx, ch, after, head)
	if err != nil || ok {
		return head, err
	}
	// Lagging: the highest committed seq_to below head that is present. Presence is monotone in
	// the bound (a gap below a bound is below every higher one), so a binary search over the
	// cycles' bounds finds it in a few counts.
	rows, err := ch.Query(ctx, "SELECT DISTINCT seq_to FROM cycles WHERE seq_to > ? AND seq_to < ? ORDER BY seq_to", after, head)
	if err != nil {
		return 0, fmt.Errorf("cannot read the committed cycles' bounds: %w", err)
	}
	defer rows.Close()
	var bounds []uint64
	for rows.Next() {
		var b uint64
		if err := rows.Scan(&b); err != nil {
			return 0, err
		}
		bounds = append(bounds, b)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("cannot read the committed cycles' bounds: %w", err)
	}
	var serr error
	n := sort.Search(len(bounds), func(i int) bool {
		if serr != nil {
			return true
		}
		ok, err := present(ctx, ch, after, bounds[i])
		serr = err
		return !ok
	})
	if serr != nil {
		return 0, serr
	}
	if n == 0 {
		return after, nil
	}
	return bounds[n-1], nil
}

// present reports whether wm is present above after: the replica holds every event_seq in
// (after, wm] and committed cycles cover each of those positions. Both counts come from one query,
// so from one replica.
func present(ctx context.Context, ch driver.Conn, after, wm uint64) (bool, error) {
	var events, covered uint64
	if err := ch.QueryRow(ctx, `SELECT
		(SELECT count() FROM events FINAL WHERE event_seq > ? AND event_seq <= ?),
		(SELECT toUInt64(sum(seq_to + 1 - greatest(seq_from, ? + 1))) FROM cycles FINAL WHERE seq_to > ? AND seq_to <= ? AND seq_to >= seq_from)`,
		after, wm, after, after, wm).Scan(&events, &covered); err != nil {
		return false, fmt.Errorf("cannot count the events of watermark %d: %w", wm, err)
	}
	return events >= wm-after && covered >= wm-after, nil
}
