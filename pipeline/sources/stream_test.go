package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// TestASlowSourceHoldsOneFetchSlotNotTheOthers: a worker with two fetch slots, holding two claims
// at most, reads ten Greenhouse boards; the first it claims hangs until the test lets it go.
// While it hangs the worker goes on claiming, reading and storing the nine others through its
// other slot; let go, the hung board is read and stored too.
func TestASlowSourceHoldsOneFetchSlotNotTheOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	mux := http.NewServeMux()
	csv := "domain,name,vendor,tenant,hq_country\n"
	for i := range 10 {
		tenant := fmt.Sprintf("board%d", i)
		mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/"+tenant+"/jobs", func(w http.ResponseWriter, r *http.Request) {
			if i == 0 {
				entered <- struct{}{}
				<-release
			}
			fmt.Fprintf(w, `{"jobs":[{"id":%d,"title":"Engineer","absolute_url":"https://job-boards.greenhouse.io/%s/jobs/1","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}],"meta":{"total":1}}`,
				100+i, tenant)
		})
		csv += fmt.Sprintf("%s.de,Board %d,greenhouse,%s,DE\n", tenant, i, tenant)
	}
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)
	var released sync.Once
	letGo := func() { released.Do(func() { close(release) }) }
	t.Cleanup(letGo) // before the server closes: a failed test leaves no request hanging
	pool := storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	_, err := sources.Import(ctx, pool, strings.NewReader(csv), sources.ImportOptions{File: "boards.csv", By: "test", Apply: true})
	require.NoError(t, err)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
		Fetch: pipeline.FetchConfig{Workers: 2, ConnectTo: connectTo, CAFile: pem}})
	require.NoError(t, err)
	const tick = 30
	worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "w", Batch: 2,
		Clock: sources.Clock{Epoch: time.Now().Add(-tick*sources.WindowLength - time.Hour)}}
	stored := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM crawl_reads WHERE tick = $1", tick).Scan(&n))
		return n
	}

	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := worker.ReadDue(ctx, tick, true)
		done <- result{n, err}
	}()
	<-entered // board0, the first claimed, hangs
	require.Eventually(t, func() bool { return stored() == 9 }, 2*time.Minute, 20*time.Millisecond,
		"the nine other boards are read and stored while board0 hangs")
	letGo()
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, 10, r.n)
	require.Equal(t, 10, stored())
}
