package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// TestLedgerHeadResetRecoversALedgerAheadOfClickHouse: a head Postgres records ahead of
// ClickHouse's committed one (ClickHouse restored from an older backup) is shown as AHEAD, a
// --reset without --apply changes nothing, and --reset --apply records ClickHouse's head and
// forgets the pending write, after which the head and ClickHouse are in step.
func TestLedgerHeadResetRecoversALedgerAheadOfClickHouse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := storetest.PostgresURL(t, "cmd_ledger")
	ch, opts := storetest.ClickHouse(t, "cmd_ledger")
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	pool, err := pgxpool.New(ctx, pg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	heads := oltp.LedgerHeads{Pool: pool, Ledger: opts.Database}
	require.NoError(t, heads.Adopt(ctx, wm+40))
	ok, err := heads.Hand(ctx, wm+40, wm+52, "emea", 77, []byte("a write ClickHouse never acknowledged"))
	require.NoError(t, err)
	require.True(t, ok)

	run := func(args ...string) (string, error) {
		var out strings.Builder
		err := ledgerHead(ctx, slog.New(slog.DiscardHandler), &out, append(args, "--postgres-url", pg,
			"--clickhouse-addr", opts.Addr, "--clickhouse-database", opts.Database))
		return out.String(), err
	}
	out, err := run("head")
	require.NoError(t, err)
	require.Contains(t, out, "AHEAD")
	require.Contains(t, out, "pending write")

	out, err = run("head", "--reset")
	require.NoError(t, err)
	require.Contains(t, out, "dry run")
	st, err := heads.State(ctx)
	require.NoError(t, err)
	require.Equal(t, wm+40, st.CommittedTo, "a dry run writes nothing")
	require.True(t, st.Pending)

	_, err = run("head", "--apply")
	require.ErrorContains(t, err, "--reset --apply")

	out, err = run("head", "--reset", "--apply")
	require.NoError(t, err)
	require.Contains(t, out, "after the reset")
	st, err = heads.State(ctx)
	require.NoError(t, err)
	require.Equal(t, wm, st.CommittedTo)
	require.False(t, st.Pending, "the pending write is forgotten")
	require.True(t, strings.HasSuffix(strings.TrimSpace(out), "in step"), out)
}
