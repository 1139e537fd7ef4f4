package analytics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ReadWatermark is the watermark and latest cycle time a read snapshot serves: TickWatermark
// of the cycles whose events the replica that answers holds every one of (presence.go), so a
// lagging replica delays the snapshot and never serves a torn one.
func ReadWatermark(ctx context.Context, ch driver.Conn) (uint64, time.Time, error) {
	wm, at, _, err := ReadWatermarkAbove(ctx, ch, Present{})
	return wm, at, err
}

// ReadWatermarkAbove is ReadWatermark counting only the events above known (a bound a previous
// call returned) while the replica that proved known answers: a commit's presence check then
// costs its own events, not the ledger's. When another replica answers, or the same one
// restarted, it counts from the first event again (presence.go). It also returns the bound it
// proved, for the next call: the present bound it found (at or above the watermark it returns),
// or known when nothing above it was committed.
func ReadWatermarkAbove(ctx context.Context, ch driver.Conn, known Present) (uint64, time.Time, Present, error) {
	head, _, err := ledgerHead(ctx, ch)
	if err != nil {
		return 0, time.Time{}, Present{}, err
	}
	p, err := presentAbove(ctx, ch, known, head)
	if err != nil {
		return 0, time.Time{}, Present{}, err
	}
	wm, at, err := TickWatermark(ctx, ch, p.Watermark)
	if err != nil {
		return 0, time.Time{}, Present{}, err
	}
	return wm, at, p, nil
}

// presentAbove is the highest committed bound at or below head present on the replica that
// answers, counted above known while known's replica answers, from the first event otherwise.
func presentAbove(ctx context.Context, ch driver.Conn, known Present, head uint64) (Present, error) {
	if known.Watermark > 0 {
		if head <= known.Watermark {
			// Nothing above known to count; the query without events names the replica that
			// answers (a replica whose head is below known is another one).
			_, r, err := present(ctx, ch, known.Watermark, known.Watermark)
			if err != nil {
				return Present{}, err
			}
			if r.Same(known.Replica) {
				return known, nil
			}
			return presentFromFirst(ctx, ch, head)
		}
		wm, r, err := presentBoundOn(ctx, ch, known.Watermark, head, &known.Replica)
		switch {
		case err == nil && wm == known.Watermark:
			return known, nil // lagging: nothing above known is present yet
		case err == nil:
			return Present{Watermark: wm, Replica: r}, nil
		case !errors.Is(err, errOtherReplica):
			return Present{}, err
		}
	}
	return presentFromFirst(ctx, ch, head)
}

// presentFromFirst is the highest committed bound at or below head present on the replica that
// answers, counted from the first event.
func presentFromFirst(ctx context.Context, ch driver.Conn, head uint64) (Present, error) {
	wm, r, err := presentBoundOn(ctx, ch, 0, head, nil)
	if err != nil {
		return Present{}, err
	}
	return Present{Watermark: wm, Replica: r}, nil
}

// TickWatermark is the watermark and latest cycle time of the committed cycles with seq_to at or
// below upto (math.MaxUint64: every one; the read snapshot's poll asks so first, which costs no
// event count), as a read snapshot serves them: Watermark's, except while a scheduled tick is
// committing region by region. The latest scheduled tick T is whole once every crawl region
// that committed tick T-1 has committed T; until then the read stays where the ledger stood
// before T's first cycle (the highest seq_to below T's lowest seq_from, on-demand cycles
// committed meanwhile included only once T is whole), so a tick becomes visible to every
// region's reads at once and as_of never names a tick some regions still answer from the one
// before. A region that stops committing (its sources all gone) holds the read back for one
// tick: the next tick's regions are those of the shrunken set.
func TickWatermark(ctx context.Context, ch driver.Conn, upto uint64) (uint64, time.Time, error) {
	rows, err := ch.Query(ctx, `
		SELECT tick, region, min(seq_from) FROM cycles
		WHERE region NOT LIKE 'company:%' AND seq_to <= ?
		  AND tick + 1 >= (SELECT max(tick) FROM cycles WHERE region NOT LIKE 'company:%' AND seq_to <= ?)
		GROUP BY tick, region`, upto, upto)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the latest ticks' regions: %w", err)
	}
	defer rows.Close()
	var latest uint32
	byTick := map[uint32]map[string]uint64{}
	for rows.Next() {
		var tick uint32
		var region string
		var from uint64
		if err := rows.Scan(&tick, &region, &from); err != nil {
			return 0, time.Time{}, fmt.Errorf("cannot read the latest ticks' regions: %w", err)
		}
		if byTick[tick] == nil {
			byTick[tick] = map[string]uint64{}
		}
		byTick[tick][region] = from
		latest = max(latest, tick)
	}
	if err := rows.Err(); err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the latest ticks' regions: %w", err)
	}
	cur := byTick[latest]
	var missing []string
	if latest > 0 {
		for region := range byTick[latest-1] {
			if _, ok := cur[region]; !ok {
				missing = append(missing, region)
			}
		}
	}
	if len(missing) == 0 {
		var wm uint64
		var at time.Time
		if err := ch.QueryRow(ctx, "SELECT max(seq_to), max(cycle_time) FROM cycles WHERE seq_to <= ?", upto).Scan(&wm, &at); err != nil {
			return 0, time.Time{}, fmt.Errorf("cannot read the committed watermark: %w", err)
		}
		return wm, at, nil
	}
	first := uint64(1<<64 - 1)
	for _, from := range cur {
		first = min(first, from)
	}
	var wm uint64
	var at time.Time
	if err := ch.QueryRow(ctx, `SELECT max(seq_to), max(cycle_time) FROM cycles
		WHERE seq_to < ? AND seq_to <= ? AND (region LIKE 'company:%' OR tick < ?)`, first, upto, latest).Scan(&wm, &at); err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the watermark before tick %d (regions %s not committed yet): %w", latest, strings.Join(missing, ", "), err)
	}
	return wm, at, nil
}
