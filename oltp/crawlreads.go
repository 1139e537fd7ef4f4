package oltp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CrawlReadLease is how long a worker holds a source it claimed before another may claim it (the
// worker is presumed dead).
const CrawlReadLease = 5 * time.Minute

// ClaimDueSources leases at most limit sources for owner to read in window tick: active or
// suspect sources with no read of that window, due by now (next_due_at; every one when all is
// set, as `crawl --once` reads them), not cooling down (cooldown_until, set by StoreCrawlReads;
// --once does not lift it either), and not leased by a live worker. A source left unclaimed has
// no read of the window, so the committer counts it not fetched: its reqs stay unknown, never
// closed. Concurrent workers never claim the same source (FOR UPDATE SKIP LOCKED); a lease
// lapses after lease.
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
			  AND (s.cooldown_until IS NULL OR s.cooldown_until <= now())
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

// The health rule of a source, applied by StoreCrawlReads to the first read of each window (one
// window, one verdict). A failed read adds one to consecutive_failures; an ok read sets it to 0;
// blocked and not_fetched leave it as it is (robots.txt is the host's choice, and a source not
// read was not tried). From CooldownAfter failures in a row the source cools down for
// CooldownBase·2^(f−CooldownAfter), at most CooldownMax, from the failed read (cooldown_until):
// ClaimDueSources does not claim it meanwhile. From SuspectAfter failures in a row an active
// source turns suspect, by HealthBy, with a reason naming the count and the last failure, so
// re-discovery looks at it. Nothing here retires a source or makes it permanent: retiring is an
// operator's or re-discovery's decision (a fleet-wide outage must not retire a fleet). An ok read
// clears the cooldown and turns a source HealthBy made suspect active again.
const (
	CooldownAfter = 3
	CooldownBase  = 6 * time.Hour
	CooldownMax   = 24 * time.Hour
	SuspectAfter  = 8
	// HealthBy is who the registry records as setting a status the health rule set.
	HealthBy = "crawl"
)

// storeReadSQL records one read (the first of its window wins) and releases its source's lease.
// The health columns and the status move only when this statement inserted the read, so a read
// stored twice (a lapsed lease read by two workers) counts once. The rule is SQL because the
// count it keys on is the row's: the increment, the cooldown and the status change land in the
// same UPDATE, under the row's lock, with no read-modify-write between concurrent workers.
//
// $1 tick, $2 source, $3 read_at, $4 worker, $5 status, $6 reason, $7 pages, $8 postings,
// $9 malformed, $10 sightings, $11 next due, $12 CooldownAfter, $13 CooldownBase and $14
// CooldownMax in seconds, $15 SuspectAfter, $16 HealthBy.
var storeReadSQL = strings.NewReplacer(
	"FAILURES", "(CASE WHEN $5 = 'ok' THEN 0 WHEN $5 = 'failed' THEN consecutive_failures + 1 ELSE consecutive_failures END)",
	"TURNS_SUSPECT", "($5 = 'failed' AND consecutive_failures + 1 >= $15 AND status = 'active')",
	"RECOVERS", "($5 = 'ok' AND status = 'suspect' AND status_by IS NOT DISTINCT FROM $16)",
).Replace(`
	WITH ins AS (
		INSERT INTO crawl_reads (tick, source_key, read_at, worker, status, reason, pages, postings, malformed, sightings)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tick, source_key) DO NOTHING
		RETURNING 1
	), again AS (
		UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL, next_due_at = $11, updated_at = now()
		WHERE source_key = $2 AND NOT EXISTS (SELECT 1 FROM ins)
	)
	UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL, next_due_at = $11, updated_at = now(),
		last_status = $5, last_reason = nullif($6, ''), last_count = $8,
		last_ok_at = CASE WHEN $5 = 'ok' THEN $3 ELSE last_ok_at END,
		consecutive_failures = FAILURES,
		cooldown_until = CASE
			WHEN $5 = 'ok' THEN NULL
			WHEN $5 = 'failed' AND FAILURES >= $12
				THEN $3 + make_interval(secs => least($14::float8, $13::float8 * power(2, least(FAILURES - $12, 16))))
			ELSE cooldown_until END,
		status = CASE WHEN TURNS_SUSPECT THEN 'suspect' WHEN RECOVERS THEN 'active' ELSE status END,
		status_reason = CASE
			WHEN TURNS_SUSPECT THEN left(format('failed %s windows in a row; last: %s', FAILURES, coalesce(nullif($6, ''), 'no reason given')), 500)
			WHEN RECOVERS THEN NULL
			ELSE status_reason END,
		status_by = CASE WHEN TURNS_SUSPECT OR RECOVERS THEN $16 ELSE status_by END,
		status_at = CASE WHEN TURNS_SUSPECT OR RECOVERS THEN now() ELSE status_at END
	WHERE source_key = $2 AND EXISTS (SELECT 1 FROM ins)`)

// StoreCrawlReads records reads and releases their sources' leases, setting each source's next
// due time and, by the health rule above, its health: failures in a row, cooldown and the
// suspect status. All in one transaction. A read of a (tick, source) already recorded is kept as
// it was (the first worker to finish wins), and changes no health, so a lapsed lease read twice
// is stored and counted once.
func StoreCrawlReads(ctx context.Context, pool *pgxpool.Pool, reads []CrawlRead) error {
	if len(reads) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, r := range reads {
			b.Queue(storeReadSQL, r.Tick, r.SourceKey, r.ReadAt, r.Worker, r.Status, r.Reason, r.Pages, r.Postings, r.Malformed, r.Sightings,
				r.NextDue, CooldownAfter, CooldownBase.Seconds(), CooldownMax.Seconds(), SuspectAfter, HealthBy)
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

// PendingCrawlSources counts the active or suspect sources with no read of window tick that a
// worker may still claim (cooling ones are not: ClaimDueSources).
func PendingCrawlSources(ctx context.Context, pool *pgxpool.Pool, tick int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM crawl_sources s WHERE s.status IN ('active', 'suspect')
		AND (s.cooldown_until IS NULL OR s.cooldown_until <= now())
		AND NOT EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $1 AND r.source_key = s.source_key)`, tick).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("cannot count the sources left to read in window %d: %w", tick, err)
	}
	return n, nil
}

// SyncCrawlSuspects records what a committed window found: the sources whose read was a
// suspect drop turn from active to suspect (with reason), and the sources the crawl had made
// suspect that read ok again turn back to active. A status an operator set is left alone.
func SyncCrawlSuspects(ctx context.Context, pool *pgxpool.Pool, suspect, okAgain []string, reason string) error {
	if len(suspect) == 0 && len(okAgain) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	b := &pgx.Batch{}
	b.Queue(`UPDATE crawl_sources SET status = 'suspect', status_reason = $2, status_by = 'crawl', status_at = now(), updated_at = now()
		WHERE source_key = ANY($1) AND status = 'active'`, suspect, reason)
	b.Queue(`UPDATE crawl_sources SET status = 'active', status_reason = NULL, status_by = 'crawl', status_at = now(), updated_at = now()
		WHERE source_key = ANY($1) AND status = 'suspect' AND status_by = 'crawl'`, okAgain)
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("cannot record the window's suspect sources: %w", err)
	}
	return nil
}

// RegistryHealth counts the registry's sources by status (every status, 0 when none) and those
// cooling down now (cooldown_until ahead), for operators.
func RegistryHealth(ctx context.Context, pool *pgxpool.Pool) (byStatus map[string]int, cooling int, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, `SELECT status, count(*), count(*) FILTER (WHERE cooldown_until > now())
		FROM crawl_sources GROUP BY status`)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot count the registry's sources: %w", err)
	}
	byStatus = make(map[string]int, len(SourceStatuses()))
	for _, st := range SourceStatuses() {
		byStatus[st] = 0
	}
	var status string
	var n, cool int
	_, err = pgx.ForEachRow(rows, []any{&status, &n, &cool}, func() error {
		byStatus[status] = n
		cooling += cool
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("cannot count the registry's sources: %w", err)
	}
	return byStatus, cooling, nil
}
