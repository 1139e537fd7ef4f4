// Package benchdb gives a benchmark run its own Postgres schema, migrated and dropped after the
// run, so runs never touch the service's or the tests' data. It is for bench/ programs only.
package benchdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	neturl "net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
)

// ThrowawaySchema creates a migrated Postgres schema named prefix + a random suffix on the server
// at pgURL, and returns a pool on it and the function that closes the pool and drops the schema.
func ThrowawaySchema(ctx context.Context, pgURL, prefix string) (*pgxpool.Pool, func(), error) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	schema := prefix + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach Postgres at %s (run `bin/hiringsignal stores up` or pass --postgres-url): %w", pgURL, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close(ctx)
		return nil, nil, err
	}
	drop := func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close(context.Background())
	}
	u, err := neturl.Parse(pgURL)
	if err != nil {
		drop()
		return nil, nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	pool, err := oltp.Open(ctx, u.String())
	if err != nil {
		drop()
		return nil, nil, err
	}
	if err := oltp.Migrate(ctx, pool, nil); err != nil {
		pool.Close()
		drop()
		return nil, nil, err
	}
	return pool, func() { pool.Close(); drop() }, nil
}
