package bigworld_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/bench/bigworld"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type fixed struct{ s *snapshot.Snapshot }

func (f fixed) Current() *snapshot.Snapshot { return f.s }

type row struct {
	ReqKey       string  `json:"req_key"`
	CompanyID    uint64  `json:"company_id"`
	RawTitle     string  `json:"raw_title"`
	FunctionName *string `json:"function_name"`
	Country      *string `json:"country"`
	Board        string  `json:"board"`
	URL          *string `json:"url"`
}

// A generated world of 10,000 reqs is written once (a rerun writes nothing), the read snapshot
// builds from it with every req, and the API answers its searches and company reads as it would
// a crawled world's.
func TestSmallWorldReadsLikeACrawledOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "bigworld")
	cfg := bigworld.Config{Reqs: 10_000, Seed: 3, Days: 14, Batch: 4_000}
	st, err := bigworld.Generate(ctx, ch, cfg, nil)
	require.NoError(t, err)
	require.Equal(t, 10_000, st.Reqs)
	require.Equal(t, 14*8, st.TicksWritten)
	require.Equal(t, st.Events, st.EventsWritten)
	require.Greater(t, st.Events, st.Reqs, "history: reobserved, closed and reposted events beside the openings")
	require.InDelta(t, 0.88, float64(st.Live)/float64(st.Reqs), 0.05, "most reqs live, some closed")
	require.Less(t, st.WithReqs, st.Companies, "some companies of the directory have no req")

	again, err := bigworld.Generate(ctx, ch, cfg, nil)
	require.NoError(t, err)
	require.Zero(t, again.TicksWritten, "a complete database is left as it is")
	require.Zero(t, again.EventsWritten)
	_, err = bigworld.Generate(ctx, ch, bigworld.Config{Reqs: 20_000, Seed: 3, Days: 14}, nil)
	require.ErrorContains(t, err, "not this world's", "another world is refused, not mixed in")
	var events, keys, cycles uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT count(), uniqExact(req_key) FROM events FINAL").Scan(&events, &keys))
	require.NoError(t, ch.QueryRow(ctx, "SELECT count() FROM cycles").Scan(&cycles))
	require.Equal(t, uint64(st.Events), events)
	require.Equal(t, uint64(st.Reqs), keys, "every req key is distinct, as the crawl's (company, title key, country)")
	require.Equal(t, uint64(st.Cycles), cycles)

	snap, err := snapshot.Build(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, st.Watermark, snap.Watermark)
	is := snap.Index.Stats()
	require.Equal(t, st.Reqs, is.Reqs)
	require.Equal(t, st.Live, is.LiveReqs)
	require.Equal(t, st.Companies, snap.Model.Companies())

	srv := apitest.StartServer(t, apitest.Options{DB: "bigworld", Register: func(srv *api.Server, pool *pgxpool.Pool) {
		search.Register(srv, search.Deps{Snapshots: fixed{snap}})
		companies.Register(srv, companies.Deps{Snapshots: fixed{snap}, Pool: pool, ColdAfter: -1})
	}})
	acct, err := oltp.CreateAccount(ctx, srv.Pool, "enterprise", "bigworld@example.com")
	require.NoError(t, err)
	key := acct.Key

	// reqs/search: companies hiring engineers, each with its matched reqs.
	var reqs struct {
		Companies []struct {
			CompanyID       uint64 `json:"company_id"`
			MatchedReqCount int    `json:"matched_req_count"`
			MatchedReqs     []row  `json:"matched_reqs"`
		} `json:"companies"`
	}
	srv.Get(t, "/v1/reqs/search", key, url.Values{"q": {"engineer"}, "limit": {"20"}}).Decode(t, 200, &reqs)
	require.Len(t, reqs.Companies, 20)
	for _, c := range reqs.Companies {
		require.Positive(t, c.MatchedReqCount)
		require.NotEmpty(t, c.MatchedReqs)
		for _, r := range c.MatchedReqs {
			require.Equal(t, c.CompanyID, r.CompanyID)
			require.Contains(t, strings.ToLower(r.RawTitle), "engineer")
		}
	}

	// jobs/search: one row per req, in a country asked for.
	var jobs struct {
		Jobs []row `json:"jobs"`
	}
	srv.Get(t, "/v1/jobs/search", key, url.Values{"q": {"account executive"}, "geo": {"United States"}, "limit": {"50"}}).Decode(t, 200, &jobs)
	require.NotEmpty(t, jobs.Jobs)
	for _, j := range jobs.Jobs {
		require.Equal(t, "United States", *j.Country)
		require.NotNil(t, j.URL)
	}

	// reqs/qualified: live reqs of one function.
	var q struct {
		Rows []row `json:"rows"`
	}
	srv.Post(t, "/v1/reqs/qualified", key, map[string]any{"criteria": map[string]any{"req": map[string]any{"function": []string{"Engineering"}}},
		"limit": 100}).Decode(t, 200, &q)
	require.Len(t, q.Rows, 100)
	for _, r := range q.Rows {
		require.Equal(t, "Engineering", *r.FunctionName)
	}

	// A company read: the company of the first search hit is hiring, its open reqs counted.
	var hiring struct {
		IsHiring     *bool `json:"is_hiring"`
		OpenReqCount *int  `json:"open_req_count"`
	}
	srv.Get(t, fmt.Sprintf("/v1/companies/%d/is-hiring", reqs.Companies[0].CompanyID), key, nil).Decode(t, 200, &hiring)
	require.True(t, *hiring.IsHiring)
	require.GreaterOrEqual(t, *hiring.OpenReqCount, reqs.Companies[0].MatchedReqCount)
}
