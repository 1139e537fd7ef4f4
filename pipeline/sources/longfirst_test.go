package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
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

// TestALongChainStartsBeforeTheShortSources: a job-page board of 40 pages (an index page, then
// each job's page linking the next, so they are read one after another) whose key sorts after six
// Greenhouse tenants, read by a worker with one fetch slot. In the first window after the import
// no source's pages are known and the board is read last, in due order. That window tells the
// registry its pages: it is next due at the next window's start, the tenants at their offsets,
// and in the next window the worker starts the board before any tenant.
func TestALongChainStartsBeforeTheShortSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const jobPages = 40
	var mu sync.Mutex
	var hosts []string // the host of each request but robots.txt, in order
	note := func(r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
	}
	page := func(next string) string {
		return `<!DOCTYPE html><html><head><link rel="next" href="` + next + `"></head><body></body></html>`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET jobs.example/jobs", func(w http.ResponseWriter, r *http.Request) {
		note(r)
		if r.URL.Query().Get("page") != "1" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, page("/job/1"))
	})
	mux.HandleFunc("GET jobs.example/job/{id}", func(w http.ResponseWriter, r *http.Request) {
		note(r)
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil || id < 1 || id >= jobPages {
			http.NotFound(w, r)
			return
		}
		if id == jobPages-1 {
			fmt.Fprint(w, `<!DOCTYPE html><html><head></head><body></body></html>`)
			return
		}
		fmt.Fprint(w, page(fmt.Sprintf("/job/%d", id+1)))
	})
	csv := "domain,name,vendor,tenant,hq_country,url,region\n,Jobs Example,jsonld,,,https://jobs.example/jobs?page=1,dach\n"
	for i := range 6 {
		tenant := fmt.Sprintf("tenant%d", i)
		mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/"+tenant+"/jobs", func(w http.ResponseWriter, r *http.Request) {
			note(r)
			fmt.Fprintf(w, `{"jobs":[{"id":%d,"title":"Engineer","absolute_url":"https://job-boards.greenhouse.io/%s/jobs/1","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}],"meta":{"total":1}}`,
				100+i, tenant)
		})
		csv += fmt.Sprintf("%s.de,Tenant %d,greenhouse,%s,DE,,\n", tenant, i, tenant)
	}
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), func(host string) bool { return host == "jobs.example" })
	pool := storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	_, err := sources.Import(ctx, pool, strings.NewReader(csv), sources.ImportOptions{File: "long.csv", By: "test", Apply: true})
	require.NoError(t, err)
	board := "jsonld:jobs.example/jobs?page=1"
	var key string
	require.NoError(t, pool.QueryRow(ctx, `SELECT source_key FROM crawl_sources WHERE kind = 'board'`).Scan(&key))
	require.Equal(t, board, key)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
		Fetch: pipeline.FetchConfig{Workers: 1, ConnectTo: connectTo, CAFile: pem}})
	require.NoError(t, err)
	const tick = 40
	clock := sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}
	worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "w", Clock: clock}
	readWindow := func(tick int) []string {
		t.Helper()
		mu.Lock()
		hosts = nil
		mu.Unlock()
		n, err := worker.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		require.Equal(t, 7, n)
		mu.Lock()
		defer mu.Unlock()
		return hosts
	}

	first := readWindow(tick)
	require.Equal(t, "boards-api.greenhouse.io", first[0], "pages unknown: the due order, by key")
	require.Equal(t, "jobs.example", first[len(first)-1], "pages unknown: the board is read last")
	var pages int
	var due time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT r.pages, s.next_due_at FROM crawl_reads r JOIN crawl_sources s USING (source_key)
		WHERE r.tick = $1 AND r.source_key = $2 AND r.status = 'ok'`, tick, board).Scan(&pages, &due))
	require.GreaterOrEqual(t, pages, oltp.LongSourcePages, "the board's chain is read whole")
	require.WithinDuration(t, clock.Start(tick+1), due, time.Millisecond, "a long source is due at its next window's start")
	tenant := "greenhouse:tenant0"
	require.NoError(t, pool.QueryRow(ctx, `SELECT next_due_at FROM crawl_sources WHERE source_key = $1`, tenant).Scan(&due))
	require.WithinDuration(t, clock.Start(tick+1).Add(clock.Offset(tenant)), due, time.Millisecond, "a short source at its offset")

	next := readWindow(tick + 1)
	require.Equal(t, "jobs.example", next[0], "pages known: the long chain starts first")
	require.Contains(t, next, "boards-api.greenhouse.io")
}
