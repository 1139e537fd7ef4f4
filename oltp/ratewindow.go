package oltp

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// RateWindows is the shared store of fixed-window counters that API instances lease from.
type RateWindows struct{ Pool *pgxpool.Pool }

// Lease asks for want calls of scope's window starting at windowStart (unix seconds) under limit.
// It returns how many were granted (0..want) and the window's count after this lease. The
// counter may pass limit (a refused lease still adds want) but nothing past limit is ever granted.
func (r RateWindows) Lease(ctx context.Context, scope string, windowStart, expiresAt, want, limit int64) (granted, used int64, err error) {
	err = r.Pool.QueryRow(ctx, `INSERT INTO rate_windows AS w (scope, window_start, used, expires_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (scope, window_start) DO UPDATE SET used = w.used + EXCLUDED.used
		RETURNING used`, scope, windowStart, want, expiresAt).Scan(&used)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot lease from rate window %s: %w", scope, err)
	}
	before := used - want
	granted = min(want, max(0, limit-before))
	return granted, used, nil
}

// Expire deletes windows that ended before nowUnix.
func (r RateWindows) Expire(ctx context.Context, nowUnix int64) error {
	if _, err := r.Pool.Exec(ctx, "DELETE FROM rate_windows WHERE expires_at < $1", nowUnix); err != nil {
		return fmt.Errorf("cannot expire rate windows: %w", err)
	}
	return nil
}
