package oltp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CrawlReadLease is how long a worker holds a source it claimed before another may claim it (the
// worker is presumed dead).
const CrawlReadLease = 5 * time.Minute

// ClaimDueSources leases at most limit sources for owner to read in window tick and returns
// their keys: ClaimSources without what a worker needs besides the key.
func ClaimDueSources(ctx context.Context, pool *pgxpool.Pool, owner string, tick, limit int, lease time.Duration, all bool) ([]string, error) {
	claims, err := ClaimSources(ctx, pool, owner, tick, limit, lease, all)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(claims))
	for i, c := range claims {
		keys[i] = c.Key
	}
	return keys, nil
}

// ClaimedSource is a source a worker claimed: its key, the postings of its last ok read taken as
// it was (LastOKCount, -1 when it has none), the pages of its last read (LastPages, 0 when it has
// none), whether the claim is the refetch of a read of this window that asked for one (a
// drop; StoreCrawlReads), and whether the source has a chain of pages carried from an earlier
// part (Carried: GetChain says where it stands).
type ClaimedSource struct {
	Key         string
	LastOKCount int
	LastPages   int
	Refetch     bool
	Carried     bool
}

// LongSourcePages is the pages from which a source's last read makes it long: a claim takes the
// due long sources first, longest first, before the rest in due order (longest-processing-time
// first). A window ends no sooner than its longest chain of pages read one after another (a
// job-page board links each page to the next), so that chain must start when the window does,
// not wherever its key falls among 100,000 sources. crawl_sources_long_idx (migration 0036)
// holds the sources of this many pages or more; the claim's SQL names the same figure.
const LongSourcePages = 32

// ClaimSources leases at most limit sources for owner to read in window tick: active or suspect
// sources with no read of that window, due by now (next_due_at; every one when all is set, as
// `crawl --once` reads them), not cooling down (cooldown_until, set by StoreCrawlReads; --once
// does not lift it either), and not leased by a live worker; and, unless all is set, the sources
// whose read of the window asked for a refetch that is due now (CrawlRead.RefetchDue). A source
// left unclaimed has no read of the window, so the committer counts it not fetched: its reqs stay
// unknown, never closed. Concurrent workers never claim the same source (FOR UPDATE SKIP LOCKED),
// whether for a read or a refetch; a lease lapses after lease.
//
// The claims come longest first: the sources whose last read took LongSourcePages pages or more,
// by those pages (most first), then the others in due order (next_due_at, source_key), so a
// worker that starts its claims in the order returned starts a long chain of pages before the
// short reads.
func ClaimSources(ctx context.Context, pool *pgxpool.Pool, owner string, tick, limit int, lease time.Duration, all bool) ([]ClaimedSource, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, claimDueQuery, owner, lease.Milliseconds(), tick, limit, all)
	if err != nil {
		return nil, fmt.Errorf("cannot claim due sources: %w", err)
	}
	claims, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ClaimedSource, error) {
		var c ClaimedSource
		err := row.Scan(&c.Key, &c.LastOKCount, &c.LastPages, &c.Refetch, &c.Carried)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot claim due sources: %w", err)
	}
	// RETURNING follows no order: the long sources first, longest first, then the rest by key
	// (every one of them due by now).
	slices.SortFunc(claims, func(a, b ClaimedSource) int {
		al, bl := a.LastPages >= LongSourcePages, b.LastPages >= LongSourcePages
		switch {
		case al && bl && a.LastPages != b.LastPages:
			return cmp.Compare(b.LastPages, a.LastPages)
		case al != bl:
			if al {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	return claims, nil
}

// claimDueQuery leases the due long sources (LongSourcePages, the literal 32 below: the partial
// index's predicate) in (last_pages DESC, source_key) order, the order of crawl_sources_long_idx,
// then as many of the others as the limit leaves in (next_due_at, source_key) order, the order of
// crawl_sources_due_idx: a claim reads the rows it takes and those it skips, never every source
// sharing a due time. A refetch is due at its read's refetch_due, which its source's next_due_at
// holds too (StoreCrawlReads), so it comes in the same order.
var claimDueQuery = strings.NewReplacer("DUE", `($5 OR s.next_due_at <= now())
			  AND (s.cooldown_until IS NULL OR s.cooldown_until <= now())
			  AND (s.lease_until IS NULL OR s.lease_until < now())
			  AND NOT EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $3 AND r.source_key = s.source_key
			                  AND ($5 OR r.refetch_due IS NULL OR r.refetch_due > now()))`).Replace(`
		WITH long AS (
			SELECT s.source_key FROM crawl_sources s
			WHERE s.status IN ('active', 'suspect') AND s.last_pages >= 32
			  AND DUE
			ORDER BY s.last_pages DESC, s.source_key
			LIMIT $4
			FOR UPDATE SKIP LOCKED
		), rest AS (
			SELECT s.source_key FROM crawl_sources s
			WHERE s.status IN ('active', 'suspect') AND (s.last_pages IS NULL OR s.last_pages < 32)
			  AND DUE
			ORDER BY s.next_due_at, s.source_key
			LIMIT (SELECT $4 - count(*) FROM long)
			FOR UPDATE SKIP LOCKED
		)
		UPDATE crawl_sources c SET lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond'
		WHERE c.source_key = ANY (ARRAY(SELECT source_key FROM long UNION ALL SELECT source_key FROM rest))
		RETURNING c.source_key, coalesce(c.last_ok_count, -1), coalesce(c.last_pages, 0),
			EXISTS (SELECT 1 FROM crawl_reads r WHERE r.tick = $3 AND r.source_key = c.source_key),
			EXISTS (SELECT 1 FROM crawl_chains ch WHERE ch.source_key = c.source_key)`)

// ClaimCompanySources leases for owner every active or suspect source of the company at domain
// (its ATS tenants and careers sites) that no live lease holds, whatever its due time or the
// window's reads: the on-demand crawl of a company reads them through the same leases as the
// crawl workers, so a worker and an on-demand crawl never read one source at once. It returns
// the keys it leased and those another owner's live lease holds (busy: a worker is reading them).
// ReleaseSources gives the leases back without a read.
func ClaimCompanySources(ctx context.Context, pool *pgxpool.Pool, owner, domain string, lease time.Duration) (claimed, busy []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, `
		UPDATE crawl_sources c SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
		WHERE c.source_key IN (
			SELECT s.source_key FROM crawl_sources s
			WHERE s.company_domain = $2 AND s.status IN ('active', 'suspect')
			  AND (s.lease_until IS NULL OR s.lease_until < now() OR s.lease_owner = $1)
			ORDER BY s.source_key
			FOR UPDATE SKIP LOCKED)
		RETURNING c.source_key`, owner, domain, lease.Milliseconds())
	if err != nil {
		return nil, nil, fmt.Errorf("cannot claim the sources of %s: %w", domain, err)
	}
	if claimed, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return nil, nil, fmt.Errorf("cannot claim the sources of %s: %w", domain, err)
	}
	if claimed == nil {
		claimed = []string{} // ANY of NULL would leave every source out
	}
	rows, err = pool.Query(ctx, `SELECT source_key FROM crawl_sources
		WHERE company_domain = $1 AND status IN ('active', 'suspect') AND NOT (source_key = ANY($2))
		ORDER BY source_key`, domain, claimed)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot list the sources of %s others hold: %w", domain, err)
	}
	if busy, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return nil, nil, fmt.Errorf("cannot list the sources of %s others hold: %w", domain, err)
	}
	return claimed, busy, nil
}

// ReleaseSources gives back the leases owner holds on keys without storing a read: the sources
// stay due as they were.
func ReleaseSources(ctx context.Context, pool *pgxpool.Pool, owner string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, `UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL
		WHERE source_key = ANY($2) AND lease_owner = $1`, owner, keys); err != nil {
		return fmt.Errorf("cannot release %d sources' leases: %w", len(keys), err)
	}
	return nil
}

// RenewLeases extends the leases owner holds on keys to lease from now: a worker whose read
// outlasts its lease (a long chain of pages) renews it while it lives, so no other worker claims
// the source meanwhile; a dead worker's leases lapse. A lease given back (a read stored) is not
// taken again.
func RenewLeases(ctx context.Context, pool *pgxpool.Pool, owner string, keys []string, lease time.Duration) error {
	if len(keys) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, `UPDATE crawl_sources SET lease_until = now() + $3 * interval '1 millisecond'
		WHERE source_key = ANY($2) AND lease_owner = $1 AND lease_until IS NOT NULL`, owner, keys, lease.Milliseconds()); err != nil {
		return fmt.Errorf("cannot renew %d sources' leases: %w", len(keys), err)
	}
	return nil
}

// CrawlRead is one source's read in one window. Pages, Postings and Malformed are what it read in
// its window, which the window's commit counts (a chain carried across windows: this window's
// pages and the postings on them, each page counted in one window only); Sightings may hold more
// (a chain's: every part so far).
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
	// Chain, set on the read of a chain of pages read in parts, is the whole chain's pages and
	// postings so far, whichever windows read them: the source's schedule and health take those
	// (last_pages, last_count, last_ok_count), not the window's.
	Chain *ChainSize
	// NextDue is when the source is next due (the worker computes it from the wall clock).
	NextDue time.Time
	// RefetchDue, when set, asks for a refetch of the source in this window at that time (the
	// read fell far below the source's last ok read): the read is stored with it, and NextDue
	// should be it. The read does not become the source's LastOKCount; its refetch does.
	RefetchDue time.Time
	// Refetch marks the read of a claim that was a refetch (ClaimedSource.Refetch): read ok, it
	// replaces the window's read and keeps that read's time as SuspectReadAt; read otherwise, the
	// window keeps its first read. Either way no other refetch is asked in the window.
	Refetch bool
	// SuspectReadAt is set on a read that replaced one asking for a refetch: that read's time.
	// CrawlReads fills it; StoreCrawlReads ignores it.
	SuspectReadAt time.Time
	// EndsChain marks the read that ends the source's carried chain (crawl_chains): it reached the
	// chain's end, or failed partway. Stored, it deletes the chain in the same transaction.
	EndsChain bool
}

// ChainSize is a chain of pages' pages and postings read so far (CrawlRead.Chain).
type ChainSize struct{ Pages, Postings int }

// sourceSize is the pages and postings of r's source that its schedule and health take: its
// chain's so far when it is a chain's read, else the read's own.
func (r *CrawlRead) sourceSize() (pages, postings int) {
	if r.Chain != nil {
		return r.Chain.Pages, r.Chain.Postings
	}
	return r.Pages, r.Postings
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
// CooldownMax in seconds, $15 SuspectAfter, $16 HealthBy, $17 refetch due (NULL: none), $18 and
// $19 the source's pages and postings (sourceSize: a chain's so far).
var storeReadSQL = strings.NewReplacer(
	"FAILURES", "(CASE WHEN $5 = 'ok' THEN 0 WHEN $5 = 'failed' THEN consecutive_failures + 1 ELSE consecutive_failures END)",
	"TURNS_SUSPECT", "($5 = 'failed' AND consecutive_failures + 1 >= $15 AND status = 'active')",
	"RECOVERS", "($5 = 'ok' AND status = 'suspect' AND status_by IS NOT DISTINCT FROM $16)",
).Replace(`
	WITH ins AS (
		INSERT INTO crawl_reads (tick, source_key, read_at, worker, status, reason, pages, postings, malformed, sightings, refetch_due)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $17) ON CONFLICT (tick, source_key) DO NOTHING
		RETURNING 1
	), again AS (
		UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL, next_due_at = $11, updated_at = now()
		WHERE source_key = $2 AND NOT EXISTS (SELECT 1 FROM ins)
	)
	UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL, next_due_at = $11, updated_at = now(),
		last_status = $5, last_reason = nullif($6, ''), last_count = $19,
		last_ok_at = CASE WHEN $5 = 'ok' THEN $3 ELSE last_ok_at END,
		last_ok_count = CASE WHEN $5 = 'ok' AND $17::timestamptz IS NULL THEN $19 ELSE last_ok_count END,
		last_pages = CASE WHEN $5 = 'ok' THEN $18 ELSE greatest(last_pages, $18) END,
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

// refetchSQL stores the read of a refetch (CrawlRead.Refetch) and releases its source's lease.
// Read ok, it replaces the window's read, which keeps its time as suspect_read_at, and becomes
// the source's last ok count; read otherwise (failed, blocked), the window keeps the read that
// asked for it. Either way the refetch is no longer due, and the source is next due at $11. A
// refetch stored twice (a lapsed lease) finds none due the second time and stores nothing. The
// health columns are the window's first read's and stay as they are.
//
// $1 tick, $2 source, $3 read_at, $4 worker, $5 status, $6 reason, $7 pages, $8 postings,
// $9 malformed, $10 sightings, $11 next due, $12 and $13 the source's pages and postings
// (sourceSize).
const refetchSQL = `
	WITH re AS (
		UPDATE crawl_reads SET read_at = $3, worker = $4, status = $5, reason = $6, pages = $7, postings = $8, malformed = $9,
			sightings = $10, suspect_read_at = read_at, refetch_due = NULL
		WHERE tick = $1 AND source_key = $2 AND refetch_due IS NOT NULL AND $5 = 'ok'
		RETURNING 1
	), kept AS (
		UPDATE crawl_reads SET refetch_due = NULL
		WHERE tick = $1 AND source_key = $2 AND refetch_due IS NOT NULL AND $5 <> 'ok'
	)
	UPDATE crawl_sources SET lease_owner = NULL, lease_until = NULL, next_due_at = $11, updated_at = now(),
		last_count = CASE WHEN EXISTS (SELECT 1 FROM re) THEN $13 ELSE last_count END,
		last_ok_at = CASE WHEN EXISTS (SELECT 1 FROM re) THEN $3 ELSE last_ok_at END,
		last_ok_count = CASE WHEN EXISTS (SELECT 1 FROM re) THEN $13 ELSE last_ok_count END,
		last_pages = CASE WHEN EXISTS (SELECT 1 FROM re) THEN $12 ELSE greatest(last_pages, $12) END
	WHERE source_key = $2`

// StoreCrawlReads records reads and releases their sources' leases, setting each source's next due
// time and, by the health rule above, its health: failures in a row, cooldown and the suspect
// status; and its last pages (last_pages: an ok read's pages, or the most of the last and a read
// not ok, which may have stopped partway; of a chain read in parts, the whole chain's so far:
// CrawlRead.Chain), which ClaimSources takes the long sources first by. All in one transaction. A
// read of a (tick, source) already recorded is kept as it was (the first worker to finish wins),
// and changes no health, so a lapsed lease read twice is stored and counted once. A refetch
// (CrawlRead.Refetch) is stored by refetchSQL. A read that ends its source's carried chain
// (CrawlRead.EndsChain) deletes the chain once it is the window's stored read. A partial read (a
// chain carried on) counts as neither a failure nor an ok read.
func StoreCrawlReads(ctx context.Context, pool *pgxpool.Pool, reads []CrawlRead) error {
	if len(reads) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, r := range reads {
			pages, postings := r.sourceSize()
			if r.Refetch {
				b.Queue(refetchSQL, r.Tick, r.SourceKey, r.ReadAt, r.Worker, r.Status, r.Reason, r.Pages, r.Postings, r.Malformed, r.Sightings, r.NextDue,
					pages, postings)
				continue
			}
			var refetchDue *time.Time
			if !r.RefetchDue.IsZero() {
				refetchDue = &r.RefetchDue
			}
			b.Queue(storeReadSQL, r.Tick, r.SourceKey, r.ReadAt, r.Worker, r.Status, r.Reason, r.Pages, r.Postings, r.Malformed, r.Sightings,
				r.NextDue, CooldownAfter, CooldownBase.Seconds(), CooldownMax.Seconds(), SuspectAfter, HealthBy, refetchDue, pages, postings)
			if r.EndsChain {
				b.Queue(endChainSQL, r.Tick, r.SourceKey, r.Worker, r.ReadAt)
			}
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("cannot store %d crawl reads: %w", len(reads), err)
		}
		return nil
	})
}

// CrawlReadsPage is how many reads one statement of CrawlReads reads.
const CrawlReadsPage = 1000

// CrawlReads streams every read of window tick to fn, in source order, a page of CrawlReadsPage
// reads a statement (by key, after the last one read). One statement over the whole window ran
// as long as fn took over every read, since a statement's time counts until its last row is
// taken: at 84,955 reads (207 MB) on a loaded machine that passed the pool's statement_timeout
// (StatementTimeout, 30 s) and the committer failed; a page is a few MB, read in well under it.
func CrawlReads(ctx context.Context, pool *pgxpool.Pool, tick int, fn func(CrawlRead) error) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	after := ""
	for {
		n, last, err := crawlReadsPage(ctx, pool, tick, after, fn)
		if err != nil {
			return err
		}
		if n < CrawlReadsPage {
			return nil
		}
		after = last
	}
}

// crawlReadsPage streams the reads of window tick whose keys sort after after, at most
// CrawlReadsPage of them, to fn, and returns how many and the last key.
func crawlReadsPage(ctx context.Context, pool *pgxpool.Pool, tick int, after string, fn func(CrawlRead) error) (n int, last string, err error) {
	rows, err := pool.Query(ctx, `SELECT tick, source_key, read_at, worker, status, reason, pages, postings, malformed, sightings, suspect_read_at
		FROM crawl_reads WHERE tick = $1 AND source_key > $2 ORDER BY source_key LIMIT $3`, tick, after, CrawlReadsPage)
	if err != nil {
		return 0, "", fmt.Errorf("cannot read the crawl reads of window %d: %w", tick, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r CrawlRead
		var suspectAt *time.Time
		if err := rows.Scan(&r.Tick, &r.SourceKey, &r.ReadAt, &r.Worker, &r.Status, &r.Reason, &r.Pages, &r.Postings, &r.Malformed, &r.Sightings,
			&suspectAt); err != nil {
			return 0, "", fmt.Errorf("cannot read the crawl reads of window %d: %w", tick, err)
		}
		if suspectAt != nil {
			r.SuspectReadAt = *suspectAt
		}
		n, last = n+1, r.SourceKey
		if err := fn(r); err != nil {
			return 0, "", err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, "", fmt.Errorf("cannot read the crawl reads of window %d: %w", tick, err)
	}
	return n, last, nil
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
