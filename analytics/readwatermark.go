package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ReadWatermark is the watermark and latest cycle time a read snapshot serves: TickWatermark
// of the cycles whose events the replica that answers holds every one of (presence.go), so a
// lagging replica delays the snapshot and never serves a torn one.
func ReadWatermark(ctx context.Context, ch driver.Conn) (uint64, time.Time, error) {
	head, _, err := ledgerHead(ctx, ch)
	if err != nil {
		return 0, time.Time{}, err
	}
	upto, err := presentBound(ctx, ch, 0, head)
	if err != nil {
		return 0, time.Time{}, err
	}
	return TickWatermark(ctx, ch, upto)
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
