package oltp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// IdempotencyTTL is how long a stored response answers a repeated Idempotency-Key, in hours.
const IdempotencyTTL = 24

// IdempotencyClaimLease is how long a claim in flight stays its owner's past the owner's last
// renewal (migration 0033): the instance running the call renews its claims every third of it,
// and a claim whose owner stopped (it died, or lost Postgres) is taken over by the next call
// with the same key and request, on any instance.
const IdempotencyClaimLease = 15 * time.Second

// Claimant is the instance claiming keys: its id (idempotency_keys.owner) and the lease of its
// claims (IdempotencyClaimLease when zero).
type Claimant struct {
	ID    string
	Lease time.Duration
}

func (c Claimant) lease() float64 {
	if c.Lease <= 0 {
		return IdempotencyClaimLease.Seconds()
	}
	return c.Lease.Seconds()
}

// Claim is what ClaimIdempotency found: State (ClaimNew, ClaimTakenOver, ClaimDone, ...), the
// stored answer of a ClaimDone, and the owner a ClaimTakenOver took the claim from.
type Claim struct {
	State  int
	Stored StoredResponse
	From   string
}

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
	// ClaimTakenOver: another call with this key and request was in flight, but its owner
	// stopped renewing its claim: the caller owns the key now, as with ClaimNew.
	ClaimTakenOver
)

// claimLapsed is the SQL of a pending claim whose lease ended (rows from before migration 0033,
// or of an earlier release's instance, have no claimed_until: created_at + 30 s).
const claimLapsed = "coalesce(claimed_until, created_at + interval '30 seconds') < now()"

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

// ClaimIdempotency claims (customerID, key) for a request whose hash is reqHash, for owner: a
// new key, or a pending claim of the same request whose owner stopped renewing it (taken over),
// is the owner's until it completes, releases or stops renewing it.
func ClaimIdempotency(ctx context.Context, pool *pgxpool.Pool, owner Claimant, customerID, key string, reqHash []byte) (Claim, error) {
	// Drop an expired claim of this key first, so the key can be reused after 24 h.
	if err := expireIdempotency(ctx, pool, "AND customer_id = $2 AND idem_key = $3", customerID, key); err != nil {
		return Claim{}, fmt.Errorf("cannot expire the idempotency key: %w", err)
	}
	// A claim released (or taken over) between the INSERT and the SELECT is claimed again, a
	// bounded number of times: past that the key is as good as in flight.
	for range 3 {
		tag, err := pool.Exec(ctx, `INSERT INTO idempotency_keys (customer_id, idem_key, request_hash, owner, claimed_until)
			VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
			ON CONFLICT DO NOTHING`, customerID, key, reqHash, owner.ID, owner.lease())
		if err != nil {
			return Claim{}, fmt.Errorf("cannot claim the idempotency key: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return Claim{State: ClaimNew}, nil
		}
		var h []byte
		var state string
		var r StoredResponse
		var status *int
		var ct, from *string
		var lapsed bool
		err = pool.QueryRow(ctx, `SELECT request_hash, state, status, content_type, body, owner, `+claimLapsed+` FROM idempotency_keys
			WHERE customer_id = $1 AND idem_key = $2`, customerID, key).Scan(&h, &state, &status, &ct, &r.Body, &from, &lapsed)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // released meanwhile
		}
		if err != nil {
			return Claim{}, fmt.Errorf("cannot read the idempotency key: %w", err)
		}
		if !bytes.Equal(h, reqHash) {
			return Claim{State: ClaimMismatch}, nil
		}
		switch state {
		case "done":
		case "served":
			return Claim{State: ClaimServed}, nil
		default:
			if !lapsed {
				return Claim{State: ClaimPending}, nil
			}
			tag, err := pool.Exec(ctx, `UPDATE idempotency_keys SET owner = $4, claimed_until = now() + make_interval(secs => $5)
				WHERE customer_id = $1 AND idem_key = $2 AND request_hash = $3 AND state = 'pending' AND `+claimLapsed,
				customerID, key, reqHash, owner.ID, owner.lease())
			if err != nil {
				return Claim{}, fmt.Errorf("cannot take the idempotency key over: %w", err)
			}
			if tag.RowsAffected() == 1 {
				c := Claim{State: ClaimTakenOver}
				if from != nil {
					c.From = *from
				}
				return c, nil
			}
			continue // completed, released or taken over meanwhile
		}
		if status != nil {
			r.Status = *status
		}
		if ct != nil {
			r.ContentType = *ct
		}
		return Claim{State: ClaimDone, Stored: r}, nil
	}
	return Claim{State: ClaimPending}, nil
}

// IdempotencyClaimKey names one claim: the customer and the key.
type IdempotencyClaimKey struct{ CustomerID, Key string }

// RenewIdempotencyClaims extends owner's claims of keys, those still pending and still its own,
// to the owner's lease from now: one statement for every call the instance has in flight.
func RenewIdempotencyClaims(ctx context.Context, pool *pgxpool.Pool, owner Claimant, keys []IdempotencyClaimKey) error {
	if len(keys) == 0 {
		return nil
	}
	customers, idem := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		customers[i], idem[i] = k.CustomerID, k.Key
	}
	_, err := pool.Exec(ctx, `UPDATE idempotency_keys k SET claimed_until = now() + make_interval(secs => $4)
		FROM unnest($2::text[], $3::text[]) AS c(customer_id, idem_key)
		WHERE k.customer_id = c.customer_id AND k.idem_key = c.idem_key AND k.owner = $1 AND k.state = 'pending'`,
		owner.ID, customers, idem, owner.lease())
	if err != nil {
		return fmt.Errorf("cannot renew this instance's idempotency claims: %w", err)
	}
	return nil
}

// CompleteIdempotency records the response of a key owner claimed. It keeps the answer when it
// fits in b (kept is true); otherwise it records that the call was served without keeping its
// answer. A claim no longer owner's (taken over after its lease ended) is left to its new owner.
func CompleteIdempotency(ctx context.Context, pool *pgxpool.Pool, owner Claimant, customerID, key string, r StoredResponse, b IdempotencyBounds) (kept bool, err error) {
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
			WHERE customer_id = $1 AND idem_key = $2 AND state = 'pending' AND owner IS NOT DISTINCT FROM $8`,
			customerID, key, state, r.Status, r.ContentType, body, size, owner.ID)
		if err != nil {
			return fmt.Errorf("cannot store the idempotent response: %w", err)
		}
		if tag.RowsAffected() == 0 {
			kept = false
			return errors.New("cannot store the idempotent response: the claim is gone (expired, or taken over by another instance after its lease ended)")
		}
		return nil
	})
	return kept, err
}

// ReleaseIdempotency drops owner's claim whose call did not succeed, so a retry runs again (a
// claim taken over by another instance is left to it).
func ReleaseIdempotency(ctx context.Context, pool *pgxpool.Pool, owner Claimant, customerID, key string) error {
	_, err := pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2 AND state = 'pending'
		AND owner IS NOT DISTINCT FROM $3`, customerID, key, owner.ID)
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
