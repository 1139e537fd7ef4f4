package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// factColumns are the events columns of a posting's facts (migration 0004).
var factColumns = []string{"technologies", "technology_kinds", "seniority", "employment_type", "workplace_type", "remote_countries",
	"years_experience_min", "visa_sponsorship", "stated_pay_min", "stated_pay_max", "stated_pay_currency", "stated_pay_period",
	"stated_pay_text", "description_hash"}

// A crawled world's every description an event names is stored, each text once (a crawler never
// writes a text twice), and the facts cost the ledger a few bytes per req: the figures are
// logged (bytes per req on disk, compressed, after merges).
func TestDescriptionsAreStoredOnceAndFactsStaySmall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const first = 1000
	world, base := simServer(t, sim.Config{Seed: 7, Companies: 60, NoGzip: true})
	ch, _ := storetest.ClickHouse(t, "pipeline_factsize")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	for _, tick := range []int{first, first + 1, first + 2, first + pipeline.ReobserveEvery, first + pipeline.ReobserveEvery + 1} {
		world.Pin(tick)
		_, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
	}

	var writes, missing, named uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT count() FROM req_descriptions").Scan(&writes))
	require.NoError(t, ch.QueryRow(ctx, `SELECT count(), countIf(d.n = 0) FROM
		(SELECT DISTINCT req_key, description_hash FROM events WHERE description_hash != 0) AS e
		ANY LEFT JOIN (SELECT req_key, description_hash, count() AS n FROM req_descriptions GROUP BY req_key, description_hash) AS d
		USING req_key, description_hash`).Scan(&named, &missing))
	require.Positive(t, named, "the world's postings have descriptions")
	require.Zero(t, missing, "every description an event names is stored")
	require.NoError(t, ch.Exec(ctx, "OPTIMIZE TABLE req_descriptions FINAL"))
	var distinct uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT count() FROM req_descriptions").Scan(&distinct))
	require.Equal(t, distinct, writes, "no text was written twice")

	require.NoError(t, ch.Exec(ctx, "OPTIMIZE TABLE events FINAL"))
	var reqs, events uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT uniqExact(req_key), count() FROM events").Scan(&reqs, &events))
	bytesOf := func(table, cond string) (compressed, raw uint64) {
		t.Helper()
		require.NoError(t, ch.QueryRow(ctx, "SELECT sum(data_compressed_bytes), sum(data_uncompressed_bytes) FROM system.columns "+
			"WHERE database = currentDatabase() AND table = '"+table+"'"+cond).Scan(&compressed, &raw))
		return compressed, raw
	}
	in := " AND name IN ('" + strings.Join(factColumns, "','") + "')"
	oldC, oldR := bytesOf("events", " AND name NOT IN ('"+strings.Join(factColumns, "','")+"')")
	factC, factR := bytesOf("events", in)
	descC, descR := bytesOf("req_descriptions", "")
	per := func(b uint64) string { return fmt.Sprintf("%.1f", float64(b)/float64(reqs)) }
	t.Logf("%d reqs, %d events, %d descriptions stored (%d named by an event; the rest are texts of a req's other postings)", reqs, events, distinct, named)
	t.Logf("bytes per req, compressed (uncompressed): ledger before %s (%s); facts columns +%s (+%s); descriptions +%s (+%s); after %s (%s)",
		per(oldC), per(oldR), per(factC), per(factR), per(descC), per(descR), per(oldC+factC+descC), per(oldR+factR+descR))
	require.Less(t, factC, oldC/2, "the facts cost the ledger less than half its size")
}
