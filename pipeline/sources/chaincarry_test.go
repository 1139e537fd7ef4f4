package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// jobChain is a job-page board at jobs.example: an index page (/jobs?page=1) linking the first
// job's page, each job's page (/job/ID, one JobPosting of acme.de) linking the next job's. The
// jobs are the ids in jobs, in order; a job taken down is no longer linked (the page before it
// links the one after). onPage, when set, is told each job page asked, before it is answered.
type jobChain struct {
	mu     sync.Mutex
	jobs   []int
	onPage func(id int)
	asked  map[int]int
}

// askedOf is how many times job id's page was asked.
func (b *jobChain) askedOf(id int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked[id]
}

// twice is the job pages asked more than once, sorted.
func (b *jobChain) twice() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int
	for id, n := range b.asked {
		if n > 1 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (b *jobChain) set(jobs []int) { // the board's jobs from now on
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobs = slices.Clone(jobs)
}

// next is the page after job id (0: the index page), "" at the chain's end; ok is false when id
// is not a job of the board.
func (b *jobChain) next(id int) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := 0
	if id != 0 {
		i = slices.Index(b.jobs, id)
		if i < 0 {
			return "", false
		}
		i++
	}
	if i >= len(b.jobs) {
		return "", true
	}
	return fmt.Sprintf("/job/%d", b.jobs[i]), true
}

func (b *jobChain) mux(m *http.ServeMux) {
	page := func(w http.ResponseWriter, next, body string) {
		link := ""
		if next != "" {
			link = `<link rel="next" href="` + next + `">`
		}
		fmt.Fprintf(w, `<!DOCTYPE html><html><head>%s</head><body>%s</body></html>`, link, body)
	}
	m.HandleFunc("GET jobs.example/jobs", func(w http.ResponseWriter, r *http.Request) {
		next, _ := b.next(0)
		page(w, next, "")
	})
	m.HandleFunc("GET jobs.example/job/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		next, ok := b.next(id)
		if err != nil || !ok {
			http.NotFound(w, r)
			return
		}
		b.mu.Lock()
		if b.asked == nil {
			b.asked = map[int]int{}
		}
		b.asked[id]++
		on := b.onPage
		b.mu.Unlock()
		if on != nil {
			on(id)
		}
		page(w, next, fmt.Sprintf(`<script type="application/ld+json">{"@context":"https://schema.org/","@type":"JobPosting",`+
			`"title":"Engineer %d","identifier":{"@type":"PropertyValue","name":"Jobs Example","value":"job-%d"},`+
			`"url":"https://jobs.example/job/%d","datePosted":"2026-11-01",`+
			`"hiringOrganization":{"@type":"Organization","name":"Acme","sameAs":"https://acme.de"},`+
			`"jobLocation":{"@type":"Place","address":{"@type":"PostalAddress","addressLocality":"Berlin","addressCountry":"DE"}}}</script>`,
			id, id, id))
	})
}

// chainWorld is a registry of acme.de (one Greenhouse tenant of one job) and the job-page board
// b, in fresh stores.
func chainWorld(t *testing.T, b *jobChain) (*pgxpool.Pool, driver.Conn, func() *pipeline.Crawler) {
	t.Helper()
	ctx := context.Background()
	mux := http.NewServeMux()
	b.mux(mux)
	mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/acme/jobs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"jobs":[{"id":7,"title":"Designer","absolute_url":"https://job-boards.greenhouse.io/acme/jobs/7","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}],"meta":{"total":1}}`)
	})
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), func(host string) bool { return host == "jobs.example" })
	pool := storetest.Postgres(t, "sources_chain")
	ch, _ := storetest.ClickHouse(t, "sources_chain")
	csv := "domain,name,vendor,tenant,hq_country,url,region\n" +
		"acme.de,Acme,greenhouse,acme,DE,,\n" +
		",Jobs Example,jsonld,,,https://jobs.example/jobs?page=1,dach\n"
	_, err := sources.Import(ctx, pool, strings.NewReader(csv), sources.ImportOptions{File: "chain.csv", By: "test", Apply: true})
	require.NoError(t, err)
	return pool, ch, func() *pipeline.Crawler {
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
			Fetch: pipeline.FetchConfig{Workers: 4, ConnectTo: connectTo, CAFile: pem, Timeout: 15 * time.Second}})
		require.NoError(t, err)
		return c
	}
}

const chainBoard = "jsonld:jobs.example/jobs?page=1"

func ids(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// liveJobs is the board's reqs live in the committed ledger, by their job id, sorted.
func liveJobs(t *testing.T, ch driver.Conn) []int {
	t.Helper()
	rows, err := ch.Query(context.Background(), `SELECT argMax(url, event_seq) FROM events FINAL
		WHERE url LIKE 'https://jobs.example/job/%' GROUP BY req_key HAVING argMax(event_type, event_seq) != 'closed'`)
	require.NoError(t, err)
	defer rows.Close()
	var out []int
	for rows.Next() {
		var url string
		require.NoError(t, rows.Scan(&url))
		id, err := strconv.Atoi(strings.TrimPrefix(url, "https://jobs.example/job/"))
		require.NoError(t, err, url)
		out = append(out, id)
	}
	require.NoError(t, rows.Err())
	slices.Sort(out)
	return out
}

// TestAChainLongerThanAWindowIsCarriedAndClosesOnlyOnceWhole: a job-page board of 30 jobs is read
// whole in its first window; then two of its jobs are taken down and one is added near its start,
// and a window reads at most 12 of its pages. The chain is read over three windows: the two
// partial windows close nothing (every other req of the board stays live, though no one window
// read it all), the job added is opened in the window whose pages showed it, and the window that
// reaches the chain's end closes exactly the two jobs gone. Each window's stored read counts the
// pages that window read, while the registry keeps the chain's pages so far. The carried chain is
// in Postgres between the windows and gone once the chain is whole; one left unread for two
// windows is read again from its first page.
func TestAChainLongerThanAWindowIsCarriedAndClosesOnlyOnceWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &jobChain{}
	b.set(ids(1, 30))
	pool, ch, newCrawler := chainWorld(t, b)
	const tick = 40
	clock := sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}
	c := newCrawler()
	worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "w", Clock: clock, ChainPart: 5}
	var carried []int
	committer := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "c", Clock: clock,
		OnWindow: func(h sources.WindowHealth) { carried = append(carried, h.Carried) }}
	window := func(tick int) (pipeline.CycleStats, string, int) {
		t.Helper()
		n, err := worker.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		require.Equal(t, 2, n, "the tenant and the board, once each")
		var status string
		var pages int
		require.NoError(t, pool.QueryRow(ctx, `SELECT status, pages FROM crawl_reads WHERE tick = $1 AND source_key = $2`, tick, chainBoard).
			Scan(&status, &pages))
		stats, err := committer.Commit(ctx, tick, time.Time{})
		require.NoError(t, err)
		for _, st := range stats {
			if st.Region == "dach" {
				return st, status, pages
			}
		}
		t.Fatal("no dach cycle")
		return pipeline.CycleStats{}, "", 0
	}
	chain := func() *oltp.CrawlChain {
		t.Helper()
		ch, err := oltp.GetChain(ctx, pool, chainBoard)
		require.NoError(t, err)
		return ch
	}
	lastPages := func() int { // the board's pages its schedule goes by (crawl_sources.last_pages)
		t.Helper()
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT last_pages FROM crawl_sources WHERE source_key = $1`, chainBoard).Scan(&n))
		return n
	}

	st, status, pages := window(tick)
	require.Equal(t, pipeline.StatusOK, status, "31 pages, read in parts of 5 inside one window")
	require.Equal(t, 31, pages)
	require.Equal(t, 30, st.ByType["opened"]-1, "every job, and the tenant's")
	require.Equal(t, ids(1, 30), liveJobs(t, ch))
	require.Nil(t, chain(), "a chain read to its end in its window is not carried")

	b.set(append(append([]int{1, 2, 100}, ids(3, 4)...), append(ids(6, 19), ids(21, 30)...)...)) // 5 and 20 gone, 100 new: 29 jobs, 30 pages
	worker.WindowPages = 12
	st, status, pages = window(tick + 1)
	require.Equal(t, pipeline.StatusPartial, status)
	require.Equal(t, 12, pages, "the index page and 11 jobs: 1, 2, 100, 3, 4, 6, ..., 11")
	require.Zero(t, st.ByType["closed"], "a partial chain closes nothing")
	require.Equal(t, 1, st.ByType["opened"], "the job added, on a page read in this window")
	require.Equal(t, []string{chainBoard}, st.CarriedSources)
	require.Equal(t, append(ids(1, 30), 100), liveJobs(t, ch), "jobs 5 and 20 are not on the pages read: unknown, still live")
	carry := chain()
	require.NotNil(t, carry)
	require.Equal(t, 12, carry.Pages)
	require.Equal(t, "https://jobs.example/job/12", carry.Next)
	require.Equal(t, tick+1, carry.StartedTick)
	var due time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT next_due_at FROM crawl_sources WHERE source_key = $1`, chainBoard).Scan(&due))
	require.WithinDuration(t, clock.Start(tick+2), due, time.Millisecond, "a carried chain is due at its next window's start")

	st, status, pages = window(tick + 2)
	require.Equal(t, pipeline.StatusPartial, status)
	require.Equal(t, 12, pages, "12 more, read in this window")
	require.Zero(t, st.ByType["closed"], "still partial: nothing closes")
	require.Equal(t, append(ids(1, 30), 100), liveJobs(t, ch))
	require.Equal(t, 24, chain().Pages)

	st, status, pages = window(tick + 3)
	require.Equal(t, pipeline.StatusOK, status, "the chain's end, three windows after it started")
	require.Equal(t, 6, pages, "the chain's last 6 pages, read in this window")
	require.Equal(t, 30, lastPages(), "the whole chain's, which its schedule goes by")
	require.Equal(t, 2, st.ByType["closed"], "exactly the jobs gone from the whole chain close")
	require.Zero(t, st.ByType["opened"])
	require.Empty(t, st.CarriedSources)
	want := append(append([]int{1, 2, 3, 4}, ids(6, 19)...), ids(21, 30)...)
	require.Equal(t, append(want, 100), liveJobs(t, ch))
	require.Nil(t, chain(), "the chain read whole is no longer carried")
	var parts int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM crawl_chain_parts`).Scan(&parts))
	require.Zero(t, parts)
	require.Equal(t, []int{0, 1, 1, 0}, carried, "what operators see after each commit")

	// A chain left unread for two windows (its source paused, say) starts again at its first page.
	_, status, _ = window(tick + 4)
	require.Equal(t, pipeline.StatusPartial, status)
	_, err := pool.Exec(ctx, `UPDATE crawl_chains SET updated_at = now() - interval '7 hours'`)
	require.NoError(t, err)
	asked := b.askedOf(1)
	worker.WindowPages = 0
	_, status, pages = window(tick + 5)
	require.Equal(t, pipeline.StatusOK, status)
	require.Equal(t, 30, pages)
	require.Equal(t, asked+1, b.askedOf(1), "the stale chain was read again from its start")
	require.Nil(t, chain())
}

// TestAWorkerKilledPartwayThroughAChainLosesAndDoublesNothing: a worker reading a board of 40
// job pages in parts of 8 dies while it asks for the 21st job's page (its context ends: what it
// read after its last recorded part is lost with it). Once its lease lapses another worker claims
// the board, goes on from the 16 pages recorded, and reads it to its end in the same window; the
// ledger is, event for event, that of a world whose board was read in one go, and the board was
// asked for no page twice but those after the last recorded part (the read-ahead's included).
func TestAWorkerKilledPartwayThroughAChainLosesAndDoublesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const tick = 40
	clock := sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}
	at := clock.Start(tick).Add(time.Minute) // the windows' cycle time: the same in both worlds
	crawl := func(kill bool) ([]crawltruth.LedgerRow, []int) {
		b := &jobChain{}
		b.set(ids(1, 39))
		pool, conn, newCrawler := chainWorld(t, b)
		read := func(owner string, wctx context.Context, part int) {
			w := &sources.Crawl{Pool: pool, Crawler: newCrawler(), Codec: pipeline.NewReadCodec(), Owner: owner, Clock: clock, ChainPart: part}
			_, err := w.ReadDue(wctx, tick, true)
			if wctx.Err() == nil {
				require.NoError(t, err)
			}
		}
		if kill {
			dctx, die := context.WithCancel(ctx)
			b.mu.Lock()
			b.onPage = func(id int) {
				if id == 21 {
					die()
				}
			}
			b.mu.Unlock()
			read("dead", dctx, 8)
			b.mu.Lock()
			b.onPage = nil
			b.mu.Unlock()
			ch, err := oltp.GetChain(ctx, pool, chainBoard)
			require.NoError(t, err)
			require.NotNil(t, ch, "the dead worker's recorded parts are kept")
			require.Equal(t, 16, ch.Pages)
			var reads int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM crawl_reads WHERE source_key = $1`, chainBoard).Scan(&reads))
			require.Zero(t, reads, "the board has no read of the window")
			_, err = pool.Exec(ctx, "UPDATE crawl_sources SET lease_until = now() - interval '1 second' WHERE lease_owner = 'dead'")
			require.NoError(t, err)
			read("live", ctx, 8)
		} else {
			read("live", ctx, 1000)
		}
		var status string
		var pages, postings int
		require.NoError(t, pool.QueryRow(ctx, `SELECT status, pages, postings FROM crawl_reads WHERE tick = $1 AND source_key = $2`, tick, chainBoard).
			Scan(&status, &pages, &postings))
		require.Equal(t, pipeline.StatusOK, status)
		require.Equal(t, 40, pages)
		require.Equal(t, 39, postings, "every job once")
		ch, err := oltp.GetChain(ctx, pool, chainBoard)
		require.NoError(t, err)
		require.Nil(t, ch)
		committer := &sources.Crawl{Pool: pool, Crawler: newCrawler(), Codec: pipeline.NewReadCodec(), Owner: "c", Clock: clock}
		_, err = committer.Commit(ctx, tick, at)
		require.NoError(t, err)
		return crawltruth.Ledger(t, conn), b.twice()
	}
	want, once := crawl(false)
	got, asked := crawl(true)
	require.Len(t, want, 40, "39 jobs and the tenant's one")
	require.Equal(t, want, got, "a killed worker's successor goes on from its last part: the ledger of a chain read in one go")
	require.Empty(t, once)
	require.NotEmpty(t, asked, "the pages the dead worker read after its last recorded part are read again")
	require.GreaterOrEqual(t, asked[0], 16, "only the pages after the last recorded part (16 pages: jobs 1 to 15) are asked again")
}

// cycleRow is the counters of the committed cycles row of region at tick.
type cycleRow struct {
	Total, OK, Failed, Carried, Pages uint32
	Postings                          uint64
}

func readCycleRow(t *testing.T, ch driver.Conn, region string, tick int) cycleRow {
	t.Helper()
	var r cycleRow
	require.NoError(t, ch.QueryRow(context.Background(), `SELECT sources_total, sources_ok, sources_failed, sources_carried, pages, postings
		FROM cycles FINAL WHERE region = ? AND tick = ?`, region, uint32(tick)).Scan(&r.Total, &r.OK, &r.Failed, &r.Carried, &r.Pages, &r.Postings))
	return r
}

// TestACarriedChainIsCountedOnceAndNeverAsAFailure: a job-page board of 30 jobs (31 pages, the
// index and one page a job) beside a Greenhouse tenant of one job, read at most 12 pages of the
// board a window, is read over three windows. Each window's cycles row, and the stats its commit
// returns (the metrics' and the log's), count the board as carried while its chain goes on,
// never as failed, and as ok once read to its end; and count each of its pages, and the postings
// on them, in the window that read them: over the three windows the board's 31 pages and 30
// postings, once each, as one read in one go counts them. The registry keeps the chain's pages so
// far, which its schedule (the long sources first) goes by.
func TestACarriedChainIsCountedOnceAndNeverAsAFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &jobChain{}
	b.set(ids(1, 30))
	pool, ch, newCrawler := chainWorld(t, b)
	const tick = 40
	clock := sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}
	c := newCrawler()
	worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "w", Clock: clock, ChainPart: 5, WindowPages: 12}
	committer := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "c", Clock: clock}
	windows := []struct {
		status    string
		row       cycleRow // the tenant's page and posting, and the board's of the window
		lastPages int
	}{
		{pipeline.StatusPartial, cycleRow{Total: 2, OK: 1, Carried: 1, Pages: 1 + 12, Postings: 1 + 11}, 12},
		{pipeline.StatusPartial, cycleRow{Total: 2, OK: 1, Carried: 1, Pages: 1 + 12, Postings: 1 + 12}, 24},
		{pipeline.StatusOK, cycleRow{Total: 2, OK: 2, Pages: 1 + 7, Postings: 1 + 7}, 31},
	}
	var pages, postings int
	for i, w := range windows {
		n, err := worker.ReadDue(ctx, tick+i, true)
		require.NoError(t, err)
		require.Equal(t, 2, n, "window %d: the tenant and the board, once each", i)
		stats, err := committer.Commit(ctx, tick+i, time.Time{})
		require.NoError(t, err)
		var st *pipeline.CycleStats
		for j := range stats {
			if stats[j].Region == "dach" {
				st = &stats[j]
			}
		}
		require.NotNil(t, st, "window %d: no dach cycle", i)
		require.Equal(t, w.row, readCycleRow(t, ch, "dach", tick+i), "window %d: the cycles row", i)
		require.Equal(t, int(w.row.OK), st.SourcesOK, "window %d", i)
		require.Zero(t, st.SourcesFailed, "window %d: a carried chain is no failure", i)
		require.Empty(t, st.FailedSources, "window %d", i)
		require.Equal(t, int(w.row.Carried), st.SourcesCarried, "window %d", i)
		require.Equal(t, int(w.row.Pages), st.Pages, "window %d: the pages read in this window", i)
		require.Equal(t, int(w.row.Postings), st.Postings, "window %d: the postings on them", i)
		var status string
		var lastPages int
		require.NoError(t, pool.QueryRow(ctx, `SELECT r.status, s.last_pages FROM crawl_reads r JOIN crawl_sources s USING (source_key)
			WHERE r.tick = $1 AND r.source_key = $2`, tick+i, chainBoard).Scan(&status, &lastPages))
		require.Equal(t, w.status, status, "window %d", i)
		require.Equal(t, w.lastPages, lastPages, "window %d: the registry keeps the chain's pages so far", i)
		pages += st.Pages - 1
		postings += st.Postings - 1
	}
	require.Equal(t, 31, pages, "the board's pages, each once over the windows")
	require.Equal(t, 30, postings, "the board's postings, each once over the windows")
	require.Equal(t, ids(1, 30), liveJobs(t, ch), "every job opened, none closed")
}
