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
)

// ClaimIdempotency claims (customerID, key) for a request whose hash is reqHash.
func ClaimIdempotency(ctx context.Context, pool *pgxpool.Pool, customerID, key string, reqHash []byte) (int, StoredResponse, error) {
	// Drop an expired claim of this key first, so the key can be reused after 24 h.
	if _, err := pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2
		AND created_at < now() - make_interval(hours => $3)`, customerID, key, IdempotencyTTL); err != nil {
		return 0, StoredResponse{}, fmt.Errorf("cannot expire the idempotency key: %w", err)
	}
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
		return ClaimIdempotency(ctx, pool, customerID, key, reqHash) // released meanwhile
	}
	if err != nil {
		return 0, StoredResponse{}, fmt.Errorf("cannot read the idempotency key: %w", err)
	}
	if !bytes.Equal(h, reqHash) {
		return ClaimMismatch, StoredResponse{}, nil
	}
	if state != "done" {
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

// CompleteIdempotency stores the response of a claimed key.
func CompleteIdempotency(ctx context.Context, pool *pgxpool.Pool, customerID, key string, r StoredResponse) error {
	_, err := pool.Exec(ctx, `UPDATE idempotency_keys SET state = 'done', status = $3, content_type = $4, body = $5
		WHERE customer_id = $1 AND idem_key = $2`, customerID, key, r.Status, r.ContentType, r.Body)
	if err != nil {
		return fmt.Errorf("cannot store the idempotent response: %w", err)
	}
	return nil
}

// ReleaseIdempotency drops a claim whose call did not succeed, so a retry runs again.
func ReleaseIdempotency(ctx context.Context, pool *pgxpool.Pool, customerID, key string) error {
	_, err := pool.Exec(ctx, "DELETE FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2 AND state = 'pending'", customerID, key)
	if err != nil {
		return fmt.Errorf("cannot release the idempotency key: %w", err)
	}
	return nil
}

// ExpireIdempotency deletes stored responses older than IdempotencyTTL.
func ExpireIdempotency(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, "DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)", IdempotencyTTL)
	if err != nil {
		return fmt.Errorf("cannot expire idempotency keys: %w", err)
	}
	return nil
}
