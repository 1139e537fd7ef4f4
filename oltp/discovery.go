package oltp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Discovery in the registry (migration 0030): the queue of company domains to discover sources
// for (crawl_discoveries), the answer of each domain's last run, and how a run's result lands in
// the registry. pipeline/sources maps discovery's Result onto these calls and checks what it
// writes; this file holds the statements only.

// Discovery statuses: queued and running while a run is waited for or under way, then the
// outcome of the last run.
const (
	DiscoveryQueued      = "queued"
	DiscoveryRunning     = "running"
	DiscoveryCovered     = "covered"
	DiscoveryCandidates  = "candidates"
	DiscoveryNoATS       = "no_ats_found"
	DiscoveryBlocked     = "blocked_by_robots"
	DiscoveryUnreachable = "unreachable"
)

// DiscoveryOutcomes lists the statuses a finished run leaves.
func DiscoveryOutcomes() []string {
	return []string{DiscoveryCovered, DiscoveryCandidates, DiscoveryNoATS, DiscoveryBlocked, DiscoveryUnreachable}
}

// Who asked for a discovery (crawl_discoveries.requested_by).
const (
	DiscoveryByCoverage    = "coverage"    // a customer's coverage request
	DiscoveryByCLI         = "cli"         // an operator's `sources discover`
	DiscoveryByOnDemand    = "on_demand"   // an on-demand crawl of a company without a source
	DiscoveryByRediscovery = "rediscovery" // a source of the company turned suspect or answers 404/410
	DiscoveryByMonthly     = "monthly"     // the monthly re-check of a covered company
)

// Priorities of the queue (most first). A coverage request's is the customers asking plus the
// times they asked, at most PriorityOnDemand-1.
const (
	PriorityOnDemand    = 1 << 30 // above every coverage request: a customer is waiting on this read
	PriorityRediscovery = 10      // as if ten asks: the company had coverage and is losing it
	PriorityMonthly     = 0
)

// Bounds and intervals of discovery.
const (
	// DiscoveryLease is how long a worker holds a claimed discovery before another may take it
	// (the worker is presumed dead). A run is bounded well inside it.
	DiscoveryLease = 10 * time.Minute
	// MaxDiscoveryAttempts is how many claims a discovery gets without storing a result (its
	// worker died or its run failed) before it is left unreachable.
	MaxDiscoveryAttempts = 5
	// CoverageRetryAfter is how long a coverage request's discovery that found no active source
	// stands before the request queues it again; MonthlyRecheck how long a covered company goes
	// without a discovery before its monthly re-check; OnDemandRetryAfter how long a run stands
	// for on-demand reads of a company without a source.
	CoverageRetryAfter = 30 * 24 * time.Hour
	MonthlyRecheck     = 30 * 24 * time.Hour
	OnDemandRetryAfter = 24 * time.Hour
	// MaxDiscoverySteps and MaxDiscoveryFound bound the tried and found lists a run keeps.
	MaxDiscoverySteps = 50
	MaxDiscoveryFound = 50
	// MaxDiscoveryReason bounds a run's reason, in bytes.
	MaxDiscoveryReason = 500
)

// ErrDiscoveryNotFound is returned for a domain the discovery queue does not hold.
var ErrDiscoveryNotFound = errors.New("discovery not found")

// domainCheck is the SQL test of a registrable host the queue accepts: the CHECK of
// crawl_discoveries.domain, and sources.Domain's rule (DNS labels, a dot, not an address).
const domainCheck = `(length(%[1]s) <= 253 AND %[1]s ~ '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' AND %[1]s !~ '\.[0-9]+$')`

// DiscoveryAsk is one domain to discover.
type DiscoveryAsk struct {
	Domain   string // the registry's company key (sources.Domain)
	Name     string // the company's name when known ("" keeps the one held)
	Priority int
	By       string // DiscoveryBy*
	// StaleBefore: a domain whose last run finished is queued again only when that run is older
	// (the zero time: whenever asked). A domain queued or running keeps its place and takes the
	// higher priority.
	StaleBefore time.Time
}

// enqueueSQL queues the rows of the CTE "asked" (domain, name, priority, by, stale): a new domain
// is inserted; a queued or running one asked at a higher priority takes it, its asker, and is
// due now (asked again at its own priority it keeps its place and any backoff); a finished one whose last run is before stale (or stale NULL) is queued again, due now,
// with its last answer kept until the next run replaces it. It returns how many rows it queued or
// raised.
const enqueueSQL = `
	upd AS (
		UPDATE crawl_discoveries d SET
			name = CASE WHEN d.name = '' THEN a.name ELSE d.name END,
			requested_by = CASE WHEN d.status NOT IN ('queued', 'running') OR a.priority > d.priority THEN a.by ELSE d.requested_by END,
			priority = CASE WHEN d.status IN ('queued', 'running') THEN greatest(d.priority, a.priority) ELSE a.priority END,
			due_at = CASE WHEN d.status NOT IN ('queued', 'running') THEN now() WHEN a.priority > d.priority THEN least(d.due_at, now()) ELSE d.due_at END,
			attempts = CASE WHEN d.status IN ('queued', 'running') THEN d.attempts ELSE 0 END,
			status = CASE WHEN d.status IN ('queued', 'running') THEN d.status ELSE 'queued' END,
			updated_at = now()
		FROM asked a
		WHERE d.domain = a.domain AND (
			(d.status IN ('queued', 'running') AND a.priority > d.priority)
			OR (d.status NOT IN ('queued', 'running') AND (a.stale IS NULL OR d.last_tried_at IS NULL OR d.last_tried_at < a.stale)))
		RETURNING 1
	), ins AS (
		INSERT INTO crawl_discoveries (domain, name, priority, requested_by)
		SELECT a.domain, a.name, a.priority, a.by FROM asked a
		WHERE NOT EXISTS (SELECT 1 FROM crawl_discoveries d WHERE d.domain = a.domain)
		ON CONFLICT (domain) DO NOTHING
		RETURNING 1
	)
	SELECT (SELECT count(*) FROM upd) + (SELECT count(*) FROM ins)`

func runEnqueue(ctx context.Context, pool *pgxpool.Pool, what, asked string, args ...any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var n int
	if err := pool.QueryRow(ctx, "WITH asked AS ("+asked+"),"+enqueueSQL, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("cannot queue %s: %w", what, err)
	}
	return n, nil
}

// EnqueueDiscoveries queues asks (see DiscoveryAsk) and returns how many it queued or raised. A
// domain the queue's check refuses is an error naming it; asks must not repeat a domain.
func EnqueueDiscoveries(ctx context.Context, pool *pgxpool.Pool, asks []DiscoveryAsk) (int, error) {
	if len(asks) == 0 {
		return 0, nil
	}
	n := len(asks)
	domains, names, prios, bys, stale := make([]string, n), make([]string, n), make([]int32, n), make([]string, n), make([]*time.Time, n)
	seen := make(map[string]bool, n)
	for i, a := range asks {
		if seen[a.Domain] {
			return 0, fmt.Errorf("cannot queue discoveries: %s is asked twice", a.Domain)
		}
		seen[a.Domain] = true
		if a.Priority < 0 || a.Priority > PriorityOnDemand {
			return 0, fmt.Errorf("cannot queue the discovery of %s: priority %d is out of range 0..%d", a.Domain, a.Priority, PriorityOnDemand)
		}
		domains[i], names[i], prios[i], bys[i] = a.Domain, truncate(a.Name, 200), int32(a.Priority), a.By
		if !a.StaleBefore.IsZero() {
			t := a.StaleBefore
			stale[i] = &t
		}
	}
	q, err := runEnqueue(ctx, pool, "discoveries", `SELECT a.domain, a.name, a.priority, a.by, a.stale
		FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::timestamptz[]) AS a (domain, name, priority, by, stale)`,
		domains, names, prios, bys, stale)
	if err != nil && strings.Contains(err.Error(), "crawl_discoveries_domain_check") {
		return 0, fmt.Errorf("cannot queue discoveries: a domain is not a host name such as acme.com (%s): %w", strings.Join(domains, ", "), err)
	}
	return q, err
}

// EnqueueCoverageDiscoveries queues the domain of every coverage request (one per domain, over
// every customer) whose company the registry reads no active source of: priority the customers
// asking plus the times they asked, so a claim takes the most-asked first; a domain whose last
// run found no active source is queued again once that run is older than staleBefore. Requests
// by name alone are not queued (discovery starts from a domain), nor domains that are not host
// names. It returns how many it queued or raised.
func EnqueueCoverageDiscoveries(ctx context.Context, pool *pgxpool.Pool, staleBefore time.Time) (int, error) {
	return runEnqueue(ctx, pool, "the discoveries of coverage requests", fmt.Sprintf(`
		SELECT r.domain, left(r.name, 200) AS name, least(r.asks, %d)::int AS priority, 'coverage' AS by, $1::timestamptz AS stale
		FROM (SELECT substr(match_key, 8) AS domain, coalesce(max(name), '') AS name, count(*) + sum(times_requested) AS asks
			FROM coverage_requests WHERE match_key LIKE 'domain:%%' GROUP BY match_key) r
		WHERE %s AND NOT EXISTS (SELECT 1 FROM crawl_sources s WHERE s.company_domain = r.domain AND s.status = 'active')`,
		PriorityOnDemand-1, fmt.Sprintf(domainCheck, "r.domain")), staleBefore)
}

// brokenSQL is a source that looks gone: suspect (the crawl's health rule or its mass-drop guard,
// or an operator), or active with its last read refused outright ("status 404" and "status 410"
// are pipeline's failure reasons for those answers).
const brokenSQL = `(%[1]s.status = 'suspect' OR (%[1]s.status = 'active' AND %[1]s.last_status = 'failed' AND %[1]s.last_reason IN ('status 404', 'status 410')))`

// EnqueueRediscoveries queues the companies of broken sources (suspect, or whose last read answered
// 404 or 410) at PriorityRediscovery, unless a run since the source broke (its status change, or
// its last ok read) already answered. It returns how many it queued or raised.
func EnqueueRediscoveries(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	return runEnqueue(ctx, pool, "the re-discoveries of broken sources", fmt.Sprintf(`
		SELECT s.company_domain AS domain, max(c.name) AS name, %d AS priority, 'rediscovery' AS by,
			max(CASE WHEN s.status = 'suspect' THEN s.status_at ELSE coalesce(s.last_ok_at, s.created_at) END) AS stale
		FROM crawl_sources s JOIN crawl_companies c ON c.domain = s.company_domain
		WHERE %s AND %s
		GROUP BY s.company_domain`, PriorityRediscovery, fmt.Sprintf(brokenSQL, "s"), fmt.Sprintf(domainCheck, "s.company_domain")))
}

// EnqueueMonthlyDiscoveries queues at most limit companies with an active source whose last
// discovery (or, never discovered, their addition to the registry) is older than staleBefore, at
// PriorityMonthly: a company that moved to another vendor is found even when its old source
// still answers. It returns how many it queued.
func EnqueueMonthlyDiscoveries(ctx context.Context, pool *pgxpool.Pool, staleBefore time.Time, limit int) (int, error) {
	return runEnqueue(ctx, pool, "the monthly re-discoveries", fmt.Sprintf(`
		SELECT c.domain, c.name, %d AS priority, 'monthly' AS by, $1::timestamptz AS stale
		FROM crawl_companies c LEFT JOIN crawl_discoveries d ON d.domain = c.domain
		WHERE %s AND coalesce(d.last_tried_at, c.created_at) < $1 AND coalesce(d.status, '') NOT IN ('queued', 'running')
			AND EXISTS (SELECT 1 FROM crawl_sources s WHERE s.company_domain = c.domain AND s.status = 'active')
		ORDER BY coalesce(d.last_tried_at, c.created_at), c.domain LIMIT $2`, PriorityMonthly, fmt.Sprintf(domainCheck, "c.domain")), staleBefore, limit)
}

// Discovery is one row of the discovery queue.
type Discovery struct {
	Domain      string          `json:"domain"`
	Name        string          `json:"name,omitempty"`
	Status      string          `json:"status"`
	Reason      string          `json:"reason,omitempty"`
	Tried       json.RawMessage `json:"tried,omitempty"`
	Found       json.RawMessage `json:"found,omitempty"`
	Priority    int             `json:"priority"`
	RequestedBy string          `json:"requested_by"`
	DueAt       time.Time       `json:"due_at"`
	LeaseUntil  *time.Time      `json:"lease_until,omitempty"`
	LeaseOwner  string          `json:"lease_owner,omitempty"`
	Attempts    int             `json:"attempts"`
	LastTriedAt *time.Time      `json:"last_tried_at,omitempty"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
}

const discoveryCols = `domain, name, status, reason, tried, found, priority, requested_by, due_at, lease_until, coalesce(lease_owner, ''),
	attempts, last_tried_at, created_at, updated_at`

func scanDiscovery(row pgx.Row) (Discovery, error) {
	var d Discovery
	var tried, found []byte
	err := row.Scan(&d.Domain, &d.Name, &d.Status, &d.Reason, &tried, &found, &d.Priority, &d.RequestedBy, &d.DueAt, &d.LeaseUntil, &d.LeaseOwner,
		&d.Attempts, &d.LastTriedAt, &d.CreatedAt, &d.UpdatedAt)
	if string(tried) != "[]" {
		d.Tried = tried
	}
	if string(found) != "[]" {
		d.Found = found
	}
	return d, err
}

// ClaimDiscoveries leases at most limit due discoveries to owner for lease, most-asked first
// (priority, then due time): queued rows due by now, and running rows whose lease lapsed (their
// worker died). Concurrent workers never claim the same row (FOR UPDATE SKIP LOCKED). A row
// claimed MaxDiscoveryAttempts times without a stored result is left unreachable instead.
func ClaimDiscoveries(ctx context.Context, pool *pgxpool.Pool, owner string, limit int, lease time.Duration) ([]Discovery, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, `UPDATE crawl_discoveries SET status = 'unreachable', lease_owner = NULL, lease_until = NULL,
		reason = format('discovery did not finish in %s attempts', attempts), last_tried_at = now(), updated_at = now()
		WHERE status IN ('queued', 'running') AND attempts >= $1 AND (lease_until IS NULL OR lease_until < now())`, MaxDiscoveryAttempts); err != nil {
		return nil, fmt.Errorf("cannot give up discoveries that never finish: %w", err)
	}
	rows, err := pool.Query(ctx, `UPDATE crawl_discoveries SET status = 'running', lease_owner = $1,
			lease_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1, updated_at = now()
		WHERE domain IN (
			SELECT domain FROM crawl_discoveries
			WHERE status IN ('queued', 'running') AND ((status = 'queued' AND due_at <= now()) OR lease_until < now())
			ORDER BY priority DESC, due_at, domain
			LIMIT $3
			FOR UPDATE SKIP LOCKED)
		RETURNING `+discoveryCols, owner, lease.Milliseconds(), limit)
	if err != nil {
		return nil, fmt.Errorf("cannot claim discoveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Discovery, error) { return scanDiscovery(r) })
	if err != nil {
		return nil, fmt.Errorf("cannot claim discoveries: %w", err)
	}
	slices.SortFunc(out, func(a, b Discovery) int {
		if a.Priority != b.Priority {
			return b.Priority - a.Priority
		}
		if c := a.DueAt.Compare(b.DueAt); c != 0 {
			return c
		}
		return strings.Compare(a.Domain, b.Domain)
	})
	return out, nil
}

// ReleaseDiscovery gives back owner's claim of domain after a run that stored no result (it
// failed): queued again, due at retryAt. A claim another worker holds now is left alone.
func ReleaseDiscovery(ctx context.Context, pool *pgxpool.Pool, domain, owner string, retryAt time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	if _, err := pool.Exec(ctx, `UPDATE crawl_discoveries SET status = 'queued', lease_owner = NULL, lease_until = NULL, due_at = $3, updated_at = now()
		WHERE domain = $1 AND status = 'running' AND lease_owner = $2`, domain, owner, retryAt); err != nil {
		return fmt.Errorf("cannot release the discovery of %s: %w", domain, err)
	}
	return nil
}

// GetDiscovery reads one domain's discovery; ErrDiscoveryNotFound when the queue has none.
func GetDiscovery(ctx context.Context, pool *pgxpool.Pool, domain string) (Discovery, error) {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	d, err := scanDiscovery(pool.QueryRow(ctx, "SELECT "+discoveryCols+" FROM crawl_discoveries WHERE domain = $1", domain))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("cannot read the discovery of %s: %w", domain, ErrDiscoveryNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("cannot read the discovery of %s: %w", domain, err)
	}
	return d, nil
}

// DiscoveryOutcome is what one discovery run writes: its company and the sources it kept (checked
// by the caller), and the answer the discovery row keeps.
type DiscoveryOutcome struct {
	Domain string
	// Name is the company's name when known; it is written only to a company the registry holds
	// no name for (an operator's name stands).
	Name       string
	NameSource string // its fact's source ("discovery", "vendor:greenhouse")
	Status     string // one of DiscoveryOutcomes
	Reason     string
	Tried      json.RawMessage // discovery's steps, at most MaxDiscoverySteps
	Found      json.RawMessage // every candidate, kept or rejected, at most MaxDiscoveryFound
	TriedAt    time.Time       // when the run started
	// Sources are the sources kept: Status active with Validated for a source to make active (a
	// candidate or suspect one becomes active; a paused or retired one keeps its status), candidate
	// with RefreshEvidence otherwise (an existing source keeps its status). Existing sources keep
	// their schedule and health.
	Sources []SourceInput
	By      string // who writes (added_by, status_by)
	// Owner is the worker whose claim this run was ("" for an operator's run): its lease is
	// released.
	Owner       string
	RequestedBy string // for a domain not queued before (DiscoveryByCLI)
}

// Move is a source a run found replaced: a broken source of the company (suspect, or its last
// read 404 or 410) whose company the run found active on another vendor. The old source is
// retired ("moved to NEW") once a committed window has read the new one ok (RetireReplaced).
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// DiscoveryReport is what storing a run does (or did, when Applied).
type DiscoveryReport struct {
	Registry RegistryReport `json:"registry"`
	Status   string         `json:"status"`
	Moves    []Move         `json:"moves,omitempty"`
	Applied  bool           `json:"applied"`
}

// StoreDiscovery writes one run in one transaction, under the registry's write lock: the company
// when the run kept a source (added when new; its name only when it has none), each kept source (see
// DiscoveryOutcome.Sources), the moves the run implies (Move), and the discovery row's status,
// reason, tried and found, its lease released. With apply false it writes nothing and reports
// what apply would do.
func StoreDiscovery(ctx context.Context, pool *pgxpool.Pool, o DiscoveryOutcome, apply bool) (DiscoveryReport, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	rep := DiscoveryReport{Status: o.Status}
	switch {
	case o.Domain == "":
		return rep, errors.New("cannot store a discovery: it names no domain")
	case !slices.Contains(DiscoveryOutcomes(), o.Status):
		return rep, fmt.Errorf("cannot store the discovery of %s: unknown outcome %q: use one of %s", o.Domain, o.Status, strings.Join(DiscoveryOutcomes(), ", "))
	case strings.TrimSpace(o.By) == "":
		return rep, fmt.Errorf("cannot store the discovery of %s: say who writes it", o.Domain)
	}
	keys := map[string]bool{}
	for _, s := range o.Sources {
		if s.CompanyDomain != o.Domain {
			return rep, fmt.Errorf("cannot store the discovery of %s: source %s names company %q", o.Domain, s.Key, s.CompanyDomain)
		}
		if s.Key == "" || keys[s.Key] {
			return rep, fmt.Errorf("cannot store the discovery of %s: a source has no key or is given twice (%q)", o.Domain, s.Key)
		}
		keys[s.Key] = true
	}
	requestedBy := o.RequestedBy
	if requestedBy == "" {
		requestedBy = DiscoveryByCLI
	}
	tried, found := jsonList(o.Tried), jsonList(o.Found)
	triedAt := o.TriedAt
	if triedAt.IsZero() {
		triedAt = time.Now()
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		return rep, fmt.Errorf("cannot store the discovery of %s: %w", o.Domain, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := lockRegistry(ctx, tx); err != nil {
		return rep, err
	}
	var held string
	switch err := tx.QueryRow(ctx, "SELECT name FROM crawl_companies WHERE domain = $1", o.Domain).Scan(&held); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return rep, fmt.Errorf("cannot read company %s: %w", o.Domain, err)
	}
	company := CompanyInput{Domain: o.Domain, Source: o.NameSource}
	if held == "" {
		company.Name = truncate(o.Name, 200)
	}
	if company.Source == "" {
		company.Source = "discovery"
	}
	// What each kept source's status will be, for the moves.
	skeys := make([]string, 0, len(o.Sources))
	for _, s := range o.Sources {
		skeys = append(skeys, s.Key)
	}
	cur, err := readSources(ctx, tx, skeys)
	if err != nil {
		return rep, err
	}
	var active []RegistrySource
	for _, in := range o.Sources {
		c, exists := cur[in.Key]
		next, _ := mergeSource(c, exists, in, "")
		if next.Status == SourceActive {
			active = append(active, next)
		}
	}

	w := &batchWriter{ctx: ctx, tx: tx, apply: apply}
	batch := RegistryBatch{Sources: o.Sources, By: o.By}
	if len(o.Sources) > 0 {
		// A run that kept nothing adds no company: a company in the registry is in the crawl's
		// directory and the read model, and a typo or a dead domain must not become one.
		batch.Companies = []CompanyInput{company}
	}
	if err := upsertRegistry(ctx, tx, w, batch, &rep.Registry); err != nil {
		return rep, err
	}
	if len(active) > 0 {
		rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT s.source_key, s.vendor FROM crawl_sources s
			WHERE s.company_domain = $1 AND NOT (s.source_key = ANY($2)) AND %s ORDER BY s.source_key`, fmt.Sprintf(brokenSQL, "s")), o.Domain, skeys)
		if err != nil {
			return rep, fmt.Errorf("cannot read the broken sources of %s: %w", o.Domain, err)
		}
		type broken struct{ key, vendor string }
		bs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (broken, error) {
			var b broken
			return b, r.Scan(&b.key, &b.vendor)
		})
		if err != nil {
			return rep, fmt.Errorf("cannot read the broken sources of %s: %w", o.Domain, err)
		}
		for _, b := range bs {
			i := slices.IndexFunc(active, func(s RegistrySource) bool { return s.Vendor != b.vendor })
			if i < 0 {
				continue // the same vendor only: another tenant of it is no move an operator did not check
			}
			rep.Moves = append(rep.Moves, Move{From: b.key, To: active[i].Key})
			if err := w.queue(`UPDATE crawl_sources SET replaced_by = $2, replaced_at = now(), updated_at = now() WHERE source_key = $1`,
				b.key, active[i].Key); err != nil {
				return rep, err
			}
		}
	}
	if err := w.queue(`INSERT INTO crawl_discoveries AS d (domain, name, status, reason, tried, found, requested_by, last_tried_at)
		VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8)
		ON CONFLICT (domain) DO UPDATE SET name = CASE WHEN d.name = '' THEN EXCLUDED.name ELSE d.name END,
			status = EXCLUDED.status, reason = EXCLUDED.reason, tried = EXCLUDED.tried, found = EXCLUDED.found,
			last_tried_at = EXCLUDED.last_tried_at,
			lease_owner = CASE WHEN d.lease_owner = $9 THEN NULL ELSE d.lease_owner END,
			lease_until = CASE WHEN d.lease_owner = $9 THEN NULL ELSE d.lease_until END,
			updated_at = now()`,
		o.Domain, truncate(o.Name, 200), o.Status, truncate(o.Reason, MaxDiscoveryReason), tried, found, requestedBy, triedAt, o.Owner); err != nil {
		return rep, err
	}
	if !apply {
		return rep, nil
	}
	if err := w.flush(ctx); err != nil {
		return rep, err
	}
	if err := tx.Commit(ctx); err != nil {
		return rep, fmt.Errorf("cannot commit the discovery of %s: %w", o.Domain, err)
	}
	rep.Registry.Applied, rep.Applied = true, true
	return rep, nil
}

// RetireReplaced retires each source replaced by a source read ok (read, with the time of its
// read) after the replacement was recorded, while the old source is still broken (an operator's
// pause or retirement, or an old source that recovered, stands): status retired, by
// "discovery", reason "moved to NEW". Called by the committer with a committed window's ok reads,
// so the reqs both sources carried were seen on the new one before the old leaves the directory.
// It returns the keys retired.
func RetireReplaced(ctx context.Context, pool *pgxpool.Pool, read map[string]time.Time) ([]string, error) {
	if len(read) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	keys, ats := make([]string, 0, len(read)), make([]time.Time, 0, len(read))
	for k, at := range read {
		keys, ats = append(keys, k), append(ats, at)
	}
	rows, err := pool.Query(ctx, fmt.Sprintf(`UPDATE crawl_sources o SET status = 'retired', status_reason = left('moved to ' || o.replaced_by, 500),
			status_by = 'discovery', status_at = now(), updated_at = now()
		FROM unnest($1::text[], $2::timestamptz[]) AS r (key, at)
		WHERE o.replaced_by = r.key AND r.at >= o.replaced_at AND %s
		RETURNING o.source_key`, fmt.Sprintf(brokenSQL, "o")), keys, ats)
	if err != nil {
		return nil, fmt.Errorf("cannot retire replaced sources: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("cannot retire replaced sources: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

func jsonList(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return "[]"
	}
	return string(v)
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// KnownName is the best name known for domain: the registry's company name, else the name its
// discovery was asked with, else "".
func KnownName(ctx context.Context, pool *pgxpool.Pool, domain string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	var name string
	err := pool.QueryRow(ctx, `SELECT coalesce(nullif((SELECT name FROM crawl_companies WHERE domain = $1), ''),
		(SELECT name FROM crawl_discoveries WHERE domain = $1), '')`, domain).Scan(&name)
	if err != nil {
		return "", fmt.Errorf("cannot read the name of %s: %w", domain, err)
	}
	return name, nil
}
