package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CrawlReadLease is how long a worker holds a source it claimed before another may claim it (the
// worker is presumed dead).
const CrawlReadLease = 5 * time.Minute

// ClaimDueSources leases at most limit sources for owner to read in window tick: active or
// suspect sources with no read of that window, due by now (next_due_at; every one when all is
// set, as `crawl --once` reads them), and not leased by a live worker. Concurrent workers never
// claim the same source (FOR UPDATE SKIP LOCKED); a lease lapses after lease.
func ClaimDueSources(ctx context.Context, pool *pgxpool.Pool, owner string, tick, limit int, lease time.Duration, all bool) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, claimDueQuery, owner, lease.Milliseconds(), tick, limit, all)
	if err != nil {
		return nil, fmt.Errorf("cannot claim due sources: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("cannot claim due sources: %w", err)
	}
	return keys, nil
}

// claimDueQuery leases the first due sources in (next_due_at, source_key) order, the order of
// crawl_sources_due_idx: a claim reads the rows it takes and those it skips, never every source
// sharing a due time.
const claimDueQuery = `
		UPDATE crawl_sources SET lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond'
		WHERE source_key IN (
			SELECT s.source_key FROM crawl_sources s
			WHERE s.status IN ('active', 'suspect')
			  AND ($5 OR s.next_due_at <= now())
			  AND (s.lease_until IS NULL OR s.lease_until < now())
			  AND NOT EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $3 AND r.source_key = s.source_key)
			ORDER BY s.next_due_at, s.source_key
			LIMIT $4
			FOR UPDATE SKIP LOCKED)
		RETURNING source_key`

// CrawlRead is one source's read in one window.
type CrawlRead struct {
	Tick      int
	SourceKey string
	ReadAt    time.Time
	Worker    string
	Status    string
	Reason    string
	Pages     int
	Postings  int
	Malformed int
	Sightings []byte
	// NextDue is when the source is next due (the worker computes it from the wall clock).
	NextDue time.Time
}

// StoreCrawlReads records reads and releases their sources' leases, setting each source's next
// due time and health, in one transaction. A read of a (tick, source) already recorded is kept
// as it was (the first worker to finish wins), so a lapsed lease read twice is stored once.
func StoreCrawlReads(ctx context.Context, pool *pgxpool.Pool, reads []CrawlRead) error {
	if len(reads) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, r := range reads {
			b.Queue(`INSERT INTO crawl_reads (tick, source_key, read_at, worker, status, reason, pages, postings, malformed, sightings)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tick, source_key) DO NOTHING`,
				r.Tick, r.SourceKey, r.ReadAt, r.Worker, r.Status, r.Reason, r.Pages, r.Postings, r.Malformed, r.Sightings)
			b.Queue(`UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL, next_due_at = $2,
					last_status = $3, last_reason = nullif($4, ''), last_count = $5,
					last_ok_at = CASE WHEN $3 = 'ok' THEN $6 ELSE last_ok_at END,
					consecutive_failures = CASE WHEN $3 = 'ok' THEN 0 WHEN $3 = 'failed' THEN consecutive_failures + 1 ELSE consecutive_failures END,
					updated_at = now()
				WHERE source_key = $1`, r.SourceKey, r.NextDue, r.Status, r.Reason, r.Postings, r.ReadAt)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("cannot store %d crawl reads: %w", len(reads), err)
		}
		return nil
	})
}

// CrawlReads streams every read of window tick to fn, in source order.
func CrawlReads(ctx context.Context, pool *pgxpool.Pool, tick int, fn func(CrawlRead) error) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	rows, err := pool.Query(ctx, `SELECT tick, source_key, read_at, worker, status, reason, pages, postings, malformed, sightings
		FROM crawl_reads WHERE tick = $1 ORDER BY source_key`, tick)
	if err != nil {
		return fmt.Errorf("cannot read the crawl reads of window %d: %w", tick, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r CrawlRead
		if err := rows.Scan(&r.Tick, &r.SourceKey, &r.ReadAt, &r.Worker, &r.Status, &r.Reason, &r.Pages, &r.Postings, &r.Malformed, &r.Sightings); err != nil {
			return fmt.Errorf("cannot read the crawl reads of window %d: %w", tick, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cannot read the crawl reads of window %d: %w", tick, err)
	}
	return nil
}

// PruneCrawlReads deletes the reads of windows before tick (committed ones).
func PruneCrawlReads(ctx context.Context, pool *pgxpool.Pool, before int) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tag, err := pool.Exec(ctx, "DELETE FROM crawl_reads WHERE tick < $1", before)
	if err != nil {
		return 0, fmt.Errorf("cannot prune crawl reads before window %d: %w", before, err)
	}
	return tag.RowsAffected(), nil
}

// PendingCrawlSources counts the active or suspect sources with no read of window tick.
func PendingCrawlSources(ctx context.Context, pool *pgxpool.Pool, tick int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM crawl_sources s WHERE s.status IN ('active', 'suspect')
		AND NOT EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $1 AND r.source_key = s.source_key)`, tick).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("cannot count the sources left to read in window %d: %w", tick, err)
	}
	return n, nil
}
