package companies_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// The world: about a hundred days of 80 companies, one cycle every three days.
var worldConfig = readmodeltest.Config{Seed: 5, Companies: 80, First: 100, Last: 100 + 24*34, Step: 24}

// freeIsHiringPerDay is the servers' free-plan is-hiring cap (small, to reach it in a test).
const freeIsHiringPerDay = 3

// fixture is the world crawled once per test binary and a server reading the snapshot built at
// the crawl's end, its wall clock an hour past the model's. Tests share it read-only: one that
// needs another clock or crawls further starts a server of its own (see TestColdCompany...).
type fixture struct {
	w         *readmodeltest.World
	srv       *apitest.Server
	m         *readmodel.Model
	x         *searchindex.Index // the search index of the same build (req links)
	covered   uint64             // a covered company with more than three live reqs
	uncovered uint64             // a company without coverage
}

var world = apitest.NewShared("companies", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, worldConfig)
	srv, snaps, _ := startServer(tb, w)
	f := &fixture{w: w, srv: srv, m: snaps.Current().Model, x: snaps.Current().Index}
	for id := range w.Companies {
		if w.Covered[id] && len(w.Live[id]) > 3 && f.covered == 0 {
			f.covered = id
		}
		if !w.Covered[id] && f.uncovered == 0 {
			f.uncovered = id
		}
	}
	require.NotZero(tb, f.covered)
	require.NotZero(tb, f.uncovered)
	return f
})

// startServer serves the company reads from a new read snapshot of w, built before it returns,
// on a fresh Postgres schema, with the handlers' wall clock an hour past the snapshot (the one
// place this package wires its handlers to a server).
func startServer(tb testing.TB, w *readmodeltest.World) (*apitest.Server, *snapshot.Service, *apitest.Clock) {
	tb.Helper()
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	clock := &apitest.Clock{}
	clock.Set(snaps.Current().AsOf.Add(time.Hour))
	srv := apitest.StartServer(tb, apitest.Options{DB: "companies", Register: func(s *api.Server, pool *pgxpool.Pool) {
		companies.Register(s, companies.Deps{Snapshots: snaps, Pool: pool, Log: apitest.Quiet(), Now: clock.Now, FreeIsHiringPerDay: freeIsHiringPerDay})
	}})
	return srv, snaps, clock
}

func cpath(id uint64, seg string) string { return fmt.Sprintf("/v1/companies/%d/%s", id, seg) }

// segments are the per-company reads.
var segments = []string{"is-hiring", "open-reqs", "enrichment", "hiring-pulse", "first-hire", "repost-pain", "ats-migrations", "pre-action-brief"}

// The answers, as far as the tests read them.
type (
	isHiring struct {
		CompanyID      uint64 `json:"company_id"`
		IsHiring       *bool  `json:"is_hiring"`
		OpenReqCount   *int   `json:"open_req_count"`
		CoverageStatus string `json:"coverage_status"`
		Status         string `json:"status"` // over_cap (202)
	}
	reqRow struct {
		ReqKey       string   `json:"req_key"`
		CompanyID    uint64   `json:"company_id"`
		RawTitle     string   `json:"raw_title"`
		Function     *string  `json:"function"`
		FunctionName *string  `json:"function_name"`
		Country      *string  `json:"country"`
		CountryCode  *string  `json:"country_code"`
		Boards       []string `json:"boards"`
		RepostCount  int      `json:"repost_count"`
		URL          *string  `json:"url"`
	}
	openReqs struct {
		Total *int     `json:"total"`
		Reqs  []reqRow `json:"reqs"`
	}
	pulse struct {
		CoverageStatus string  `json:"coverage_status"`
		OpenReqCount   *int    `json:"open_req_count"`
		Direction      *string `json:"direction"`
		Momentum       []struct {
			Opened int `json:"opened"`
		} `json:"momentum"`
	}
	enrichment struct {
		Name           string   `json:"name"`
		Domain         string   `json:"domain"`
		HQCountry      *string  `json:"hq_country"`
		HQCountryCode  *string  `json:"hq_country_code"`
		CoverageStatus string   `json:"coverage_status"`
		Boards         []string `json:"boards"`
		AgencyKind     *string  `json:"agency_kind"`
	}
	firstHire struct {
		HistoryCapped bool `json:"history_capped"`
		FirstHires    []struct {
			SourceBoard  string    `json:"source_board"`
			FunctionName *string   `json:"function_name"`
			Function     string    `json:"function"`
			FirstSeen    time.Time `json:"first_seen"`
		} `json:"first_hires"`
	}
	repostPain struct {
		Total *int     `json:"total"`
		Reqs  []reqRow `json:"reqs"`
	}
	migrations struct {
		Migrations []struct {
			FromVendor string `json:"from_vendor"`
			ToVendor   string `json:"to_vendor"`
			OccurredAt struct {
				Value      string `json:"value"`
				Source     string `json:"source"`
				ObservedAt string `json:"observed_at"`
			} `json:"occurred_at"`
		} `json:"migrations"`
	}
	brief struct {
		OpenReqs     []reqRow `json:"open_reqs"`
		OpenReqTotal *int     `json:"open_req_total"`
		Pulse        pulse    `json:"pulse"`
		RepostPain   []reqRow `json:"repost_pain"`
	}
	resolved struct {
		Companies []struct {
			CompanyID       uint64  `json:"company_id"`
			CoverageStatus  string  `json:"coverage_status"`
			CountryCode     *string `json:"country_code"`
			MatchConfidence float64 `json:"match_confidence"`
		} `json:"companies"`
	}
	crawling struct {
		JobID  int64  `json:"job_id"`
		Status string `json:"status"`
	}
	crawlJob struct {
		Status    string  `json:"status"`
		ResultURL *string `json:"result_url"`
	}
)
