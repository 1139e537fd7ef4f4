package oltp

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/migrate"
)

// ApplyForTest applies one ad-hoc migration the way Migrate applies embedded ones.
func ApplyForTest(ctx context.Context, pool *pgxpool.Pool, version int, name, sql string) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return applyOne(ctx, conn.Conn(), migrate.Migration{Version: version, Name: name, SQL: sql})
}

// BusyForTest takes the Leaser's connection as a claim in flight would, until the returned
// function lets it go (sending whatever was left to it).
func (l *Leaser) BusyForTest() func() error {
	l.use.Lock()
	return l.done
}

// AccountStatesQueryForTest is the admission figures' query, for reading its plan.
const AccountStatesQueryForTest = accountStatesQuery

// ClaimDueQueryForTest is the crawl workers' claim, for reading its plan.
var ClaimDueQueryForTest = claimDueQuery
