package search_test

import (
	"context"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// The simulated world: 200 companies crawled for 4 days (32 cycles), so a 24-hour floor matters.
var worldConfig = readmodeltest.Config{Seed: 7, Companies: 200, First: 400, Last: 431, Step: 1}

// fixture is the world crawled once per test binary, a server searching the snapshot built at
// the crawl's end, and the ledger's state at that watermark (the brute-force reference). Tests
// share it read-only: one that crawls further serves from a snapshot of its own (see
// TestQualifiedCursorReturnsOnlyNewReqs) and reads the ledger at watermarks, never "now".
type fixture struct {
	w      *readmodeltest.World
	srv    *apitest.Server
	x      *searchindex.Index
	wm     uint64                       // the ledger watermark the index was built at
	all    []*analytics.Req             // every req at wm, live and closed
	live   map[string]*analytics.Req    // the live ones by req_key
	facts  map[uint64]analytics.Company // company facts by company_id
	agency map[uint64]bool              // companies classified as an agency of some kind
}

var world = apitest.NewShared("search", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, worldConfig)
	srv, snaps := startServer(tb, w.CH)
	f := &fixture{w: w, srv: srv, x: snaps.Current().Index, live: map[string]*analytics.Req{}, facts: map[uint64]analytics.Company{}, agency: map[uint64]bool{}}
	require.NotNil(tb, f.x)
	f.wm = snaps.Current().Watermark
	f.all = reqsAt(tb, w.CH, f.wm)
	for _, r := range f.all {
		if r.Live() {
			f.live[r.ReqKey] = r
		}
	}
	cos, err := analytics.Companies(context.Background(), w.CH)
	require.NoError(tb, err)
	for _, c := range cos {
		f.facts[c.CompanyID] = c
		switch c.AgencyKind {
		case "staffing_agency", "job_board", "aggregator", "subcontractor_network":
			f.agency[c.CompanyID] = true
		}
	}
	return f
})

// startServer serves the search routes from a new read snapshot of ch, built before it returns
// (the one place this package wires its handlers to a server).
func startServer(tb testing.TB, ch driver.Conn) (*apitest.Server, *snapshot.Service) {
	tb.Helper()
	snaps := snapshot.New(snapshot.Config{ClickHouse: ch, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	srv := apitest.StartServer(tb, apitest.Options{DB: "search", Register: func(s *api.Server, _ *pgxpool.Pool) {
		// Parallel tests page at once on two cores under -race: queue rather than answer 503.
		search.Register(s, search.Deps{Snapshots: snaps, QueueWait: time.Minute})
	}})
	return srv, snaps
}

// reqsAt reads every req's state at watermark wm straight from the ledger.
func reqsAt(tb testing.TB, ch driver.Conn, wm uint64) []*analytics.Req {
	tb.Helper()
	var out []*analytics.Req
	require.NoError(tb, analytics.CurrentReqs(context.Background(), ch, wm, func(r *analytics.Req) error {
		out = append(out, r)
		return nil
	}))
	return out
}

// caller is a fresh account on the shared server that counts the rows it was served, to check
// the source_row units metered to it.
type caller struct {
	srv    *apitest.Server
	key    string
	served int
}

func newCaller(t *testing.T, srv *apitest.Server, plan string) *caller {
	t.Helper()
	return &caller{srv: srv, key: srv.Account(t, plan).Key}
}

// requireUnits checks that the caller was metered one source_row per row served.
func (c *caller) requireUnits(t *testing.T) {
	t.Helper()
	require.Equal(t, c.served, c.srv.SourceRows(t, c.key), "source_row units equal rows served")
}
