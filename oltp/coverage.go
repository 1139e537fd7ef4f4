package oltp

import (
	"context"
	"fmt"
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

// CoverageRequest is a coverage request as its customer sees it.
type CoverageRequest struct {
	ID               int64     `json:"request_id"`
	Domain           *string   `json:"domain"`
	Name             *string   `json:"name"`
	Source           string    `json:"source"`
	TimesRequested   int       `json:"times_requested"`
	FirstRequestedAt time.Time `json:"first_requested_at"`
	LastRequestedAt  time.Time `json:"last_requested_at"`
}

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
// below before (0: from the newest), newest first.
func ListCoverageRequests(ctx context.Context, pool *pgxpool.Pool, customerID string, before int64, limit int) ([]CoverageRequest, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := pool.Query(ctx, `
		SELECT request_id, domain, name, source, times_requested, first_requested_at, last_requested_at
		FROM coverage_requests WHERE customer_id = $1 AND request_id < $2 ORDER BY request_id DESC LIMIT $3`, customerID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot list coverage requests: %w", err)
	}
	defer rows.Close()
	out := []CoverageRequest{}
	for rows.Next() {
		var r CoverageRequest
		if err := rows.Scan(&r.ID, &r.Domain, &r.Name, &r.Source, &r.TimesRequested, &r.FirstRequestedAt, &r.LastRequestedAt); err != nil {
			return nil, fmt.Errorf("cannot read coverage requests: %w", err)
		}
		r.FirstRequestedAt, r.LastRequestedAt = r.FirstRequestedAt.UTC(), r.LastRequestedAt.UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot list coverage requests: %w", err)
	}
	return out, nil
}
