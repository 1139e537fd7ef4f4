package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// `facts backfill` runs the backfill on the ClickHouse its flags name, a dry run unless --apply,
// and logs what it did; anything but `backfill` is refused with the usage.
func TestFactsBackfillCommand(t *testing.T) {
	t.Parallel()
	_, opts := storetest.ClickHouse(t, "cmd_facts")
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	args := []string{"--clickhouse-addr", opts.Addr, "--clickhouse-database", opts.Database}
	require.NoError(t, runFacts(context.Background(), log, append([]string{"backfill"}, args...)))
	require.Contains(t, out.String(), "facts backfill: dry run")
	require.NoError(t, runFacts(context.Background(), log, append([]string{"backfill", "--apply", "--batch", "50"}, args...)))
	require.Contains(t, out.String(), "facts backfill: applied")
	require.ErrorContains(t, runFacts(context.Background(), log, args), "facts backfill")
	require.ErrorContains(t, runFacts(context.Background(), log, append([]string{"backfill", "--batch", "0"}, args...)), "1 to 1000")
}
