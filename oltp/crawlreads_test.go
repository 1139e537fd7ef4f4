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
	require.Contains(t, text, "crawl_sources_long_idx", "the long sources come from their own index\n%s", text)
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

// A window ends no sooner than its longest chain of pages, read one page after another whoever
// reads it. Every source here is due at the same time and the long ones' keys sort last; once a
// window has told the registry each source's pages, the next window's claims take the long
// sources first, longest first, and the short ones in key order after them, and a claim returns
// them in that order (a worker starts its claims in it). A read that fails partway through a long
// chain does not make its source short.
func TestALongSourceIsClaimedBeforeShortOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	due := time.Now().Add(-time.Minute)
	_, err := pool.Exec(ctx, `INSERT INTO crawl_sources (source_key, vendor, kind, url, status, added_by, next_due_at)
		SELECT k, 'jsonld', 'board', 'https://' || k || '/jobs', 'active', 'test', $1
		FROM unnest($2::text[]) k`, due, []string{"a.example", "b.example", "c.example", "d.example", "y.example", "z.example"})
	require.NoError(t, err)
	pages := map[string]int{"a.example": 1, "b.example": 3, "c.example": 31, "d.example": 2, "y.example": 40, "z.example": 1263}

	// Window 1: no source has been read, so the claim is in due order, by key.
	first, err := oltp.ClaimSources(ctx, pool, "w", 1, 10, time.Minute, true)
	require.NoError(t, err)
	require.Equal(t, []string{"a.example", "b.example", "c.example", "d.example", "y.example", "z.example"}, claimedKeys(first))
	var reads []oltp.CrawlRead
	for _, c := range first {
		require.Zero(t, c.LastPages, "never read")
		reads = append(reads, oltp.CrawlRead{Tick: 1, SourceKey: c.Key, ReadAt: time.Now(), Worker: "w", Status: "ok",
			Pages: pages[c.Key], Sightings: []byte{0}, NextDue: due})
	}
	require.NoError(t, oltp.StoreCrawlReads(ctx, pool, reads))

	// Window 2: the 1,263-page board first, then the 40-page one; c's 31 pages are short.
	one, err := oltp.ClaimSources(ctx, pool, "w2", 2, 1, time.Minute, true)
	require.NoError(t, err)
	require.Equal(t, []string{"z.example"}, claimedKeys(one), "the longest source is the first claimed")
	require.Equal(t, 1263, one[0].LastPages)
	rest, err := oltp.ClaimSources(ctx, pool, "w1", 2, 10, time.Minute, true)
	require.NoError(t, err)
	require.Equal(t, []string{"y.example", "a.example", "b.example", "c.example", "d.example"}, claimedKeys(rest),
		"the long source first, then the rest in due order")

	// The board fails after 3 pages in window 2: it stays long for window 3.
	reads = reads[:0]
	for _, c := range append(one, rest...) {
		r := oltp.CrawlRead{Tick: 2, SourceKey: c.Key, ReadAt: time.Now(), Worker: "w", Status: "ok", Pages: pages[c.Key], Sightings: []byte{0}, NextDue: due}
		if c.Key == "z.example" {
			r.Status, r.Reason, r.Pages = "failed", "HTTP 503", 3
		}
		reads = append(reads, r)
	}
	require.NoError(t, oltp.StoreCrawlReads(ctx, pool, reads))
	all, err := oltp.ClaimSources(ctx, pool, "w", 3, 10, time.Minute, true)
	require.NoError(t, err)
	require.Equal(t, []string{"z.example", "y.example", "a.example", "b.example", "c.example", "d.example"}, claimedKeys(all))
}

func claimedKeys(claims []oltp.ClaimedSource) []string {
	keys := make([]string, len(claims))
	for i, c := range claims {
		keys[i] = c.Key
	}
	return keys
}

// The committer reads a window's reads a page at a time (a statement over all of them outlasted
// the pool's statement_timeout at 84,955 reads): every read once, in key order, whatever the
// pages' bounds, and none of another window.
func TestCrawlReadsReadsEveryReadOnceInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	reads := 2*oltp.CrawlReadsPage + 7
	for _, tick := range []int{4, 5} {
		_, err := pool.Exec(ctx, `INSERT INTO crawl_reads (tick, source_key, read_at, worker, status, pages, sightings)
			SELECT $1, 'greenhouse:t' || lpad(i::text, 5, '0'), now(), 'w', 'ok', 1, '\x00' FROM generate_series(1, $2::int) i`, tick, reads+tick)
		require.NoError(t, err)
	}
	var keys []string
	require.NoError(t, oltp.CrawlReads(ctx, pool, 4, func(r oltp.CrawlRead) error {
		require.Equal(t, 4, r.Tick)
		keys = append(keys, r.SourceKey)
		return nil
	}))
	require.Len(t, keys, reads+4)
	require.True(t, slices.IsSorted(keys), "in key order")
	require.Equal(t, len(keys), len(slices.Compact(slices.Clone(keys))), "each read once")
}
