package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The leases of the roles one instance at a time holds (migration 0033; package internal/leader
// runs the competition): one row per role with its owner, a fencing token and an expiry, all on
// Postgres's clock. Roles: RoleNotifier, RoleJanitor.

// Roles every serve instance competes for.
const (
	RoleNotifier = "notifier" // the notifier: one writer of deliveries and of the notifier position
	RoleJanitor  = "janitor"  // the shared sweeps: rate windows, idempotency keys, retention
)

// ErrFenced is returned by a write made under a Fence that is no longer the role's lease: the
// lease lapsed or another instance holds it now. Nothing of the transaction was written.
var ErrFenced = errors.New("this instance no longer holds the lease its write needs (another instance took it over): nothing written")

// Fence is the lease a write must still hold when it commits: the role and the token this
// instance acquired it under. The zero Fence fences nothing (a single process, tests).
type Fence struct {
	Role  string
	Token int64
}

// check fails with ErrFenced unless f is still the role's lease, and holds the lease row (FOR
// SHARE) until tx ends, so no other instance takes the lease over before tx commits.
func (f Fence) check(ctx context.Context, tx pgx.Tx) error {
	if f.Role == "" {
		return nil
	}
	var held bool
	err := tx.QueryRow(ctx, "SELECT token = $2 AND expires_at > clock_timestamp() FROM leader_leases WHERE role = $1 FOR SHARE", f.Role, f.Token).Scan(&held)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrFenced
	}
	if err != nil {
		return fmt.Errorf("cannot check the %s lease: %w", f.Role, err)
	}
	if !held {
		return ErrFenced
	}
	return nil
}

// Lease is a role's lease as an operator reads it.
type Lease struct {
	Role, Owner string
	Token       int64
	AcquiredAt  time.Time
	ExpiresAt   time.Time
}

// Leases is the lease store of package internal/leader on pool.
type Leases struct{ Pool *pgxpool.Pool }

// Acquire takes role for owner until ttl from now when it is free, lapsed or owner's already,
// with a new token (one more than the last).
func (s Leases) Acquire(ctx context.Context, role, owner string, ttl time.Duration) (int64, bool, error) {
	var token int64
	err := s.Pool.QueryRow(ctx, `INSERT INTO leader_leases AS l (role, owner, token, acquired_at, renewed_at, expires_at)
			VALUES ($1, $2, 1, now(), now(), now() + make_interval(secs => $3))
		ON CONFLICT (role) DO UPDATE SET owner = excluded.owner, token = l.token + 1, acquired_at = now(), renewed_at = now(),
			expires_at = excluded.expires_at
		WHERE l.expires_at <= now() OR l.owner = excluded.owner
		RETURNING token`, role, owner, ttl.Seconds()).Scan(&token)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("cannot take the %s lease: %w", role, err)
	}
	return token, true, nil
}

// Renew extends owner's lease of role under token to ttl from now, unless it lapsed meanwhile.
func (s Leases) Renew(ctx context.Context, role, owner string, token int64, ttl time.Duration) (bool, error) {
	tag, err := s.Pool.Exec(ctx, `UPDATE leader_leases SET renewed_at = now(), expires_at = now() + make_interval(secs => $4)
		WHERE role = $1 AND owner = $2 AND token = $3 AND expires_at > now()`, role, owner, token, ttl.Seconds())
	if err != nil {
		return false, fmt.Errorf("cannot renew the %s lease: %w", role, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Release ends owner's lease of role under token now.
func (s Leases) Release(ctx context.Context, role, owner string, token int64) error {
	_, err := s.Pool.Exec(ctx, `UPDATE leader_leases SET expires_at = least(expires_at, now())
		WHERE role = $1 AND owner = $2 AND token = $3`, role, owner, token)
	if err != nil {
		return fmt.Errorf("cannot release the %s lease: %w", role, err)
	}
	return nil
}

// ReadLease returns role's lease (ErrNotFound when nobody ever took it); a lease whose ExpiresAt
// has passed is held by nobody.
func ReadLease(ctx context.Context, pool *pgxpool.Pool, role string) (Lease, error) {
	l := Lease{Role: role}
	err := pool.QueryRow(ctx, "SELECT owner, token, acquired_at, expires_at FROM leader_leases WHERE role = $1", role).
		Scan(&l.Owner, &l.Token, &l.AcquiredAt, &l.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Lease{}, ErrNotFound
	}
	if err != nil {
		return Lease{}, fmt.Errorf("cannot read the %s lease: %w", role, err)
	}
	return l, nil
}
