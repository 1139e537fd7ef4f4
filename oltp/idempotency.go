package oltp

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// IdempotencyTTL is how long a stored response answers a repeated Idempotency-Key, in hours.
const IdempotencyTTL = 24

// StoredResponse is a response kept for an Idempotency-Key.
type StoredResponse struct {
	Status      int
	ContentType string
	Body        []byte
}

// Claim outcomes.
const (
	ClaimNew      = iota // the caller owns the key now and must Complete or Release it
	ClaimDone            // a stored response exists: replay it
	ClaimPending         // another call with this key is in flight
	ClaimMismatch        // the key was used with a different request
	ClaimServed          // the call was answered, but its answer was not kept (over a bound)
)

// IdempotencyBounds bound what the store keeps: an answer larger than Body bytes is not kept,
// nor one that would take the customer's kept answers past Customer bytes.
type IdempotencyBounds struct {
	Body     int
	Customer int64
}

// expireIdempotency deletes expired rows matching where (after the TTL condition, arguments from
// $2) and gives their bytes back to their customers' budgets, in one statement.
func expireIdempotency(ctx context.Context, pool *pgxpool.Pool, where string, args ...any) error {
	_, err := pool.Exec(ctx, `WITH gone AS (
			DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1) `+where+`
			RETURNING customer_id, body_bytes),
		freed AS (SELECT customer_id, sum(body_bytes) AS bytes FROM gone WHERE body_bytes > 0 GROUP BY customer_id)
		UPDATE idempotency_budget b SET bytes = greatest(0, b.bytes - freed.bytes) FROM freed WHERE b.customer_id = freed.customer_id`,
		append([]any{IdempotencyTTL}, args...)...)
	return err
}

// ClaimIdempotency claims (customerID, key) for a request whose hash is reqHash.
func ClaimIdempotency(ctx context.Context, pool *pgxpool.Pool, customerID, key string, reqHash []byte) (int, StoredResponse, error) {
	// Drop an expired claim of this key first, so the key can be reused after 24 h.
	if err := expireIdempotency(ctx, pool, "AND customer_id = $2 AND idem_key = $3", customerID, key); err != nil {
		return 0, StoredResponse{}, fmt.Errorf("cannot expire the idempotency key: %w", err)
	}
	// A claim released between the INSERT and the SELECT is claimed again, a bounded number of
	// times: past that the key is as good as in flight.
	for range 3 {
		tag, err := pool.Exec(ctx, `INSERT INTO idempotency_keys (customer_id, idem_key, request_hash) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, customerID, key, reqHash)
		if err != nil {
			return 0, StoredResponse{}, fmt.Errorf("cannot claim the idempotency key: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return ClaimNew, StoredResponse{}, nil
		}
		var h []byte
		var state string
		var r StoredResponse
		var status *int
		var ct *string
		err = pool.QueryRow(ctx, `SELECT request_hash, state, status, content_type, body FROM idempotency_keys
			WHERE customer_id = $1 AND idem_key = $2`, customerID, key).Scan(&h, &state, &status, &ct, &r.Body)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // released meanwhile
		}
		if err != nil {
			return 0, StoredResponse{}, fmt.Errorf("cannot read the idempotency key: %w", err)
		}
		if !bytes.Equal(h, reqHash) {
			return ClaimMismatch, StoredResponse{}, nil
		}
		switch state {
		case "done":
		case "served":
			return ClaimServed, StoredResponse{}, nil
		default:
			return ClaimPending, StoredResponse{}, nil
		}
		if status != nil {
			r.Status = *status
		}
		if ct != nil {
			r.ContentType = *ct
		}
		return ClaimDone, r, nil
	}
	return ClaimPending, StoredResponse{}, nil
}

// CompleteIdempotency records the response of a claimed key. It keeps the answer when it fits
// in b (kept is true); otherwise it records that the call was served without keeping its answer.
func CompleteIdempotency(ctx context.Context, pool *pgxpool.Pool, customerID, key string, r StoredResponse, b IdempotencyBounds) (kept bool, err error) {
	n := len(r.Body)
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		kept = false
		if n <= b.Body && int64(n) <= b.Customer {
			var total int64
			err := tx.QueryRow(ctx, `INSERT INTO idempotency_budget AS b (customer_id, bytes) VALUES ($1, $2)
				ON CONFLICT (customer_id) DO UPDATE SET bytes = b.bytes + EXCLUDED.bytes WHERE b.bytes + EXCLUDED.bytes <= $3
				RETURNING bytes`, customerID, n, b.Customer).Scan(&total)
			switch {
			case err == nil:
				kept = true
			case !errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("cannot count the customer's stored answers: %w", err)
			}
		}
		state, body, size := "served", []byte(nil), 0
		if kept {
			state, body, size = "done", r.Body, n
		}
		tag, err := tx.Exec(ctx, `UPDATE idempotency_keys SET state = $3, status = $4, content_type = $5, body = $6, body_bytes = $7
			WHERE customer_id = $1 AND idem_key = $2 AND state = 'pending'`, customerID, key, state, r.Status, r.ContentType, body, size)
		if err != nil {
			return fmt.Errorf("cannot store the idempotent response: %w", err)
		}
		if tag.RowsAffected() == 0 {
			kept = false
			return errors.New("cannot store the idempotent response: the claim is gone (expired meanwhile)")
		}
		return nil
	})
	return kept, err
}

// ReleaseIdempotency drops a claim whose call did not succeed, so a retry runs again.
func ReleaseIdempotency(ctx context.Context, pool *pgxpool.Pool, customerID, key string) error {
	_, err := pool.Exec(ctx, "DELETE FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2 AND state = 'pending'", customerID, key)
	if err != nil {
		return fmt.Errorf("cannot release the idempotency key: %w", err)
	}
	return nil
}

// ExpireIdempotency deletes stored responses older than IdempotencyTTL and gives their bytes back
// to their customers' budgets.
func ExpireIdempotency(ctx context.Context, pool *pgxpool.Pool) error {
	if err := expireIdempotency(ctx, pool, ""); err != nil {
		return fmt.Errorf("cannot expire idempotency keys: %w", err)
	}
	if _, err := pool.Exec(ctx, "DELETE FROM idempotency_budget WHERE bytes = 0"); err != nil {
		return fmt.Errorf("cannot drop empty idempotency budgets: %w", err)
	}
	return nil
}
