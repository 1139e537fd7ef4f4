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
	"github.com/planehq/hiringsignal/oltp"
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
		Clock: sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}}
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

// TestALongReadKeepsItsLease: a read that outlasts its lease (6 s here; a board whose chain of
// pages its per-page budget keeps going takes up to 30 minutes) has its lease renewed while its
// worker reads, so another worker claims nothing of it; let go, the read is stored.
func TestALongReadKeepsItsLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/long/jobs", func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		fmt.Fprint(w, `{"jobs":[],"meta":{"total":0}}`)
	})
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)
	var released sync.Once
	letGo := func() { released.Do(func() { close(release) }) }
	t.Cleanup(letGo)
	pool := storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	_, err := sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant,hq_country\nlong.de,Long,greenhouse,long,DE\n"),
		sources.ImportOptions{File: "long.csv", By: "test", Apply: true})
	require.NoError(t, err)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: pipeline.FetchConfig{ConnectTo: connectTo, CAFile: pem}})
	require.NoError(t, err)
	const tick = 30
	worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "w", Lease: 6 * time.Second,
		Clock: sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}}
	leaseUntil := func() time.Time {
		var at time.Time
		require.NoError(t, pool.QueryRow(ctx, "SELECT lease_until FROM crawl_sources WHERE source_key = 'greenhouse:long'").Scan(&at))
		return at
	}

	done := make(chan error, 1)
	go func() {
		_, err := worker.ReadDue(ctx, tick, true)
		done <- err
	}()
	<-entered
	claimed := leaseUntil()
	require.Eventually(t, func() bool { return leaseUntil().After(claimed) }, 2*time.Minute, 50*time.Millisecond,
		"the worker renews the lease of the source it reads")
	other, err := oltp.ClaimDueSources(ctx, pool, "other", tick, 10, time.Minute, true)
	require.NoError(t, err)
	require.Empty(t, other, "no other worker claims a source whose read goes on")
	letGo()
	require.NoError(t, <-done)
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM crawl_reads WHERE tick = $1", tick).Scan(&n))
	require.Equal(t, 1, n)
}
