package analytics

import (
	"context"
	"errors"
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
//
// The read snapshot counts from the bound it already proved (ReadWatermarkAbove), not from the
// ledger's first event: committed events are never rewritten, so a bound the same replica held
// once it still holds. The count's own query names the replica that answered it (Replica: its
// host, its replica macro, its database and the time its server started), so a count answered by
// another replica (a failover, a connection to the next address) or by the same one restarted
// (its parts reloaded, or lost and fetched again) does not lean on the proof, and the ledger is
// counted from the first event again.

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
	wm, _, err := presentBoundOn(ctx, ch, after, head, nil)
	return wm, err
}

// errOtherReplica: a count was answered by another replica than the one a bound was proved on.
var errOtherReplica = errors.New("another ClickHouse replica answered")

// presentBoundOn is presentBound with the replica that answered the count proving the bound
// (zero when none was counted). When on is set, every count must be answered by *on, else it
// returns errOtherReplica.
func presentBoundOn(ctx context.Context, ch driver.Conn, after, head uint64, on *Replica) (uint64, Replica, error) {
	if head <= after {
		return head, Replica{}, nil
	}
	by := map[uint64]Replica{}
	check := func(wm uint64) (bool, error) {
		ok, r, err := present(ctx, ch, after, wm)
		if err != nil {
			return false, err
		}
		if on != nil && !r.Same(*on) {
			return false, errOtherReplica
		}
		by[wm] = r
		return ok, nil
	}
	ok, err := check(head)
	if err != nil {
		return 0, Replica{}, err
	}
	if ok {
		return head, by[head], nil
	}
	// Lagging: the highest committed seq_to below head that is present. Presence is monotone in
	// the bound (a gap below a bound is below every higher one), so a binary search over the
	// cycles' bounds finds it in a few counts.
	rows, err := ch.Query(ctx, "SELECT DISTINCT seq_to FROM cycles WHERE seq_to > ? AND seq_to < ? ORDER BY seq_to", after, head)
	if err != nil {
		return 0, Replica{}, fmt.Errorf("cannot read the committed cycles' bounds: %w", err)
	}
	defer rows.Close()
	var bounds []uint64
	for rows.Next() {
		var b uint64
		if err := rows.Scan(&b); err != nil {
			return 0, Replica{}, err
		}
		bounds = append(bounds, b)
	}
	if err := rows.Err(); err != nil {
		return 0, Replica{}, fmt.Errorf("cannot read the committed cycles' bounds: %w", err)
	}
	var serr error
	n := sort.Search(len(bounds), func(i int) bool {
		if serr != nil {
			return true
		}
		ok, err := check(bounds[i])
		serr = err
		return !ok
	})
	if serr != nil {
		return 0, Replica{}, serr
	}
	if n == 0 {
		return after, Replica{}, nil
	}
	// sort.Search checked bounds[n-1] (found present) before settling on n.
	return bounds[n-1], by[bounds[n-1]], nil
}

// present reports whether wm is present above after: the replica holds every event_seq in
// (after, wm] and committed cycles cover each of those positions. Both counts and the replica
// that answered them come from one query, so from one replica.
func present(ctx context.Context, ch driver.Conn, after, wm uint64) (bool, Replica, error) {
	var events, covered uint64
	var r Replica
	var up uint32
	var now time.Time
	if err := ch.QueryRow(ctx, `SELECT
		(SELECT count() FROM events FINAL WHERE event_seq > ? AND event_seq <= ?),
		(SELECT toUInt64(sum(seq_to + 1 - greatest(seq_from, ? + 1))) FROM cycles FINAL WHERE seq_to > ? AND seq_to <= ? AND seq_to >= seq_from),
		hostName(), (SELECT any(substitution) FROM system.macros WHERE macro = 'replica'), currentDatabase(), now(), uptime()`,
		after, wm, after, after, wm).Scan(&events, &covered, &r.Host, &r.Macro, &r.Database, &now, &up); err != nil {
		return false, Replica{}, fmt.Errorf("cannot count the events of watermark %d: %w", wm, err)
	}
	r.Started = now.Add(-time.Duration(up) * time.Second).UTC()
	return events >= wm-after && covered >= wm-after, r, nil
}

// Replica names the ClickHouse server that answered a presence count: its host, its replica
// macro (empty on a single server), the database, and when its server started (now() less
// uptime(), to the second).
type Replica struct {
	Host, Macro, Database string
	Started               time.Time
}

// Same reports whether r and o are one server that has not restarted in between: the same
// host, macro and database, and start times a second apart at most (now() and uptime() are
// whole seconds read a moment apart).
func (r Replica) Same(o Replica) bool {
	d := r.Started.Sub(o.Started)
	return r.Host == o.Host && r.Macro == o.Macro && r.Database == o.Database && d <= time.Second && d >= -time.Second
}

// Present is a bound a replica was found to hold every event up to (Watermark, on Replica): what
// ReadWatermarkAbove counts from the next time. The zero Present proves nothing (count from the
// first event).
type Present struct {
	Watermark uint64
	Replica   Replica
}
