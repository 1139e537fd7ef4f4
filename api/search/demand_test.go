package search_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// demandSeries is a markets/role-demand answer.
type demandSeries struct {
	AsOf   time.Time `json:"as_of"`
	Series []struct {
		BucketStart time.Time `json:"bucket_start"`
		Opened      uint64    `json:"opened"`
	} `json:"series"`
}

func TestRoleDemandSumsTheLedgersOpenings(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "growth").Key
	rd, err := analytics.RoleDemand(t.Context(), fx.w.CH, fx.wm)
	require.NoError(t, err)
	ids, _ := normalize.ResolveFunction("Engineering")
	// opened sums the ledger's weekly openings of the functions in fns, in country ("" every one).
	opened := func(fns []string, country string) (n uint64) {
		for _, wk := range rd {
			for _, id := range fns {
				if wk.Function == id && (country == "" || wk.Country == country) {
					n += wk.Opened
				}
			}
		}
		return n
	}
	f := func(q url.Values, want uint64) {
		t.Helper()
		s := apitest.GetJSON[demandSeries](t, fx.srv, "/v1/markets/role-demand", key, q, 200)
		require.True(t, fx.x.CycleTime.Equal(s.AsOf), "as_of is the index's latest committed cycle: %s", s.AsOf)
		var n uint64
		for i, b := range s.Series {
			require.Equal(t, time.Monday, b.BucketStart.Weekday())
			if i > 0 {
				require.Equal(t, s.Series[i-1].BucketStart.AddDate(0, 0, 7), b.BucketStart, "weekly, oldest first, zero-filled")
			}
			n += b.Opened
		}
		require.Equal(t, want, n, "%v", q)
	}
	require.Positive(t, opened(ids, ""))
	f(url.Values{"role": {"Engineering"}}, opened(ids, ""))
	f(url.Values{"role": {"engineering"}, "geo": {"Germany"}}, opened(ids, "Germany"))
	f(url.Values{"role": {ids[0]}}, opened(ids[:1], ""))
}

func TestRoleDemandRejectsBadInput(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "growth").Key
	ids, _ := normalize.ResolveFunction("Engineering")
	f := func(q url.Values, locs ...string) {
		t.Helper()
		r := fx.srv.Get(t, "/v1/markets/role-demand", key, q)
		require.Equal(t, locs, r.Invalid(t).Locs(), "%v: %s", q, r.Body)
	}
	f(url.Values{"role": {"fn_nope"}}, "query.role")
	f(url.Values{"role": {ids[0]}, "geo": {"Elbonia"}}, "query.geo")
}
