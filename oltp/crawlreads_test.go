package oltp_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// Every source of an import is due at the same time (the import's now()). A claim takes the
// first due sources by (next_due_at, source_key); indexed on next_due_at alone, each claim read
// and sorted every unread source sharing that time (250 ms a claim at 100,000 sources, some
// 1,300 claims a window). It reads, in index order, the rows it takes.
func TestAClaimReadsItsBatchNotEverySourceDueWithIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	const sources, tick, batch = 20_000, 7, 64
	due := time.Now().Add(-time.Minute)
	_, err := pool.Exec(ctx, `INSERT INTO crawl_sources (source_key, vendor, kind, url, status, added_by, next_due_at)
		SELECT 'jsonld:b' || lpad(i::text, 6, '0') || '.example/jobs', 'jsonld', 'board', 'https://b' || i || '.example/jobs', 'active', 'test', $1
		FROM generate_series(1, $2::int) i`, due, sources)
	require.NoError(t, err)
	// A tenth of the window is read already; those sources are due in the next window.
	_, err = pool.Exec(ctx, `INSERT INTO crawl_reads (tick, source_key, read_at, worker, status, sightings)
		SELECT $1, source_key, now(), 'w', 'ok', '\x00' FROM crawl_sources WHERE source_key < 'jsonld:b002001'`, tick)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE crawl_sources SET next_due_at = now() + interval '3 hours' WHERE source_key < 'jsonld:b002001'`)
	require.NoError(t, err)
	for _, table := range []string{"crawl_sources", "crawl_reads"} {
		_, err = pool.Exec(ctx, "ANALYZE "+table)
		require.NoError(t, err)
	}

	tx, err := pool.Begin(ctx) // EXPLAIN ANALYZE runs the claim: rolled back
	require.NoError(t, err)
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+oltp.ClaimDueQueryForTest, "w", time.Minute.Milliseconds(), tick, batch, true)
	require.NoError(t, err)
	var plan []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan = append(plan, line)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, tx.Rollback(ctx))
	text := strings.Join(plan, "\n")
	require.Contains(t, text, "crawl_sources_due_idx", text)
	for _, line := range plan {
		require.NotContains(t, line, "Sort", "a claim sorts nothing: the index is in its order\n%s", text)
		require.NotContains(t, line, "Seq Scan on crawl_sources", text)
	}

	keys, err := oltp.ClaimDueSources(ctx, pool, "w", tick, batch, time.Minute, true)
	require.NoError(t, err)
	require.Len(t, keys, batch)
	slices.Sort(keys)
	for i, k := range keys {
		require.Equal(t, fmt.Sprintf("jsonld:b%06d.example/jobs", 2001+i), k, "the first unread sources by key")
	}
}
