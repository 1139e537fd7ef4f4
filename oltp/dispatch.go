package oltp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The dispatcher's statements over webhook_deliveries (migration 0010): claiming due deliveries
// and recording what their attempts came to, billing accepted ones once and disabling endpoints
// that answered 410 or failed for days. The package dispatch owns the sending; this file owns
// the rows.

// Delivery statuses (webhook_deliveries.status); see docs/decisions.md, "Push: deliveries".
const (
	DeliveryPending     = "pending"
	DeliveryRetrying    = "retrying"
	DeliveryDelivered   = "delivered"
	DeliveryFailed      = "failed"
	DeliveryRateLimited = "rate_limited"
	DeliveryWallBlocked = "wall_blocked"
	DeliveryCapBlocked  = "cap_blocked"
)

// DeliveriesChannel is the NOTIFY channel of a delivery made due.
const DeliveriesChannel = "hs_deliveries"

// DeliveryUnitPrefix starts the usage unit id of an accepted delivery: the prefix + its
// idempotency key, so it is billed once however often it is accepted.
const DeliveryUnitPrefix = "delivery:"

// Reasons an endpoint is disabled (webhook_endpoints.disabled_reason).
const (
	DisabledGone    = "gone"    // it answered 410 Gone
	DisabledFailing = "failing" // every attempt failed for longer than the dispatcher's limit
)

// DueDelivery is a claimed delivery with what sending it needs.
type DueDelivery struct {
	ID             int64
	IdempotencyKey string
	EndpointID     int64
	WatchID        *int64 // nil: a test delivery (never billed)
	Body           []byte // the exact bytes to sign and send
	AttemptCount   int    // attempts made before this one
	URL            string
	Secrets        []string // current secret first, then the previous one during an overlap
	Gone           bool     // the endpoint was disabled or deleted: failed without sending
}

// ClaimDue claims at most limit due deliveries (status pending or retrying, next_attempt_at
// passed) of accounts not paused, oldest due first, skipping rows another dispatcher holds. A
// claim is a lease: next_attempt_at moves lease ahead, so no other dispatcher sends the row
// before this one records its attempt or the lease ends (a crash: the row is due again).
// Deliveries to a disabled or deleted endpoint are failed at once and returned with Gone set.
// Secrets are opened with box.
func ClaimDue(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, limit int, lease time.Duration) ([]DueDelivery, error) {
	rows, err := pool.Query(ctx, `WITH due AS (
			SELECT d.delivery_id FROM webhook_deliveries d JOIN accounts a ON a.account_id = d.account_id
			WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= now() AND NOT a.paused
			ORDER BY d.next_attempt_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED),
		claimed AS (
			UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $2)
			FROM due WHERE d.delivery_id = due.delivery_id
			RETURNING d.delivery_id, d.idempotency_key, d.endpoint_id, d.watch_id, d.body, d.attempt_count)
		SELECT c.delivery_id, c.idempotency_key, c.endpoint_id, c.watch_id, c.body, c.attempt_count,
			e.customer_id, e.url, e.secret_sealed, CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_sealed END,
			e.disabled_at IS NOT NULL OR e.deleted_at IS NOT NULL
		FROM claimed c JOIN webhook_endpoints e ON e.endpoint_id = c.endpoint_id
		ORDER BY c.delivery_id`, limit, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
	}
	type sealed struct {
		customer  string
		cur, prev []byte
	}
	var out []DueDelivery
	var seal []sealed
	for rows.Next() {
		var d DueDelivery
		var s sealed
		if err := rows.Scan(&d.ID, &d.IdempotencyKey, &d.EndpointID, &d.WatchID, &d.Body, &d.AttemptCount,
			&s.customer, &d.URL, &s.cur, &s.prev, &d.Gone); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
		}
		out = append(out, d)
		seal = append(seal, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot claim due deliveries: %w", err)
	}
	opened := map[int64][]string{}
	var gone []int64
	for i := range out {
		d := &out[i]
		if d.Gone {
			gone = append(gone, d.ID)
			continue
		}
		if s, ok := opened[d.EndpointID]; ok {
			d.Secrets = s
			continue
		}
		secrets, err := openSecrets(box, seal[i].customer, d.EndpointID, seal[i].cur, seal[i].prev)
		if err != nil {
			return nil, err // the leases end by themselves; every claim would fail alike
		}
		opened[d.EndpointID] = secrets
		d.Secrets = secrets
	}
	if len(gone) > 0 {
		if _, err := pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now()
			WHERE delivery_id = ANY($1) AND status IN ('pending', 'retrying')`, gone); err != nil {
			return nil, fmt.Errorf("cannot fail the deliveries of disabled endpoints: %w", err)
		}
	}
	return out, nil
}

// openSecrets opens an endpoint's current secret and, when given, its previous one.
func openSecrets(box SecretSealer, customerID string, endpointID int64, cur, prev []byte) ([]string, error) {
	aad := EndpointAAD(customerID, endpointID)
	s, err := box.Open(cur, aad)
	if err != nil {
		return nil, fmt.Errorf("cannot open the secret of webhook endpoint %d (wrong --webhook-secret-keys?): %w", endpointID, err)
	}
	out := []string{string(s)}
	if prev != nil {
		p, err := box.Open(prev, aad)
		if err != nil {
			return nil, fmt.Errorf("cannot open the previous secret of webhook endpoint %d (wrong --webhook-secret-keys?): %w", endpointID, err)
		}
		out = append(out, string(p))
	}
	return out, nil
}

// What an attempt comes to (AttemptResult.Outcome).
const (
	OutcomeDelivered = iota // a 2xx: delivered, billed once
	OutcomeRetry            // failed; next attempt after RetryIn
	OutcomeFailed           // failed; no more attempts (exhausted, or 410)
	OutcomeReleased         // not attempted (the dispatcher stopped): due again now, no attempt counted
)

// AttemptResult is one attempt of a claimed delivery.
type AttemptResult struct {
	DeliveryID     int64
	EndpointID     int64
	Outcome        int
	StartedAt      time.Time
	ResponseStatus int // 0: no HTTP response
	ResponseMS     int
	Error          string // "" on success; never a secret or a URL
	RetryIn        time.Duration
	Gone           bool // 410: disable the endpoint
}

// Recorded is what RecordAttempts changed.
type Recorded struct {
	Delivered       int     // deliveries now delivered
	Billed          int     // usage units inserted (0 for a delivery accepted again)
	Failed          int     // deliveries now failed, those of disabled endpoints included
	DisabledGone    []int64 // endpoints disabled for a 410
	DisabledFailing []int64 // endpoints disabled for failing longer than failingLimit
	NotCurrent      int     // results for deliveries no longer pending or retrying (not counted)
}

// RecordAttempts records results in one transaction: each attempt row, the delivery's status,
// attempt_count, response_status, response_ms and next attempt; for each delivery now delivered
// and never billed (test deliveries never are) one usage unit 'delivery:' || idempotency_key of
// meter class delivered_change to the watch's key (0 when none is known), inserted ON CONFLICT
// DO NOTHING with usage_monthly counting only rows actually inserted, and billed_at. An endpoint
// that accepted an attempt stops failing (failing_since NULL); one that failed every attempt in
// results starts failing, and is disabled when it has failed for longer than failingLimit or
// answered 410, its remaining deliveries failed. Results for deliveries no longer pending or
// retrying (failed meanwhile) change nothing.
func RecordAttempts(ctx context.Context, pool *pgxpool.Pool, results []AttemptResult, failingLimit time.Duration) (Recorded, error) {
	var rec Recorded
	// One result per delivery (the last), in id order: locks are taken in one order everywhere.
	byID := map[int64]AttemptResult{}
	for _, r := range results {
		byID[r.DeliveryID] = r
	}
	ids := make([]int64, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var attempted, released []int64
	var statuses []string
	var rstatus []*int32
	var rms []int32
	var retry []float64
	var started []time.Time
	var errs []*string
	endpointOK, endpointFailed, gone := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	for _, id := range ids {
		r := byID[id]
		if r.Outcome == OutcomeReleased {
			released = append(released, id)
			continue
		}
		attempted = append(attempted, id)
		st := map[int]string{OutcomeDelivered: DeliveryDelivered, OutcomeRetry: DeliveryRetrying, OutcomeFailed: DeliveryFailed}[r.Outcome]
		statuses = append(statuses, st)
		var rs *int32
		if r.ResponseStatus != 0 {
			v := int32(r.ResponseStatus)
			rs = &v
		}
		rstatus = append(rstatus, rs)
		rms = append(rms, int32(min(r.ResponseMS, 1<<31-1)))
		retry = append(retry, r.RetryIn.Seconds())
		started = append(started, r.StartedAt)
		var e *string
		if r.Error != "" {
			e = &r.Error
		}
		errs = append(errs, e)
		if r.Outcome == OutcomeDelivered {
			endpointOK[r.EndpointID] = true
		} else {
			endpointFailed[r.EndpointID] = true
		}
		if r.Gone {
			gone[r.EndpointID] = true
		}
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rec = Recorded{}
		if len(released) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET next_attempt_at = now()
				WHERE delivery_id = ANY($1) AND status IN ('pending', 'retrying')`, released); err != nil {
				return fmt.Errorf("cannot release deliveries: %w", err)
			}
		}
		if len(attempted) == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, status = x.st,
				response_status = x.rs, response_ms = x.ms,
				next_attempt_at = CASE WHEN x.st = 'retrying' THEN now() + make_interval(secs => x.secs) END,
				delivered_at = CASE WHEN x.st = 'delivered' THEN COALESCE(d.delivered_at, now()) ELSE d.delivered_at END,
				updated_at = now()
			FROM unnest($1::int8[], $2::text[], $3::int4[], $4::int4[], $5::float8[]) AS x(id, st, rs, ms, secs)
			WHERE d.delivery_id = x.id AND d.status IN ('pending', 'retrying')
			RETURNING d.delivery_id, d.attempt_count`, attempted, statuses, rstatus, rms, retry)
		if err != nil {
			return fmt.Errorf("cannot record delivery attempts: %w", err)
		}
		counts := map[int64]int32{}
		for rows.Next() {
			var id int64
			var n int32
			if err := rows.Scan(&id, &n); err != nil {
				rows.Close()
				return fmt.Errorf("cannot record delivery attempts: %w", err)
			}
			counts[id] = n
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("cannot record delivery attempts: %w", err)
		}
		var aIDs []int64
		var aNums, aMS []int32
		var aRSNull []*int32
		var aStarted []time.Time
		var aErr []*string
		for i, id := range attempted {
			n, ok := counts[id]
			if !ok {
				rec.NotCurrent++
				continue
			}
			switch statuses[i] {
			case DeliveryDelivered:
				rec.Delivered++
			case DeliveryFailed:
				rec.Failed++
			}
			aIDs, aNums, aRSNull, aMS = append(aIDs, id), append(aNums, n), append(aRSNull, rstatus[i]), append(aMS, rms[i])
			aStarted, aErr = append(aStarted, started[i]), append(aErr, errs[i])
		}
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, response_status, response_ms, error)
			SELECT * FROM unnest($1::int8[], $2::int4[], $3::timestamptz[], $4::int4[], $5::int4[], $6::text[])
			ON CONFLICT (delivery_id, attempt) DO NOTHING`, aIDs, aNums, aStarted, aRSNull, aMS, aErr); err != nil {
			return fmt.Errorf("cannot record delivery attempts: %w", err)
		}
		if rec.Delivered > 0 {
			var billed int64
			err := tx.QueryRow(ctx, `WITH bill AS (
					UPDATE webhook_deliveries d SET billed_at = now()
					WHERE d.delivery_id = ANY($1) AND d.status = 'delivered' AND d.billed_at IS NULL AND d.watch_id IS NOT NULL
					RETURNING d.idempotency_key, d.customer_id, d.account_id,
						COALESCE(d.key_id, (SELECT w.key_id FROM watches w WHERE w.watch_id = d.watch_id), 0) AS key_id),
				ins AS (
					INSERT INTO usage_events (unit_id, customer_id, account_id, key_id, method, route, meter_class, function, calls, units, forced_fresh, occurred_at)
					SELECT $2 || idempotency_key, customer_id, account_id, key_id, 'POST', 'webhook delivery', $3, NULL, 0, 1, false, now() FROM bill
					ON CONFLICT (unit_id) DO NOTHING
					RETURNING account_id, occurred_at, calls, units),
				monthly AS (
					INSERT INTO usage_monthly AS m (account_id, month, calls, units)
					SELECT account_id, date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date, sum(calls), sum(units) FROM ins GROUP BY 1, 2
					ON CONFLICT (account_id, month) DO UPDATE SET calls = m.calls + EXCLUDED.calls, units = m.units + EXCLUDED.units)
				SELECT count(*) FROM ins`, aIDs, DeliveryUnitPrefix, MeterDeliveredChange).Scan(&billed)
			if err != nil {
				return fmt.Errorf("cannot bill delivered changes: %w", err)
			}
			rec.Billed = int(billed)
		}
		return recordEndpoints(ctx, tx, &rec, endpointOK, endpointFailed, gone, failingLimit)
	})
	return rec, err
}

// recordEndpoints keeps the endpoints' failing state (RecordAttempts).
func recordEndpoints(ctx context.Context, tx pgx.Tx, rec *Recorded, ok, failed, gone map[int64]bool, failingLimit time.Duration) error {
	var okIDs, failIDs, goneIDs []int64
	for id := range ok {
		okIDs = append(okIDs, id)
	}
	for id := range failed {
		if !ok[id] { // one accepted attempt: the endpoint works
			failIDs = append(failIDs, id)
		}
	}
	for id := range gone {
		goneIDs = append(goneIDs, id)
	}
	slices.Sort(okIDs)
	slices.Sort(failIDs)
	slices.Sort(goneIDs)
	if len(okIDs) > 0 {
		// Only rows that change are written: a busy endpoint's row is not a hot spot.
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id = ANY($1) AND failing_since IS NOT NULL`, okIDs); err != nil {
			return fmt.Errorf("cannot record working endpoints: %w", err)
		}
	}
	if len(failIDs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = now() WHERE endpoint_id = ANY($1) AND failing_since IS NULL`, failIDs); err != nil {
			return fmt.Errorf("cannot record failing endpoints: %w", err)
		}
	}
	disable := func(ids []int64, reason, cond string, args ...any) ([]int64, error) {
		if len(ids) == 0 {
			return nil, nil
		}
		rows, err := tx.Query(ctx, `UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = $2
			WHERE endpoint_id = ANY($1) AND disabled_at IS NULL `+cond+` RETURNING endpoint_id`, append([]any{ids, reason}, args...)...)
		if err != nil {
			return nil, fmt.Errorf("cannot disable webhook endpoints: %w", err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return nil, fmt.Errorf("cannot disable webhook endpoints: %w", err)
		}
		return out, nil
	}
	var err error
	if rec.DisabledGone, err = disable(goneIDs, DisabledGone, ""); err != nil {
		return err
	}
	if rec.DisabledFailing, err = disable(failIDs, DisabledFailing, "AND failing_since < now() - make_interval(secs => $3)", failingLimit.Seconds()); err != nil {
		return err
	}
	all := append(slices.Clone(rec.DisabledGone), rec.DisabledFailing...)
	if len(all) == 0 {
		return nil
	}
	tag, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now()
		WHERE endpoint_id = ANY($1) AND status IN ('pending', 'retrying')`, all)
	if err != nil {
		return fmt.Errorf("cannot fail the deliveries of disabled endpoints: %w", err)
	}
	rec.Failed += int(tag.RowsAffected())
	return nil
}
