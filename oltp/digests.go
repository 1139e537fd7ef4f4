package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The email digest's statements (migration 0031; package push/digest sends). An email
// endpoint's deliveries are written by the notifier like any other, parked by the dispatcher
// (ParkForDigest) and listed once a day: RecordDigest writes the digest row first, with its
// Message-ID and the deliveries it lists; ClaimDigests leases the rows still to send; DigestSent
// marks one sent and its deliveries delivered (billed once each) in one transaction, DigestFailed
// records a failed try. A crash between the SMTP server's acceptance and DigestSent leaves the row
// sending: it is sent again, the same message with the same Message-ID, once.

// MaxDigestChanges bounds the deliveries one digest lists; the rest wait for the next day's.
const MaxDigestChanges = 2000

// Statuses of an email digest (email_digests.status).
const (
	DigestStatusSending = "sending"
	DigestStatusSent    = "sent"
	DigestStatusFailed  = "failed"
	DigestStatusEmpty   = "empty"
)

// DueDigests are the live, enabled email endpoints created by through that have no digest for
// day yet (at most limit, by id).
func DueDigests(ctx context.Context, pool *pgxpool.Pool, day, through time.Time, limit int) ([]int64, error) {
	rows, err := pool.Query(ctx, `SELECT e.endpoint_id FROM webhook_endpoints e
		WHERE e.kind = 'email' AND e.deleted_at IS NULL AND e.disabled_at IS NULL AND e.created_at <= $2
			AND NOT EXISTS (SELECT 1 FROM email_digests g WHERE g.endpoint_id = e.endpoint_id AND g.digest_day = $1::date)
		ORDER BY e.endpoint_id LIMIT $3`, day.UTC().Format(time.DateOnly), through, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot read the email endpoints due a digest: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("cannot read the email endpoints due a digest: %w", err)
	}
	return ids, nil
}

// RecordDigest writes the digest of endpoint id for day, before anything is sent: the pending
// watch deliveries of the endpoint created by through, of an account not paused and listed in
// no other digest being sent, oldest first, at most MaxDigestChanges, under messageID; status
// sending, or empty when there is none (nothing will be sent that day). It locks the endpoint
// row, so two instances record one digest; a digest already recorded for the day is left as it
// is (recorded false). The endpoint must still be a live, enabled email endpoint.
func RecordDigest(ctx context.Context, pool *pgxpool.Pool, id int64, day, through time.Time, messageID string) (recorded bool, n int, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var ok bool
		err := tx.QueryRow(ctx, `SELECT kind = 'email' AND deleted_at IS NULL AND disabled_at IS NULL FROM webhook_endpoints
			WHERE endpoint_id = $1 FOR UPDATE`, id).Scan(&ok)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && !ok) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot lock the email endpoint: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT d.delivery_id FROM webhook_deliveries d JOIN accounts a ON a.account_id = d.account_id
			WHERE d.endpoint_id = $1 AND d.watch_id IS NOT NULL AND d.status IN ('pending', 'retrying') AND d.created_at <= $2 AND NOT a.paused
				AND NOT EXISTS (SELECT 1 FROM email_digests g WHERE g.endpoint_id = $1 AND g.status = 'sending' AND d.delivery_id = ANY(g.delivery_ids))
			ORDER BY d.delivery_id LIMIT $3`, id, through, MaxDigestChanges)
		if err != nil {
			return fmt.Errorf("cannot read the email endpoint's pending deliveries: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("cannot read the email endpoint's pending deliveries: %w", err)
		}
		status := DigestStatusSending
		if len(ids) == 0 {
			status, ids = DigestStatusEmpty, []int64{}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO email_digests (endpoint_id, digest_day, message_id, delivery_ids, status)
			VALUES ($1, $2::date, $3, $4, $5) ON CONFLICT (endpoint_id, digest_day) DO NOTHING`,
			id, day.UTC().Format(time.DateOnly), messageID, ids, status)
		if err != nil {
			return fmt.Errorf("cannot record the email digest: %w", err)
		}
		recorded, n = tag.RowsAffected() == 1, len(ids)
		return nil
	})
	return recorded, n, err
}

// DigestToSend is a digest leased to send: its endpoint, day, Message-ID, address and the bodies
// of the deliveries it lists (in delivery order). A body that is gone (its delivery pruned or no
// longer pending) is left out; Deliveries are the ids still pending.
type DigestToSend struct {
	EndpointID int64
	CustomerID string
	Day        time.Time
	MessageID  string
	RecordedAt time.Time
	Attempts   int // failed tries before this one
	To         string
	ToErr      error // the address did not open (wrong --webhook-secret-keys)
	Deliveries []int64
	Bodies     [][]byte
}

// ClaimDigests leases for lease at most limit digests being sent whose next try is due, with
// what sending them needs; another runner takes none of them until the lease ends.
func ClaimDigests(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, lease time.Duration, limit int) ([]DigestToSend, error) {
	rows, err := pool.Query(ctx, `WITH c AS (
			SELECT endpoint_id, digest_day FROM email_digests
			WHERE status = 'sending' AND (next_try_at IS NULL OR next_try_at <= now()) AND (lease_until IS NULL OR lease_until < now())
			ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		UPDATE email_digests g SET lease_until = now() + make_interval(secs => $1)
		FROM c, webhook_endpoints e
		WHERE g.endpoint_id = c.endpoint_id AND g.digest_day = c.digest_day AND e.endpoint_id = g.endpoint_id
		RETURNING g.endpoint_id, e.customer_id, g.digest_day, g.message_id, g.created_at, g.attempts, e.secret_sealed, g.delivery_ids`,
		lease.Seconds(), limit)
	if err != nil {
		return nil, fmt.Errorf("cannot claim email digests: %w", err)
	}
	var out []DigestToSend
	for rows.Next() {
		var d DigestToSend
		var sealed []byte
		if err := rows.Scan(&d.EndpointID, &d.CustomerID, &d.Day, &d.MessageID, &d.RecordedAt, &d.Attempts, &sealed, &d.Deliveries); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cannot claim email digests: %w", err)
		}
		to, err := box.Open(sealed, TargetAAD(KindEmail, d.CustomerID, d.EndpointID))
		if err != nil {
			d.ToErr = fmt.Errorf("cannot open the address of email endpoint %d (wrong --webhook-secret-keys?): %w", d.EndpointID, err)
		}
		d.To = string(to)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot claim email digests: %w", err)
	}
	for i := range out {
		d := &out[i]
		rows, err := pool.Query(ctx, `SELECT delivery_id, body FROM webhook_deliveries
			WHERE delivery_id = ANY($1) AND status IN ('pending', 'retrying') AND body IS NOT NULL ORDER BY delivery_id`, d.Deliveries)
		if err != nil {
			return nil, fmt.Errorf("cannot read the digest's deliveries: %w", err)
		}
		d.Deliveries = d.Deliveries[:0]
		for rows.Next() {
			var id int64
			var body []byte
			if err := rows.Scan(&id, &body); err != nil {
				rows.Close()
				return nil, fmt.Errorf("cannot read the digest's deliveries: %w", err)
			}
			d.Deliveries, d.Bodies = append(d.Deliveries, id), append(d.Bodies, body)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("cannot read the digest's deliveries: %w", err)
		}
	}
	return out, nil
}

// DigestSent records that the SMTP server accepted the digest of endpoint id for day, started at
// started and taking took: in one transaction every delivery it lists is delivered (billed once,
// an attempt without response status: it was mailed) and the digest sent.
func DigestSent(ctx context.Context, pool *pgxpool.Pool, id int64, day time.Time, deliveries []int64, started time.Time, took time.Duration) (Recorded, error) {
	var rec Recorded
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		if len(deliveries) > 0 {
			rs := make([]AttemptResult, len(deliveries))
			for i, d := range deliveries {
				rs[i] = AttemptResult{DeliveryID: d, EndpointID: id, Outcome: OutcomeDelivered, StartedAt: started, ResponseMS: int(took.Milliseconds())}
			}
			if rec, err = recordAttempts(ctx, tx, rs, 0); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE email_digests SET status = 'sent', sent_at = now(), lease_until = NULL, last_error = NULL
			WHERE endpoint_id = $1 AND digest_day = $2::date`, id, day.UTC().Format(time.DateOnly)); err != nil {
			return fmt.Errorf("cannot record the email digest as sent: %w", err)
		}
		return nil
	})
	return rec, err
}

// DigestFailed records a failed try of the digest of endpoint id for day (why: never the
// address nor a password). retryIn > 0: tried again then. Otherwise the digest failed: so does
// every delivery it lists (an attempt recording why), and gone also disables the endpoint (the
// server refused the address: disabled_reason gone), failing its other pending deliveries (a
// digest listing none has no endpoint to disable: it was never sent).
func DigestFailed(ctx context.Context, pool *pgxpool.Pool, id int64, day time.Time, deliveries []int64, why string, retryIn time.Duration, gone bool, started time.Time) (Recorded, error) {
	var rec Recorded
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		dayS := day.UTC().Format(time.DateOnly)
		if retryIn > 0 {
			_, err := tx.Exec(ctx, `UPDATE email_digests SET attempts = attempts + 1, last_error = $3, lease_until = NULL,
				next_try_at = now() + make_interval(secs => $4) WHERE endpoint_id = $1 AND digest_day = $2::date`, id, dayS, why, retryIn.Seconds())
			if err != nil {
				return fmt.Errorf("cannot record a failed try of the email digest: %w", err)
			}
			return nil
		}
		rs := make([]AttemptResult, len(deliveries))
		for i, d := range deliveries {
			rs[i] = AttemptResult{DeliveryID: d, EndpointID: id, Outcome: OutcomeFailed, StartedAt: started, Error: why, Gone: gone}
		}
		var err error
		if len(rs) > 0 {
			if rec, err = recordAttempts(ctx, tx, rs, neverFailing); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE email_digests SET status = 'failed', attempts = attempts + 1, last_error = $3, lease_until = NULL,
			next_try_at = NULL WHERE endpoint_id = $1 AND digest_day = $2::date`, id, dayS, why); err != nil {
			return fmt.Errorf("cannot record the email digest as failed: %w", err)
		}
		return nil
	})
	return rec, err
}

// EmailTest is a test delivery to an email endpoint, leased to send at once.
type EmailTest struct {
	DeliveryID, EndpointID int64
	IdempotencyKey         string
	CustomerID             string
	To                     string
	ToErr                  error
	Body                   []byte
	CreatedAt              time.Time
	AttemptCount           int // tries before this one
}

// ClaimEmailTests leases for lease at most limit pending test deliveries to email endpoints of
// accounts not paused (claimed_until, which the dispatcher leaves alone): a test is mailed at
// once rather than in the next digest.
func ClaimEmailTests(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, lease time.Duration, limit int) ([]EmailTest, error) {
	rows, err := pool.Query(ctx, `WITH c AS (
			SELECT d.delivery_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id
				JOIN accounts a ON a.account_id = d.account_id
			WHERE e.kind = 'email' AND e.deleted_at IS NULL AND e.disabled_at IS NULL AND d.watch_id IS NULL
				AND d.status IN ('pending', 'retrying') AND NOT a.paused AND (d.claimed_until IS NULL OR d.claimed_until < now())
			ORDER BY d.delivery_id LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
		UPDATE webhook_deliveries d SET claimed_until = now() + make_interval(secs => $1), next_attempt_at = NULL
		FROM c, webhook_endpoints e
		WHERE d.delivery_id = c.delivery_id AND e.endpoint_id = d.endpoint_id
		RETURNING d.delivery_id, d.endpoint_id, d.idempotency_key, e.customer_id, e.secret_sealed, d.body, d.created_at, d.attempt_count`, lease.Seconds(), limit)
	if err != nil {
		return nil, fmt.Errorf("cannot claim email test deliveries: %w", err)
	}
	var out []EmailTest
	for rows.Next() {
		var t EmailTest
		var sealed []byte
		if err := rows.Scan(&t.DeliveryID, &t.EndpointID, &t.IdempotencyKey, &t.CustomerID, &sealed, &t.Body, &t.CreatedAt, &t.AttemptCount); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cannot claim email test deliveries: %w", err)
		}
		to, err := box.Open(sealed, TargetAAD(KindEmail, t.CustomerID, t.EndpointID))
		if err != nil {
			t.ToErr = fmt.Errorf("cannot open the address of email endpoint %d (wrong --webhook-secret-keys?): %w", t.EndpointID, err)
		}
		t.To = string(to)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot claim email test deliveries: %w", err)
	}
	return out, nil
}

// RecordEmailAttempts records what mailing test deliveries came to (RecordAttempts; a failed
// one is not retried by the dispatcher: it stays parked).
func RecordEmailAttempts(ctx context.Context, pool *pgxpool.Pool, results []AttemptResult) (Recorded, error) {
	return recordAttempts(ctx, pool, results, neverFailing)
}

// neverFailing is the failing limit of mailed deliveries: an email endpoint is disabled only
// when the server refuses its address (gone), not for days of relay trouble, which is ours.
const neverFailing = 100 * 365 * 24 * time.Hour
