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
// (the Leaser, leases.go) and recording what their attempts came to, billing accepted ones once and disabling endpoints
// that answered 410 or failed for days. The package dispatch owns the sending; this file owns
// the rows.

// The statuses (DeliveryPending, ...) and DeliveriesChannel are declared with the routes' reads
// in deliveries.go.

// ParkForDigest takes the deliveries of ids, due to an email endpoint, off the dispatcher's queue
// (next_attempt_at NULL) and leaves them pending: they wait for their endpoint's daily digest
// (package push/digest), which lists every pending delivery of the endpoint.
func ParkForDigest(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	if _, err := pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL, updated_at = now()
		WHERE delivery_id = ANY($1) AND status IN ('pending', 'retrying')`, ids); err != nil {
		return fmt.Errorf("cannot park %d deliveries for their email digest: %w", len(ids), err)
	}
	return nil
}

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
	CustomerID     string
	WatchID        *int64   // nil: a test delivery (never billed)
	Body           []byte   // the exact bytes to sign and send
	AttemptCount   int      // attempts made before this one
	Kind           string   // KindWebhook or KindSlack (email deliveries are parked for their digest, never claimed)
	URL            string   // a webhook's URL; a Slack endpoint's incoming-webhook URL, opened from its seal ("" when it did not open)
	Secrets        []string // a webhook's: current secret first, then the previous one during an overlap
	SecretErr      error    // the secrets did not open (wrong --webhook-secret-keys): not sendable now
	Gone           bool     // the endpoint was disabled or deleted: failed without sending
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
	return recordAttempts(ctx, pool, results, failingLimit)
}

// batcher is a pool or a transaction: RecordAttempts runs in its own implicit transaction, a
// digest records its deliveries in the transaction that marks it sent.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

func recordAttempts(ctx context.Context, pool batcher, results []AttemptResult, failingLimit time.Duration) (Recorded, error) {
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
		st := DeliveryFailed
		switch r.Outcome {
		case OutcomeDelivered:
			st = DeliveryDelivered
		case OutcomeRetry:
			st = DeliveryRetrying
		}
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
	// One round trip: the statements of a batch run in one implicit transaction.
	b := &pgx.Batch{}
	if len(released) > 0 {
		// Only rows leased the earlier way (claimed_until) need a write; a Leaser's lease is a lock.
		b.Queue(`UPDATE webhook_deliveries SET claimed_until = NULL
			WHERE delivery_id = ANY($1) AND status IN ('pending', 'retrying') AND claimed_until IS NOT NULL`, released)
	}
	if len(attempted) > 0 {
		// The deliveries, their attempts, the units of first acceptances and the monthly sums of
		// the units actually inserted. SET reads the row before the statement; RETURNING the row
		// after it: billed_at = now() (this transaction's start) tells a first acceptance from a
		// later one, which keeps the billed_at of an earlier transaction. The unit's id, ON
		// CONFLICT DO NOTHING, is what bills once whatever that says.
		b.Queue(`WITH x AS (
				SELECT * FROM unnest($1::int8[], $2::text[], $3::int4[], $4::int4[], $5::float8[], $6::timestamptz[], $7::text[])
					AS x(id, st, rs, ms, secs, started, err)),
			upd AS (
				UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, status = x.st, claimed_until = NULL,
					response_status = x.rs, response_ms = x.ms,
					next_attempt_at = CASE WHEN x.st = 'retrying' THEN now() + make_interval(secs => x.secs) END,
					delivered_at = CASE WHEN x.st = 'delivered' THEN COALESCE(d.delivered_at, now()) ELSE d.delivered_at END,
					billed_at = CASE WHEN x.st = 'delivered' AND d.watch_id IS NOT NULL THEN COALESCE(d.billed_at, now()) ELSE d.billed_at END,
					updated_at = now()
				FROM x
				WHERE d.delivery_id = x.id AND d.status IN ('pending', 'retrying')
				RETURNING d.delivery_id, d.attempt_count, x.st, x.rs, x.ms, x.started, x.err,
					x.st = 'delivered' AND d.watch_id IS NOT NULL AND d.billed_at = now() AS bill,
					d.idempotency_key, d.customer_id, d.account_id,
					COALESCE(d.key_id, (SELECT w.key_id FROM watches w WHERE w.watch_id = d.watch_id), 0) AS key_id),
			att AS (
				INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, response_status, response_ms, error)
				SELECT delivery_id, attempt_count, started, rs, ms, err FROM upd
				ON CONFLICT (delivery_id, attempt) DO NOTHING),
			ins AS (
				INSERT INTO usage_events (unit_id, customer_id, account_id, key_id, method, route, meter_class, function, calls, units, forced_fresh, occurred_at)
				SELECT $8 || idempotency_key, customer_id, account_id, key_id, 'POST', 'webhook delivery', $9, NULL, 0, 1, false, now()
				FROM upd WHERE bill
				ON CONFLICT (unit_id) DO NOTHING
				RETURNING account_id, occurred_at, calls, units),
			monthly AS (
				INSERT INTO usage_monthly AS m (account_id, month, calls, units)
				SELECT account_id, date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date, sum(calls), sum(units) FROM ins GROUP BY 1, 2 ORDER BY 1, 2
				ON CONFLICT (account_id, month) DO UPDATE SET calls = m.calls + EXCLUDED.calls, units = m.units + EXCLUDED.units)
			SELECT (SELECT count(*) FILTER (WHERE st = 'delivered') FROM upd), (SELECT count(*) FILTER (WHERE st = 'failed') FROM upd),
				(SELECT count(*) FROM upd), (SELECT count(*) FROM ins)`,
			attempted, statuses, rstatus, rms, retry, started, errs, DeliveryUnitPrefix, MeterDeliveredChange).QueryRow(func(row pgx.Row) error {
			var current int
			if err := row.Scan(&rec.Delivered, &rec.Failed, &current, &rec.Billed); err != nil {
				return fmt.Errorf("cannot record delivery attempts: %w", err)
			}
			rec.NotCurrent = len(attempted) - current
			return nil
		})
	}
	queueEndpoints(b, &rec, endpointOK, endpointFailed, gone, failingLimit)
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		return Recorded{}, fmt.Errorf("cannot record delivery attempts: %w", err)
	}
	return rec, nil
}

// queueEndpoints queues the endpoints' failing state (RecordAttempts): an endpoint with an
// accepted attempt stops failing; one whose attempts all failed starts; one that answered 410,
// or has failed for longer than failingLimit, is disabled and its remaining deliveries failed.
func queueEndpoints(b *pgx.Batch, rec *Recorded, ok, failed, gone map[int64]bool, failingLimit time.Duration) {
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
		b.Queue(`UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id = ANY($1) AND failing_since IS NOT NULL`, okIDs)
	}
	if len(failIDs) > 0 {
		b.Queue(`UPDATE webhook_endpoints SET failing_since = now() WHERE endpoint_id = ANY($1) AND failing_since IS NULL`, failIDs)
	}
	if len(failIDs) == 0 && len(goneIDs) == 0 {
		return
	}
	b.Queue(`WITH dis AS (
			UPDATE webhook_endpoints SET disabled_at = now(),
				disabled_reason = CASE WHEN endpoint_id = ANY($1) THEN $4 ELSE $5 END
			WHERE disabled_at IS NULL AND (endpoint_id = ANY($1)
				OR (endpoint_id = ANY($2) AND failing_since < now() - make_interval(secs => $3)))
			RETURNING endpoint_id, disabled_reason),
		f AS (
			UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL, updated_at = now()
			WHERE endpoint_id IN (SELECT endpoint_id FROM dis) AND status IN ('pending', 'retrying')
			RETURNING 1)
		SELECT COALESCE(array_agg(endpoint_id ORDER BY endpoint_id) FILTER (WHERE disabled_reason = $4), '{}'),
			COALESCE(array_agg(endpoint_id ORDER BY endpoint_id) FILTER (WHERE disabled_reason = $5), '{}'),
			(SELECT count(*) FROM f)
		FROM dis`, goneIDs, failIDs, failingLimit.Seconds(), DisabledGone, DisabledFailing).QueryRow(func(row pgx.Row) error {
		var n int
		if err := row.Scan(&rec.DisabledGone, &rec.DisabledFailing, &n); err != nil {
			return fmt.Errorf("cannot disable webhook endpoints: %w", err)
		}
		rec.Failed += n
		return nil
	})
}
