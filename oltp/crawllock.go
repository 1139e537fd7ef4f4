package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// CrawlCommitWait bounds how long a crawler waits for another to finish committing.
const CrawlCommitWait = 15 * time.Minute

// CrawlCommitLock returns the crawl's commit lock for the ledger named ledger (the ClickHouse
// database): a session-level advisory lock held on one pooled connection from lock to unlock,
// so every crawler process sharing the ledger numbers and commits its cycles one at a time. A
// crawler that dies holding it loses its connection, and the server releases the lock.
func CrawlCommitLock(pool *pgxpool.Pool, ledger string) func(ctx context.Context) (unlock func(), err error) {
	return func(ctx context.Context) (func(), error) {
		lctx, cancel := context.WithTimeout(ctx, CrawlCommitWait)
		defer cancel()
		conn, err := pool.Acquire(lctx)
		if err != nil {
			return nil, fmt.Errorf("cannot get a Postgres connection for the crawl's commit lock: %w", err)
		}
		if _, err := conn.Exec(lctx, "SELECT pg_advisory_lock(hashtext('crawl-commit:' || $1))", ledger); err != nil {
			conn.Release()
			return nil, fmt.Errorf("cannot take the crawl's commit lock within %s (another crawler is committing; is one stuck?): %w", CrawlCommitWait, err)
		}
		return func() {
			uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock(hashtext('crawl-commit:' || $1))", ledger); err != nil {
				// The lock is unknown now: close the connection, which ends the session and its locks.
				_ = conn.Conn().Close(uctx)
			}
			conn.Release()
		}, nil
	}
}
