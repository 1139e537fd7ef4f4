package pipeline_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestFactsReadByTheDeduperWriteTheLedgerOfFactsReadEagerly: the same world crawled from a cold
// start and one tick on, once reading the facts of only the postings the deduper takes and once
// of every posting, writes the same ledger, every column of every event (the postings' facts
// among them) but the write's version, and the same descriptions, byte for byte.
func TestFactsReadByTheDeduperWriteTheLedgerOfFactsReadEagerly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	crawl := func(eager bool) (events, texts []string) {
		world, base := simServer(t, sim.Config{Seed: 23, Companies: 60, NoGzip: true})
		ch, _ := storetest.ClickHouse(t, "pipeline")
		fc := testFetch()
		fc.Timeout = 10 * time.Second // no fault here: a loaded machine's slow answer is no failure
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fc, Log: quietLog()})
		require.NoError(t, err)
		if eager {
			pipeline.WithEagerFacts(c)
		}
		for tick := 500; tick < 502; tick++ {
			world.Pin(tick)
			stats, err := c.RunTick(ctx, base, tick)
			require.NoError(t, err)
			for _, st := range stats {
				require.Empty(t, st.FailedReasons, "tick %d: the world has no fault", tick)
			}
		}
		return dumpRows(t, ch, "SELECT * FROM events FINAL ORDER BY event_seq", "version"),
			dumpRows(t, ch, "SELECT req_key, description_hash, description FROM req_descriptions FINAL ORDER BY req_key, description_hash")
	}
	var (
		wg                     sync.WaitGroup
		later, eager           []string
		laterTexts, eagerTexts []string
	)
	wg.Add(2)
	go func() { defer wg.Done(); later, laterTexts = crawl(false) }()
	go func() { defer wg.Done(); eager, eagerTexts = crawl(true) }()
	wg.Wait()
	require.NotEmpty(t, later)
	require.NotEmpty(t, laterTexts)
	require.Equal(t, eager, later, "facts read by the deduper or of every posting, the ledger is the same")
	require.Equal(t, eagerTexts, laterTexts, "and so are the descriptions")
}

// dumpRows runs query and formats each row, every column but those named in skip.
func dumpRows(t *testing.T, ch driver.Conn, query string, skip ...string) []string {
	t.Helper()
	rows, err := ch.Query(context.Background(), query)
	require.NoError(t, err)
	defer rows.Close()
	types := rows.ColumnTypes()
	var out []string
	for rows.Next() {
		dst := make([]any, len(types))
		for i, ct := range types {
			dst[i] = reflect.New(ct.ScanType()).Interface()
		}
		require.NoError(t, rows.Scan(dst...))
		row := ""
		for i, ct := range types {
			if !slices.Contains(skip, ct.Name()) {
				v := reflect.ValueOf(dst[i]).Elem()
				for v.Kind() == reflect.Pointer && !v.IsNil() {
					v = v.Elem() // a Nullable column's value, not its address
				}
				row += fmt.Sprintf("%s=%v ", ct.Name(), v.Interface())
			}
		}
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}
