package oltp

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RevokeDemoKeys revokes every active demo key, for a server started with the demo key disabled
// (--demo-key ""): the key published earlier stops working on every instance, which drop it from
// their caches on the notification. It returns how many keys it revoked.
func RevokeDemoKeys(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('demo-key'))"); err != nil {
			return fmt.Errorf("cannot lock the demo key: %w", err)
		}
		tag, err := tx.Exec(ctx, "UPDATE api_keys SET revoked_at = now() WHERE is_demo AND revoked_at IS NULL")
		if err != nil {
			return fmt.Errorf("cannot revoke the demo key: %w", err)
		}
		if n = tag.RowsAffected(); n == 0 {
			return nil
		}
		return notifyAuth(ctx, tx, "demo")
	})
	return n, err
}
