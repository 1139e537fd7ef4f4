package oltp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/nullable"
)

// Coverage requests (migration 0018): companies a customer asked about that the read model does
// not know.

// CoverageAsk is one company to request coverage of: Key is the normalized company key the
// caller computed (a domain key, else a name key); Domain and Name as sent ("" when not sent).
type CoverageAsk struct {
	Key, Domain, Name string
}

// CoverageRequest is a coverage request as its customer sees it, with where the search for its
// company stands (CoverageStatuses).
type CoverageRequest struct {
	ID               int64     `json:"request_id"`
	Domain           *string   `json:"domain"`
	Name             *string   `json:"name"`
	Source           string    `json:"source"`
	TimesRequested   int       `json:"times_requested"`
	FirstRequestedAt time.Time `json:"first_requested_at"`
	LastRequestedAt  time.Time `json:"last_requested_at"`
	Status           string    `json:"status"`
	// Reason is the last search's one line for a customer when the company is not covered (null
	// otherwise).
	Reason *string `json:"reason"`
	// Sources are the company's sources the crawl reads (covered) or that wait on an operator
	// (candidates); empty otherwise.
	Sources []CoverageSource `json:"sources"`
	// Tried is the first requests of the last search when it found no source the crawl reads.
	Tried       []CoverageStep `json:"tried"`
	LastTriedAt *time.Time     `json:"last_tried_at"`
}

// Coverage request statuses (GET /v1/coverage-requests), derived from the registry by the
// request's domain:
const (
	// CoverageSearching: the company is queued for discovery or being searched now.
	CoverageSearching = "searching"
	// CoverageCovered: the registry holds a source of the company that the crawl reads (active or
	// suspect); its reads turn covered after the first crawl window that reads it.
	CoverageCovered = "covered"
	// CoverageCandidates: sources were found that wait on an operator's check (candidate or paused).
	CoverageCandidates = "candidates"
	// CoverageNoATS: the company's site was searched and no job source was found (tried says what).
	CoverageNoATS = "no_ats_found"
	// CoverageBlocked: the company's robots.txt forbids the pages the search reads.
	CoverageBlocked = "blocked_by_robots"
	// CoverageUnreachable: the company's site could not be read.
	CoverageUnreachable = "unreachable"
	// CoverageNeedsDomain: asked by name alone; a search starts from the company's domain.
	CoverageNeedsDomain = "needs_domain"
)

// CoverageStatuses lists the statuses of a coverage request.
func CoverageStatuses() []string {
	return []string{CoverageSearching, CoverageCovered, CoverageCandidates, CoverageNoATS, CoverageBlocked, CoverageUnreachable, CoverageNeedsDomain}
}

// MaxCoverageTried bounds the steps a coverage request shows of its last search.
const MaxCoverageTried = 10

// CoverageSource is one source found for a coverage request's company.
type CoverageSource struct {
	Vendor string  `json:"vendor"`
	Tenant *string `json:"tenant"` // the ATS tenant; null for a careers site
	URL    string  `json:"url"`    // the feed or page the crawl reads
}

// CoverageStep is one request of a search (discovery's Step, as crawl_discoveries.tried keeps it).
type CoverageStep struct {
	URL    string `json:"url"`
	Status int    `json:"status"` // HTTP status; 0 when there was no answer
	Note   string `json:"note"`   // "" when none
}

const needsDomainReason = "asked by name only: the search for job sources starts from the company's domain; import the company again with its domain"

// MaxCoverageRequests bounds the coverage requests one customer keeps: an import (not billable,
// 10,000 companies a call) past it records no new company, so no key can grow the table without
// end; companies already requested still count once more.
const MaxCoverageRequests = 50_000

// RequestCoverage records asks for customerID from source in one transaction: a key already
// requested counts once more; a new key is recorded while the customer holds fewer than
// MaxCoverageRequests (the customer's imports are serialized by an advisory lock, so the bound
// holds under concurrent calls). asks must not repeat a Key (the caller dedupes). It returns the
// request ids by key; a key not recorded (past the bound) is absent.
func RequestCoverage(ctx context.Context, pool *pgxpool.Pool, customerID, source string, asks []CoverageAsk) (map[string]int64, error) {
	ids := make(map[string]int64, len(asks))
	if len(asks) == 0 {
		return ids, nil
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot record coverage requests: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('coverage:' || $1))", customerID); err != nil {
		return nil, fmt.Errorf("cannot record coverage requests: %w", err)
	}
	var held int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM coverage_requests WHERE customer_id = $1", customerID).Scan(&held); err != nil {
		return nil, fmt.Errorf("cannot count coverage requests: %w", err)
	}
	if held+len(asks) > MaxCoverageRequests {
		all := make([]string, len(asks))
		for i, a := range asks {
			all[i] = a.Key
		}
		known := map[string]bool{}
		krows, err := tx.Query(ctx, "SELECT match_key FROM coverage_requests WHERE customer_id = $1 AND match_key = ANY($2)", customerID, all)
		if err != nil {
			return nil, fmt.Errorf("cannot read coverage requests: %w", err)
		}
		for krows.Next() {
			var k string
			if err := krows.Scan(&k); err != nil {
				krows.Close()
				return nil, fmt.Errorf("cannot read coverage requests: %w", err)
			}
			known[k] = true
		}
		krows.Close()
		if err := krows.Err(); err != nil {
			return nil, fmt.Errorf("cannot read coverage requests: %w", err)
		}
		room := max(0, MaxCoverageRequests-held)
		kept := asks[:0:0]
		for _, a := range asks {
			if known[a.Key] {
				kept = append(kept, a)
			} else if room > 0 {
				kept = append(kept, a)
				room--
			}
		}
		asks = kept
		if len(asks) == 0 {
			return ids, nil
		}
	}
	keys, domains, names := make([]string, len(asks)), make([]*string, len(asks)), make([]*string, len(asks))
	for i, a := range asks {
		keys[i], domains[i], names[i] = a.Key, nullable.String(a.Domain), nullable.String(a.Name)
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO coverage_requests (customer_id, match_key, domain, name, source)
		SELECT $1, k, d, n, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS a (k, d, n)
		ON CONFLICT (customer_id, match_key) DO UPDATE SET times_requested = coverage_requests.times_requested + 1,
			last_requested_at = now(), domain = COALESCE(coverage_requests.domain, EXCLUDED.domain), name = COALESCE(coverage_requests.name, EXCLUDED.name)
		RETURNING match_key, request_id`, customerID, keys, domains, names, source)
	if err != nil {
		return nil, fmt.Errorf("cannot record coverage requests: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, fmt.Errorf("cannot read recorded coverage requests: %w", err)
		}
		ids[k] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot record coverage requests: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("cannot record coverage requests: %w", err)
	}
	return ids, nil
}

// ListCoverageRequests returns up to limit of customerID's coverage requests with request_id
// below before (0: from the newest), newest first, each with its status: joined by its domain
// from the registry's sources of the company (non-retired) and the company's discovery row.
func ListCoverageRequests(ctx context.Context, pool *pgxpool.Pool, customerID string, before int64, limit int) ([]CoverageRequest, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := pool.Query(ctx, `
		SELECT r.request_id, r.domain, r.name, r.source, r.times_requested, r.first_requested_at, r.last_requested_at,
			r.match_key LIKE 'domain:%', d.status, coalesce(d.reason, ''), coalesce(d.tried, '[]'), d.last_tried_at, coalesce(src.list, '[]')
		FROM coverage_requests r
		LEFT JOIN crawl_discoveries d ON r.match_key LIKE 'domain:%' AND d.domain = substr(r.match_key, 8)
		LEFT JOIN LATERAL (
			SELECT jsonb_agg(jsonb_build_object('vendor', s.vendor, 'tenant', s.tenant, 'url', s.url, 'status', s.status) ORDER BY s.source_key) AS list
			FROM crawl_sources s WHERE r.match_key LIKE 'domain:%' AND s.company_domain = substr(r.match_key, 8) AND s.status <> 'retired'
		) src ON true
		WHERE r.customer_id = $1 AND r.request_id < $2 ORDER BY r.request_id DESC LIMIT $3`, customerID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot list coverage requests: %w", err)
	}
	defer rows.Close()
	out := []CoverageRequest{}
	for rows.Next() {
		var r CoverageRequest
		var hasDomain bool
		var status *string
		var reason string
		var tried, sources []byte
		if err := rows.Scan(&r.ID, &r.Domain, &r.Name, &r.Source, &r.TimesRequested, &r.FirstRequestedAt, &r.LastRequestedAt,
			&hasDomain, &status, &reason, &tried, &r.LastTriedAt, &sources); err != nil {
			return nil, fmt.Errorf("cannot read coverage requests: %w", err)
		}
		r.FirstRequestedAt, r.LastRequestedAt = r.FirstRequestedAt.UTC(), r.LastRequestedAt.UTC()
		if r.LastTriedAt != nil {
			t := r.LastTriedAt.UTC()
			r.LastTriedAt = &t
		}
		if err := r.settle(hasDomain, status, reason, tried, sources); err != nil {
			return nil, fmt.Errorf("cannot read coverage request %d: %w", r.ID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot list coverage requests: %w", err)
	}
	return out, nil
}

// settle derives r's status from its company's sources and discovery row: a source the crawl
// reads is covered, a source waiting on an operator is candidates, then the last search's
// outcome; queued, running or not queued yet is searching (the sweep queues it).
func (r *CoverageRequest) settle(hasDomain bool, discovery *string, reason string, tried, sources []byte) error {
	r.Sources, r.Tried = []CoverageSource{}, []CoverageStep{}
	if !hasDomain {
		r.Status = CoverageNeedsDomain
		why := needsDomainReason
		r.Reason = &why
		return nil
	}
	var held []struct {
		Vendor, Tenant, URL, Status string
	}
	if err := json.Unmarshal(sources, &held); err != nil {
		return err
	}
	pick := func(statuses ...string) {
		for _, s := range held {
			if slices.Contains(statuses, s.Status) {
				src := CoverageSource{Vendor: s.Vendor, URL: s.URL}
				if s.Tenant != "" {
					t := s.Tenant
					src.Tenant = &t
				}
				r.Sources = append(r.Sources, src)
			}
		}
	}
	if pick(SourceActive, SourceSuspect); len(r.Sources) > 0 {
		r.Status = CoverageCovered
		return nil
	}
	d := ""
	if discovery != nil {
		d = *discovery
	}
	switch pick(SourceCandidate, SourcePaused); {
	case len(r.Sources) > 0:
		r.Status = CoverageCandidates
	case d == "" || d == DiscoveryQueued || d == DiscoveryRunning:
		r.Status = CoverageSearching
		return nil
	case d == DiscoveryCovered || d == DiscoveryCandidates:
		// What the search found has since been retired by an operator.
		r.Status, reason = CoverageNoATS, "the sources found were withdrawn after review"
	default:
		r.Status = d
	}
	if strings.TrimSpace(reason) != "" {
		r.Reason = &reason
	}
	if err := json.Unmarshal(tried, &r.Tried); err != nil {
		return err
	}
	if len(r.Tried) > MaxCoverageTried {
		r.Tried = r.Tried[:MaxCoverageTried]
	}
	return nil
}
