package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// HostTurns spaces the crawl's requests to each host across every worker process: a worker
// reserves a block of turns at a time, after every turn reserved before by anyone (a virtual
// clock per host, as GCRA keeps one), and spaces its requests by them.
type HostTurns struct {
	Pool *pgxpool.Pool
}

// Take reserves n turns every apart for host and returns the first: the later of now and the
// end of the turns reserved before. One statement; concurrent takers get consecutive blocks.
func (h HostTurns) Take(ctx context.Context, host string, n int, every time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	span := time.Duration(n) * every
	var first time.Time
	err := h.Pool.QueryRow(ctx, `
		INSERT INTO crawl_host_turns AS t (host, next_at) VALUES ($1, clock_timestamp() + $2 * interval '1 microsecond')
		ON CONFLICT (host) DO UPDATE SET next_at = greatest(t.next_at, clock_timestamp()) + $2 * interval '1 microsecond'
		RETURNING next_at - $2 * interval '1 microsecond'`, host, span.Microseconds()).Scan(&first)
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot take request turns for %s: %w", host, err)
	}
	return first, nil
}
