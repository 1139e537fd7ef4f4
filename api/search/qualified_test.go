package search_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// qualifiedPage is a reqs/qualified answer.
type qualifiedPage struct {
	Rows       []qualifiedRow       `json:"rows"`
	NextCursor uint64               `json:"next_cursor"`
	Companies  map[string]*struct{} `json:"companies"`
}

type qualifiedRow struct {
	row
	LedgerSeq    uint64 `json:"ledger_seq"`
	Compensation struct {
		FigureUSD *float64 `json:"figure_usd"`
	} `json:"compensation"`
}

// qualifiedQuery is a reqs/qualified body.
type qualifiedQuery struct {
	Criteria     any      `json:"criteria,omitempty"`
	SalaryMinUSD *float64 `json:"salary_min_usd,omitempty"`
	SalaryMaxUSD *float64 `json:"salary_max_usd,omitempty"`
	IncludePulse bool     `json:"include_pulse,omitempty"`
	LiveOnly     *bool    `json:"live_only,omitempty"`
	Exclude      *bool    `json:"exclude_agencies,omitempty"`
	Cursor       uint64   `json:"cursor"`
	Limit        int      `json:"limit"`
}

// pageQualified pages reqs/qualified from q.Cursor until a page is empty or the cursor stops
// moving, and returns the rows and the last cursor.
func pageQualified(t *testing.T, c *caller, q qualifiedQuery) ([]qualifiedRow, uint64) {
	t.Helper()
	var out []qualifiedRow
	for page := 0; ; page++ {
		require.Less(t, page, 10000)
		p := apitest.PostJSON[qualifiedPage](t, c.srv, "/v1/reqs/qualified", c.key, q, 200)
		c.served += len(p.Rows)
		require.GreaterOrEqual(t, p.NextCursor, q.Cursor, "monotone")
		for _, r := range p.Rows {
			require.Greater(t, r.LedgerSeq, q.Cursor)
			if q.IncludePulse {
				require.Contains(t, p.Companies, strconv.FormatUint(r.CompanyID, 10))
			}
		}
		out = append(out, p.Rows...)
		if len(p.Rows) == 0 || p.NextCursor == q.Cursor {
			return out, p.NextCursor
		}
		q.Cursor = p.NextCursor
	}
}

func TestQualifiedRejectsBadInput(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "starter").Key
	f := func(body, loc string) {
		t.Helper()
		r := fx.srv.Post(t, "/v1/reqs/qualified", key, body)
		require.Contains(t, r.Invalid(t).Locs(), loc, "%s: %s", body, r.Body)
	}
	f(`{"criteria":{"req":{"colour":"blue"}}}`, "body.criteria.req.colour")
	f(`{"criteria":{"person":{"name":"x"}}}`, "body.criteria.person")
	f(`{"criteria":{"event":{"function":"Engineering"}}}`, "body.criteria.event.function")
	f(`{"criteria":{"event":{"event_type":"opened"}}}`, "body.criteria.event.event_type")
	f(`{"criteria":{"req":{"function":"Astrology"}}}`, "body.criteria.req.function.0")
	f(`{"criteria":{"req":{"country":"DE"}}}`, "body.criteria.req.country.0")
	f(`{"criteria":{"company":{"headcount_band":["huge"]}}}`, "body.criteria.company.headcount_band.0")
	f(`{"criteria":{"req":{"source_type":"feed"}}}`, "body.criteria.req.source_type.0")
	f(`{"salary_min_usd":200000,"salary_max_usd":100000}`, "body.salary_min_usd")
	f(`{"limit":0}`, "body.limit")
	f(`{"limit":101}`, "body.limit")
	f(`{"colour":"blue"}`, "body.colour")
}

// A cursor ahead of the newest event is no cursor this ledger gave: 422 naming the head, never a
// 200 with no rows that echoes it back (the consumer would stall on it). The head is a cursor.
func TestQualifiedCursorAheadOfTheNewestEventIs422(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	key := fx.srv.Account(t, "starter").Key
	for _, cursor := range []uint64{999999999, fx.wm + 1} {
		r := fx.srv.Post(t, "/v1/reqs/qualified", key, fmt.Sprintf(`{"cursor":%d}`, cursor))
		inv := r.Invalid(t)
		require.Equal(t, []string{"body.cursor"}, inv.Locs())
		require.Equal(t, fmt.Sprintf("cursor %d is ahead of the newest event %d; resume from next_cursor of your last page or 0", cursor, fx.wm), inv.Detail[0].Msg)
		require.EqualValues(t, fx.wm, inv.Detail[0].Ctx["le"])
	}
	p := apitest.PostJSON[qualifiedPage](t, fx.srv, "/v1/reqs/qualified", key, qualifiedQuery{Cursor: fx.wm, Limit: 10}, 200)
	require.Empty(t, p.Rows)
	require.Equal(t, fx.wm, p.NextCursor)
}

// Vocabulary errors come alone, before any other check.
func TestQualifiedVocabularyErrorsComeAlone(t *testing.T) {
	t.Parallel()
	fx := world.Get(t)
	r := fx.srv.Post(t, "/v1/reqs/qualified", fx.srv.Account(t, "starter").Key,
		`{"criteria":{"req":{"colour":"blue","function":"Astrology"}},"salary_min_usd":2,"salary_max_usd":1}`)
	require.Len(t, r.Invalid(t).Detail, 1, "%s", r.Body)
}

func TestQualifiedCriteriaMatchTheLedger(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "starter")
	ids, _ := normalize.ResolveFunction("Engineering")
	rows, _ := pageQualified(t, c, qualifiedQuery{Limit: 37, IncludePulse: true,
		Criteria: map[string]any{"req": map[string]any{"function": []string{"Engineering"}, "q_excludes": []string{"senior"}}}})
	want := map[string]bool{}
	for _, r := range f.all {
		if !r.Live() || f.agency[r.CompanyID] {
			continue
		}
		ok := false
		for _, id := range ids {
			ok = ok || r.Function == id
		}
		if ok && !normalize.MatchAll(normalize.Stems("senior"), normalize.Stems(r.RawTitle)) {
			want[r.ReqKey] = true
		}
	}
	got := map[string]bool{}
	for _, r := range rows {
		got[r.ReqKey] = true
		require.NotContains(t, strings.ToLower(r.RawTitle), "senior")
		require.Equal(t, "Engineering", *r.FunctionName)
	}
	require.Equal(t, want, got)
	c.requireUnits(t)
}

func TestQualifiedPayBand(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "starter")
	lo, hi := 90000.0, 150000.0
	rows, _ := pageQualified(t, c, qualifiedQuery{SalaryMinUSD: &lo, SalaryMaxUSD: &hi, Limit: 100})
	require.NotEmpty(t, rows)
	for _, r := range rows {
		require.NotNil(t, r.Compensation.FigureUSD)
		require.GreaterOrEqual(t, *r.Compensation.FigureUSD, lo)
		require.LessOrEqual(t, *r.Compensation.FigureUSD, hi)
	}
	c.requireUnits(t)
}

// crawlMore serialises the tests that crawl the shared world past its last tick.
var crawlMore struct {
	sync.Mutex
	last int // the last tick crawled (0: worldConfig.Last)
}

// TestQualifiedCursorReturnsOnlyNewReqs crawls the shared world further, so it serves from a
// snapshot of its own; the shared server's snapshot and the fixture's ledger reads stay at the
// original watermark.
func TestQualifiedCursorReturnsOnlyNewReqs(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	crawlMore.Lock()
	defer crawlMore.Unlock()
	srv, snaps := startServer(t, f.w.CH)
	c := newCaller(t, srv, "starter")
	before := map[string]bool{}
	for _, r := range reqsAt(t, f.w.CH, snaps.Current().Watermark) {
		before[r.ReqKey] = true
	}
	_, cursor := pageQualified(t, c, qualifiedQuery{Limit: 100})
	rows, again := pageQualified(t, c, qualifiedQuery{Limit: 100, Cursor: cursor})
	require.Empty(t, rows)
	require.Equal(t, cursor, again)

	if crawlMore.last == 0 {
		crawlMore.last = worldConfig.Last
	}
	for range 6 {
		crawlMore.last++
		f.w.CrawlAt(t, crawlMore.last)
	}
	swapped, err := snaps.Refresh(context.Background(), false)
	require.NoError(t, err)
	require.True(t, swapped)
	rows, _ = pageQualified(t, c, qualifiedQuery{Limit: 100, Cursor: cursor})
	want := map[string]bool{}
	for _, r := range reqsAt(t, f.w.CH, snaps.Current().Watermark) {
		if r.Live() && !before[r.ReqKey] && !f.agency[r.CompanyID] {
			want[r.ReqKey] = true
		}
	}
	require.NotEmpty(t, want)
	got := map[string]bool{}
	for _, r := range rows {
		got[r.ReqKey] = true
	}
	require.Equal(t, want, got)
	c.requireUnits(t)
}
