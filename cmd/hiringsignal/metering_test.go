package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// The metering log of an instance that is gone is replayed into the usage ledger by
// `metering replay`, once however often it runs; a directory a live instance holds is refused.
func TestMeteringReplayMovesADeadInstancesCallsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := storetest.PostgresURL(t, "cmd_metering")
	pool, err := oltp.Open(ctx, pg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	quiet := slog.New(slog.DiscardHandler)
	replay := func(dir string) error {
		return runMetering(ctx, quiet, []string{"replay", "--metering-dir", dir, "--postgres-url", pg})
	}

	dir := t.TempDir()
	dead := metering.New(metering.Config{Dir: dir, FlushInterval: time.Hour}) // it never reached Postgres
	require.NoError(t, dead.Start(ctx))
	for range 3 {
		require.NoError(t, dead.Append(ctx, metering.Record{CustomerID: "cus_gone", AccountID: 9, KeyID: 1, Method: "GET", Route: "/v1/reqs/search",
			MeterClass: oltp.MeterSourceRow, Calls: 1, Units: 2, OccurredAt: time.Now().UTC()}))
	}
	require.ErrorContains(t, replay(dir), "another process uses the metering log dir", "a live instance's directory is its own")
	_ = dead.Stop(ctx) // the instance is gone; its calls stay on disk

	require.NoError(t, replay(dir))
	require.NoError(t, replay(dir), "twice bills nothing twice")
	var calls, units int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT sum(calls), sum(units) FROM usage_events WHERE customer_id = 'cus_gone'").Scan(&calls, &units))
	require.EqualValues(t, 3, calls)
	require.EqualValues(t, 6, units)
	require.Zero(t, segments(dir))
}
